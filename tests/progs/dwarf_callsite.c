/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_callsite.c - a parameter gcc -O2 drops from a clone
 * (use.constprop.0.isra.0) and describes by DW_OP_GNU_parameter_ref: the
 * first call site gives its value (&a), the second does not (a pointer
 * read from a volatile global).  A trace must read t->v = 7 at the first
 * call and skip, counted, the second: never a guess.
 */
#include <stdio.h>

struct node {
	int v;
	struct node *l;
};

static struct node a = { 7, 0 }, b = { 5, 0 };
struct node *volatile gp = &b;
volatile long sink;

__attribute__((noinline)) static long use(const struct node *t, int k)
{
	sink = t->v + k;
	return k;
}

int main(void)
{
	long r = use(&a, 3);
	struct node *p = gp;

	r += use(p, 3);
	printf("%ld\n", r);
	return 0;
}
