// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema_call.c - builtin functions: their arguments' count and types, the
 * printf family's formats against their arguments, and the result type of
 * each call (check_call).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/bpf.h>

#include "ctypes.h"
#include "dwarf.h"
#include "lib/elfsym.h"
#include "lib/fmtspec.h"
#include "kbtf.h"
#include "lexer.h"
#include "builtin.h"
#include "sema_int.h"

/* An argument that must be a string literal, typed as the string it is;
 * else the error FMT at it. */
/* The text of $N, of $N + k past its first k bytes (a string parameter
 * only: of a number it is arithmetic), else NULL. */
static const char *param_text(struct sctx *c, const struct node *a)
{
	const char *v;

	if (a->kind == N_POSITIONAL && (!a->name || strcmp(a->name, "#")))
		return sema_param(c->s, a);
	if (a->kind != N_BINOP || a->op != '+' || a->a->kind != N_POSITIONAL ||
	    a->b->kind != N_INT || (a->a->name && !strcmp(a->a->name, "#")))
		return NULL;
	v = sema_param(c->s, a->a);
	if (is_number(v))
		return NULL;
	return v + (a->b->ival < strlen(v) ? a->b->ival : strlen(v));
}

bool param_as_str(struct sctx *c, struct node *n)
{
	struct node *a = n->kind == N_CALL && bi_lookup(n->name) == bi_row(BI_STR) ? n->list : NULL;
	const char *v = a ? param_text(c, a) : NULL;
	size_t len;

	if (!v || (a->next && a->next->kind != N_INT) || (a->next && a->next->next))
		return false;
	len = strlen(v);
	if (a->next && a->next->ival < len)
		len = a->next->ival;
	char *text = strndup(v, len);

	if (!text)
		abort();
	ast_free(a->next);   /* the length, if any */
	ast_free(a);
	n->list = NULL;
	free(n->name);
	n->name = text;
	n->len = len;
	n->kind = N_STR;
	n->bi = BI_NONE;
	return true;
}

bool str_literal(struct sctx *c, struct node *a, const char *fmt, ...)
{
	va_list ap;

	param_as_str(c, a);   /* kaddr(str($1)), as bpftrace takes it */
	if (a->kind == N_STR) {
		set_type(a, type_str(a->len + 1));
		return true;
	}
	va_start(ap, fmt);
	verr(c, a->loc, fmt, ap);
	va_end(ap);
	return false;
}

/* ---- calls ---- */

bool need_args(struct sctx *c, struct node *n, int min, int max)
{
	int k = ast_count(n->list);

	if (k >= min && k <= max)
		return true;
	if (min == max)
		err(c, n->loc, "%s() takes %d argument%s, not %d", n->name, min,
		    min == 1 ? "" : "s", k);
	else
		err(c, n->loc, "%s() takes %d to %d arguments, not %d", n->name, min, max, k);
	return false;
}

/* The argument count of the row of n's builtin (builtin.h). */
bool bi_args(struct sctx *c, struct node *n)
{
	const struct bi_row *r = bi_row(n->bi);

	return need_args(c, n, r->min_args, r->max_args);
}

struct node *arg(struct node *n, int i)
{
	struct node *a = n->list;

	while (a && i--)
		a = a->next;
	return a;
}

bool int_arg(struct sctx *c, struct node *n, int i)
{
	struct node *a = arg(n, i);
	const struct type *t = check_expr(c, a);

	if (!t)
		return false;
	if (!type_is_int(t) && t->kind != T_PTR) {
		err(c, a->loc, "argument %d of %s() must be an integer", i + 1, n->name);
		return false;
	}
	return true;
}

bool const_arg(struct sctx *c, struct node *n, int i, int64_t *v)
{
	struct node *a = arg(n, i);

	if (!check_expr(c, a))
		return false;
	if (a->kind != N_INT) {
		err(c, a->loc, "argument %d of %s() must be a constant", i + 1, n->name);
		return false;
	}
	*v = (int64_t)a->ival;
	return true;
}

/* Checks a printf-style format against the arguments after it; the
 * grammar of one conversion is fmtspec.c's, shared with the printer. */
