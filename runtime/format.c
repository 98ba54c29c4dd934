// SPDX-License-Identifier: GPL-2.0-only
/*
 * format.c - printf-style formatting of record arguments and the text of
 * typed values.  We parse the conversions ourselves rather than hand the
 * user's format to the C library: the argument types come from the
 * compiler, not from the format, so each conversion is rebuilt with a
 * length modifier that matches the value we pass.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <bpf/bpf.h>

#include "lib/fmtspec.h"
#include "lib/sysnames.h"
#include "cgpath.h"
#include "format.h"
#include "symbols.h"

void fmt_init(struct fmt_buf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
	fmt_reset(b);
}

void fmt_free(struct fmt_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void fmt_grow(struct fmt_buf *b, size_t need)
{
	if (b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s)
		abort();   /* out of memory while printing: nothing sensible to do */
	b->s = s;
	b->cap = cap;
}

void fmt_reset(struct fmt_buf *b)
{
	fmt_grow(b, 0);
	b->len = 0;
	b->s[0] = 0;
}

void fmt_putn(struct fmt_buf *b, const char *s, size_t n)
{
	fmt_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void fmt_putc(struct fmt_buf *b, char c)
{
	fmt_putn(b, &c, 1);
}

void fmt_puts(struct fmt_buf *b, const char *s)
{
	fmt_putn(b, s, strlen(s));
}

void fmt_addf(struct fmt_buf *b, const char *fmt, ...)
{
	va_list ap, aq;
	/* No caller passes NULL (the format attribute checks them), but
	 * UBSan's nonnull-attribute check makes a path on which vsnprintf
	 * gets a NULL format, and -Wformat-truncation warns of it: this
	 * return ends that path. */
	if (!fmt)
		return;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		fmt_grow(b, (size_t)n);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, aq);
		b->len += (size_t)n;
	}
	va_end(aq);
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 if there is none. */
static int fmt_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int i = 1; i < n; i++)
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
	return n;
}

/* JSON wants UTF-8: a byte that starts no well-formed sequence becomes
 * U+FFFD, the replacement character, rather than invalid output. */
void fmt_json_str(struct fmt_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int n;
		switch (c) {
		case '"': fmt_puts(b, "\\\""); break;
		case '\\': fmt_puts(b, "\\\\"); break;
		case '\n': fmt_puts(b, "\\n"); break;
		case '\t': fmt_puts(b, "\\t"); break;
		case '\r': fmt_puts(b, "\\r"); break;
		default:
			if (c < 0x20) {
				fmt_addf(b, "\\u%04x", c);
			} else if (c < 0x80) {
				fmt_putc(b, (char)c);
			} else if ((n = fmt_utf8_len((const unsigned char *)s)) > 0) {
				fmt_putn(b, s, (size_t)n);
				s += n - 1;
			} else {
				fmt_puts(b, "\\ufffd");
			}
		}
	}
}

int64_t fmt_int(const struct type *t, const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	unsigned size = t && t->size && t->size < 8 ? t->size : 8;
	if (size == 8 || (t && (t->kind == T_BOOL)))
		return (int64_t)v;
	unsigned sh = 64 - 8 * size;
	if (t && t->is_signed)
		return (int64_t)(v << sh) >> sh;
	return (int64_t)((v << sh) >> sh);
}

/* A T_FLOAT's value from its bits (4 or 8 bytes at p, as the program
 * stored them). */
static double fmt_float_of(const struct type *t, const void *p)
{
	if (t->size == 4) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	double d;
	memcpy(&d, p, 8);
	return d;
}

/* As gdb prints them: the shortest %g that reads back as the same float
 * (9 digits) or double (17), so 0.1 shows as 0.10000000000000001. */
static void fmt_float(struct fmt_buf *b, const struct type *t, const void *p)
{
	fmt_addf(b, t->size == 4 ? "%.9g" : "%.17g", fmt_float_of(t, p));
}

static bool fmt_unsigned(const struct type *t)
{
	return t && (t->kind == T_PTR || ((t->kind == T_INT || t->kind == T_ENUM) &&
					  !t->is_signed));
}

