/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * resolve_main.c - a small driver of the dwarf module for the conformance
 * script: prints what perf-run would probe, in forms easy to compare with
 * `perf probe -D`, `-V` and `-L`.
 *
 *   resolve_main BIN SPEC...        "SPEC -> 0xOFFSET" per site (file offset)
 *   resolve_main -r BIN SPEC...     the same for SPEC%return
 *   resolve_main -V BIN SPEC        perf probe -V's listing, at a function's first
 *                                   instruction as perf looks (perf-run -V lists at
 *                                   its probe's address, past the prologue)
 *   resolve_main -L BIN SPEC        perf probe -L's listing
 *   resolve_main -d BIN SPEC        sites, variables, types and locations
 *   resolve_main -a BIN SPEC        "ADDR NAME.MEMBER" of each scalar member of a
 *                                   variable in pieces whose bytes no piece gives a
 *                                   location for at the site (values.sh: gdb shows
 *                                   0 there, a value it makes up), and
 *                                   "ADDR NAME.MEMBER uninit" of each of a variable
 *                                   whose location DWARF marks as maybe not holding
 *                                   it (DW_OP_GNU_uninit: gdb reads it anyway)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/dwarf.h"
#include "compiler/probe.h"
#include "lib/types.h"

/* Whether no piece with a location covers any of bytes [from, from + size)
 * (one of bit pieces that give some bits, not all, counts as one). */
static bool no_piece(const struct dw_loc *l, uint32_t from, uint32_t size)
{
	uint32_t off = 0;

	for (int i = 0; i < l->npieces; i++) {
		const struct dw_piece *p = &l->pieces[i];
		if ((p->kind != DWR_OPTIMIZED || p->bits_given) && off < from + size &&
		    off + p->size > from)
			return false;
		off += p->size;
	}
	return true;
}

/* Prints the scalar members of t at byte `at` of v that no piece gives
 * (all of them where l is NULL, tagged "uninit"). */
static void absent(uint64_t addr, const struct dw_loc *l, const char *name,
		   const struct type *t, uint32_t at)
{
	const char *tag = l ? "" : " uninit";
	char sub[512];

	if (t->kind == T_RECORD) {
		for (int i = 0; i < t->nfields; i++) {
			const struct field *f = &t->fields[i];
			/* a bitfield: the bytes its bits are in */
			uint32_t first = f->bit_offset / 8u;
			uint32_t sz = f->bit_size ? (uint32_t)(f->bit_offset + f->bit_size + 7) / 8 - first
						  : f->type ? f->type->size : 0;
			snprintf(sub, sizeof(sub), "%s.%s", name, f->name ? f->name : "");
			if (f->type && !f->bit_size && (f->type->kind == T_RECORD ||
							f->type->kind == T_ARRAY))
				absent(addr, l, sub, f->type, at + f->offset);
			else if (sz && (!l || no_piece(l, at + f->offset + first, sz)))
				printf("0x%llx %s%s\n", (unsigned long long)addr, sub, tag);
		}
	} else if (t->kind == T_ARRAY && t->elem && t->elem->size) {
		for (uint32_t i = 0; i < t->count; i++) {
			snprintf(sub, sizeof(sub), "%s[%u]", name, i);
			absent(addr, l, sub, t->elem, at + i * t->elem->size);
		}
	} else if (t->size && (!l || no_piece(l, at, t->size))) {
		printf("0x%llx %s%s\n", (unsigned long long)addr, name, tag);
	}
}

static void print_absent(struct dw_probe *p)
{
	const struct dw_var *v;
	int n = dw_vars(p, &v);

	for (int i = 0; i < n; i++)
		if (v[i].loc.kind == DWR_PIECES && v[i].type)
			absent(dw_probe_addr(p), &v[i].loc, v[i].name, v[i].type, 0);
		else if (v[i].loc.maybe_uninit && v[i].type)
			absent(dw_probe_addr(p), NULL, v[i].name, v[i].type, 0);
}

static int resolve(const char *bin, const char *spec, bool ret, bool dump, bool gaps)
{
	struct probe_site *s;
	char err[512];
	int n;

	if (dw_resolve(bin, spec, ret, &s, &n, err, sizeof(err))) {
		printf("%s -> error: %s\n", spec, err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (gaps)
			print_absent(s[i].dw);
		else
			printf("%s -> 0x%llx\n", spec, (unsigned long long)s[i].offset);
		if (dump) {
			printf("  site %s addr 0x%llx\n", s[i].func, (unsigned long long)s[i].addr);
			dw_probe_dump(stdout, s[i].dw);
		}
		dw_probe_free(s[i].dw);
		free(s[i].func);
	}
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	char err[512];
	int rc = 0;

	if (argc >= 4 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "-L"))) {
		int r = argv[1][1] == 'V' ? dw_list_vars(stdout, argv[2], argv[3], true, err,
							 sizeof(err))
					  : dw_list_lines(stdout, argv[2], argv[3], err, sizeof(err));
		if (r)
			fprintf(stderr, "error: %s\n", err);
		rc = r ? 1 : 0;
	} else if (argc >= 3) {
		bool ret = !strcmp(argv[1], "-r"), dump = !strcmp(argv[1], "-d");
		bool gaps = !strcmp(argv[1], "-a");
		int first = ret || dump || gaps ? 3 : 2;
		for (int i = first; i < argc; i++)
			rc |= resolve(argv[first - 1], argv[i], ret, dump, gaps);
	} else {
		fprintf(stderr, "usage: resolve_main [-r|-d|-a|-V|-L] BIN SPEC...\n");
		return 2;
	}
	type_free_all();
	dw_close_all();
	return rc;
}
