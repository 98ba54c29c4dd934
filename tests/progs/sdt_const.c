/* SPDX-License-Identifier: GPL-2.0-only */ /* sdt_const: fires the USDT probe perfrun:konst once with constant
 * arguments of narrow types, which compilers write into the note as
 * immediates ("1@$-1" for an unsigned char 255): a trace must see 255,
 * 65535, -1 and 4294967295, as printed here. */
#include <stdio.h>
#include <sys/sdt.h>

int main(void)
{
	STAP_PROBE4(perfrun, konst, (unsigned char)255, (unsigned short)65535, (signed char)-1,
		    (unsigned int)4294967295u);
	fprintf(stderr, "konst 255 65535 -1 4294967295\n");
	return 0;
}
