// rust_names N: Rust names for demangling: shop::Cart::add and
// shop::Cart::total, called N times each from main.  Built twice
// (mk/progs-extra.mk): rust_names with rustc's legacy mangling
// (_ZN...17h<hash>E), rust_names_v0 with v0 (_R...).  Prints the calls and
// the sum a trace must see.
mod shop {
    pub struct Cart {
        sum: i64,
    }

    impl Cart {
        pub fn new() -> Cart {
            Cart { sum: 0 }
        }

        #[inline(never)]
        pub fn add(&mut self, price: i64) -> i64 {
            self.sum += price;
            self.sum
        }

        #[inline(never)]
        pub fn total(&self) -> i64 {
            self.sum
        }
    }
}

fn main() {
    let n: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut cart = shop::Cart::new();
    let mut seen = 0;
    for i in 0..n {
        cart.add(std::hint::black_box(i));
        seen += std::hint::black_box(cart.total());
    }
    eprintln!("calls={} sum={} seen={}", n, cart.total(), seen);
}