static void check_format(struct sctx *c, struct node *call, struct node *fmt, struct node *args)
{
	const char *p = fmt->name, *end = fmt->name + fmt->len;
	struct node *a = args;
	int want = 0, have = ast_count(args);
	char b1[64];

	for (; p < end; p++) {
		const char *spec = p;
		const struct type *t;
		struct fmt_spec sp;
		enum fs_status st;

		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		p = fs_parse(p + 1, end, &sp, &st);
		if (st == FS_TOO_LARGE) {
			err(c, fmt->loc, "width or precision in '%.*s' is larger than %d",
			    (int)(p - spec), spec, INT_MAX);
			return;
		}
		if (st == FS_BAD_CONV) {
			err(c, fmt->loc, "bad conversion '%.*s' in format",
			    (int)(p - spec + (p < end && isgraph((unsigned char)*p))), spec);
			return;
		}
		want++;
		if (!a)
			continue;
		t = a->type;
		if (sp.conv == 'r') {
			if (!t || t->kind != T_UFMT || t->ufmt != UF_BUF) {
				err(c, a->loc, "%%r needs a buf() value");
				return;
			}
			a = a->next;
			continue;
		}
		/* %f %e %g take a float, or an integer converted as C would. */
		bool fconv = fs_is_float(sp.conv);
		if (t && fconv && !type_is_int(t) && t->kind != T_FLOAT) {
			err(c, a->loc, "%%%c needs a number, not %s", sp.conv, tname(t, b1, sizeof(b1)));
			return;
		}
		if (t && t->kind == T_FLOAT && !fconv && sp.conv != 's') {
			err(c, a->loc, "%%%c needs an integer, not %s; print it with %%f, %%g or %%e", sp.conv,
			    tname(t, b1, sizeof(b1)));
			return;
		}
		if (t && !fconv && sp.conv != 's' && !type_is_int(t) && t->kind != T_PTR &&
		    t->kind != T_KSYM && t->kind != T_USYM && t->kind != T_FLOAT) {
			err(c, a->loc, "%%%c needs an integer, not %s", sp.conv, tname(t, b1, sizeof(b1)));
			return;
		}
		a = a->next;
	}
	if (want != have)
		err(c, call->loc, "format has %d conversion%s but %d argument%s follow%s", want,
		    want == 1 ? "" : "s", have, have == 1 ? "" : "s", have == 1 ? "s" : "");
}

const struct type *check_printf(struct sctx *c, struct node *n)
{
	struct node *fmt = n->list;
	bool is_system = n->bi == BI_SYSTEM;

	if (is_system && !c->o->unsafe) {
		err(c, n->loc, "system() runs commands as root; pass --unsafe to allow it");
		return NULL;
	}
	if (!fmt || fmt->kind != N_STR) {
		err(c, fmt ? fmt->loc : n->loc, "the first argument of %s() must be a string literal",
		    n->name);
		return NULL;
	}
	if (ast_count(n->list) > 17) {
		err(c, n->loc, "%s() takes at most 16 arguments after the format", n->name);
		return NULL;
	}
	set_type(fmt, type_str(fmt->len + 1));
	for (struct node *a = fmt->next; a; a = a->next) {
		const struct type *t = check_expr(c, a);

		if (!t)
			return NULL;
		t = array_as_str(c, a, t);
		if (!storable(t)) {
			char b1[64];

			err(c, a->loc, "%s cannot be printed", tname(t, b1, sizeof(b1)));
			return NULL;
		}
	}
	check_format(c, n, fmt, fmt->next);
	return type_void();
}

static bool map_arg(struct sctx *c, struct node *n, bool keys_ok)
{
	struct node *m = n->list;

	if (!m || m->kind != N_MAP || (!keys_ok && m->list)) {
		err(c, m ? m->loc : n->loc, "%s() takes a map%s", n->name,
		    keys_ok ? " element" : " without keys");
		return false;
	}
	return true;
}

/* has_key(@m, k) and delete(@m, k) of newer bpftrace: the key moves into
 * the map node, as delete(@m[k]) of 0.17 has it; ival marks the call as
 * done, for the second walk. */
static bool map_key_args(struct sctx *c, struct node *n)
{
	struct node *m = n->list;

	if (n->ival || !m || m->kind != N_MAP || m->list || !m->next)
		return true;
	if (m->next->next) {
		err(c, m->next->next->loc, "%s(@map, key) takes one key; a map with several keys "
		    "is not supported here yet", n->name);
		return false;
	}
	m->list = m->next;
	m->next = NULL;
	n->ival = 1;
	return true;
}