/* One frame of ustack(perf), as bpftrace and perf script print it:
 * "\tADDR func+off (object)", "\tADDR 0xADDR ([unknown])" if unnamed. */
/*
 * Text a traced process chooses (a string it holds, its comm, a symbol
 * name in its binary) never reaches the terminal as control characters:
 * an escape sequence would rewrite the screen, a newline in a map key or
 * a frame would forge a line of output.  Each is written as C writes it
 * (\n, \r, \x1b); a tab stays, and so does a newline where the script
 * prints a string of its own choosing (newlines false: keys and names).
 */
static void fmt_escaped(struct fmt_buf *b, const char *s, size_t n, bool newlines)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch >= 0x20 && ch != 0x7f) || ch == '\t' || (ch == '\n' && newlines))
			continue;
		fmt_putn(b, s + run, i - run);
		run = i + 1;
		if (ch == '\n')
			fmt_puts(b, "\\n");
		else if (ch == '\r')
			fmt_puts(b, "\\r");
		else
			fmt_addf(b, "\\x%02x", ch);
	}
	fmt_putn(b, s + run, n - run);
}

static void fmt_name(struct fmt_buf *b, const char *name)
{
	fmt_escaped(b, name, strlen(name), false);
}

const char *fmt_symname(const struct fmt_ctx *c, const char *name, bool perf_form)
{
	return c && c->demangle && c->sym ? sym_demangled(c->sym, name, perf_form) : name;
}

static void fmt_perf_frame(struct fmt_buf *b, const struct type *t, pid_t pid, uint64_t ip,
			   const char *name, uint64_t off, const struct fmt_ctx *c)
{
	const char *mod = t->is_user && c->sym ? sym_user_module(c->sym, pid, ip) : NULL;

	if (t->is_user)
		ip = pr_uw_addr(ip);   /* without its object's tag */
	fmt_addf(b, "\t%llx ", (unsigned long long)ip);
	if (name) {
		fmt_name(b, name);
		fmt_addf(b, "+%llu", (unsigned long long)off);
	} else {
		fmt_addf(b, "0x%llx", (unsigned long long)ip);
	}
	if (t->is_user)   /* bpftrace 0.17 names no module for a kernel frame */
		fmt_addf(b, " (%s)", name && mod ? mod : "[unknown]");
	fmt_putc(b, '\n');
}

