// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dwarf.c - the dwarf module against running processes.
 *
 * Builds tests/progs/dwarf_*.c with gcc and clang-19 at -O0..-O3 (PIE and
 * one non-PIE) into build/dwarf/unit/, resolves probe specs with
 * dw_resolve(), then runs each program under ptrace with a breakpoint at
 * every site and evaluates our location programs on the stopped process,
 * exactly as a uprobe sees it (struct user_regs_struct has pt_regs'
 * layout): the values must be those the source computes.  Also checks
 * types (field offsets, bitfields, enums, recursion), spec errors, the
 * "optimised out" message and separate debuginfo found by build-id.
 * Run from the top of the tree (needs gcc, clang-19, objcopy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/dwarf.h"
#include "compiler/probe.h"
#include "lib/types.h"
#include "unit.h"

#define OUT "build/dwarf/unit"

/* ---- a stopped process ---- */

struct proc {
	pid_t pid;
	struct user_regs_struct regs;
	struct user_regs_struct entry_regs;  /* at the function's entry, if have_entry */
	bool have_entry;
	uint64_t bias;
	uint64_t entry;   /* the site is the function's entry: entry values are registers */
};

static int peek(struct proc *p, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(p->pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

static uint64_t reg(struct proc *p, int regno)
{
	int off = dw_reg_ptregs_offset(regno);
	uint64_t v = 0;

	if (off >= 0)
		memcpy(&v, (char *)&p->regs + off, 8);
	return v;
}

/* Runs a location program; -1 if it needs what a single stop cannot give. */
static int run(struct proc *p, const struct dwl_insn *v, int n, uint64_t *out)
{
	uint64_t st[64];
	int sp = 0;

	for (int i = 0; i < n; i++) {
		const struct dwl_insn *x = &v[i];
		uint64_t a = sp > 1 ? st[sp - 2] : 0, b = sp > 0 ? st[sp - 1] : 0;
		switch (x->op) {
		case DWL_REG: st[sp++] = reg(p, x->reg); continue;
		case DWL_CONST: st[sp++] = (uint64_t)x->val; continue;
		case DWL_BIAS: st[sp++] = p->bias; continue;
		case DWL_ENTRY_VALUE:
			/* What a companion probe at the function entry would record. */
			if (p->have_entry) {
				int off = dw_reg_ptregs_offset(x->reg);
				uint64_t e = 0;
				if (off >= 0)
					memcpy(&e, (char *)&p->entry_regs + off, 8);
				st[sp++] = e;
				continue;
			}
			if (!p->entry)
				return -1;
			st[sp++] = reg(p, x->reg);
			continue;
		case DWL_PLUS_CONST: st[sp - 1] += (uint64_t)x->val; continue;
		case DWL_DEREF: {
			uint64_t m = 0;
			if (peek(p, b, &m, x->size))
				return -1;
			st[sp - 1] = m;
			continue;
		}
		case DWL_NEG: st[sp - 1] = -b; continue;
		case DWL_NOT: st[sp - 1] = ~b; continue;
		case DWL_ABS: st[sp - 1] = (int64_t)b < 0 ? -b : b; continue;
		case DWL_DUP: st[sp++] = b; continue;
		case DWL_DROP: sp--; continue;
		case DWL_OVER: st[sp++] = a; continue;
		case DWL_SWAP: st[sp - 1] = a; st[sp - 2] = b; continue;
		default: break;
		}
		uint64_t r;
		switch (x->op) {
		case DWL_ADD: r = a + b; break;
		case DWL_SUB: r = a - b; break;
		case DWL_MUL: r = a * b; break;
		case DWL_DIV: r = b ? (uint64_t)((int64_t)a / (int64_t)b) : 0; break;
		case DWL_MOD: r = b ? a % b : 0; break;
		case DWL_AND: r = a & b; break;
		case DWL_OR: r = a | b; break;
		case DWL_XOR: r = a ^ b; break;
		case DWL_SHL: r = a << b; break;
		case DWL_SHR: r = a >> b; break;
		case DWL_SHRA: r = (uint64_t)((int64_t)a >> b); break;
		case DWL_EQ: r = a == b; break;
		case DWL_NE: r = a != b; break;
		case DWL_LT: r = (int64_t)a < (int64_t)b; break;
		case DWL_LE: r = (int64_t)a <= (int64_t)b; break;
		case DWL_GT: r = (int64_t)a > (int64_t)b; break;
		case DWL_GE: r = (int64_t)a >= (int64_t)b; break;
		default: return -1;
		}
		sp -= 2;
		st[sp++] = r;
	}
	if (sp < 1)
		return -1;
	*out = st[sp - 1];
	return 0;
}

/* The variable's bytes (up to 64); 1 if unavailable here, -1 on error. */
static int value_of(struct proc *p, const struct dw_var *v, unsigned char *buf, unsigned size)
{
	const struct dw_loc *l = &v->loc;
	uint64_t x;

	memset(buf, 0, 64);
	if (size > 64)
		size = 64;
	switch (l->kind) {
	case DWR_MEMORY:
		return run(p, l->prog, l->n, &x) ? 1 : peek(p, x, buf, size);
	case DWR_VALUE:
		if (run(p, l->prog, l->n, &x))
			return 1;
		memcpy(buf, &x, size < 8 ? size : 8);
		return 0;
	case DWR_PIECES: {
		unsigned at = 0;
		for (int i = 0; i < l->npieces && at < 64; i++) {
			const struct dw_piece *pc = &l->pieces[i];
			unsigned n = pc->size;
			if (at + n > 64)
				n = 64 - at;
			if (pc->kind == DWR_OPTIMIZED || run(p, pc->prog, pc->n, &x))
				return 1;
			if (pc->kind == DWR_MEMORY) {
				if (peek(p, x, buf + at, n))
					return -1;
			} else {
				memcpy(buf + at, &x, n < 8 ? n : 8);
			}
			at += pc->size;
		}
		return 0;
	}
	default:
		return 1;
	}
}

static uint64_t load_bias(pid_t pid, const char *bin)
{
	char path[64], line[1024], real[4096];
	FILE *f;
	uint64_t start = 0;

	if (!realpath(bin, real))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, off;
		char *name = strchr(line, '/');
		if (name && sscanf(line, "%lx-%*x %*s %lx", &s, &off) == 2 && off == 0 &&
		    !strncmp(name, real, strlen(real)) && name[strlen(real)] == '\n') {
			start = s;
			break;
		}
	}
	fclose(f);
	return start;
}

/* Starts bin stopped at its first instruction; -1 on failure. */
static pid_t start_traced(const char *bin)
{
	int st;

	fflush(stdout);  /* or the child's freopen writes our buffer again */
	pid_t pid = fork();

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	return pid;
}

/* Runs to the first hit of at (an int3 there, removed again); regs holds
 * the state before that instruction, as a uprobe sees it. */
static int run_to(pid_t pid, uint64_t at, struct user_regs_struct *regs)
{
	int st;

	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, 0);
	if (errno || ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)((word & ~0xffL) | 0xcc)) ||
	    ptrace(PTRACE_CONT, pid, 0, 0) || waitpid(pid, &st, 0) != pid ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP || ptrace(PTRACE_GETREGS, pid, 0, regs))
		return -1;
	regs->rip -= 1;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)word) ||
	    ptrace(PTRACE_SETREGS, pid, 0, regs))
		return -1;
	return 0;
}