const struct type *check_has_key(struct sctx *c, struct node *n)
{
	if (!n->ival && !bi_args(c, n))
		return NULL;
	if (!map_key_args(c, n))
		return NULL;
	if (!n->list->list) {
		err(c, n->list->loc, "has_key() takes a map and a key");
		return NULL;
	}
	int mi = map_get(c, n->list);
	map_keys(c, n->list, mi);
	return type_truth();
}

/* offsetof(struct X, a.b): a constant (the parser made the path a string). */
const struct type *check_offsetof(struct sctx *c, struct node *n)
{
	struct node *what = n->list, *path = what ? what->next : NULL;
	const struct type *t;
	uint64_t off = 0;
	char buf[256];

	if (!path || path->kind != N_STR || path->next) {
		err(c, n->loc, "offsetof() takes a struct and a field: offsetof(struct X, field)");
		return NULL;
	}
	if (what->kind == N_TYPENAME) {
		t = what->ival ? NULL : cast_type(c, what);
		if (!t) {
			err(c, what->loc, "unknown struct '%s'", what->name);
			return NULL;
		}
	} else if (!(t = check_expr(c, what))) {
		return NULL;
	}
	snprintf(buf, sizeof(buf), "%s", path->name);
	for (char *save = NULL, *f = strtok_r(buf, ".", &save); f; f = strtok_r(NULL, ".", &save)) {
		const struct field *fd;

		type_complete(t);
		if (t->kind != T_RECORD || !(fd = type_field(t, f))) {
			err(c, path->loc, "%s has no field '%s'", t->name ? t->name : "this type", f);
			return NULL;
		}
		off += fd->offset;
		t = fd->type;
	}
	for (struct node *a = n->list, *nx; a; a = nx) {
		nx = a->next;
		ast_free(a);
	}
	n->list = NULL;
	fold_to_int(n, (int64_t)off);
	return type_int(8, false);
}

/* print(args) at uprobes: every variable in scope at each site, so each
 * site gets its own program (the list differs between sites). */
static const struct type *check_print_args(struct sctx *c, struct node *m)
{
	for (int i = 0; i < c->cur->nprobes; i++) {
		struct probe *p = c->cur->probes[i];

		for (int j = 0; j < p->nsites; j++)
			if (!p->sites[j].dw) {
				err(c, m->loc, "args needs debuginfo, and %s has none at %s; read arg0..arg5 instead", p->path,
				    p->sites[j].func);
				return NULL;
			}
	}
	c->cur->per_site = c->cur->dwarf_site = true;
	return type_void();
}

const struct type *check_print(struct sctx *c, struct node *n)
{
	struct node *m = n->list;
	int64_t v;

	if (!need_args(c, n, 1, 3))
		return NULL;
	if (m->kind == N_MAP && !m->list) {
		int mi = map_get(c, m);   /* may move c->s->maps */
		const struct type *mt = c->s->maps[mi].value;

		for (int i = 1; arg(n, i); i++)
			if (!const_arg(c, n, i, &v))
				return NULL;
		if (!c->quiet && arg(n, 1) && mt && mt->kind == T_AGG && mt->agg == AGG_STATS)
			diag_warn(c->d, n->loc, "print()'s top and div arguments are ignored "
				  "for stats() maps");
		return type_void();
	}
	if (!need_args(c, n, 1, 1))
		return NULL;
	check_expr(c, m);
	if (m->type && m->type->kind == T_ARGS && !m->type->fields)
		return check_print_args(c, m);
	/* A struct or array of the traced program: copied whole, printed as a
	 * record (codegen's cg_print_place). */
	if (m->type && (m->type->kind == T_RECORD || m->type->kind == T_ARRAY) && is_place(m) &&
	    (probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE)) ||
	     (probe_is(c, K(PK_KPROBE)) && kernel_dwarf_sites(c)))) {
		if (m->type->size == 0 || m->type->size > 1024) {
			err(c, m->loc, "only values of 1 to 1024 bytes can be printed");
			return NULL;
		}
		return type_void();
	}
	if (m->type && !storable(m->type) && !(agg_copyable(m->type) && agg_source(c, m))) {
		char b1[64];

		err(c, m->loc, "%s cannot be printed", tname(m->type, b1, sizeof(b1)));
		return NULL;
	}
	return m->type ? type_void() : NULL;
}

