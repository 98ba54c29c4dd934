/* SPDX-License-Identifier: GPL-2.0-only */ /* execer N PROG [ARGS...]: calls efunc(i) N times, then replaces itself
 * with PROG (same pid): a traced command that execs another program. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noipa)) int efunc(int i)
{
	return i * 3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		efunc(i);
	fprintf(stderr, "execer calls=%d\n", n);
	if (argc > 2) {
		execv(argv[2], &argv[2]);
		perror("execv");
		return 127;
	}
	return 0;
}
