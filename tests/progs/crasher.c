/* crasher SIG: dies of signal SIG (default SIGSEGV) with its default action,
 * for the report of a command that did not exit on its own. */
#include <signal.h>
#include <stdlib.h>
// SPDX-License-Identifier: GPL-2.0-only
int main(int argc, char **argv)
{
	int sig = argc > 1 ? atoi(argv[1]) : SIGSEGV;

	signal(sig, SIG_DFL);
	raise(sig);
	return 0;
}
