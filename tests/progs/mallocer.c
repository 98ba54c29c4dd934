/* SPDX-License-Identifier: GPL-2.0-only */ /* mallocer [SECONDS]: malloc(4242) and free every millisecond for SECONDS
 * (default 30): a long-running target for -p PID with probes on libc. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	time_t end = time(NULL) + secs;

	while (time(NULL) < end) {
		/* volatile: the compiler may otherwise pair and drop malloc/free. */
		char *volatile p = malloc(4242);

		p[0] = 1;
		free(p);
		usleep(1000);
	}
	return 0;
}