static const char *fmt_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A function inlined at ip: `name [inlined]` (with -v its line), or in
 * perf's lines "\tADDR name+OFF (inlined)" and its line below, as perf
 * script -F +srcline prints it (the offset is the containing symbol's). */
static void fmt_inlined(struct fmt_buf *b, const struct type *t, uint64_t ip,
			const struct sym_frame *f, uint64_t off, bool lines, int indent,
			const struct fmt_ctx *c)
{
	const char *name = fmt_symname(c, f->name, false);

	if (t->perf_mode) {
		fmt_addf(b, "\t%llx ", (unsigned long long)(t->is_user ? pr_uw_addr(ip) : ip));
		fmt_name(b, name);
		fmt_addf(b, "+%llu (inlined)\n", (unsigned long long)off);
		if (f->file[0])
			fmt_addf(b, "  %s:%d\n", fmt_base(f->file), f->line);
		return;
	}
	fmt_addf(b, "%*s", indent, "");
	fmt_name(b, name);
	fmt_puts(b, " [inlined]");
	if (lines && f->file[0])
		fmt_addf(b, " (%s:%d)", f->file, f->line);
	fmt_putc(b, '\n');
}

int fmt_stack_fd(const struct fmt_ctx *c, const struct type *t)
{
	if (!c)
		return -1;
	/* 0 is stdin, never a map: a context that does not set it has none */
	if (t->is_user && c->ustack_fd > 0)
		return c->ustack_fd;
	if (t->frames && t->frames < FMT_MAX_FRAMES && c->stack_n_fds &&
	    c->stack_n_fds[t->frames] > 0)
		return c->stack_n_fds[t->frames];
	return c->stack_fd;
}

static void fmt_stack(struct fmt_buf *b, const struct type *t, uint64_t v,
		      const struct fmt_ctx *c)
{
	uint32_t id = (uint32_t)v;
	pid_t pid = (pid_t)(v >> 32);
	uint64_t ips[FMT_MAX_FRAMES];
	int indent = c && c->stack_indent ? c->stack_indent : 8;

	if (t->is_user && id == PR_UW_ID_FULL) {
		fmt_addf(b, "\n%*s%s\n", indent, "", PR_UW_ID_FULL_NOTE);
		return;
	}
	if (fmt_stack_fd(c, t) < 0 || (int32_t)id < 0)
		return;
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(fmt_stack_fd(c, t), &id, ips) || !ips[0])
		return;   /* no frames: bpftrace prints nothing at all */
	fmt_putc(b, '\n');
	for (int i = 0; i < FMT_MAX_FRAMES && ips[i] && (!t->frames || i < t->frames); i++) {
		uint64_t off = 0;
		const char *name = NULL, *note = t->is_user ? sym_user_note(ips[i]) : NULL;
		if (note) {   /* where the unwinder stopped, and why */
			fmt_addf(b, "%*s%s\n", t->perf_mode ? 0 : indent, t->perf_mode ? "\t" : "", note);
			continue;
		}
		if (c->sym)
			name = t->is_user ? sym_user(c->sym, pid, ips[i], &off)
					  : sym_kernel(c->sym, ips[i], &off);
		const char *shown = name && t->is_user ? fmt_symname(c, name, false) : name;
		/* functions inlined there, from DWARF; a caller's at its call */
		struct sym_frame inl[FMT_MAX_INLINED + 1];
		int ni = name && t->is_user ?
			 sym_user_inlined(c->sym, pid, ips[i] - (i > 0), inl, FMT_MAX_INLINED + 1) : -1;
		bool lines = c->src_lines || t->perf_mode;
		for (int k = 0; k < ni; k++)
			fmt_inlined(b, t, ips[i], &inl[k], off, lines, indent, c);
		if (t->perf_mode) {
			fmt_perf_frame(b, t, pid, ips[i], shown, off, c);
			if (ni >= 0 && inl[ni].file[0])
				fmt_addf(b, "  %s:%d\n", fmt_base(inl[ni].file), inl[ni].line);
			continue;
		}
		fmt_addf(b, "%*s", indent, "");
		if (name) {
			fmt_name(b, shown);
			fmt_addf(b, "+%llu", (unsigned long long)off);
		} else
			fmt_addf(b, "0x%llx", (unsigned long long)(t->is_user ? pr_uw_addr(ips[i]) : ips[i]));
		int line = 0;
		const char *file = c->src_lines && c->sym && t->is_user ?
				   (ni >= 0 && inl[ni].file[0] ? (line = inl[ni].line, inl[ni].file)
							       : sym_user_line(c->sym, pid, ips[i], &line))
				   : NULL;
		if (file)
			fmt_addf(b, " (%s:%d)", file, line);
		fmt_putc(b, '\n');
	}
}

static const char *fmt_site_name(const struct program *p, uint64_t tagged)
{
	uint64_t pi = (tagged & ~PR_SITE_TAG) >> 32, si = tagged & 0xffffffffu;

	if (pi >= (uint64_t)p->nprobes || si >= (uint64_t)p->probes[pi]->nsites)
		return NULL;
	return p->probes[pi]->sites[si].func;
}

static void fmt_sym(struct fmt_buf *b, const struct type *t, const void *p,
		    const struct fmt_ctx *c)
{
	uint64_t addr, pid = 0, off;
	const char *name = NULL;

	memcpy(&addr, p, 8);
	if (t->kind == T_USYM)
		memcpy(&pid, (const char *)p + 8, 8);
	if (t->kind == T_USYM && (addr & PR_SITE_TAG) && c && c->prog)
		name = fmt_site_name(c->prog, addr);
	else if (c && c->sym)
		name = t->kind == T_USYM ? sym_user(c->sym, (pid_t)pid, addr, &off)
					 : sym_kernel(c->sym, addr, &off);
	if (name)
		fmt_name(b, t->kind == T_USYM ? fmt_symname(c, name, false) : name);
	else
		fmt_addf(b, "0x%llx", (unsigned long long)addr);
}