const struct type *check_str(struct sctx *c, struct node *n)
{
	int64_t len = c->s->cfg.max_strlen;
	const struct type *t;

	if (param_as_str(c, n))   /* str($1) of a number too, as in bpftrace */
		return type_str(n->len + 1);
	if (!bi_args(c, n))
		return NULL;
	t = check_expr(c, n->list);
	if (!t)
		return NULL;
	if (arg(n, 1)) {
		if (!const_arg(c, n, 1, &len))
			return NULL;
		if (len < 1 || len > (c->s->cfg.max_strlen > 200 ? c->s->cfg.max_strlen : 200)) {
			err(c, arg(n, 1)->loc, "str() length must be between 1 and %u",
			    c->s->cfg.max_strlen > 200 ? c->s->cfg.max_strlen : 200);
			return NULL;
		}
	}
	/* A string value is whole without a length (nothing is read, so the
	 * read limit does not apply); one longer than a given length is cut
	 * there with the mark, as a read would be. */
	if (t->kind == T_STR)
		return !arg(n, 1) || t->size <= len ? t : type_str_read((unsigned)len);
	if (t->kind == T_ARRAY && is_place(n->list) && t->elem && t->elem->size == 1)
		/* every element and a NUL: the read stops one short of the size */
		return type_str(t->size && t->size <= len ? t->size + 1 : len);
	if (!type_is_int(t) && t->kind != T_PTR) {
		char b1[64];

		err(c, n->list->loc, "str() takes a pointer or a string, not %s",
		    tname(t, b1, sizeof(b1)));
		return NULL;
	}
	return type_str_read(len);
}

/* tseries(v, interval, n[, "avg"|"max"|"min"|"sum"]) (newer bpftrace): the
 * interval in ns (a duration literal), 1 to 1000 intervals kept. */
static const struct type *check_tseries(struct sctx *c, struct node *n)
{
	static const char *const aggs[] = { [TS_AVG] = "avg", [TS_MAX] = "max",
					     [TS_MIN] = "min", [TS_SUM] = "sum" };
	int64_t iv = 0, num = 0, mode = TS_LAST;
	struct node *a = arg(n, 3);

	if (!need_args(c, n, 3, 4) || !int_arg(c, n, 0) || !const_arg(c, n, 1, &iv) ||
	    !const_arg(c, n, 2, &num))
		return NULL;
	if (iv <= 0) {
		err(c, arg(n, 1)->loc, "tseries()'s interval must be above 0 (e.g. 100ms)");
		return NULL;
	}
	if (num < 1 || num > 1000) {
		err(c, arg(n, 2)->loc, "tseries() keeps 1 to 1000 intervals");
		return NULL;
	}
	if (a) {
		mode = -1;
		for (int i = TS_AVG; a->kind == N_STR && i <= TS_SUM; i++)
			if (!strcmp(a->name, aggs[i]))
				mode = i;
		if (mode < 0) {
			err(c, a->loc, "tseries()'s aggregation is \"avg\", \"max\", \"min\" "
			    "or \"sum\"");
			return NULL;
		}
		set_type(a, type_str(a->len + 1));
	}
	return type_agg(AGG_TSERIES, mode, num, iv);
}

const struct type *check_agg(struct sctx *c, struct node *n, enum agg_kind k)
{
	int64_t lo = 0, hi = 0, step = 0;

	if (k == AGG_COUNT)
		return need_args(c, n, 0, 0) ? type_agg(k, 0, 0, 0) : NULL;
	if (k == AGG_LHIST) {
		if (!need_args(c, n, 4, 4) || !int_arg(c, n, 0) || !const_arg(c, n, 1, &lo) ||
		    !const_arg(c, n, 2, &hi) || !const_arg(c, n, 3, &step))
			return NULL;
		if (step <= 0 || hi <= lo || (hi - lo) / step > 10000) {
			err(c, n->loc, "lhist() needs min < max, step > 0 and at most 10000 buckets");
			return NULL;
		}
		return type_agg(k, lo, hi, step);
	}
	if (k == AGG_TSERIES)
		return check_tseries(c, n);
	if (k == AGG_HIST && arg(n, 1)) {
		/* hist(x, k), newer bpftrace: 2^k buckets per power of two */
		if (!need_args(c, n, 1, 2) || !int_arg(c, n, 0) || !const_arg(c, n, 1, &step))
			return NULL;
		if (step < 0 || step > 5) {
			err(c, arg(n, 1)->loc, "hist()'s second argument, k, is 0 to 5");
			return NULL;
		}
		return type_agg(k, 0, 0, step);
	}
	if (!need_args(c, n, 1, 1) || !int_arg(c, n, 0))
		return NULL;
	return type_agg(k, 0, 0, 0);
}

