// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ctypes.c - unit tests of C types from script declarations
 * (compiler/ctypes.c, libclang) and from kernel BTF (compiler/kbtf.c).
 *
 * The declarations checked are compiled into this file too (DECL below is
 * both C and a string), so every offset, size and bit position libclang
 * reports is compared with what gcc lays out, not with numbers written by
 * hand.  Kernel checks are compared with the raw BTF through libbpf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "compiler/ctypes.h"
#include "lib/diag.h"
#include "compiler/kbtf.h"
#include "lib/types.h"
#include "unit.h"

#define STR(...) #__VA_ARGS__
#define DECL(...) __VA_ARGS__ static const char decl_text[] = STR(__VA_ARGS__);

DECL(
struct pt { int x, y; };
union num { long l; int i[2]; char c; };
enum color { RED = 1, GREEN = 2, BLUE = 4 };
enum sgn { NEG = -3, POS = 5 };
typedef struct { short lo, hi; } pair_t;
typedef void (*cb_t)(int);
struct item {
	int id;
	char name[16];
	struct pt pos;
	struct pt *ref;
	enum color color;
	union num n;
	struct { short lo; short hi; };
	union { int u1; char u2; };
	unsigned a : 3, b : 5;
	int c : 7;
	unsigned long long big;
	unsigned char d : 4;
	struct item *next;
	pair_t pair;
	cb_t cb;
	long double ld;
	int grid[2][3];
};
)

static struct ct_unit *unit;

static const struct field *fld(const struct type *t, const char *name)
{
	const struct field *f = t ? type_field(t, name) : NULL;

	if (!f)
		printf("no field %s\n", name);
	return f;
}

static void check_offsets(const struct type *t)
{
#define OFF(m) do { \
		const struct field *f = fld(t, #m); \
		unit_expect("offset of " #m, f && f->offset == offsetof(struct item, m) && \
			    !f->bit_size); \
	} while (0)
	OFF(id); OFF(name); OFF(pos); OFF(ref); OFF(color); OFF(n); OFF(lo); OFF(hi);
	OFF(u1); OFF(u2); OFF(big); OFF(next); OFF(pair); OFF(cb); OFF(ld); OFF(grid);
#undef OFF
	unit_expect("sizeof struct item", t->size == sizeof(struct item));
	unit_expect("struct item is not a union", t->kind == T_RECORD && !t->is_union);
}

/* The bit a bitfield starts at in gcc's layout: set it to all ones in a
 * zeroed record and find the lowest bit set. */
static unsigned first_bit(const unsigned char *p, size_t n)
{
	for (unsigned i = 0; i < n * 8; i++)
		if (p[i / 8] >> (i % 8) & 1)
			return i;
	return ~0u;
}

static void check_bitfields(const struct type *t)
{
	struct item it;
#define BITS(m, w) do { \
		const struct field *f = fld(t, #m); \
		memset(&it, 0, sizeof(it)); \
		it.m = -1; \
		unit_expect("bitfield " #m, f && f->bit_size == (w) && \
			    f->offset * 8u + f->bit_offset == \
			    first_bit((unsigned char *)&it, sizeof(it))); \
	} while (0)
	BITS(a, 3); BITS(b, 5); BITS(c, 7); BITS(d, 4);
#undef BITS
	unit_expect("signed bitfield", fld(t, "c") && fld(t, "c")->type->is_signed);
}

static void check_members(const struct type *t)
{
	const struct field *f;

	f = fld(t, "name");
	unit_expect("char[16]", f && f->type->kind == T_ARRAY && f->type->count == 16 &&
		    f->type->elem->size == 1);
	f = fld(t, "ref");
	unit_expect("pointer to struct pt", f && f->type->kind == T_PTR &&
		    f->type->elem->kind == T_RECORD && !strcmp(f->type->elem->name, "struct pt") &&
		    f->type->elem->size == sizeof(struct pt));
	f = fld(t, "next");
	unit_expect("self pointer", f && f->type->kind == T_PTR && f->type->elem == t);
	f = fld(t, "n");
	unit_expect("union", f && f->type->is_union && f->type->size == sizeof(union num));
	f = fld(t, "color");
	unit_expect("enum member", f && f->type->kind == T_ENUM && f->type->nenums == 3 &&
		    f->type->size == sizeof(enum color));
	f = fld(t, "pair");
	unit_expect("typedef'd anonymous struct named by its typedef",
		    f && f->type->kind == T_RECORD && !strcmp(f->type->name, "pair_t"));
	f = fld(t, "cb");
	unit_expect("function pointer as void *", f && f->type->kind == T_PTR &&
		    f->type->elem->kind == T_VOID);
	f = fld(t, "ld");
	unit_expect("long double as bytes", f && f->type->size == sizeof(long double));
	f = fld(t, "grid");
	unit_expect("int[2][3]", f && f->type->kind == T_ARRAY && f->type->count == 2 &&
		    f->type->elem->kind == T_ARRAY && f->type->elem->count == 3 &&
		    f->type->size == sizeof(int[2][3]));
	unit_expect("the record is cached", ct_type(unit, "struct item") == t);
}