static void fmt_enum(struct fmt_buf *b, const struct type *t, int64_t v)
{
	for (int i = 0; i < t->nenums; i++)
		if (t->enums[i].value == v) {
			fmt_puts(b, t->enums[i].name);
			return;
		}
	fmt_addf(b, "%lld", (long long)v);
}

/* A bitfield of a record copied from the traced program (DWARF types):
 * bit 0 of its storage unit is the least significant. */
static void fmt_bitfield(struct fmt_buf *b, const struct field *f, const char *p)
{
	uint64_t v = 0;
	unsigned bytes = (f->bit_offset + f->bit_size + 7u) / 8u, sh = 64u - f->bit_size;
	memcpy(&v, p, bytes <= 8 ? bytes : 8);
	v = (v << (sh - f->bit_offset));
	bool sgn = f->type && f->type->is_signed;
	int64_t x = sgn ? (int64_t)v >> sh : (int64_t)(v >> sh);
	if (f->type && f->type->kind == T_ENUM)
		fmt_enum(b, f->type, x);
	else if (sgn)
		fmt_addf(b, "%lld", (long long)x);
	else
		fmt_addf(b, "%llu", (unsigned long long)x);
}

static void fmt_record(struct fmt_buf *b, const struct type *t, const char *p,
		       const struct fmt_ctx *c)
{
	/* bpftrace 0.17: a struct value prints `{ .a = 1, .p = 94... }` (a
	 * pointer as a number), a struct key `{.a=1,.p=0x...}`; print(args)
	 * keeps pointers in hex. */
	bool key = c && c->key, ptr_num = !key && t->kind == T_RECORD && !(c && c->gdb_ptrs);
	fmt_puts(b, key ? "{" : "{ ");
	for (int i = 0; i < t->nfields; i++) {
		const struct field *f = &t->fields[i];
		fmt_addf(b, key ? "%s.%s=" : "%s.%s = ", i ? (key ? "," : ", ") : "",
			 f->name ? f->name : "");
		if (f->bit_size && f->bit_size < 64 && f->bit_offset + f->bit_size <= 64)
			fmt_bitfield(b, f, p + f->offset);
		else if (ptr_num && f->type && f->type->kind == T_PTR)
			fmt_addf(b, "%llu", (unsigned long long)fmt_int(f->type, p + f->offset));
		else
			fmt_value(b, f->type, p + f->offset, c);
	}
	fmt_puts(b, key ? "}" : " }");
}

/* (1, abc, -3): elements as map values print, strings unquoted, as
 * bpftrace 0.17 prints a tuple. */
static void fmt_tuple(struct fmt_buf *b, const struct type *t, const char *p,
		      const struct fmt_ctx *c)
{
	fmt_putc(b, '(');
	for (int i = 0; i < t->nfields; i++) {
		if (i)
			fmt_puts(b, ", ");
		fmt_value(b, t->fields[i].type, p + t->fields[i].offset, c);
	}
	fmt_putc(b, ')');
}