/* bswap(x): the bytes of x reversed at x's own width, unsigned. */
const struct type *check_bswap(struct sctx *c, struct node *n)
{
	const struct type *t;

	if (!bi_args(c, n))
		return NULL;
	t = check_expr(c, n->list);
	if (!t)
		return NULL;
	if (t->kind != T_INT) {
		char b1[64];

		err(c, n->list->loc, "bswap() takes an integer, not %s", tname(t, b1, sizeof(b1)));
		return NULL;
	}
	return type_int(t->size, false);
}

/* The first two arguments of n are strings (char arrays read as ones). */
static bool check_two_strings(struct sctx *c, struct node *n)
{
	for (int i = 0; i < 2; i++) {
		struct node *a = arg(n, i);
		const struct type *t = check_expr(c, a);

		if (!t)
			return false;
		t = array_as_str(c, a, t);
		if (t->kind != T_STR) {
			err(c, a->loc, "argument %d of %s() must be a string", i + 1, n->name);
			return false;
		}
	}
	return true;
}

/* strncmp(a, b, n): 0 when the first n bytes (up to a NUL) agree, else 1. */
const struct type *check_strncmp(struct sctx *c, struct node *n)
{
	int64_t len;

	if (!bi_args(c, n))
		return NULL;
	if (!check_two_strings(c, n))
		return NULL;
	if (!const_arg(c, n, 2, &len))
		return NULL;
	if (len < 0) {
		err(c, arg(n, 2)->loc, "strncmp() needs a length of 0 or more");
		return NULL;
	}
	return type_int(8, true);
}

/* debugf(fmt, ...): bpf_trace_printk(), to the kernel's trace_pipe, with
 * bpftrace 0.17's warning; at most 3 arguments (the helper's limit). */
const struct type *check_debugf(struct sctx *c, struct node *n)
{
	struct node *fmt = n->list;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, fmt, "the format of debugf() must be a string literal"))
		return NULL;
	for (struct node *a = fmt->next; a; a = a->next) {
		const struct type *t = check_expr(c, a);

		if (!t)
			return NULL;
		t = array_as_str(c, a, t);
		if (!type_is_int(t) && t->kind != T_PTR && t->kind != T_STR) {
			char b1[64];

			err(c, a->loc, "debugf() prints integers and strings, not %s",
			    tname(t, b1, sizeof(b1)));
			return NULL;
		}
	}
	check_format(c, n, fmt, fmt->next);
	if (!c->quiet)
		diag_warn(c->d, n->loc, "The debugf() builtin is not recommended for production use. "
			  "For more information see bpf_trace_printk in bpf-helpers(7).");
	return type_void();
}

/* join(argv [, sep]): a statement, as in bpftrace 0.17; argv is an
 * array of string pointers ending in NULL, sep a string literal. */
const struct type *check_join(struct sctx *c, struct node *n)
{
	const struct type *t;
	struct node *sep;

	if (!bi_args(c, n))
		return NULL;
	t = check_expr(c, n->list);
	if (!t)
		return NULL;
	if (t->kind != T_PTR && !type_is_int(t)) {
		char b1[64];

		err(c, n->list->loc, "join() takes an array of string pointers, not %s",
		    tname(t, b1, sizeof(b1)));
		return NULL;
	}
	sep = arg(n, 1);
	if (sep && !str_literal(c, sep, "the separator of join() must be a string literal"))
		return NULL;
	return type_void();
}

/* strcontains(haystack, needle): two strings, an int 0 or 1. */
const struct type *check_strcontains(struct sctx *c, struct node *n)
{
	if (!bi_args(c, n))
		return NULL;
	if (!check_two_strings(c, n))
		return NULL;
	return type_int(8, true);
}

/* strftime(fmt, nsecs): the boot-time stamp, formatted when printed. */
const struct type *check_strftime(struct sctx *c, struct node *n)
{
	struct node *fmt = n->list;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, fmt, "the first argument of strftime() must be a string literal"))
		return NULL;
	if (!int_arg(c, n, 1))
		return NULL;
	return type_ufmt(UF_STRFTIME, 8, fmt->name);
}

/* pton("1.2.3.4"), pton("::1"): the address's bytes, found when
 * compiling; only ntop() takes them yet. */