static void check_names(void)
{
	const struct type *t;
	int64_t v = 0;

	t = ct_type(unit, "union num");
	unit_expect("union by name", t && t->is_union && t->size == sizeof(union num));
	t = ct_type(unit, "enum sgn");
	unit_expect("signed enum", t && t->kind == T_ENUM && t->is_signed);
	t = ct_type(unit, "cb_t");
	unit_expect("typedef of a function pointer", t && t->kind == T_PTR);
	unit_expect("enumerator BLUE", ct_enum_value(unit, "BLUE", &v) && v == BLUE);
	unit_expect("enumerator NEG", ct_enum_value(unit, "NEG", &v) && v == -3);
	unit_expect("no enumerator", !ct_enum_value(unit, "PURPLE", &v));
	unit_expect("typedef known", ct_is_typedef(unit, "pair_t"));
	unit_expect("struct is not a typedef", !ct_is_typedef(unit, "item"));
	unit_expect("unknown type", !ct_type(unit, "struct nope") && !ct_type(unit, "nope_t"));
}

static void check_typedef_names(void)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "typedef unsigned long long u64_t;", "u64_t" },
		{ "typedef struct req { int a[4]; } req_t;", "req_t" },
		{ "typedef void (*fn_t)(int, char *);", "fn_t" },
		{ "typedef int arr_t[8];", "arr_t" },
		{ "struct x { int y; };", NULL },
		{ "typedefx int y;", NULL },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool ok = ct_typedef_name(cases[i].text, buf, sizeof(buf));

		unit_expect(cases[i].text, cases[i].want ? ok && !strcmp(buf, cases[i].want) : !ok);
	}
}

/* Declarations that do not compile are reported at their script line. */
static void check_errors(void)
{
	const char *text = "struct a { int x; };\nstruct b { int y; nope z; };\nBEGIN {}\n";
	struct source src = { "t.bt", text };
	struct ct_decl decls[2] = {
		{ "struct a { int x; };", { 1, 1, 20 } },
		{ "struct b { int y; nope z; };", { 2, 1, 28 } },
	};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct ct_unit *u = NULL;
	struct diag d;

	diag_init(&d, &src, f);
	int r = ct_parse(decls, 2, NULL, 0, &d, &u);
	fclose(f);
	unit_expect("bad declaration fails", r == -1 && !u && d.errors == 1);
	unit_expect("error at line 2 column 19",
		    out && strstr(out, "t.bt:2:19: error: unknown type name 'nope'"));
	if (!out || !strstr(out, "t.bt:2:19:"))
		printf("got: %s\n", out ? out : "(null)");
	free(out);
}

/* Macros of the script and of headers, for the identifiers a script uses;
 * identifiers no macro makes an integer are no values (and no errors). */
static void check_macros(void)
{
	static const char *const idents[] = { "pid", "NAMELEN", "TWICE", "GREETING", "O_WRONLY",
					      "if", "u8", "F" };
	struct ct_decl decls[] = {
		{ "#include <fcntl.h>", { 1, 1, 18 } },
		{ "#define NAMELEN 16", { 2, 1, 18 } },
		{ "#define TWICE (NAMELEN * 2)", { 3, 1, 27 } },
		{ "#define GREETING \"hi\"", { 4, 1, 22 } },
		{ "#define u8 unsigned char", { 5, 1, 24 } },
		{ "#define F(x) (x + 1)", { 6, 1, 20 } },
		{ "struct s { char n[NAMELEN]; u8 c; };", { 7, 1, 36 } },
	};
	struct source src = { "m.bt", "" };
	struct ct_unit *u = NULL;
	struct diag d;
	int64_t v = -1;

	diag_init(&d, &src, stdout);
	if (ct_parse(decls, 7, idents, 8, &d, &u) < 0) {
		unit_expect("macro declarations parse", 0);
		return;
	}
	unit_expect("NAMELEN", ct_enum_value(u, "NAMELEN", &v) && v == 16);
	unit_expect("TWICE", ct_enum_value(u, "TWICE", &v) && v == 32);
	unit_expect("O_WRONLY from <fcntl.h>", ct_enum_value(u, "O_WRONLY", &v) && v == 1);
	unit_expect("a string macro is no value", !ct_enum_value(u, "GREETING", &v));
	unit_expect("a type macro is no value", !ct_enum_value(u, "u8", &v));
	unit_expect("a function macro is no value", !ct_enum_value(u, "F", &v));
	unit_expect("a plain identifier is no value", !ct_enum_value(u, "pid", &v));
	unit_expect("macro in a declaration", ct_type(u, "struct s") &&
		    ct_type(u, "struct s")->size == 17);
	unit_expect("no error from the macro constants", d.errors == 0);
	ct_free(u);
}