/* Plain (not 8-byte widened) integer inside an array or record. */
static void fmt_packed_int(struct fmt_buf *b, const struct type *t, const void *p)
{
	uint64_t v = 0;
	unsigned size = t->size <= 8 ? t->size : 8;
	memcpy(&v, p, size);   /* little endian: low bytes first */
	if (t->is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	if (t->kind == T_ENUM)
		fmt_enum(b, t, (int64_t)v);
	else if (t->is_signed)
		fmt_addf(b, "%lld", (long long)v);
	else
		fmt_addf(b, "%llu", (unsigned long long)v);
}

static void fmt_array(struct fmt_buf *b, const struct type *t, const char *p,
		      const struct fmt_ctx *c)
{
	const struct type *e = t->elem;
	if (e && e->kind == T_INT && e->is_char) {
		/* char[]: a string; signed and unsigned char[] are numbers, as in bpftrace */
		fmt_putn(b, p, strnlen(p, t->size));
		return;
	}
	fmt_putc(b, '[');
	for (uint32_t i = 0; e && i < t->count; i++) {
		if (i)
			fmt_putc(b, ',');
		if (e->kind == T_INT || e->kind == T_ENUM || e->kind == T_BOOL)
			fmt_packed_int(b, e, p + i * e->size);
		else
			fmt_value(b, e, p + i * e->size, c);
	}
	fmt_putc(b, ']');
}

/* A string; one that filled str()'s extra byte was longer than shown and
 * ends in "..", as bpftrace marks truncated strings.  Control characters
 * are escaped (fmt_escaped): the traced process chooses them. */
static void fmt_str(struct fmt_buf *b, const struct type *t, const char *p,
		    const struct fmt_ctx *c)
{
	size_t n = strnlen(p, t->size);
	bool nl = !(c && c->key);
	if (t->str_more && t->size >= 2 && n >= t->size - 1) {
		fmt_escaped(b, p, t->size - 2, nl);
		fmt_puts(b, "..");
		return;
	}
	fmt_escaped(b, p, n, nl);
}

char *fmt_strftime_tm(const char *fmt, const struct tm *tm)
{
	if (!*fmt)
		return strdup("");
	for (size_t n = 256; n <= (1u << 20); n *= 2) {
		char *b = malloc(n);
		if (!b)
			return NULL;
		if (strftime(b, n, fmt, tm))
			return b;
		free(b);
	}
	return NULL;
}

/* strftime()'s value: nsecs since boot as wall-clock time, where %f is
 * the microseconds (bpftrace's extension); "(?)" if nothing comes out. */
static void fmt_strftime(struct fmt_buf *b, const char *fmt, uint64_t ns)
{
	struct timespec rt, bt;
	struct fmt_buf f;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	int64_t off = (rt.tv_sec - bt.tv_sec) * 1000000000ll + (rt.tv_nsec - bt.tv_nsec);
	uint64_t wall = ns + (uint64_t)off;
	time_t secs = (time_t)(wall / 1000000000u);
	fmt_init(&f);
	for (const char *p = fmt; *p; p++) {
		if (p[0] == '%' && p[1] == 'f') {
			fmt_addf(&f, "%06llu", (unsigned long long)(wall % 1000000000u / 1000u));
			p++;
		} else if (p[0] == '%' && p[1]) {
			fmt_putn(&f, p, 2);   /* %% and the others stay for strftime */
			p++;
		} else {
			fmt_putc(&f, *p);
		}
	}
	localtime_r(&secs, &tm);
	char *out = fmt_strftime_tm(f.s ? f.s : "", &tm);
	fmt_puts(b, out ? out : "(?)");
	free(out);
	fmt_free(&f);
}

static void fmt_username(struct fmt_buf *b, uint64_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	/* bpftrace prints an unknown uid as nothing */
	if (!getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) && res)
		fmt_puts(b, pw.pw_name);
}

static void fmt_inet(struct fmt_buf *b, const unsigned char *p)
{
	uint64_t af;
	char out[INET6_ADDRSTRLEN];

	memcpy(&af, p, 8);
	if ((af == AF_INET || af == AF_INET6) && inet_ntop((int)af, p + 8, out, sizeof(out)))
		fmt_puts(b, out);
	else
		fmt_puts(b, "(?)");
}

/* buf(): bytes as bpftrace's %r shows them: printable ASCII as itself,
 * the rest \xNN; with hex ('x') every byte \xNN, with 'h' "NN NN". */
void fmt_bytes(struct fmt_buf *b, const void *p, size_t cap, char mode)
{
	uint64_t n;
	const unsigned char *d = (const unsigned char *)p + 8;

	memcpy(&n, p, 8);
	if (n > cap)
		n = cap;
	for (uint64_t i = 0; i < n; i++) {
		if (mode == 'h')
			fmt_addf(b, i ? " %02x" : "%02x", d[i]);
		else if (mode != 'x' && d[i] >= 32 && d[i] <= 126)
			fmt_putc(b, (char)d[i]);
		else
			fmt_addf(b, "\\x%02x", d[i]);
	}
}