const struct type *check_pton(struct sctx *c, struct node *n)
{
	unsigned char buf[16];
	struct node *a = n->list;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, a, "pton() takes a string literal"))
		return NULL;
	bool v6 = strchr(a->name, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, a->name, buf) != 1) {
		err(c, a->loc, "'%s' is not an IPv%d address", a->name, v6 ? 6 : 4);
		return NULL;
	}
	return type_array(type_int(1, false), v6 ? 16 : 4);
}

enum agg_kind agg_of(const char *name)
{
	const struct bi_row *r = bi_lookup(name);

	/* the rows COUNT..TSERIES are in enum agg_kind's order */
	_Static_assert(BI_TSERIES - BI_COUNT == AGG_TSERIES - AGG_COUNT, "agg rows");
	return r && (r->flags & BI_AGG) ? (enum agg_kind)(AGG_COUNT + (r->id - BI_COUNT)) :
	       AGG_NONE;
}

/* Newer bpftrace takes pid() for pid, comm() for comm, and so on for each
 * builtin without arguments: the call becomes the identifier. */
static bool call_as_ident(const struct node *n)
{
	return !n->list && bi_is(n->bi, BI_AS_IDENT);
}

/* The value of --name[=value] on the command line, "" for a bare --name,
 * NULL if it is not there. */
static const char *named_param(struct sctx *c, const char *name)
{
	size_t l = strlen(name);

	for (int i = 0; i < c->o->nnamed; i++) {
		const char *w = c->o->named[i] + 2;

		if (!strncmp(w, name, l) && (w[l] == '=' || !w[l]))
			return w[l] ? w + l + 1 : "";
	}
	return NULL;
}

/*
 * getopt("name", default) (newer bpftrace): --name=value after "--" on the
 * command line, typed as the default (a number, a string, true/false), or
 * a bool without one.  Folded into the literal it stands for.
 */
const struct type *check_getopt(struct sctx *c, struct node *n)
{
	struct node *a = n->list, *def = a ? a->next : NULL;
	const char *v;
	char *end;
	int64_t x = 0;
	const struct bi_row *dr = def && def->kind == N_IDENT ? bi_lookup(def->name) : NULL;
	bool is_bool = !def || (dr && (dr->id == BI_TRUE || dr->id == BI_FALSE));

	if (!bi_args(c, n))
		return NULL;
	if (a->kind != N_STR || (def && def->kind != N_STR && def->kind != N_INT && !is_bool &&
				 !(def->kind == N_UNOP && def->op == '-' && def->a->kind == N_INT))) {
		err(c, n->loc, "getopt() takes a parameter's name and a default: a number, "
		    "a string, true or false");
		return NULL;
	}
	v = named_param(c, a->name);
	if (def && def->kind == N_STR) {
		const char *s = v ? v : def->name;
		char *copy = strdup(s);

		if (!copy)
			abort();
		free(n->name);
		n->kind = N_STR;
		n->name = copy;
		n->len = strlen(copy);
		n->list = NULL;
		ast_free(def);
		ast_free(a);
		return type_str(n->len + 1);
	}
	if (is_bool) {
		x = v ? strcmp(v, "false") && strcmp(v, "0") : dr && dr->id == BI_TRUE;
	} else if (v) {
		errno = 0;
		x = strtoll(v, &end, 0);
		if (!*v || *end || errno) {
			err(c, a->loc, "--%s=%s: getopt(\"%s\") takes a number here", a->name, v,
			    a->name);
			return NULL;
		}
	} else {
		check_expr(c, def);
		x = def->kind == N_INT ? (int64_t)def->ival : 0;
	}
	n->list = NULL;
	if (def)
		ast_free(def);
	ast_free(a);
	free(n->name);
	n->name = NULL;
	fold_to_int(n, x);
	return is_bool ? type_truth() : type_int(8, true);
}

/* ---- the functions' check hooks that are a few lines (builtin.h) ---- */

const struct type *check_agg_call(struct sctx *c, struct node *n)
{
	err(c, n->loc, "%s() must be assigned to a map: @x = %s(...)", n->name, n->name);
	return NULL;
}

const struct type *check_ksym(struct sctx *c, struct node *n)
{
	return bi_args(c, n) && int_arg(c, n, 0) ? type_ksym() : NULL;
}

const struct type *check_usym(struct sctx *c, struct node *n)
{
	return bi_args(c, n) && int_arg(c, n, 0) ? type_usym() : NULL;
}

