// SPDX-License-Identifier: GPL-2.0-only
/*
 * verifier.c - from a verifier log to one sentence at a place in the
 * script.  The log names the failing instruction ("23: (15) if r0 ...");
 * the compiler gave every instruction a line and column through BTF line
 * info (.BTF.ext in the object), read here straight from the ELF, since
 * the verifier itself prints only the line.  When the verifier gave up
 * (instruction or complexity limit) the sentence names the loop around
 * that place: it walks every iteration, and the loop is what to change.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>
#include <linux/btf.h>

#include "verifier.h"

/* .BTF.ext's header (libbpf's struct btf_ext_header, not in the UAPI). */
struct vf_ext_header {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
};

struct vf_line_info {
	uint32_t insn_off, file_name_off, line_off, line_col;
};

/* A log line worth showing: not the statistics the verifier appends. */
static bool vf_meaningful(const char *s, size_t n)
{
	if (!n)
		return false;
	static const char *const skip[] = { "processed ", "verification time",
					    "stack depth", "-- END PROG LOAD LOG --" };
	for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++)
		if (!strncmp(s, skip[i], strlen(skip[i])))
			return false;
	return true;
}

int vf_log_line(const char *log, char **msg)
{
	int line = 0;
	const char *last = NULL;
	size_t lastn = 0;

	for (const char *s = log; s && *s;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n > 2 && s[0] == ';') {
			/* "; <source text> @ FILE:LINE": the number after the last ':' */
			const char *at = NULL;
			for (const char *p = s; p + 2 < s + n; p++)
				if (!strncmp(p, " @ ", 3))
					at = p;
			const char *colon = at ? memrchr(at, ':', (size_t)(s + n - at)) : NULL;
			if (colon && atoi(colon + 1) > 0)
				line = atoi(colon + 1);
		} else if (vf_meaningful(s, n)) {
			last = s;
			lastn = n;
		}
		s = e ? e + 1 : NULL;
	}
	if (msg)
		*msg = last ? strndup(last, lastn) : NULL;
	return line;
}