static void fmt_ufmt(struct fmt_buf *b, const struct type *t, const void *p)
{
	uint64_t u;
	const unsigned char *m = p;

	memcpy(&u, p, 8);
	switch (t->ufmt) {
	case UF_USERNAME:
		fmt_username(b, u);
		break;
	case UF_STRFTIME:
		fmt_strftime(b, t->name ? t->name : "", u);
		break;
	case UF_STRERROR:
		fmt_puts(b, strerror((int)(int64_t)u));
		break;
	case UF_SYSCALL:   /* a number without a known name stays a number */
		if (u <= INT32_MAX && sys_name((int)u))
			fmt_puts(b, sys_name((int)u));
		else
			fmt_addf(b, "%llu", (unsigned long long)u);
		break;
	case UF_INET:
		fmt_inet(b, p);
		break;
	case UF_MAC:
		fmt_addf(b, "%02X:%02X:%02X:%02X:%02X:%02X", m[0], m[1], m[2], m[3], m[4], m[5]);
		break;
	case UF_BUF:
		fmt_bytes(b, p, t->size - 8, 0);
		break;
	case UF_CGPATH: {
		char *text = cgpath_text(u, t->name);
		fmt_puts(b, text ? text : "");
		free(text);
		break;
	}
	case UF_JOIN:
		for (uint64_t i = 0; i < u && i < PR_JOIN_ARGS; i++) {
			const char *s = (const char *)m + 8 + i * PR_JOIN_ARGSZ;
			if (i)
				fmt_puts(b, t->name ? t->name : " ");
			fmt_putn(b, s, strnlen(s, PR_JOIN_ARGSZ));
		}
		break;
	default:
		fmt_addf(b, "%llu", (unsigned long long)u);
	}
}

void fmt_value(struct fmt_buf *b, const struct type *t, const void *p,
	       const struct fmt_ctx *c)
{
	uint64_t u;
	if (!t) {
		memcpy(&u, p, 8);
		fmt_addf(b, "%lld", (long long)u);
		return;
	}
	switch (t->kind) {
	case T_STR:
		fmt_str(b, t, p, c);
		break;
	case T_PTR:
		memcpy(&u, p, 8);
		fmt_addf(b, "0x%llx", (unsigned long long)u);
		break;
	case T_ENUM:
		fmt_enum(b, t, fmt_int(t, p));
		break;
	case T_BOOL:
		if (t->is_word) {   /* newer bpftrace's bool */
			fmt_puts(b, fmt_int(t, p) ? "true" : "false");
			break;
		}
		fmt_addf(b, "%lld", (long long)fmt_int(t, p));
		break;
	case T_USYM:
	case T_KSYM:
		fmt_sym(b, t, p, c);
		break;
	case T_STACK:
		memcpy(&u, p, 8);
		fmt_stack(b, t, u, c);
		break;
	case T_RECORD:
	case T_ARGS:
		fmt_record(b, t, p, c);
		break;
	case T_ARRAY:
		fmt_array(b, t, p, c);
		break;
	case T_TUPLE:
		fmt_tuple(b, t, p, c);
		break;
	case T_UFMT:
		fmt_ufmt(b, t, p);
		break;
	case T_FLOAT:
		fmt_float(b, t, p);
		break;
	default:
		if (fmt_unsigned(t))
			fmt_addf(b, "%llu", (unsigned long long)fmt_int(t, p));
		else
			fmt_addf(b, "%lld", (long long)fmt_int(t, p));
	}
}

/* A number as JSON, a name (an enum's) as a JSON string. */
static void fmt_json_text(struct fmt_buf *b, const char *s)
{
	char *end;

	if (*s && (strtoll(s, &end, 10), !*end)) {
		fmt_puts(b, s);
		return;
	}
	fmt_putc(b, '"');
	fmt_json_str(b, s);
	fmt_putc(b, '"');
}