/* unwatch(addr): the watchpoints at addr stop */
const struct type *check_unwatch(struct sctx *c, struct node *n)
{
	return bi_args(c, n) && int_arg(c, n, 0) ? type_void() : NULL;
}

/* dw_ustack(MODE): ustack(MODE) */
const struct type *check_dw_ustack(struct sctx *c, struct node *n)
{
	free(n->name);
	n->name = strdup("ustack");
	if (!n->name)
		abort();
	n->bi = BI_USTACK;
	return check_stack_call(c, n);
}

const struct type *check_cgroup_path(struct sctx *c, struct node *n)
{
	struct node *flt = arg(n, 1);

	if (!bi_args(c, n) || !int_arg(c, n, 0))
		return NULL;
	if (flt && !str_literal(c, flt, "the filter of cgroup_path() must be a string literal"))
		return NULL;
	/* printed in user space from the id, when it is printed (bpftrace 0.17) */
	return type_ufmt(UF_CGPATH, 8, flt ? flt->name : NULL);
}

const struct type *check_syscall_name(struct sctx *c, struct node *n)
{
	return bi_args(c, n) && int_arg(c, n, 0) ? type_ufmt(UF_SYSCALL, 8, NULL) : NULL;
}

const struct type *check_strerror(struct sctx *c, struct node *n)
{
	return bi_args(c, n) && int_arg(c, n, 0) ? type_ufmt(UF_STRERROR, 8, NULL) : NULL;
}

const struct type *check_exit(struct sctx *c, struct node *n)
{
	c->s->has_exit = true;
	/* exit(code), newer bpftrace: perf-run's exit status */
	return bi_args(c, n) && (!n->list || int_arg(c, n, 0)) ? type_void() : NULL;
}

const struct type *check_time(struct sctx *c, struct node *n)
{
	struct node *a = n->list;

	if (!bi_args(c, n))
		return NULL;
	if (a && a->kind != N_STR) {
		err(c, a->loc, "time() takes a string literal");
		return NULL;
	}
	return type_void();
}

/* len(@m), newer bpftrace: the map's elements */
const struct type *check_len(struct sctx *c, struct node *n)
{
	if (!bi_args(c, n) || !map_arg(c, n, false))
		return NULL;
	int mi = map_get(c, n->list);
	if (!c->quiet && (!c->s->maps[mi].key_set || !c->s->maps[mi].key)) {
		err(c, n->list->loc, "len() takes a map with keys; @%s has none",
		    n->list->name);
		return NULL;
	}
	return type_int(8, true);
}

const struct type *check_delete(struct sctx *c, struct node *n)
{
	if (!map_key_args(c, n) || !bi_args(c, n) || !map_arg(c, n, true))
		return NULL;
	int mi = map_get(c, n->list);
	if (mi >= 0)
		c->s->maps[mi].deleted = true;
	map_keys(c, n->list, mi);
	return type_void();
}

/* clear(@m), zero(@m) */
const struct type *check_clear(struct sctx *c, struct node *n)
{
	if (!bi_args(c, n) || !map_arg(c, n, false))
		return NULL;
	map_get(c, n->list);
	return type_void();
}

const struct type *check_no_call(struct sctx *c, struct node *n)
{
	err(c, n->loc, "unknown function '%s'", n->name);
	return NULL;
}

/* ---- the hooks by id ---- */

static const struct {
	bi_check_fn ident, call;
} hooks[BI__COUNT] = {
#define BI_HOOKS(id, nm, min, max, fl, ident_fn, call_fn) [BI_##id] = { ident_fn, call_fn },
	BI_TABLE(BI_HOOKS)
#undef BI_HOOKS
};

bi_check_fn sema_ident_hook(int id)
{
	return id > BI_NONE && id < BI__COUNT ? hooks[id].ident : check_no_ident;
}

/* A call: a builtin function, checked by its row's hook (builtin.h). */
const struct type *check_call(struct sctx *c, struct node *n)
{
	const struct bi_row *r = bi_lookup(n->name);

	n->bi = r ? r->id : BI_NONE;
	if (call_as_ident(n)) {
		n->kind = N_IDENT;
		return check_ident(c, n);
	}
	if (ctx_refused(c, n) || elf32_refused(c, n))
		return NULL;
	if (!r)
		return check_no_call(c, n);
	if (r->flags & BI_ACTION)
		c->s->has_actions = true;
	return hooks[r->id].call(c, n);
}
