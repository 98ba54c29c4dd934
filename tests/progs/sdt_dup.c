/* SPDX-License-Identifier: GPL-2.0-only */ /* sdt_dup N: calls fire(i) N times; fire holds the USDT probe perfrun:dup
 * whose note is there twice at one address (as a marker duplicated where a
 * linker or compiler merges code), written here as sys/sdt.h writes a note.
 * A trace must count N hits, not 2N.  perfrun:once is an ordinary probe
 * beside it (it also defines .stapsdt.base). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#define DUP_NOTE                                                                   \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                              \
	".balign 4\n"                                                              \
	".4byte 992f-991f, 994f-993f, 3\n"                                         \
	"991: .asciz \"stapsdt\"\n"                                                \
	"992: .balign 4\n"                                                         \
	"993: .8byte sdt_dup_pc\n"                                                 \
	".8byte _.stapsdt.base\n"                                                  \
	".8byte 0\n"                                                               \
	".asciz \"perfrun\"\n"                                                     \
	".asciz \"dup\"\n"                                                         \
	".asciz \"\"\n"                                                            \
	"994: .balign 4\n"                                                         \
	".popsection\n"

__attribute__((noipa)) void fire(long i)
{
	STAP_PROBE1(perfrun, once, i);
	__asm__ volatile("sdt_dup_pc: nop\n" DUP_NOTE DUP_NOTE);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	for (long i = 0; i < n; i++)
		fire(i);
	fprintf(stderr, "dup=%ld\n", n);
	return 0;
}