/* { "a": 1, "p": { "x": 2 } }, spaced as bpftrace 0.17's JSON output. */
static void fmt_json_record(struct fmt_buf *b, const struct type *t, const char *p,
			    const struct fmt_ctx *c)
{
	fmt_puts(b, "{ ");
	for (int i = 0; i < t->nfields; i++) {
		const struct field *f = &t->fields[i];
		struct fmt_buf v;

		if (i)
			fmt_puts(b, ", ");
		fmt_putc(b, '"');
		fmt_json_str(b, f->name ? f->name : "");
		fmt_puts(b, "\": ");
		fmt_init(&v);
		if (f->bit_size && f->bit_size < 64 && f->bit_offset + f->bit_size <= 64)
			fmt_bitfield(&v, f, p + f->offset);
		else if (f->type && f->type->kind == T_PTR)
			fmt_addf(&v, "%llu", (unsigned long long)fmt_int(f->type, p + f->offset));
		else
			fmt_json_value(b, f->type, p + f->offset, c);
		if (v.len)
			fmt_json_text(b, v.s);
		fmt_free(&v);
	}
	fmt_puts(b, " }");
}

/* [1,2,3]; a char[] is a string, as in the text output. */
static void fmt_json_array(struct fmt_buf *b, const struct type *t, const char *p,
			   const struct fmt_ctx *c)
{
	const struct type *e = t->elem;

	fmt_putc(b, '[');
	for (uint32_t i = 0; e && i < t->count; i++) {
		if (i)
			fmt_putc(b, ',');
		if (e->kind == T_INT || e->kind == T_ENUM || e->kind == T_BOOL) {
			struct fmt_buf v;

			fmt_init(&v);
			fmt_packed_int(&v, e, p + i * e->size);
			fmt_json_text(b, v.s);
			fmt_free(&v);
		} else {
			fmt_json_value(b, e, p + i * e->size, c);
		}
	}
	fmt_putc(b, ']');
}

void fmt_json_value(struct fmt_buf *b, const struct type *t, const void *p,
		    const struct fmt_ctx *c)
{
	struct fmt_buf v;

	if (t && t->kind == T_RECORD) {
		fmt_json_record(b, t, p, c);
		return;
	}
	if (t && t->kind == T_ARRAY && !(t->elem && t->elem->kind == T_INT && t->elem->is_char)) {
		fmt_json_array(b, t, p, c);
		return;
	}
	if (t && t->kind == T_TUPLE) {
		fmt_putc(b, '[');
		for (int i = 0; i < t->nfields; i++) {
			if (i)
				fmt_putc(b, ',');
			fmt_json_value(b, t->fields[i].type,
				       (const char *)p + t->fields[i].offset, c);
		}
		fmt_putc(b, ']');
		return;
	}
	fmt_init(&v);
	fmt_value(&v, t, p, c);
	if (t && t->kind == T_FLOAT && isfinite(fmt_float_of(t, p))) {
		fmt_puts(b, v.s);   /* a JSON number */
	} else if (!t || t->kind == T_INT || t->kind == T_BOOL) {
		fmt_puts(b, v.s);
	} else {
		fmt_putc(b, '"');
		fmt_json_str(b, v.s);
		fmt_putc(b, '"');
	}
	fmt_free(&v);
}

/* The conversion rebuilt for one C argument: "%" flags width prec LEN conv. */
static void fmt_spec_str(char *out, size_t n, const struct fmt_spec *sp,
			 const char *len, char conv)
{
	char w[16] = "", p[16] = "";
	if (sp->width >= 0)
		snprintf(w, sizeof(w), "%d", sp->width);
	if (sp->prec >= 0)
		snprintf(p, sizeof(p), ".%d", sp->prec);
	snprintf(out, n, "%%%s%s%s%s%c", sp->flags, w, p, len, conv);
}

