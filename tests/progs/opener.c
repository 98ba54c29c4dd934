/* SPDX-License-Identifier: GPL-2.0-only */ /* opener PATH [N]: opens PATH read-only N times (default 1), for
 * tracepoint cases that read a string argument (sys_enter_openat filename).
 * Missing files are fine: the syscall is what is traced. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2)
		return 2;
	for (int i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
	return 0;
}
