/* SPDX-License-Identifier: GPL-2.0-only */ /* state.c - defines struct lstate, which user.c only declares (as Lua's
 * lua_State is declared in most of its units): a probe in user.c reads
 * L->hook through the definition here, as gdb does.  Also a union and a
 * struct defined differently in two units (ambiguous: refused). */
#include <stdio.h>

struct lstate {
	int top;
	long hook;
	const char *name;
};

struct twice { int a; };                /* user.c defines it otherwise */

int use_state(struct lstate *L, int k);
int use_twice(struct twice *t);
void peek_twice(struct twice *t);

int main(void)
{
	struct lstate s = { 0, 0, "main" };
	struct twice t = { 7 };
	int sum = 0;

	for (int k = 1; k <= 3; k++) {
		s.top = k;
		s.hook = 100 * k;
		fprintf(stderr, "use_state top=%d hook=%ld\n", s.top, s.hook);
		sum += use_state(&s, k);
	}
	sum += use_twice(&t);
	peek_twice(&t);
	return sum == 0;
}
