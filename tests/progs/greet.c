/* SPDX-License-Identifier: GPL-2.0-only */ /* greet N: calls greet(name) N times with a fixed string and handle(r)
 * with r->len = 1..N, for str() of a user pointer and DWARF arguments
 * (args.name, args.r->len).  Prints what a trace must see to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
	int len;
	const char *name;
};

const char greeting[] = "hello, perf-run";

__attribute__((noipa)) int greet(const char *name)
{
	return (int)strlen(name);
}

__attribute__((noipa)) int handle(struct req *r)
{
	return r->len + (int)strlen(r->name);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long lensum = 0, total = 0;
	/* A uprobe's BPF program cannot fault a page in, so str(name) at the
	 * first greet() would read nothing: touch the string's page first. */
	const char *volatile page = greeting;

	if (!page[0])
		return 1;
	for (int i = 0; i < n; i++) {
		struct req r = { .len = i + 1, .name = "req" };

		total += greet(greeting);
		total += handle(&r);
		lensum += r.len;
	}
	fprintf(stderr, "greet=%s calls=%d lensum=%ld total=%ld\n", greeting, n, lensum, total);
	return 0;
}
