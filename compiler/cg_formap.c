// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_formap.c - for ($kv : @m) of newer bpftrace: the body becomes a
 * callback of bpf_for_each_map_elem(), called once per element with $kv =
 * (key, value).
 *
 * BPF has no other way to walk a map in the kernel, and a callback is a
 * function of its own: it cannot see the probe's stack slots.  The
 * variables the body names are copied into a region of the per-CPU heap
 * before the call, the callback works on them there (its own lookup of
 * the heap finds the same CPU's copy at the same offset: a BPF program is
 * not migrated while it runs) and they are copied back after it, so the
 * body reads and writes the probe's variables as a loop body would.  The
 * probe's context is not passed (sema refuses what reads it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"

struct fm_cap {
	const char *name;
	const struct type *type;
	uint32_t off, size;
};

struct fm_caps {
	struct fm_cap *v;
	int n, cap;
};

/* Every $variable named in n and below, once each. */
static void fm_collect(const struct node *n, struct fm_caps *c)
{
	for (; n; n = n->next) {
		if (n->kind == N_VAR && n->type) {
			int i = 0;

			while (i < c->n && strcmp(c->v[i].name, n->name))
				i++;
			if (i == c->n) {
				if (c->n == c->cap) {
					c->cap = c->cap ? 2 * c->cap : 8;
					c->v = realloc(c->v, (size_t)c->cap * sizeof(*c->v));
					if (!c->v)
						abort();
				}
				c->v[c->n++] = (struct fm_cap){ .name = n->name, .type = n->type };
			}
		}
		fm_collect(n->a, c);
		fm_collect(n->b, c);
		fm_collect(n->c, c);
		fm_collect(n->list, c);
	}
}

static void fm_add_var(struct cg *g, const char *name, const struct type *t, LLVMValueRef slot)
{
	if (g->nvars == g->capvars) {
		g->capvars = g->capvars ? 2 * g->capvars : 8;
		g->vars = realloc(g->vars, (size_t)g->capvars * sizeof(*g->vars));
		if (!g->vars)
			abort();
	}
	g->vars[g->nvars++] = (struct cg_var){ .name = name, .slot = slot, .type = t };
}

/* $kv = (key, value) from the callback's key and value pointers. */
static void fm_set_kv(struct cg *g, const struct pr_map *pm, struct node *var,
		      LLVMValueRef key, LLVMValueRef val)
{
	const struct type *el[2] = {
		pm->key->nfields == 1 ? pm->key->fields[0].type : pm->key, pm->value,
	};
	const struct type *tt = type_tuple(el, 2);
	struct cg_var *x = cg_var(g, var->name, var->type);
	LLVMValueRef kv = cg_alloca(g, tt->size, "kv");

	cg_memset0(g, kv, tt->size);
	cg_memcpy(g, kv, key, el[0]->size);
	cg_memcpy(g, cg_gep(g, kv, tt->fields[1].offset), val,
		  pm->value_size < el[1]->size ? pm->value_size : el[1]->size);
	cg_store_as(g, x->slot, x->type, kv, tt, x->type->size);
}

static LLVMValueRef fm_callback(struct cg *g, struct node *n, const struct fm_caps *c,
				uint32_t base)
{
	const struct pr_map *pm = &g->prog->maps[sema_map_of(n->c)];
	struct cg_fnstate st;
	char name[64];
	int k = 0;
	LLVMValueRef fn;

	do
		snprintf(name, sizeof(name), "pr_for_%d_%d_%d", n->loc.line, n->loc.col, k++);
	while (LLVMGetNamedFunction(g->mod, name));
	fn = cg_callback_begin(g, &st, name, n->loc);
	for (int i = 0; i < c->n; i++)
		fm_add_var(g, c->v[i].name, c->v[i].type,
			   cg_gep(g, cg_heap_ptr(g), base + c->v[i].off));
	fm_set_kv(g, pm, n->a, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2));

	/* break stops the walk (1), continue goes on to the next element (0) */
	LLVMBasicBlockRef stop = cg_block(g, "stop"), next = cg_block(g, "next");

	g->brk[0] = stop;
	g->cont[0] = next;
	g->nloops = 1;
	cg_block_stmts(g, n->b);
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)))
		LLVMBuildBr(g->b, next);
	LLVMPositionBuilderAtEnd(g->b, stop);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 1, 0));
	LLVMPositionBuilderAtEnd(g->b, next);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	cg_callback_end(g, &st);
	return fn;
}

void cg_for_map(struct cg *g, struct node *n)
{
	struct fm_caps c = { 0 };
	uint32_t size = 0, base;
	int mi = sema_map_of(n->c);
	LLVMValueRef region, fn;

	if (mi < 0 || !g->prog->maps[mi].key) {
		cg_error(g, n->loc, "internal error: for over a map without keys");
		return;
	}
	fm_collect(n->a, &c);
	fm_collect(n->b, &c);
	for (int i = 0; i < c.n; i++) {
		struct cg_var *x = cg_var(g, c.v[i].name, c.v[i].type);

		c.v[i].type = x->type;
		c.v[i].size = cg_is_mem(x->type) ? x->type->size : 8;
		c.v[i].off = size;
		size += (c.v[i].size + 7) & ~7u;
	}
	region = cg_heap_tmp(g, size, &base);
	for (int i = 0; i < c.n; i++)
		cg_memcpy(g, cg_gep(g, region, c.v[i].off), cg_var(g, c.v[i].name, NULL)->slot,
			  c.v[i].size);
	fn = fm_callback(g, n, &c, base);
	LLVMValueRef args[4] = { g->maps[mi], fn, LLVMConstNull(g->ptr), cg_const(g, 0) };

	cg_helper(g, H_FOR_EACH_MAP_ELEM, args, 4);
	for (int i = 0; i < c.n; i++)
		cg_memcpy(g, cg_var(g, c.v[i].name, NULL)->slot, cg_gep(g, region, c.v[i].off),
			  c.v[i].size);
	free(c.v);
}