static void check_ctypes(void)
{
	struct source src = { "t.bt", decl_text };
	struct ct_decl decl = { decl_text, { 1, 1, 1 } };
	struct diag d;

	diag_init(&d, &src, stdout);
	if (ct_parse(&decl, 1, NULL, 0, &d, &unit) < 0) {
		unit_expect("declarations parse", 0);
		return;
	}
	const struct type *t = ct_type(unit, "struct item");
	unit_expect("struct item found", t != NULL);
	if (t) {
		check_offsets(t);
		check_bitfields(t);
		check_members(t);
	}
	check_names();
	ct_free(unit);
	unit = NULL;
	check_errors();
	check_macros();
}

/* ---- kernel BTF ---- */

static int btf_member_off(struct btf *b, const char *rec, const char *member)
{
	int id = btf__find_by_name_kind(b, rec, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, (uint32_t)id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(b, m[i].name_off), member))
			return (int)(btf_member_bit_offset(t, (uint32_t)i) / 8);
	return -1;
}

static void check_kbtf(void)
{
	struct btf *raw = btf__load_vmlinux_btf();
	const struct type *task = kbtf_task_ptr(), *args, *t;
	const struct field *f;

	unit_expect("curtask is a kernel pointer", task->kind == T_PTR && !task->is_user);
	unit_expect("task_struct is filled lazily", task->elem->fill != NULL);
	f = type_field(task->elem, "pid");
	unit_expect("task_struct.pid as BTF places it", f && raw &&
		    (int)f->offset == btf_member_off(raw, "task_struct", "pid") &&
		    f->type->kind == T_INT && f->type->size == 4 && f->type->is_signed);
	f = type_field(task->elem, "comm");
	unit_expect("task_struct.comm is char[16]", f && f->type->kind == T_ARRAY &&
		    f->type->count == 16);
	f = type_field(task->elem, "parent");
	unit_expect("task_struct.parent points to task_struct", f && f->type->kind == T_PTR &&
		    f->type->elem == task->elem);
	unit_expect("sizeof task_struct", raw && task->elem->size ==
		    btf__type_by_id(raw, (uint32_t)btf__find_by_name_kind(raw, "task_struct",
									 BTF_KIND_STRUCT))->size);
	args = kbtf_rawtp_args("sched_switch");
	unit_expect("sched_switch arguments", args && args->nfields == 4 &&
		    !strcmp(args->fields[1].name, "prev") && args->fields[1].offset == 8 &&
		    !strcmp(args->fields[2].name, "next") && args->fields[2].offset == 16 &&
		    args->fields[2].type->kind == T_PTR &&
		    args->fields[2].type->elem == task->elem);
	errno = 0;
	unit_expect("no such raw tracepoint", !kbtf_rawtp_args("no_such_tp_xyz") && errno == ENOENT);
	t = kbtf_type("pid_t");
	unit_expect("typedef pid_t", t && t->kind == T_INT && t->size == 4 && t->is_signed);
	t = kbtf_type("struct sk_buff");
	unit_expect("struct sk_buff", t && t->kind == T_RECORD && t->size > 100 &&
		    type_field(t, "len"));
	t = kbtf_type("struct task_struct");
	unit_expect("struct task_struct by name is curtask's", t == task->elem);
	t = kbtf_type("enum pid_type");
	unit_expect("enum pid_type", t && t->kind == T_ENUM && t->nenums > 2);
	unit_expect("unknown kernel type", !kbtf_type("struct no_such_struct_xyz"));
	btf__free(raw);
}

int main(void)
{
	check_typedef_names();
	if (ct_available())
		check_ctypes();
	else
		printf("SKIP libclang checks: libclang-19 cannot be loaded\n");
	if (kbtf_available())
		check_kbtf();
	else
		printf("SKIP kernel BTF checks: no /sys/kernel/btf/vmlinux\n");
	return unit_summary();
}
