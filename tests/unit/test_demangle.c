/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * test_demangle.c - lib/demangle.h's two forms of C++ and Rust names:
 * bpftrace's whole name and perf's short one, against what c++filt,
 * bpftrace 0.17 and perf script print for the same symbols.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "lib/demangle.h"
#include "unit.h"

static void expect(const char *mangled, enum dm_form f, const char *want)
{
	char *got = dm_demangle(mangled, f);
	char name[256];

	snprintf(name, sizeof(name), "%s (%s)", mangled, f == DM_FULL ? "full" : "short");
	if (!want)
		unit_expect(name, !got);
	else
		unit_expect_str(name, got, want);
	free(got);
}

static void test_itanium(void)
{
	expect("_ZNK4shop4Cart5totalEi", DM_FULL, "shop::Cart::total(int) const");
	expect("_ZNK4shop4Cart5totalEi", DM_SHORT, "shop::Cart::total");
	expect("_ZN4shop4Cart3addEPKci", DM_FULL, "shop::Cart::add(char const*, int)");
	expect("_ZN4shop4Cart3addEPKci", DM_SHORT, "shop::Cart::add");
	/* a template's return type is part of bpftrace's name, not of perf's */
	expect("_ZN4shop5twiceIiEET_S1_", DM_FULL, "int shop::twice<int>(int)");
	expect("_ZN4shop5twiceIiEET_S1_", DM_SHORT, "shop::twice<int>");
	expect("_Z3foov", DM_FULL, "foo()");
	expect("_Z3foov", DM_SHORT, "foo");
	/* a data symbol has no parameters to drop */
	expect("_ZTVN4shop4CartE", DM_SHORT, "vtable for shop::Cart");
	expect("_ZN4shop4CartC2Ei", DM_SHORT, "shop::Cart::Cart");
	/* nested template arguments closed "> >", as perf script, bpftrace
	 * 0.17 and c++filt print them (LLVM's demangler writes ">>") */
	expect("_ZNSt6thread11_State_implINS_8_InvokerISt5tupleIJPFvPvES3_EEEEE6_M_runEv", DM_SHORT,
	       "std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(void*), void*> > >"
	       "::_M_run");
	/* operator>> keeps its name */
	expect("_ZStrsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_RS3_", DM_FULL,
	       "std::basic_istream<char, std::char_traits<char> >& std::operator>><char, "
	       "std::char_traits<char> >(std::basic_istream<char, std::char_traits<char> >&, char&)");
}

static void test_rust(void)
{
	/* legacy: the hash suffix and rustc's escapes go */
	expect("_ZN4core3fmt5write17h0123456789abcdefE", DM_FULL, "core::fmt::write");
	expect("_ZN4core3fmt5write17h0123456789abcdefE", DM_SHORT, "core::fmt::write");
	expect("_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop"
	       "17h0123456789abcdefE", DM_FULL, "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
	expect("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
	       DM_SHORT, "std::rt::lang_start::{{closure}}");
	/* v0 */
	expect("_RNvCs1234_7mycrate3foo", DM_FULL, "mycrate::foo");
	expect("_RNvCs1234_7mycrate3foo", DM_SHORT, "mycrate::foo");
}

static void test_not_mangled(void)
{
	expect("main", DM_FULL, NULL);
	expect("__libc_start_main", DM_SHORT, NULL);
	expect("_Zgarbage", DM_FULL, NULL);
	expect("_R", DM_FULL, NULL);
	expect("", DM_FULL, NULL);
	unit_expect("NULL is no name", !dm_demangle(NULL, DM_FULL) && !dm_is_mangled(NULL));
	unit_expect("_Z is mangled", dm_is_mangled("_Z3foov"));
	unit_expect("main is not", !dm_is_mangled("main"));
}

int main(void)
{
	test_itanium();
	test_rust();
	test_not_mangled();
	return unit_summary();
}