int vf_last_insn(const char *log)
{
	int last = -1;
	for (const char *s = log; s && *s;) {
		char *end;
		long n = strtol(s, &end, 10);
		if (end > s && isdigit((unsigned char)*s) && !strncmp(end, ": (", 3))
			last = (int)n;
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	return last;
}

static Elf_Data *vf_section(Elf *e, const char *want, GElf_Shdr *sh)
{
	size_t shstr;
	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		const char *name = gelf_getshdr(scn, sh) ? elf_strptr(e, shstr, sh->sh_name) : NULL;
		if (name && !strcmp(name, want))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Section name and offset in it of the function `prog`. */
static int vf_func(Elf *e, const char *prog, const char **sec, uint64_t *off)
{
	GElf_Shdr sh, fsh;
	size_t shstr;
	Elf_Data *d = vf_section(e, ".symtab", &sh);
	if (!d || elf_getshdrstrndx(e, &shstr))
		return -1;
	for (size_t i = 0; i < sh.sh_size / sizeof(Elf64_Sym); i++) {
		GElf_Sym sym;
		const char *name = gelf_getsym(d, (int)i, &sym) ?
			elf_strptr(e, sh.sh_link, sym.st_name) : NULL;
		if (!name || strcmp(name, prog) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		Elf_Scn *scn = elf_getscn(e, sym.st_shndx);
		*sec = scn && gelf_getshdr(scn, &fsh) ? elf_strptr(e, shstr, fsh.sh_name) : NULL;
		*off = sym.st_value;
		return *sec ? 0 : -1;
	}
	return -1;
}

/* The string at off in .BTF's string section, or NULL. */
static const char *vf_btf_str(Elf_Data *btf, uint32_t off)
{
	const struct btf_header *h = btf->d_buf;
	if (btf->d_size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > btf->d_size || off >= h->str_len)
		return NULL;
	return (const char *)btf->d_buf + h->hdr_len + h->str_off + off;
}

/* The line info record at or before byte `at` of section `sec`. */
static int vf_lookup(Elf_Data *btf, Elf_Data *ext, const char *sec, uint64_t at, struct loc *loc)
{
	const struct vf_ext_header *h = ext->d_buf;
	if (ext->d_size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (uint64_t)h->hdr_len + h->line_info_off + h->line_info_len > ext->d_size)
		return -1;
	const char *p = (const char *)ext->d_buf + h->hdr_len + h->line_info_off;
	const char *end = p + h->line_info_len;
	if (p + 4 > end)
		return -1;
	uint32_t rec = *(const uint32_t *)p;
	bool found = false;
	uint64_t best = 0;
	if (rec < sizeof(struct vf_line_info))
		return -1;
	for (p += 4; p + 8 <= end;) {
		uint32_t name = ((const uint32_t *)p)[0], n = ((const uint32_t *)p)[1];
		const char *s = vf_btf_str(btf, name);
		p += 8;
		for (uint32_t i = 0; i < n && p + rec <= end; i++, p += rec) {
			const struct vf_line_info *li = (const void *)p;
			if (!s || strcmp(s, sec) || li->insn_off > at || (found && li->insn_off < best))
				continue;
			found = true;
			best = li->insn_off;
			*loc = (struct loc){ (int)(li->line_col >> 10), (int)(li->line_col & 0x3ff), 1 };
		}
	}
	return found && loc->line > 0 ? 0 : -1;
}

int vf_insn_loc(const struct program *p, const char *prog, int insn, struct loc *loc)
{
	const char *sec;
	uint64_t off;
	GElf_Shdr sh;
	int ret = -1;
	if (!p->elf || !prog || insn < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	Elf *e = elf_memory(p->elf, p->elf_size);
	if (!e)
		return -1;
	Elf_Data *btf = vf_section(e, ".BTF", &sh), *ext = vf_section(e, ".BTF.ext", &sh);
	if (btf && ext && !vf_func(e, prog, &sec, &off))
		ret = vf_lookup(btf, ext, sec, off + (uint64_t)insn * 8, loc);
	elf_end(e);
	if (!ret && loc->col < 1)
		loc->col = 1;
	return ret;
}

/* ---- the script text: which loop holds a place ---- */

/* The next place to look at after s[i], strings and comments skipped whole. */
static size_t vf_next(const char *s, size_t i)
{
	if (s[i] == '"') {
		for (i++; s[i] && s[i] != '"' && s[i] != '\n'; i++)
			if (s[i] == '\\' && s[i + 1])
				i++;
		return s[i] ? i + 1 : i;
	}
	if (s[i] == '/' && s[i + 1] == '/')
		return strchrnul(s + i, '\n') - s;
	if (s[i] == '/' && s[i + 1] == '*') {
		const char *e = strstr(s + i + 2, "*/");
		return e ? (size_t)(e + 2 - s) : strlen(s);
	}
	return i + 1;
}

static bool vf_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static const char *vf_keyword(const char *s, size_t i)
{
	static const char *const kw[] = { "while", "unroll" };
	if (i > 0 && (vf_ident(s[i - 1]) || s[i - 1] == '$' || s[i - 1] == '@'))
		return NULL;
	for (size_t k = 0; k < sizeof(kw) / sizeof(*kw); k++) {
		size_t n = strlen(kw[k]);
		if (!strncmp(s + i, kw[k], n) && !vf_ident(s[i + n]))
			return kw[k];
	}
	return NULL;
}

/* The '}' that closes the '{' at s[open], or the end of the text. */
static size_t vf_close(const char *s, size_t open)
{
	int depth = 0;
	for (size_t i = open; s[i]; i = vf_next(s, i)) {
		depth += s[i] == '{';
		if (s[i] == '}' && --depth == 0)
			return i;
	}
	return strlen(s);
}

static size_t vf_offset(const char *s, struct loc l)
{
	size_t i = 0;
	for (int line = 1; s[i] && line < l.line; i++)
		line += s[i] == '\n';
	for (int col = 1; s[i] && s[i] != '\n' && col < l.col; i++, col++)
		;
	return i;
}

static struct loc vf_loc_of(const char *s, size_t at, size_t len)
{
	struct loc l = { 1, 1, (int)len };
	for (size_t i = 0; i < at && s[i]; i++) {
		if (s[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	return l;
}

/* The innermost while/unroll whose body holds `at`; its keyword or NULL. */
static const char *vf_loop_around(const char *s, struct loc at, struct loc *loop)
{
	const char *found = NULL;
	size_t target = vf_offset(s, at);
	for (size_t i = 0; s[i]; i = vf_next(s, i)) {
		const char *kw = vf_keyword(s, i);
		if (!kw)
			continue;
		size_t open = i;
		while (s[open] && s[open] != '{')
			open = vf_next(s, open);
		if (!s[open])
			break;
		if (target >= i && target <= vf_close(s, open)) {
			found = kw;
			*loop = vf_loc_of(s, i, strlen(kw));
		}
	}
	return found;
}

/* ---- the sentence ---- */

static bool vf_has(const char *msg, const char *what)
{
	return msg && strstr(msg, what);
}

static unsigned long long vf_processed(const char *log)
{
	const char *p = log ? strstr(log, "processed ") : NULL;
	unsigned long long n = 0;
	while (p) {   /* the last one: the statistics line at the end */
		sscanf(p, "processed %llu insns", &n);
		p = strstr(p + 1, "processed ");
	}
	return n;
}

static bool vf_limit(const char *msg)
{
	return vf_has(msg, "too complex") || vf_has(msg, "too large") ||
	       vf_has(msg, "too many states") || vf_has(msg, "complexity limit");
}

static char *vf_sentence(const struct program *p, const char *log, const char *msg,
			 struct loc *loc)
{
	struct loc loop;
	const char *kw = loc->line > 0 && p->src && p->src->text ?
		vf_loop_around(p->src->text, *loc, &loop) : NULL;
	unsigned long long n = vf_processed(log);
	char *s = NULL;
	int r;

	if (vf_limit(msg) && kw) {
		*loc = loop;
		r = asprintf(&s, "the kernel verifier gave up on this %s loop after walking %llu "
			     "instructions (%s): it follows every iteration, so give it fewer "
			     "iterations or a smaller body", kw, n, msg);
	} else if (vf_limit(msg)) {
		r = asprintf(&s, "the kernel verifier gave up on this probe after walking %llu "
			     "instructions (%s): make it shorter or split it across probes", n, msg);
	} else if (vf_has(msg, "infinite loop") || vf_has(msg, "back-edge")) {
		if (kw)
			*loc = loop;
		r = asprintf(&s, "the kernel verifier cannot prove that this %s%sloop ends (%s): "
			     "make its condition depend on a counter that grows", kw ? kw : "",
			     kw ? " " : "", msg);
	} else if (vf_has(msg, "unknown func bpf_override_return")) {
		r = asprintf(&s, "this kernel has no override(): it was built without "
			     "CONFIG_BPF_KPROBE_OVERRIDE (%s)", msg);
	} else if (vf_has(msg, "helper call is not allowed in probe") &&
		   vf_has(log, "call bpf_d_path")) {
		r = asprintf(&s, "path() works only at the kernel functions that allow "
			     "bpf_d_path (its btf_allowlist_d_path: filp_close, vfs_getattr, "
			     "vfs_truncate, vfs_fallocate, dentry_open, security_file_open, ...), "
			     "not at this one (%s)", msg);
	} else if (vf_has(msg, "combined stack size") || vf_has(msg, "invalid write to stack")) {
		r = asprintf(&s, "this probe needs more than the 512 bytes of stack a BPF program "
			     "has (%s): use fewer or shorter strings and scratch variables", msg);
	} else if (vf_has(msg, "failed to find the address for kernel symbol")) {
		/* percpu_kaddr(): the kernel resolves the variable through kallsyms */
		r = asprintf(&s, "this kernel cannot place a per-CPU variable of percpu_kaddr() "
			     "(%s): its kallsyms lists no data symbols; it needs a kernel "
			     "built with CONFIG_KALLSYMS_ALL",
			     msg);
	} else {
		r = asprintf(&s, "the kernel verifier rejected this probe: %s",
			     msg ? msg : "(no message)");
	}
	return r < 0 ? NULL : s;
}

/* The verifier's own verdict where it is one of those explained above:
 * some are followed by state dumps, so the log's last line is not it. */
static char *vf_verdict(const char *log)
{
	static const char *const known[] = { "infinite loop detected", "back-edge from insn",
		"is too complex", "is too large", "combined stack size" };
	for (size_t k = 0; log && k < sizeof(known) / sizeof(*known); k++) {
		const char *at = strstr(log, known[k]);
		if (!at)
			continue;
		while (at > log && at[-1] != '\n')
			at--;
		return strndup(at, strcspn(at, "\n"));
	}
	return NULL;
}

int vf_explain(const struct program *p, const char *prog, const char *log,
	       struct vf_explain *out)
{
	char *msg = NULL;
	int line = log ? vf_log_line(log, &msg) : 0;
	char *verdict = vf_verdict(log);
	if (verdict) {
		free(msg);
		msg = verdict;
	}
	const struct pr_prog *pp = p->nprogs ? &p->progs[0] : NULL;

	for (int i = 0; prog && i < p->nprogs; i++)
		if (!strcmp(p->progs[i].name, prog))
			pp = &p->progs[i];
	out->loc = pp ? pp->loc : (struct loc){ 0, 0, 1 };
	if (pp && vf_insn_loc(p, pp->name, vf_last_insn(log), &out->loc) && line > 0)
		out->loc = (struct loc){ line, 1, 1 };   /* the line alone, from the log */
	out->sentence = vf_sentence(p, log, msg, &out->loc);
	free(msg);
	return out->sentence ? 0 : -1;
}
