/* SPDX-License-Identifier: GPL-2.0-only */ /* user.c - only declares struct lstate (its definition is in state.c). */
typedef struct lstate lstate;
struct twice { long b, c; };            /* not state.c's struct twice */

volatile int sink;

__attribute__((noinline)) int use_state(lstate *L, int k)
{
	sink = k;
	return k;
}

__attribute__((noinline)) int use_twice(struct twice *t)
{
	sink = (int)t->b;
	return sink;
}
