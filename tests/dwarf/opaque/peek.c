/* SPDX-License-Identifier: GPL-2.0-only */ /* peek.c - only declares struct twice, which state.c and user.c define
 * differently: which one it is cannot be told, and is refused. */
struct twice;

volatile void *seen;

__attribute__((noinline)) void peek_twice(struct twice *t)
{
	seen = t;
}