static void fmt_one(struct fmt_buf *b, const struct fmt_spec *sp,
		    const struct pr_arg *a, const char *data, const struct fmt_ctx *c)
{
	char spec[64];
	const struct type *t = a->type;
	int64_t v;

	switch (sp->conv) {
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': {
		/* A float as C prints it; an integer converted to double. */
		double d = t && t->kind == T_FLOAT ? fmt_float_of(t, data)
			 : fmt_unsigned(t) ? (double)(uint64_t)fmt_int(t, data)
			 : (double)fmt_int(t, data);
		fmt_spec_str(spec, sizeof(spec), sp, "", sp->conv);
		fmt_addf(b, spec, d);
		return;
	}
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
		if (t && t->kind == T_STR) {
			/* not an integer: fall back on its text */
			struct fmt_spec s2 = *sp;
			s2.conv = 's';
			fmt_one(b, &s2, a, data, c);
			return;
		}
		/* An explicit length modifier narrows as in C; without one the
		 * argument's own width counts, so 64-bit values are never cut
		 * (bpftrace 0.17 cuts them to 32 bits). */
		v = fmt_int(t, data);
		if (sp->len == 'H')
			v = strchr("di", sp->conv) ? (int64_t)(signed char)v : (int64_t)(unsigned char)v;
		else if (sp->len == 'h')
			v = strchr("di", sp->conv) ? (int64_t)(short)v : (int64_t)(unsigned short)v;
		else if (sp->len == 0 && (!t || t->size <= 4))
			v = strchr("di", sp->conv) ? (int64_t)(int)v : (int64_t)(unsigned)v;
		fmt_spec_str(spec, sizeof(spec), sp, "ll", sp->conv);
		fmt_addf(b, spec, (long long)v);
		return;
	case 'c':
		fmt_spec_str(spec, sizeof(spec), sp, "", 'c');
		fmt_addf(b, spec, (int)(unsigned char)fmt_int(t, data));
		return;
	case 'p': {
		uint64_t u;
		memcpy(&u, data, 8);
		struct fmt_spec s2 = *sp;
		s2.prec = -1;
		char hex[32];
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)u);
		fmt_spec_str(spec, sizeof(spec), &s2, "", 's');
		fmt_addf(b, spec, hex);
		return;
	}
	case 'r':
		if (t && t->kind == T_UFMT && t->ufmt == UF_BUF) {
			struct fmt_buf tmp;
			fmt_init(&tmp);
			fmt_bytes(&tmp, data, t->size - 8, sp->rmode);
			fmt_spec_str(spec, sizeof(spec), sp, "", 's');
			fmt_addf(b, spec, tmp.s);
			fmt_free(&tmp);
			return;
		}
		/* fall through */
	default: {   /* 's' and anything unknown: the value's text */
		struct fmt_buf tmp;
		fmt_init(&tmp);
		fmt_value(&tmp, t, data, c);
		fmt_spec_str(spec, sizeof(spec), sp, "", 's');
		fmt_addf(b, spec, tmp.s);
		fmt_free(&tmp);
	}
	}
}

static size_t fmt_arg_size(const struct type *t)
{
	if (!t)
		return 8;
	if (t->kind == T_STR || t->kind == T_ARRAY || t->kind == T_RECORD ||
	    t->kind == T_ARGS || t->kind == T_USYM || (t->kind == T_UFMT && t->size > 8))
		return t->size;
	return 8;
}

int fmt_printf(struct fmt_buf *b, const char *fmt, const struct pr_arg *args,
	       int nargs, const void *rec, size_t len, const struct fmt_ctx *c)
{
	/* offsets count from the record start: the id is at 0, args from 8 */
	const char *base = (const char *)rec;
	int ai = 0;

	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		if (!pct) {
			fmt_puts(b, fmt);
			break;
		}
		fmt_putn(b, fmt, (size_t)(pct - fmt));
		if (pct[1] == '%') {
			fmt_putc(b, '%');
			fmt = pct + 2;
			continue;
		}
		struct fmt_spec sp;
		enum fs_status st;
		fmt = fs_parse(pct + 1, pct + strlen(pct), &sp, &st);
		if (!sp.conv)
			break;
		fmt++;
		if (ai >= nargs)
			continue;   /* sema checks the count; be safe anyway */
		const struct pr_arg *a = &args[ai++];
		if ((size_t)a->offset + fmt_arg_size(a->type) > len)
			return -1;
		struct fmt_ctx gc = { .stack_fd = -1, .ustack_fd = -1 };
		if (a->gdb_ptrs) {  /* print(args) shows what gdb shows */
			if (c)
				gc = *c;
			gc.gdb_ptrs = true;
		}
		fmt_one(b, &sp, a, base + a->offset, a->gdb_ptrs ? &gc : c);
	}
	return 0;
}