/* Runs bin to its first hit of vaddr, through entry first if not 0. */
static int stop_at2(const char *bin, bool pie, uint64_t entry, uint64_t vaddr, struct proc *p)
{
	int st;

	memset(p, 0, sizeof(*p));
	if ((p->pid = start_traced(bin)) < 0)
		return -1;
	p->bias = pie ? load_bias(p->pid, bin) : 0;
	if ((entry && entry != vaddr && run_to(p->pid, p->bias + entry, &p->entry_regs)) ||
	    run_to(p->pid, p->bias + vaddr, &p->regs)) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &st, 0);
		return -1;
	}
	p->have_entry = entry && entry != vaddr;
	return 0;
}

static int stop_at(const char *bin, bool pie, uint64_t vaddr, struct proc *p)
{
	return stop_at2(bin, pie, 0, vaddr, p);
}

static void stop_proc(struct proc *p)
{
	int st;

	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
}

/* ---- building the fixtures ---- */

static const char *ccs[] = { "gcc", "clang-19" };

static int build(const char *prog, const char *cc, int lvl, const char *extra, char *bin, size_t n)
{
	char cmd[1024];

	snprintf(bin, n, OUT "/%s-%s-O%d%s", prog, cc, lvl, extra[0] ? "-nopie" : "");
	snprintf(cmd, sizeof(cmd), "%s -g -O%d %s -o %s tests/progs/%s.c", cc, lvl, extra, bin, prog);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- value checks ---- */

struct expect {
	const char *var;     /* a variable at the site */
	const char *field;   /* NULL, or a field of the record it points to / is */
	int64_t want;
	bool is_string;      /* compare want_s with the char array / char * */
	const char *want_s;
};

static const struct type *strip_ptr(const struct type *t)
{
	return t && t->kind == T_PTR ? t->elem : t;
}

static int64_t sext(const unsigned char *b, unsigned size, bool sign)
{
	uint64_t v = 0;

	memcpy(&v, b, size < 8 ? size : 8);
	if (sign && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	return (int64_t)v;
}

static int64_t bits(const unsigned char *b, const struct field *f)
{
	uint64_t v = 0;
	unsigned size = f->type->size;

	memcpy(&v, b + f->offset, size < 8 ? size : 8);
	v >>= f->bit_offset;
	v &= (1ull << f->bit_size) - 1;
	if (f->type->is_signed && (v >> (f->bit_size - 1)) & 1)
		v |= ~0ull << f->bit_size;
	return (int64_t)v;
}

/* "fl.mode": the last field, with *base moved to the record holding it. */
static const struct field *field_path(const struct type *t, const char *path,
				      const unsigned char **base)
{
	char buf[64], *save, *part;
	const struct field *f = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		if (f) {
			*base += f->offset;
			t = f->type;
		}
		if (!t || t->kind != T_RECORD || !(f = type_field(t, part)))
			return NULL;
	}
	return f;
}

/* 1 checked and right, 0 unavailable at this site, -1 wrong. */
static int check_one(struct proc *p, struct dw_probe *dp, const struct expect *e, char *why, size_t n)
{
	const struct dw_var *v = dw_find_var(dp, e->var);
	unsigned char buf[64], rec[256];

	if (!v || !v->type) {
		snprintf(why, n, "no variable %s", e->var);
		return -1;
	}
	int r = value_of(p, v, buf, v->type->size);
	if (r)
		return r > 0 ? 0 : -1;
	const struct type *t = v->type;
	int64_t got;
	if (e->field) {
		const unsigned char *base = buf;
		if (t->kind == T_PTR) {
			uint64_t a;
			memcpy(&a, buf, 8);
			if (peek(p, a, rec, strip_ptr(t)->size < 256 ? strip_ptr(t)->size : 256))
				return -1;
			base = rec;
		}
		const struct field *f = field_path(strip_ptr(t), e->field, &base);
		if (!f) {
			snprintf(why, n, "no field %s.%s", e->var, e->field);
			return -1;
		}
		if (e->is_string) {
			char s[64] = "";
			if (f->type->kind == T_PTR) {
				uint64_t a;
				memcpy(&a, base + f->offset, 8);
				peek(p, a, s, 6);
			} else {
				memcpy(s, base + f->offset, f->type->size < 63 ? f->type->size : 63);
			}
			s[strlen(e->want_s)] = '\0';
			snprintf(why, n, "%s.%s = \"%s\", want \"%s\"", e->var, e->field, s, e->want_s);
			return strcmp(s, e->want_s) ? -1 : 1;
		}
		got = f->bit_size ? bits(base, f) : sext(base + f->offset, f->type->size, f->type->is_signed);
	} else if (e->is_string) {
		char s[64] = "";
		uint64_t a;
		memcpy(&a, buf, 8);
		peek(p, a, s, strlen(e->want_s));
		snprintf(why, n, "%s = \"%s\", want \"%s\"", e->var, s, e->want_s);
		return strcmp(s, e->want_s) ? -1 : 1;
	} else {
		got = sext(buf, t->size, t->is_signed);
	}
	snprintf(why, n, "%s%s%s = %lld, want %lld", e->var, e->field ? "." : "", e->field ? e->field : "",
		 (long long)got, (long long)e->want);
	return got == e->want ? 1 : -1;
}

struct site_case {
	const char *prog, *spec;
	struct expect ex[16];
};

static const struct site_case cases[] = {
	{ "dwarf_types", "show_req", {
		{ "depth", NULL, 1, 0, 0 }, { "r", "id", 10, 0, 0 }, { "r", "name", 0, 1, "first" },
		{ "r", "path", 0, 1, "hello" }, { "r", "color", 5, 0, 0 }, { "r", "total", 1ll << 40, 0, 0 },
		{ "g_greeting", NULL, 0, 1, "hello" }, { "s_count", NULL, 7, 0, 0 },
		{ "r", "fl.mode", 5, 0, 0 }, { "r", "fl.delta", -3, 0, 0 }, { "r", "fl.wide", 0x12345, 0, 0 },
		{ "r", "num.i", 0x41424344, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_types", "set_flags", {
		{ "mode", NULL, 5, 0, 0 }, { "delta", NULL, -3, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_types", "show_shape", {
		{ "c", NULL, -1, 0, 0 }, { "n", "i", 0x41424344, 0, 0 }, { "p", "x", 2, 0, 0 },
		{ "p", "y", 2, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_scopes", "shadow;*SHADOWdeepest*", {
		{ "x", NULL, 10, 0, 0 }, { "y", NULL, 15, 0, 0 }, { "z", NULL, -5, 0, 0 },
		{ NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_scopes", "accumulate", {
		{ "n", NULL, 6, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_scopes", "count_down", {
		{ "n", NULL, 28, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_inline", "caller_one", {
		{ "x", NULL, 1, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
	{ "dwarf_inline", "caller_two", {
		{ "x", NULL, 1, 0, 0 }, { "y", NULL, 4, 0, 0 }, { NULL, NULL, 0, 0, 0 } } },
};

static int checked, unavailable;

static void run_case(const char *bin, bool pie, const struct site_case *c, const char *tag)
{
	struct probe_site *s;
	char err[512], name[512];
	int n;

	snprintf(name, sizeof(name), "%s %s resolves", tag, c->spec);
	if (dw_resolve(bin, c->spec, false, &s, &n, err, sizeof(err))) {
		printf("  (%s: %s)\n", name, err);
		unit_expect(name, 0);
		return;
	}
	unit_expect(name, n > 0);
	/* The first site in address order that the program reaches. */
	for (int i = 0; i < n; i++) {
		struct proc p;
		if (stop_at(bin, pie, s[i].addr, &p))
			continue;
		p.entry = !strchr(c->spec, ':') && !strchr(c->spec, ';');
		for (const struct expect *e = c->ex; e->var; e++) {
			char why[256] = "", nm[600];
			int r = check_one(&p, s[i].dw, e, why, sizeof(why));
			if (r == 0) {
				const struct dw_var *v = dw_find_var(s[i].dw, e->var);
				if (getenv("DW_VERBOSE")) {
					printf("  unavailable: %s %s %s: ", tag, c->spec, e->var);
					dw_loc_print(stdout, &v->loc);
					printf("\n");
				}
				unavailable++;
				continue;
			}
			checked++;
			snprintf(nm, sizeof(nm), "%s %s@0x%llx: %s", tag, c->spec,
				 (unsigned long long)s[i].addr, why);
			unit_expect(nm, r > 0);
		}
		stop_proc(&p);
		break;
	}
	for (int i = 0; i < n; i++) {
		dw_probe_free(s[i].dw);
		free(s[i].func);
	}
	free(s);
}

static void test_values(void)
{
	char bin[256], tag[128];

	for (int c = 0; c < 2; c++)
		for (int lvl = 0; lvl <= 3; lvl++)
			for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
				if (k == 0 || strcmp(cases[k].prog, cases[k - 1].prog))
					if (build(cases[k].prog, ccs[c], lvl, "", bin, sizeof(bin))) {
						unit_expect("build fixture", 0);
						continue;
					}
				snprintf(bin, sizeof(bin), OUT "/%s-%s-O%d", cases[k].prog, ccs[c], lvl);
				snprintf(tag, sizeof(tag), "%s -O%d", ccs[c], lvl);
				run_case(bin, true, &cases[k], tag);
			}
	/* ET_EXEC: DW_OP_addr is absolute, offsets differ from addresses. */
	if (build("dwarf_types", "gcc", 2, "-no-pie", bin, sizeof(bin)) == 0) {
		run_case(bin, false, &cases[0], "gcc -O2 -no-pie");
		struct probe_site *s;
		int n;
		char err[256];
		if (dw_resolve(bin, "show_req", false, &s, &n, err, sizeof(err)) == 0 && n == 1) {
			unit_expect("non-PIE: file offset below address", s[0].offset < s[0].addr &&
				    s[0].addr - s[0].offset == 0x400000);
			dw_probe_free(s[0].dw);
			free(s[0].func);
			free(s);
		} else {
			unit_expect("non-PIE resolves", 0);
		}
	}
	printf("values: %d checked on live processes, %d not available at their site\n",
	       checked, unavailable);
	unit_expect("most values are available", checked > 3 * unavailable);
}

/* ---- entry values: a companion probe at the function entry ---- */

static void test_entry_values(void)
{
	char bin[256], tag[64], err[256];
	int uses = 0, right = 0;

	for (int c = 0; c < 2; c++)
		for (int lvl = 1; lvl <= 3; lvl++) {
			struct probe_site *s, *e;
			int n, ne;
			snprintf(bin, sizeof(bin), OUT "/dwarf_scopes-%s-O%d", ccs[c], lvl);
			snprintf(tag, sizeof(tag), "%s -O%d", ccs[c], lvl);
			if (dw_resolve(bin, "accumulate;*ACCsum*", false, &s, &n, err, sizeof(err)))
				continue;
			if (dw_resolve(bin, "accumulate", true, &e, &ne, err, sizeof(err)) || ne != 1) {
				unit_expect("entry: accumulate's entry", 0);
				continue;
			}
			for (int i = 0; i < n; i++) {
				const struct dw_var *v = dw_find_var(s[i].dw, "n");
				struct proc p;
				if (!v || !v->loc.uses_entry_value || stop_at2(bin, true, e[0].addr, s[i].addr, &p))
					continue;
				struct expect ex = { "n", NULL, 6, 0, 0 };
				char why[256], nm[400];
				int r = check_one(&p, s[i].dw, &ex, why, sizeof(why));
				stop_proc(&p);
				uses++;
				right += r > 0;
				snprintf(nm, sizeof(nm), "entry value %s @0x%llx: %s", tag,
					 (unsigned long long)s[i].addr, why);
				unit_expect(nm, r > 0);
				break;
			}
			for (int i = 0; i < n; i++) {
				dw_probe_free(s[i].dw);
				free(s[i].func);
			}
			free(s);
			dw_probe_free(e[0].dw);
			free(e[0].func);
			free(e);
		}
	printf("entry values: %d sites read through the entry registers, %d right\n", uses, right);
	unit_expect("entry values are exercised", uses > 0);
}

/* ---- a global defined in another compile unit ---- */

static void test_extern_global(void)
{
	struct probe_site *s;
	char err[256];
	int n;
	FILE *f = fopen(OUT "/ext_a.c", "w"), *g = fopen(OUT "/ext_b.c", "w");

	if (!f || !g) {
		unit_expect("extern: write sources", 0);
		if (f)
			fclose(f);
		if (g)
			fclose(g);
		return;
	}
	fputs("extern int g_other;\n__attribute__((noinline)) int use(int k) { return g_other + k; }\n"
	      "int main(void) { return use(1) == 43 ? 0 : 1; }\n", f);
	fputs("int g_other = 42;\n", g);
	fclose(f);
	fclose(g);
	if (system("gcc -g -O2 -o " OUT "/ext " OUT "/ext_a.c " OUT "/ext_b.c")) {
		unit_expect("extern: build", 0);
		return;
	}
	if (dw_resolve(OUT "/ext", "use", false, &s, &n, err, sizeof(err)) || n != 1) {
		unit_expect("extern: resolve use", 0);
		return;
	}
	struct proc p;
	struct expect e = { "g_other", NULL, 42, 0, 0 };
	char why[256] = "";
	int r = -1;
	if (stop_at(OUT "/ext", true, s[0].addr, &p) == 0) {
		r = check_one(&p, s[0].dw, &e, why, sizeof(why));
		stop_proc(&p);
	}
	char nm[300];
	snprintf(nm, sizeof(nm), "extern global through the symbol table: %s", why);
	unit_expect(nm, r > 0);
	dw_probe_free(s[0].dw);
	free(s[0].func);
	free(s);
}

/* ---- types ---- */

/* Ground truth for the layout, from the compiler itself. */
static const char layout_src[] =
	"#define main prog_main\n"
	"#include \"../../../tests/progs/dwarf_types.c\"\n"
	"#undef main\n"
	"#include <stddef.h>\n"
	"static int lowbit(const void *p, size_t n) {\n"
	"	const unsigned char *b = p;\n"
	"	for (size_t i = 0; i < n * 8; i++) if (b[i / 8] >> (i % 8) & 1) return (int)i;\n"
	"	return -1; }\n"
	"#define BIT(f) do { struct flags x; memset(&x, 0, sizeof(x)); x.f = -1; "
	"printf(#f \" %d\\n\", lowbit(&x, sizeof(x))); } while (0)\n"
	"int main(void) {\n"
	"	printf(\"req %zu\\nnext %zu\\nname %zu\\npts %zu\\ngrid %zu\\nfl %zu\\n\", sizeof(struct req),\n"
	"	       offsetof(struct req, next), offsetof(struct req, name), offsetof(struct req, pts),\n"
	"	       offsetof(struct req, grid), offsetof(struct req, fl));\n"
	"	BIT(ready); BIT(mode); BIT(delta); BIT(wide);\n"
	"	return 0; }\n";

static long layout(const char *key)
{
	static char text[1024];
	char line[128];

	if (!text[0]) {
		FILE *f = fopen(OUT "/layout.c", "w");
		if (!f)
			return -1;
		fputs(layout_src, f);
		fclose(f);
		FILE *p = popen("gcc -w -o " OUT "/layout " OUT "/layout.c && " OUT "/layout", "r");
		size_t n = p ? fread(text, 1, sizeof(text) - 1, p) : 0;
		text[n] = '\0';
		if (p)
			pclose(p);
	}
	size_t kl = strlen(key);
	for (const char *t = text; *t; t = strchr(t, '\n') ? strchr(t, '\n') + 1 : t + strlen(t)) {
		sscanf(t, "%127[^\n]", line);
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			return atol(line + kl + 1);
	}
	return -1;
}

static bool bit_at(const struct type *fl, const char *name)
{
	const struct field *f = type_field(fl, name);

	return f && (long)f->offset * 8 + f->bit_offset == layout(name);
}

static void test_types(void)
{
	struct probe_site *s;
	char err[256], bin[256];
	int n;

	snprintf(bin, sizeof(bin), OUT "/dwarf_types-gcc-O0");
	if (dw_resolve(bin, "show_req", false, &s, &n, err, sizeof(err)) || n != 1) {
		unit_expect("types: resolve show_req", 0);
		return;
	}
	const struct dw_var *r = dw_find_var(s[0].dw, "r");
	const struct type *req = r && r->type && r->type->kind == T_PTR ? r->type->elem : NULL;
	unit_expect("types: r is a pointer to struct req", req && req->kind == T_RECORD &&
		    !strcmp(req->name, "struct req") && req->size == layout("req"));
	if (req) {
		const struct field *f = type_field(req, "next");
		unit_expect("types: next points back to struct req (recursion)",
			    f && f->offset == layout("next") && f->type->kind == T_PTR && f->type->elem == req);
		f = type_field(req, "name");
		unit_expect("types: char name[16]", f && f->offset == layout("name") &&
			    f->type->kind == T_ARRAY && f->type->count == 16 && f->type->elem->size == 1);
		f = type_field(req, "pts");
		unit_expect("types: struct point pts[3]", f && f->offset == layout("pts") &&
			    f->type->kind == T_ARRAY && f->type->count == 3 &&
			    f->type->elem->kind == T_RECORD && f->type->size == 12);
		f = type_field(req, "grid");
		unit_expect("types: int grid[2][3]", f && f->offset == layout("grid") && f->type->count == 2 &&
			    f->type->elem->count == 3 && f->type->size == 24);
		f = type_field(req, "color");
		unit_expect("types: enum color is signed with 3 values", f && f->type->kind == T_ENUM &&
			    f->type->is_signed && f->type->nenums == 3 && f->type->enums[1].value == 5);
		f = type_field(req, "num");
		unit_expect("types: union number", f && f->type->kind == T_RECORD && f->type->is_union &&
			    f->type->size == 4);
		f = type_field(req, "total");
		unit_expect("types: typedef u64_t is an unsigned 8-byte int", f && f->type->kind == T_INT &&
			    f->type->size == 8 && !f->type->is_signed);
		f = type_field(req, "fl");
		const struct type *fl = f ? f->type : NULL;
		unit_expect("types: struct flags at its offset", f && f->offset == layout("fl"));
		unit_expect("types: bitfield positions", fl && bit_at(fl, "ready") && bit_at(fl, "mode") &&
			    bit_at(fl, "delta") && bit_at(fl, "wide"));
		const struct field *delta = fl ? type_field(fl, "delta") : NULL;
		unit_expect("types: bitfield sizes and sign", delta && delta->bit_size == 5 &&
			    delta->type->is_signed && type_field(fl, "wide")->bit_size == 20);
	}
	const struct dw_var *g = dw_find_var(s[0].dw, "g_reqs");
	unit_expect("types: global array of records", g && g->is_global && g->type &&
		    g->type->kind == T_ARRAY && g->type->count == 2);
	unit_expect("types: perf's spelling", r && !strcmp(r->type_name, "struct req*"));
	unit_expect("unknown variable", dw_find_var(s[0].dw, "nope") == NULL);
	dw_probe_free(s[0].dw);
	free(s[0].func);
	free(s);
}

/* ---- errors and messages ---- */

static void expect_error(const char *bin, const char *spec, const char *part)
{
	struct probe_site *s;
	char err[512] = "", name[256];
	int n;

	snprintf(name, sizeof(name), "error for '%s' mentions '%s'", spec, part);
	int r = dw_resolve(bin, spec, false, &s, &n, err, sizeof(err));
	unit_expect(name, r == -1 && strstr(err, part));
	if (r == 0) {
		for (int i = 0; i < n; i++) {
			dw_probe_free(s[i].dw);
			free(s[i].func);
		}
		free(s);
	}
}

static void test_errors(void)
{
	char bin[256];

	snprintf(bin, sizeof(bin), OUT "/dwarf_types-gcc-O0");
	expect_error(bin, "no_such_function", "no probe point matches");
	expect_error(bin, "show_req:x", "not a line number");
	expect_error(bin, "show_req+zz", "not an offset");
	expect_error(bin, "dwarf_types.c:2", "no probe point matches");
	expect_error(bin, "show_req@other.c", "no probe point matches");
	expect_error("/nonexistent/bin", "main", "cannot open");
	expect_error("/bin/true", "main", "no debug information");

	/* Optimised out: names where the variable can be read instead. */
	snprintf(bin, sizeof(bin), OUT "/dwarf_types-gcc-O2");
	struct probe_site *s;
	char err[256];
	int n;
	bool said = false;
	if (dw_resolve(bin, "show_req%return", false, &s, &n, err, sizeof(err)) == 0) {
		unit_expect("%return is not part of the spec", 0);
	}
	if (dw_resolve(bin, "show_req", true, &s, &n, err, sizeof(err)) == 0) {
		for (int i = 0; i < n; i++) {
			const struct dw_var *v = dw_find_var(s[i].dw, "sum");
			if (v && v->loc.kind == DWR_OPTIMIZED && v->loc.why && strstr(v->loc.why, "available at 0x"))
				said = true;
			dw_probe_free(s[i].dw);
			free(s[i].func);
		}
		free(s);
	}
	unit_expect("optimised out: the message names where it is available", said);
}

/* ---- separate debuginfo by build-id (in a private debuginfod cache) ---- */

static void test_debuginfo(void)
{
	char cmd[2048], id[128] = "", home[] = "/tmp/pr-dwarf-home-XXXXXX";
	struct probe_site *s;
	char err[256];
	int n;

	if (!mkdtemp(home)) {
		unit_expect("mkdtemp", 0);
		return;
	}
	snprintf(cmd, sizeof(cmd), "gcc -g -O1 -Wl,--build-id -o %s/prog tests/progs/dwarf_scopes.c && "
		 "readelf -n %s/prog | awk '/Build ID/ { print $3 }'", home, home);
	FILE *f = popen(cmd, "r");
	if (!f || !fgets(id, sizeof(id), f)) {
		unit_expect("debuginfo: build with a build-id", 0);
		if (f)
			pclose(f);
		return;
	}
	pclose(f);
	id[strcspn(id, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p .cache/debuginfod_client/%s && "
		 "objcopy --only-keep-debug prog .cache/debuginfod_client/%s/debuginfo && "
		 "objcopy --strip-debug prog", home, id, id);
	unit_expect("debuginfo: split", system(cmd) == 0);
	char bin[300];
	snprintf(bin, sizeof(bin), "%s/prog", home);
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);
	int r = dw_resolve(bin, "shadow;*SHADOWdeepest*", false, &s, &n, err, sizeof(err));
	unit_expect("debuginfo: found by build-id in the debuginfod cache", r == 0 && n >= 1);
	if (r == 0) {
		struct proc p;
		if (stop_at(bin, true, s[0].addr, &p) == 0) {
			struct expect e = { "z", NULL, -5, 0, 0 };
			char why[256];
			int c = check_one(&p, s[0].dw, &e, why, sizeof(why));
			unit_expect("debuginfo: value read through split DWARF and CFI", c != -1);
			stop_proc(&p);
		}
		for (int i = 0; i < n; i++) {
			dw_probe_free(s[i].dw);
			free(s[i].func);
		}
		free(s);
	}
	if (old) {
		setenv("HOME", old, 1);
		free(old);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", home);
	if (system(cmd) != 0)
		unit_expect("cleanup", 0);
}

/* Program types by name, for casts; dw_probe_entry; the -V header. */
static void test_find_type(void)
{
	char err[256], bin[256], *buf = NULL;
	size_t len = 0;
	struct probe_site *s;
	int n;

	snprintf(bin, sizeof(bin), OUT "/dwarf_types-gcc-O2");
	const struct type *t = dw_find_type(bin, "struct req", err, sizeof(err));
	unit_expect("find type: struct req with its layout", t && t->kind == T_RECORD &&
		    t->size == layout("req") && type_field(t, "next"));
	t = dw_find_type(bin, "union number", err, sizeof(err));
	unit_expect("find type: union number", t && t->is_union && t->size == 4);
	t = dw_find_type(bin, "enum color", err, sizeof(err));
	unit_expect("find type: enum color", t && t->kind == T_ENUM && t->nenums == 3);
	t = dw_find_type(bin, "u64_t", err, sizeof(err));
	unit_expect("find type: typedef u64_t", t && t->kind == T_INT && t->size == 8 && !t->is_signed);
	t = dw_find_type(bin, "unsigned int", err, sizeof(err));
	unit_expect("find type: base type by its C name", t && t->kind == T_INT && t->size == 4);
	t = dw_find_type(bin, "struct nosuch", err, sizeof(err));
	unit_expect("find type: none for an unknown name, with a reason", !t && strstr(err, "defines"));

	if (dw_resolve(bin, "show_req;*next*", false, &s, &n, err, sizeof(err)) || n < 1) {
		unit_expect("probe entry: resolve show_req;*next*", 0);
	} else {
		uint64_t e = dw_probe_entry(s[0].dw);
		unit_expect("probe entry: the function's entry, before the line", e && e < s[0].addr);
		for (int i = 0; i < n; i++) {
			dw_probe_free(s[i].dw);
			free(s[i].func);
		}
		free(s);
	}

	FILE *out = open_memstream(&buf, &len);
	if (out && !dw_list_vars(out, bin, "dwarf_types.c;*g_sink=*", true, err, sizeof(err))) {
		fclose(out);
		unit_expect("-V header as perf probe writes a lazy spec",
			    !strncmp(buf, "Available variables at @dwarf_types.c\n", 38));
	} else {
		if (out)
			fclose(out);
		unit_expect("-V of a lazy spec", 0);
	}
	free(buf);
}

int main(void)
{
	mkdir("build", 0755);
	mkdir("build/dwarf", 0755);
	mkdir(OUT, 0755);
	test_values();
	test_entry_values();
	test_extern_global();
	test_types();
	test_find_type();
	test_errors();
	test_debuginfo();
	type_free_all();
	dw_close_all();
	return unit_summary();
}
