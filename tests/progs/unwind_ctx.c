/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_ctx N: runs ctx_a on a stack of its own (makecontext) whose
 * end, an unmapped guard page, lies a few hundred bytes above ctx_leaf's
 * frame; ctx_a -> ctx_b -> ctx_leaf, N times.  A user stack read there
 * cannot take the top 1 KB in one read.  Built -O2 without frame
 * pointers.  Prints "ctx calls=N sum=S". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#define KEEP __attribute__((noipa))

static ucontext_t main_ctx, run_ctx;
static long n_calls, sum;

KEEP long ctx_leaf(long x)
{
	return x * 5 + 2;
}

KEEP long ctx_b(long x)
{
	return ctx_leaf(x + 1) * 3;   /* work after the call: no tail call */
}

KEEP void ctx_a(void)
{
	for (long i = 0; i < n_calls; i++)
		sum += ctx_b(i) - 1;
}

int main(int argc, char **argv)
{
	size_t page = 4096;
	char *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	n_calls = argc > 1 ? atol(argv[1]) : 3;
	if (m == MAP_FAILED || mprotect(m + 2 * page, page, PROT_NONE))
		return 1;
	getcontext(&run_ctx);
	/* the stack is the two pages below the guard; ctx_a starts near its top */
	run_ctx.uc_stack.ss_sp = m;
	run_ctx.uc_stack.ss_size = 2 * page;
	run_ctx.uc_link = &main_ctx;
	makecontext(&run_ctx, ctx_a, 0);
	if (swapcontext(&main_ctx, &run_ctx))
		return 1;
	fprintf(stderr, "ctx calls=%ld sum=%ld\n", n_calls, sum);
	return 0;
}
