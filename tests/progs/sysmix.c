/* SPDX-License-Identifier: GPL-2.0-only */ /* sysmix N [cachestat]: makes known syscalls for the syscalls:* wildcard
 * cases: getppid() N times, getpgid(0) 2N times, close(-1) 3N times (each
 * failing with EBADF), and stat("/") N times through the raw syscall
 * (traced as sys_enter_newstat); with "cachestat", x86-64's syscall 451
 * once on fd -1 (newer than Debian 12's headers).  Prints what a trace
 * must count. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	struct stat st;

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (int i = 0; i < 2 * n; i++)
		syscall(SYS_getpgid, 0);
	for (int i = 0; i < 3 * n; i++)
		syscall(SYS_close, -1);
	for (int i = 0; i < n; i++)
		syscall(SYS_stat, "/", &st);
#if defined(__x86_64__)
	if (argc > 2 && !strcmp(argv[2], "cachestat"))
		syscall(451, -1, NULL, NULL, 0);
#endif
	fprintf(stderr, "getppid=%d getpgid=%d close=%d stat=%d\n", n, 2 * n, 3 * n, n);
	return 0;
}
