// SPDX-License-Identifier: GPL-2.0-only
/*
 * cinclude.c - the files a script's #include lines name, checked before
 * libclang reads them (see cinclude.h).
 *
 * System headers (under clang's system directories) are trusted: their
 * own includes are not followed, so <linux/sched.h> costs a handful of
 * stats.  Any other header is read once (it is small, and clang reads it
 * next from the page cache) to check it and to find its own includes.
 */
#define _GNU_SOURCE
#include "cinclude.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

#define CI_DEPTH 32
#define CI_STR2(x) #x
#define CI_STR(x) CI_STR2(x)

/* clang 19's search list on Debian x86-64 (clang -v -E), resource dir first. */
static const char *const ci_sysdirs[] = {
	"/usr/lib/llvm-" CI_STR(LLVM_VERSION_MAJOR) "/lib/clang/" CI_STR(LLVM_VERSION_MAJOR) "/include",
	"/usr/local/include", "/usr/include/x86_64-linux-gnu", "/usr/include",
};

struct ci {
	struct diag *d;
	struct loc at;               /* the script's #include being followed */
	dev_t *dev;
	ino_t *ino;
	int nseen, errors;
};

static bool ci_system(const char *path)
{
	for (size_t i = 0; i < sizeof(ci_sysdirs) / sizeof(ci_sysdirs[0]); i++) {
		size_t n = strlen(ci_sysdirs[i]);
		if (!strncmp(path, ci_sysdirs[i], n) && path[n] == '/' && !strstr(path + n, "/../"))
			return true;
	}
	return false;
}

/* The file `name` names from a file in dir: 0 and path, or -1 (not found). */
static int ci_resolve(const char *name, bool quoted, const char *dir, char *path, size_t len)
{
	struct stat st;

	if (name[0] == '/') {
		snprintf(path, len, "%s", name);
		return lstat(path, &st) ? -1 : 0;
	}
	if (quoted && (size_t)snprintf(path, len, "%s/%s", dir, name) < len && !stat(path, &st))
		return 0;
	for (size_t i = 0; i < sizeof(ci_sysdirs) / sizeof(ci_sysdirs[0]); i++)
		if ((size_t)snprintf(path, len, "%s/%s", ci_sysdirs[i], name) < len &&
		    !stat(path, &st))
			return 0;
	return -1;
}

/* "#include <x>" or "#include "x"" at the start of s: the name, its
 * quoting and where the name's delimiter is; else false. */
static bool ci_directive(const char *s, char *name, size_t len, bool *quoted, int *col)
{
	const char *p = s, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '#')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "include", 7) || isalnum((unsigned char)p[7]) || p[7] == '_')
		return false;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	if (*p != '"' && *p != '<')
		return false;   /* a macro: clang expands it */
	*quoted = *p == '"';
	end = strchr(p + 1, *quoted ? '"' : '>');
	if (!end || end == p + 1 || (size_t)(end - p - 1) >= len || memchr(p, '\n', (size_t)(end - p)))
		return false;
	memcpy(name, p + 1, (size_t)(end - p - 1));
	name[end - p - 1] = '\0';
	*col = (int)(p - s);
	return true;
}

static bool ci_seen(struct ci *c, const struct stat *st)
{
	for (int i = 0; i < c->nseen; i++)
		if (c->dev[i] == st->st_dev && c->ino[i] == st->st_ino)
			return true;
	c->dev = realloc(c->dev, (size_t)(c->nseen + 1) * sizeof(*c->dev));
	c->ino = realloc(c->ino, (size_t)(c->nseen + 1) * sizeof(*c->ino));
	if (!c->dev || !c->ino)
		abort();
	c->dev[c->nseen] = st->st_dev;
	c->ino[c->nseen++] = st->st_ino;
	return false;
}

/* Reads a regular file of at most CI_MAX_SIZE bytes without blocking on
 * a FIFO; NULL with why. */
static char *ci_read(const char *path, struct stat *st, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *buf = NULL;

	if (fd < 0) {
		snprintf(why, len, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode))
		snprintf(why, len, "'%s' is not a regular file", path);
	else if (st->st_size > CI_MAX_SIZE)
		snprintf(why, len, "'%s' is larger than %d MiB", path, CI_MAX_SIZE >> 20);
	else if (!(buf = malloc((size_t)st->st_size + 1)))
		abort();
	size_t got = 0;
	while (buf && got < (size_t)st->st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st->st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (buf) {
		buf[got] = '\0';
		const char *nul = memchr(buf, '\0', got);
		if (nul) {
			snprintf(why, len, "'%s' is not a text file (a NUL byte at offset %zu)", path,
				 (size_t)(nul - buf));
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

static void ci_scan(struct ci *c, const char *path, char *text, int depth);

/* One directive: from (NULL: the script) at its line. */
static void ci_one(struct ci *c, const char *name, bool quoted, const char *from, int line,
		   struct loc at, int depth)
{
	char path[4096], dir[4096], why[4400];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", from ? from : ".");
	if (from)
		*strrchr(dir, '/') = '\0';
	if (ci_resolve(name, quoted, dir, path, sizeof(path)))
		return;
	if (ci_system(path) || (!stat(path, &st) && S_ISREG(st.st_mode) && ci_seen(c, &st)))
		return;
	char *text = ci_read(path, &st, why, sizeof(why));
	if (!text) {
		if (from)
			diag_error(c->d, at, "in %s:%d: #include %c%s%c: %s", from, line,
				   quoted ? '"' : '<', name, quoted ? '"' : '>', why);
		else
			diag_error(c->d, at, "#include: %s", why);
		c->errors++;
		return;
	}
	if (depth < CI_DEPTH)
		ci_scan(c, path, text, depth + 1);
	free(text);
}

/* Follows the includes of a non-system header (its text, cut in lines). */
static void ci_scan(struct ci *c, const char *path, char *text, int depth)
{
	char name[1024];
	bool quoted;
	int col, line = 1;

	for (char *p = text; *p; line++) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (ci_directive(p, name, sizeof(name), &quoted, &col))
			ci_one(c, name, quoted, path, line, c->at, depth);
		if (!nl)
			break;
		p = nl + 1;
	}
}

int ci_check(const struct ct_decl *decls, int n, struct diag *d)
{
	struct ci c = { .d = d };
	char name[1024];
	bool quoted;
	int col;

	for (int i = 0; i < n; i++) {
		if (!ci_directive(decls[i].text, name, sizeof(name), &quoted, &col))
			continue;
		c.at = (struct loc){ decls[i].loc.line, decls[i].loc.col + col,
				     (int)strlen(name) + 2 };
		ci_one(&c, name, quoted, NULL, 0, c.at, 0);
	}
	free(c.dev);
	free(c.ino);
	return c.errors;
}
