/* SPDX-License-Identifier: GPL-2.0-only */ /* loop N: calls func(i) for i in 0..N-1 through run(); the probe target
 * of most runtime cases.  func returns i * 2, so over loop N the arguments
 * sum to N(N-1)/2 and the return values to N(N-1).  It prints those totals
 * to stderr as it computed them, so a case can cross-check its expectation
 * against the program rather than against the tracer. */
#include <stdio.h>
#include <stdlib.h>

/* noipa: no inlining, no cloning (func.constprop), no dropping of calls
 * whose result looks unused; the probed symbol stays exactly `func`. */
__attribute__((noipa)) int func(int i)
{
	return i * 2;
}

__attribute__((noipa)) long run(int n, long *argsum)
{
	long ret = 0;

	for (int i = 0; i < n; i++) {
		*argsum += i;
		ret += func(i);
	}
	return ret;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long argsum = 0, ret;

	ret = run(n, &argsum);
	fprintf(stderr, "calls=%d sum=%ld ret=%ld\n", n, argsum, ret);
	return 0;
}
