/* spin [MS]: burns MS milliseconds (default 1000) of its own CPU time in
 * user space, so that profile:hz:N sees about N * MS / 1000 samples of it
 * however busy the machine is. */
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000, end = now_ms() + ms;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	return 0;
}
