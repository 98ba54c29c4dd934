// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_elfsym.c - symbol lookup: a literal name through .gnu.hash finds what
 * reading every symbol finds, patterns and their literal prefix, and 32-bit
 * files (read through gelf rather than in place).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elfsym.h"
#include "unit.h"

/* A pattern that matches exactly name but is not a literal, so that it
 * takes the full scan: "[m]alloc" for "malloc". */
static void scan_pattern(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "[%c]%s", name[0], name + 1);
}

/* Every function of lib found by name (hashed) as by the full scan. */
static void hashed_equals_scan(const char *lib)
{
	struct elfsym *all, *x, *y;
	int n = elfsym_match(lib, "*", &all), bad = 0, checked = 0;
	char pat[512], what[600];

	snprintf(what, sizeof(what), "%s: has functions", lib);
	unit_expect(what, n > 100);
	for (int i = 0; i < n; i++) {
		const char *nm = all[i].name;

		if (strpbrk(nm, "*?[]\\") || strlen(nm) > 400)
			continue;
		scan_pattern(nm, pat, sizeof(pat));
		int nx = elfsym_match(lib, nm, &x), ny = elfsym_match(lib, pat, &y);

		checked++;
		bad += nx != 1 || ny != 1 || x[0].addr != y[0].addr || x[0].offset != y[0].offset;
		elfsym_free(x, nx);
		elfsym_free(y, ny);
	}
	elfsym_free(all, n);
	snprintf(what, sizeof(what), "%s: %d names, hashed lookup = full scan", lib, checked);
	unit_expect(what, checked > 100 && bad == 0);
}

static void test_libc(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct elfsym *s;
	int n;

	if (access(libc, R_OK)) {
		printf("skip: no %s\n", libc);
		return;
	}
	hashed_equals_scan(libc);
	n = elfsym_match(libc, "no_such_function_here", &s);
	unit_expect("absent name: none", n == 0);
	elfsym_free(s, n);
	n = elfsym_match(libc, "mallo?", &s);
	unit_expect("pattern with a prefix", n == 1 && !strcmp(s[0].name, "malloc"));
	elfsym_free(s, n);
	n = elfsym_match(libc, "*alloc", &s);
	unit_expect("pattern without a prefix", n >= 3);
	elfsym_free(s, n);
}

/* An object of the given word size with functions g and f (f not at 0). */
static int make_object(const char *path, const char *mflag)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "printf 'int g(void){return 2;}\\nint f(void){return 1;}\\n' | "
		 "${CC:-cc} %s -x c -c -o %s - 2>/dev/null", mflag, path);
	return system(cmd);
}

static void test_word_sizes(void)
{
	static const char *const flags[] = { "-m64", "-m32" };
	char path[] = "/tmp/pr-elfsym-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	close(fd);
	for (int i = 0; i < 2; i++) {
		struct elfsym *s;
		char what[64];

		if (make_object(path, flags[i])) {
			printf("skip: the C compiler cannot build %s objects\n", flags[i]);
			continue;
		}
		int n = elfsym_match(path, "f", &s);

		snprintf(what, sizeof(what), "%s object: f found", flags[i]);
		unit_expect(what, n == 1 && s[0].addr != 0);
		elfsym_free(s, n);
	}
	unlink(path);
}

/* tests/dwarf/twocu: a static helper() in each of two units.  By name
 * there is one; by address (a raw uprobe address in the second) both. */
static void test_same_name(void)
{
	char path[] = "/tmp/pr-elfsym-XXXXXX", cmd[512];
	struct elfsym *s;
	int fd = mkstemp(path), n, helpers = 0;

	if (fd < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd), "${CC:-cc} -O0 -o %s tests/dwarf/twocu/a_part.c "
		 "tests/dwarf/twocu/b_part.c 2>/dev/null", path);
	if (system(cmd)) {
		printf("skip: cannot build tests/dwarf/twocu\n");
		unlink(path);
		return;
	}
	n = elfsym_match(path, "helper", &s);
	unit_expect("same-named statics: one by name", n == 1);
	elfsym_free(s, n);
	n = elfsym_every(path, &s);
	for (int i = 0; i < n; i++)
		helpers += !strcmp(s[i].name, "helper");
	unit_expect("same-named statics: elfsym_every keeps both", helpers == 2);
	elfsym_free(s, n);
	unlink(path);
}

int main(void)
{
	test_libc();
	test_word_sizes();
	test_same_name();
	return unit_summary();
}
