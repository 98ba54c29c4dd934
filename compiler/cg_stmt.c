// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_stmt.c - code for statements and calls: control flow, assignments to
 * scratch variables and maps, in-kernel aggregations (layouts in
 * program.h), and the actions whose records go through the ring buffer.
 *
 * Every failure that would lose data is counted: a ring buffer record that
 * does not fit increments "lost", a map update that fails (map full, or
 * no element free at that moment) increments "drops".
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <linux/bpf.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "codegen_int.h"
#include "lexer.h"

static void dead_block(struct cg *g)
{
	LLVMPositionBuilderAtEnd(g->b, cg_block(g, "dead"));
}

static void ret0(struct cg *g)
{
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	dead_block(g);
}

static bool is_u64(const struct type *t)
{
	return t && t->kind == T_INT && !t->is_signed && t->size == 8;
}

/* ---- actions ---- */

struct pr_action *action_new(struct cg *g, enum pr_action_kind k, const char *fmt,
			     struct loc loc, int *id)
{
	struct program *p = g->prog;
	struct pr_action *a = realloc(p->actions, (p->nactions + 1) * sizeof(*a));

	if (!a)
		abort();
	p->actions = a;
	*id = p->nactions++;
	a = &p->actions[*id];
	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->fmt = fmt ? strdup(fmt) : NULL;
	a->loc = loc;
	a->size = 8;
	a->map = -1;
	return a;
}

static bool str_into(struct cg *g, struct node *n, LLVMValueRef dst);

static bool same_action(const struct pr_action *a, const struct pr_action *b)
{
	if (a->kind != b->kind || (!a->fmt) != (!b->fmt) || (a->fmt && strcmp(a->fmt, b->fmt)) ||
	    a->loc.line != b->loc.line || a->loc.col != b->loc.col || a->loc.len != b->loc.len ||
	    a->size != b->size || a->map != b->map || a->top != b->top || a->div != b->div ||
	    a->nargs != b->nargs)
		return false;
	/* Types alike in all that printing reads (print(args)'s are built
	 * per site, from each site's DWARF). */
	for (int i = 0; i < a->nargs; i++)
		if (!type_same(a->args[i].type, b->args[i].type) ||
		    a->args[i].offset != b->args[i].offset ||
		    a->args[i].gdb_ptrs != b->args[i].gdb_ptrs)
			return false;
	return true;
}

/* The action just made (the last one), or an identical one made for
 * another site of the probe: sites whose code is otherwise the same then
 * share one program (codegen.c, gen_shared). */
int cg_action_reuse(struct cg *g, int id)
{
	struct program *p = g->prog;
	struct pr_action *a = &p->actions[id];

	if (g->act_share_from < 0 || id != p->nactions - 1)
		return id;
	for (int i = g->act_share_from; i < id; i++)
		if (same_action(a, &p->actions[i])) {
			free(a->fmt);
			free(a->args);
			p->nactions--;
			return i;
		}
	return id;
}

/* Lays out args after the id, fills the record in place (strings are read
 * straight into their slots), emits it, and counts it as lost if the ring
 * buffer is full. */
static void emit_record(struct cg *g, int id, struct node *args)
{
	int n = ast_count(args), i = 0;
	struct pr_arg *pa = calloc(n ? n : 1, sizeof(*pa));
	LLVMValueRef rec;
	uint32_t off = 8;

	if (!pa)
		abort();
	for (struct node *a = args; a; a = a->next, i++) {
		pa[i].type = a->type;
		pa[i].offset = off;
		off += cg_is_mem(a->type) ? (a->type->size + 7) & ~7u : 8;
	}
	g->prog->actions[id].args = pa;
	g->prog->actions[id].nargs = n;
	g->prog->actions[id].size = off;
	id = cg_action_reuse(g, id);
	pa = g->prog->actions[id].args;
	rec = cg_alloca(g, off, "rec");
	LLVMBuildStore(g->b, cg_const(g, id), rec);
	i = 0;
	for (struct node *a = args; a; a = a->next, i++) {
		const struct type *t = pa[i].type;
		uint32_t sz = cg_is_mem(t) ? (t->size + 7) & ~7u : 8;
		LLVMValueRef slot = cg_gep(g, rec, pa[i].offset);

		if (!str_into(g, a, slot))
			cg_store_value(g, slot, cg_expr(g, a), t, sz);
	}
	cg_send(g, rec, off);
}

static void act_printf(struct cg *g, struct node *n, enum pr_action_kind k)
{
	int id;

	action_new(g, k, n->list->name, n->loc, &id);
	emit_record(g, id, n->list->next);
}

static void act_print(struct cg *g, struct node *n)
{
	struct node *m = n->list;
	struct pr_action *a;
	int id;

	if (m->kind == N_MAP && !m->list) {
		a = action_new(g, ACT_PRINT, NULL, n->loc, &id);
		a->map = sema_map_of(m);
		a->top = m->next ? (int64_t)m->next->ival : 0;
		a->div = m->next && m->next->next ? (int64_t)m->next->next->ival : 0;
		emit_record(g, id, NULL);
		return;
	}
	if (m->kind == N_IDENT && m->type && m->type->kind == T_ARGS && !m->type->fields &&
	    (g->probe->kind == PK_UPROBE || g->probe->kind == PK_KPROBE)) {
		action_new(g, ACT_PRINTF, NULL, n->loc, &id);
		cg_print_args(g, id, n->loc);
		return;
	}
	if (m->type && (m->type->kind == T_RECORD || m->type->kind == T_ARRAY) &&
	    cg_is_dwarf_var(g, m)) {
		action_new(g, ACT_PRINTV, NULL, n->loc, &id);
		cg_print_place(g, id, m);
		return;
	}
	a = action_new(g, ACT_PRINTV, NULL, n->loc, &id);
	emit_record(g, id, m);
}

/* join(argv, sep): a printf("%s\n") of a UF_JOIN value: the strings at
 * argv[0], argv[1], ... up to a NULL or PR_JOIN_ARGS of them, read into
 * one record; user space joins them with sep. */
static void act_join(struct cg *g, struct node *n)
{
	struct node *arr = n->list;
	const char *sep = arr->next ? arr->next->name : " ";
	const struct type *t = type_ufmt(UF_JOIN, 8 + PR_JOIN_ARGS * PR_JOIN_ARGSZ, sep);
	bool user = arr->type->kind == T_PTR ? arr->type->is_user :
		    g->probe->kind == PK_UPROBE || g->probe->kind == PK_URETPROBE ||
		    g->probe->kind == PK_USDT || g->probe->kind == PK_TRACEPOINT;
	struct pr_arg *pa = calloc(1, sizeof(*pa));
	uint32_t size = 8 + 8 + t->size;
	int id;
	struct pr_action *a = action_new(g, ACT_PRINTF, "%s\n", n->loc, &id);

	if (!pa)
		abort();
	pa->type = t;
	pa->offset = 8;
	a->args = pa;
	a->nargs = 1;
	a->size = size;
	LLVMValueRef rec = cg_alloca(g, size, "join"), base = cg_expr(g, arr);
	LLVMValueRef slot = cg_alloca(g, 8, "jp");
	LLVMBasicBlockRef done = cg_block(g, "joindone");

	/* only the header: a slot past the count is never read, and a failed
	 * read of a string zeroes its slot */
	cg_memset0(g, rec, 16);
	LLVMBuildStore(g->b, cg_const(g, (uint64_t)id), rec);
	for (int i = 0; i < PR_JOIN_ARGS; i++) {
		LLVMValueRef args[3] = { slot, cg_const(g, 8),
			LLVMBuildIntToPtr(g->b, LLVMBuildAdd(g->b, base, cg_const(g, 8 * i), ""),
					  g->ptr, "") };
		LLVMBasicBlockRef more = cg_block(g, "joinarg");

		LLVMBuildStore(g->b, cg_const(g, 0), slot);
		cg_read(g, user ? H_READ_USER : H_READ_KERNEL, args);
		LLVMValueRef p = LLVMBuildLoad2(g->b, g->i64, slot, "");
		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, p, cg_const(g, 0), ""), done,
				more);
		LLVMPositionBuilderAtEnd(g->b, more);
		LLVMValueRef sargs[3] = { cg_gep(g, rec, 16 + (uint64_t)i * PR_JOIN_ARGSZ),
					  cg_const(g, PR_JOIN_ARGSZ),
					  LLVMBuildIntToPtr(g->b, p, g->ptr, "") };
		cg_read(g, user ? H_READ_USER_STR : H_READ_KERNEL_STR, sargs);
		LLVMBuildStore(g->b, cg_const(g, (uint64_t)i + 1), cg_gep(g, rec, 8));
	}
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	cg_send(g, rec, size);
}

static void act_simple(struct cg *g, struct node *n, enum pr_action_kind k, const char *fmt)
{
	int id;
	struct pr_action *a = action_new(g, k, fmt, n->loc, &id);

	a->map = k == ACT_CLEAR || k == ACT_ZERO ? sema_map_of(n->list) : -1;
	emit_record(g, id, NULL);
}

/* ---- value calls ---- */

static int str_helper(struct cg *g, const struct type *t)
{
	enum probe_kind k = g->probe->kind;

	if (t->kind == T_PTR && t->is_user)
		return H_READ_USER_STR;
	if (k == PK_UPROBE || k == PK_URETPROBE || k == PK_USDT)
		return H_READ_USER_STR;
	/* Otherwise the address space is not known: an integer such as a
	 * kprobe's arg1, or a kernel-typed char * (BTF of a GCC-built kernel
	 * has no __user tags), often points to user memory.  x86's compat
	 * helper picks user or kernel by the address. */
	return H_PROBE_READ_STR;
}

/* The string at address src (the value of a) into size bytes at dst. */
static void read_str(struct cg *g, const struct node *a, LLVMValueRef src, LLVMValueRef dst,
		     uint32_t size)
{
	LLVMValueRef args[3] = { dst, cg_const(g, size), src };

	cg_read(g, str_helper(g, a->type), args);
}

static LLVMValueRef call_str(struct cg *g, struct node *n)
{
	struct node *a = n->list;
	uint32_t size = n->type->size;
	LLVMValueRef v, buf, args[3];

	if (a->type->kind == T_ARRAY) {
		buf = cg_alloca(g, size, "str");
		cg_memset0(g, buf, size);
		args[0] = buf;
		args[1] = cg_const(g, size);
		args[2] = cg_place_addr(g, a);
		cg_read(g, sema_place_is_user(a) ? H_READ_USER_STR : H_READ_KERNEL_STR, args);
		return buf;
	}
	v = cg_expr(g, a);

	if (a->type->kind == T_STR) {
		if (a->type->size == size)
			return v;
		buf = cg_alloca(g, size, "str");
		cg_store_value(g, buf, v, a->type, size);
		if (a->type->size >= size)
			LLVMBuildStore(g->b, LLVMConstInt(g->i8, 0, 0), cg_gep(g, buf, size - 1));
		return buf;
	}
	buf = cg_alloca(g, size, "str");
	cg_memset0(g, buf, size);
	read_str(g, a, v, buf, size);
	return buf;
}

/*
 * comm and str(pointer) written straight into a record slot, without a
 * buffer and a copy.  The helpers fill their whole size, so only the pad
 * up to the slot's 8-byte end needs zeroing (a record on the stack must be
 * initialised for the verifier).  Other values: false, the caller copies.
 */
static bool str_into(struct cg *g, struct node *n, LLVMValueRef dst)
{
	uint32_t size;

	if (n->kind == N_IDENT && n->bi == BI_COMM && n->type->kind == T_STR &&
	    n->type->size == 16) {
		cg_comm_into(g, dst);
		return true;
	}
	if (n->kind != N_CALL || n->bi != BI_STR ||
	    n->list->type->kind == T_ARRAY || n->list->type->kind == T_STR)
		return false;
	size = n->type->size;
	cg_at(g, n);
	LLVMValueRef src = cg_expr(g, n->list);
	if (size % 8)
		LLVMBuildStore(g->b, cg_const(g, 0), cg_gep(g, dst, size & ~7u));
	read_str(g, n->list, src, dst, size);
	return true;
}

static LLVMValueRef call_usym(struct cg *g, struct node *n)
{
	LLVMValueRef buf = cg_alloca(g, 16, "usym");

	LLVMBuildStore(g->b, cg_expr(g, n->list), buf);
	LLVMBuildStore(g->b, LLVMBuildLShr(g->b, cg_pid_tgid(g), cg_const(g, 32), ""),
		       cg_gep(g, buf, 8));
	return buf;
}

static void call_delete(struct cg *g, struct node *n)
{
	struct node *m = n->list;
	LLVMValueRef args[2] = { g->maps[sema_map_of(m)], cg_map_key(g, m, NULL) };

	cg_helper(g, H_MAP_DELETE, args, 2);
}

/* has_key(@m, k): whether the lookup finds the key. */
static LLVMValueRef call_has_key(struct cg *g, struct node *n)
{
	struct node *m = n->list;
	LLVMValueRef args[2] = { g->maps[sema_map_of(m)], cg_map_key(g, m, NULL) };
	LLVMValueRef p = cg_helper(g, H_MAP_LOOKUP, args, 2);

	return LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntNE, p, cg_const(g, 0), ""),
			     g->i64, "");
}

/* len(@m): bpf_for_each_map_elem() counting into a u64 on the stack. */
static LLVMValueRef call_len(struct cg *g, struct node *n)
{
	LLVMValueRef cnt = cg_alloca(g, 8, "len");
	LLVMValueRef args[4] = { g->maps[sema_map_of(n->list)], cg_count_callback(g), cnt,
				 cg_const(g, 0) };

	LLVMBuildStore(g->b, cg_const(g, 0), cnt);
	cg_helper(g, H_FOR_EACH_MAP_ELEM, args, 4);
	return LLVMBuildLoad2(g->b, g->i64, cnt, "");
}

LLVMValueRef cg_call(struct cg *g, struct node *n)
{
	LLVMValueRef fv;

	cg_at(g, n);
	if ((fv = cg_func_call(g, n)))
		return fv;
	switch (n->bi) {
	case BI_STR:
		return call_str(g, n);
	case BI_KSYM:
		return cg_expr(g, n->list);
	case BI_USYM:
		return call_usym(g, n);
	case BI_HAS_KEY:
		return call_has_key(g, n);
	case BI_LEN:
		return call_len(g, n);
	case BI_PRINTF:
		act_printf(g, n, ACT_PRINTF);
		break;
	case BI_SYSTEM:
		act_printf(g, n, ACT_SYSTEM);
		break;
	case BI_CAT:
		act_printf(g, n, ACT_CAT);
		break;
	case BI_ERRORF:
		act_printf(g, n, ACT_ERRORF);
		break;
	case BI_PRINT:
		act_print(g, n);
		break;
	case BI_JOIN:
		act_join(g, n);
		break;
	case BI_CLEAR:
		act_simple(g, n, ACT_CLEAR, NULL);
		break;
	case BI_ZERO:
		act_simple(g, n, ACT_ZERO, NULL);
		break;
	case BI_TIME:
		act_simple(g, n, ACT_TIME, n->list ? n->list->name : "%H:%M:%S\n");
		break;
	case BI_EXIT: {
		int id;

		cg_flag(g, CG_EXIT);   /* the record below may not fit */
		action_new(g, ACT_EXIT, NULL, n->loc, &id);
		emit_record(g, id, n->list);   /* with exit(code), the code */
		ret0(g);
		break;
	}
	case BI_DELETE:
		call_delete(g, n);
		break;
	case BI_SIGNAL: {
		LLVMValueRef sig = cg_expr(g, n->list);

		cg_helper(g, H_SEND_SIGNAL, &sig, 1);
		break;
	}
	default:
		cg_error(g, n->loc, "internal error: no code for %s()", n->name);
	}
	return NULL;
}

/* ---- maps ---- */

/*
 * The power-of-two bucket: 0 for a negative value, 1 for 0, else
 * floor(log2(v)) + 2.  BPF has no count-leading-zeros and no conditional
 * move, and LLVM turns a binary search into selects that cost five
 * instructions a step; written as branches, a step is three (compare,
 * shift, add), and the search takes 22 instructions instead of 33.
 */
static const char hist_asm[] =
	"$0 = 1\n"
	"if $2 == 0 goto hdone${:uid}\n"
	"$1 = $2\n"
	"$1 >>= 32\n"
	"$0 = 34\n"
	"if $1 != 0 goto h16${:uid}\n"
	"$1 = $2\n"
	"$0 = 2\n"
	"h16${:uid}:\n"
	"if $1 < 0x10000 goto h8${:uid}\n"
	"$1 >>= 16\n"
	"$0 += 16\n"
	"h8${:uid}:\n"
	"if $1 < 0x100 goto h4${:uid}\n"
	"$1 >>= 8\n"
	"$0 += 8\n"
	"h4${:uid}:\n"
	"if $1 < 0x10 goto h2${:uid}\n"
	"$1 >>= 4\n"
	"$0 += 4\n"
	"h2${:uid}:\n"
	"if $1 < 0x4 goto h1${:uid}\n"
	"$1 >>= 2\n"
	"$0 += 2\n"
	"h1${:uid}:\n"
	"if $1 < 0x2 goto hdone${:uid}\n"
	"$0 += 1\n"
	"hdone${:uid}:";

static LLVMValueRef hist_bucket(struct cg *g, LLVMValueRef v, bool sgn)
{
	static const char cons[] = "=&r,=&r,r";
	LLVMTypeRef outs[2] = { g->i64, g->i64 };
	LLVMTypeRef rt = LLVMStructTypeInContext(g->ctx, outs, 2, 0);
	LLVMTypeRef ft = LLVMFunctionType(rt, &g->i64, 1, 0);
	LLVMValueRef fn = LLVMGetInlineAsm(ft, hist_asm, sizeof(hist_asm) - 1, cons,
					   sizeof(cons) - 1, 0, 0, LLVMInlineAsmDialectATT, 0);
	LLVMValueRef b = LLVMBuildExtractValue(g->b, LLVMBuildCall2(g->b, ft, fn, &v, 1, ""),
					       0, "bucket");

	if (sgn)
		b = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, v, cg_const(g, 0), ""),
				    cg_const(g, 0), b, "");
	return b;
}

/* hist(x, k)'s bucket (types.h) from the power-of-two one, b = p + 2 (0
 * for v < 0). */
static LLVMValueRef hist_k_bucket(struct cg *g, LLVMValueRef v, LLVMValueRef b, int k)
{
	uint64_t n = 1ull << k;
	LLVMValueRef small = LLVMBuildICmp(g->b, LLVMIntULT, v, cg_const(g, 2 * n), "");
	LLVMValueRef p = LLVMBuildSub(g->b, b, cg_const(g, 2), "");
	LLVMValueRef sh = LLVMBuildSelect(g->b, small, cg_const(g, 0),
					  LLVMBuildSub(g->b, p, cg_const(g, (uint64_t)k), ""), "");
	LLVMValueRef s = LLVMBuildSub(g->b, LLVMBuildLShr(g->b, v, sh, ""), cg_const(g, n), "");
	LLVMValueRef row = LLVMBuildShl(g->b, LLVMBuildAdd(g->b, sh, cg_const(g, 1), ""),
					cg_const(g, (uint64_t)k), "");

	row = LLVMBuildAdd(g->b, LLVMBuildAdd(g->b, row, s, ""), cg_const(g, 1), "");
	row = LLVMBuildSelect(g->b, small, LLVMBuildAdd(g->b, v, cg_const(g, 1), ""), row, "");
	/* a negative value stays in bucket 0 */
	return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, b, cg_const(g, 0), ""),
			       cg_const(g, 0), row, "");
}

static LLVMValueRef lhist_bucket(struct cg *g, LLVMValueRef v, const struct type *t)
{
	uint64_t last = 1 + (uint64_t)((t->lh_max - t->lh_min) / t->lh_step);
	LLVMValueRef mid = LLVMBuildUDiv(g->b, LLVMBuildSub(g->b, v, cg_const(g, t->lh_min), ""),
					 cg_const(g, t->lh_step), "");

	mid = LLVMBuildAdd(g->b, mid, cg_const(g, 1), "");
	mid = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, v,
						  cg_const(g, t->lh_max), ""),
			      cg_const(g, last), mid, "");
	return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, v,
						   cg_const(g, t->lh_min), ""),
			       cg_const(g, 0), mid, "");
}

static void add_at(struct cg *g, LLVMValueRef p, uint32_t off, LLVMValueRef v)
{
	LLVMValueRef q = cg_gep(g, p, off);

	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64, q, ""), v, ""), q);
}

static void agg_update(struct cg *g, const struct type *t, LLVMValueRef p, LLVMValueRef v)
{
	LLVMValueRef cur, valid, take;

	switch (t->agg) {
	case AGG_COUNT: case AGG_HIST: case AGG_LHIST:
		add_at(g, p, 0, cg_const(g, 1));
		break;
	case AGG_SUM:   /* the hits too: a keyless sum never hit prints nothing (0.17) */
		add_at(g, p, 0, v);
		add_at(g, p, 8, cg_const(g, 1));
		break;
	case AGG_AVG: case AGG_STATS:
		add_at(g, p, 0, v);
		add_at(g, p, 8, cg_const(g, 1));
		break;
	case AGG_MIN: case AGG_MAX:
		cur = LLVMBuildLoad2(g->b, g->i64, p, "");
		valid = LLVMBuildLoad2(g->b, g->i64, cg_gep(g, p, 8), "");
		take = LLVMBuildOr(g->b,
			LLVMBuildICmp(g->b, LLVMIntEQ, valid, cg_const(g, 0), ""),
			LLVMBuildICmp(g->b, t->agg == AGG_MIN ? LLVMIntSLT : LLVMIntSGT, v, cur, ""),
			"");
		LLVMBuildStore(g->b, LLVMBuildSelect(g->b, take, v, cur, ""), p);
		LLVMBuildStore(g->b, cg_const(g, 1), cg_gep(g, p, 8));
		break;
	default:
		break;
	}
}

/* The current tseries() interval: wall-clock ns (boot time plus the
 * wall-clock time of the boot, to the millisecond, so that a cached
 * object keeps it) over the interval, so that intervals start on round
 * wall-clock times, as bpftrace prints them. */
struct ts_now {
	LLVMValueRef ns, epoch;
};

static struct ts_now ts_now(struct cg *g, const struct type *t)
{
	struct timespec rt, bt;
	struct ts_now n;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	int64_t off = (rt.tv_sec - bt.tv_sec) * 1000000000ll + (rt.tv_nsec - bt.tv_nsec);
	LLVMValueRef args[1] = { NULL };

	off -= off % 1000000;
	n.ns = LLVMBuildAdd(g->b, cg_helper(g, H_KTIME_BOOT, args, 0),
			    cg_const(g, (uint64_t)off), "");
	n.epoch = LLVMBuildUDiv(g->b, n.ns, cg_const(g, (uint64_t)t->lh_step), "epoch");
	return n;
}

/* A tseries slot (TS_SLOT): a slot of an older interval starts afresh. */
static void ts_update(struct cg *g, const struct type *t, LLVMValueRef p, LLVMValueRef v,
		      struct ts_now now)
{
	LLVMValueRef ep = LLVMBuildLoad2(g->b, g->i64, p, "");
	LLVMValueRef cur = LLVMBuildLoad2(g->b, g->i64, cg_gep(g, p, 8), "");
	LLVMValueRef cnt = LLVMBuildLoad2(g->b, g->i64, cg_gep(g, p, 16), "");
	LLVMValueRef fresh = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, ep, now.epoch, ""),
					 LLVMBuildICmp(g->b, LLVMIntEQ, cnt, cg_const(g, 0), ""), "");
	LLVMValueRef agg = v;

	switch ((enum ts_agg)t->lh_min) {
	case TS_AVG: case TS_SUM:
		agg = LLVMBuildAdd(g->b, cur, v, "");
		break;
	case TS_MAX: case TS_MIN:
		agg = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, t->lh_min == TS_MIN ? LLVMIntSLT :
							  LLVMIntSGT, v, cur, ""), v, cur, "");
		break;
	default:
		break;
	}
	LLVMBuildStore(g->b, now.epoch, p);
	LLVMBuildStore(g->b, LLVMBuildSelect(g->b, fresh, v, agg, ""), cg_gep(g, p, 8));
	LLVMBuildStore(g->b, LLVMBuildSelect(g->b, fresh, cg_const(g, 1),
					     LLVMBuildAdd(g->b, cnt, cg_const(g, 1), ""), ""),
		       cg_gep(g, p, 16));
	LLVMBuildStore(g->b, now.ns, cg_gep(g, p, 24));
}

/* @m[key] = val; a failed update (map full) is counted. */
static void update_counted(struct cg *g, int mi, LLVMValueRef key, LLVMValueRef val)
{
	LLVMValueRef ua[4] = { g->maps[mi], key, val, cg_const(g, BPF_ANY) };
	LLVMBasicBlockRef ok = cg_if(g, cg_helper(g, H_MAP_UPDATE, ua, 4), "mapfull");

	cg_count(g, CG_DROPS);
	cg_count(g, CG_NCOUNTERS + mi);   /* the map's own, said when it is printed */
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

static void agg_or_ts(struct cg *g, const struct type *t, LLVMValueRef p, LLVMValueRef v,
		      struct ts_now now)
{
	if (t->agg == AGG_TSERIES)
		ts_update(g, t, p, v, now);
	else
		agg_update(g, t, p, v);
}

/*
 * Aggregations live in per-CPU maps.  A key seen for the first time is
 * created with this hit already folded in, by one update: BPF_ANY cannot
 * clobber another CPU's count, since updating a per-CPU element writes
 * this CPU's copy only.  A full map fails the update and is counted.
 */
static void assign_agg(struct cg *g, struct node *lv, struct node *call)
{
	int mi = sema_map_of(lv);
	const struct type *t = g->prog->maps[mi].value;
	uint32_t vs = g->prog->maps[mi].value_size;
	LLVMValueRef v = call->list ? cg_expr(g, call->list) : NULL, bucket = NULL;
	struct ts_now now = { NULL, NULL };

	if (t->agg == AGG_TSERIES) {
		now = ts_now(g, t);
		bucket = LLVMBuildURem(g->b, now.epoch, cg_const(g, (uint64_t)t->lh_max), "slot");
	}
	if (t->agg == AGG_HIST)
		bucket = hist_bucket(g, v, call->list->type->is_signed);
	if (t->agg == AGG_HIST && t->lh_step > 0)
		bucket = hist_k_bucket(g, v, bucket, (int)t->lh_step);
	else if (t->agg == AGG_LHIST)
		bucket = lhist_bucket(g, v, t);
	LLVMValueRef key = cg_map_key(g, lv, bucket), la[2] = { g->maps[mi], key };
	LLVMValueRef p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, la, 2), g->ptr, "");
	LLVMBasicBlockRef done;

	if (g->prog->maps[mi].array) {
		/* the index is in bounds: the lookup cannot fail */
		done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "aggdone");
		agg_or_ts(g, t, p, v, now);
		LLVMBuildBr(g->b, done);
		LLVMPositionBuilderAtEnd(g->b, done);
		return;
	}
	LLVMBasicBlockRef have = cg_block(g, "have"), init = cg_block(g, "init");
	done = cg_block(g, "aggdone");
	LLVMBuildCondBr(g->b, LLVMBuildIsNotNull(g->b, p, ""), have, init);
	LLVMPositionBuilderAtEnd(g->b, have);
	agg_or_ts(g, t, p, v, now);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, init);
	LLVMValueRef first = cg_alloca(g, vs, "first");
	cg_memset0(g, first, vs);
	agg_or_ts(g, t, first, v, now);
	update_counted(g, mi, key, first);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
}

static void map_update(struct cg *g, int mi, LLVMValueRef key, LLVMValueRef v,
		       const struct type *t)
{
	const struct pr_map *pm = &g->prog->maps[mi];
	LLVMValueRef val = v;

	if (!cg_is_mem(t) || t->size != pm->value_size || !type_equal(t, pm->value)) {
		val = cg_alloca(g, pm->value_size, "val");
		cg_store_as(g, val, pm->value, v, t, pm->value_size);
	}
	update_counted(g, mi, key, val);
}

/* What 1 adds to a value of type t: the pointee's size for a pointer
 * ($p++, $p += n step by elements, as in C and bpftrace), else 1. */
static LLVMValueRef step_scale(struct cg *g, const struct type *t, int op, LLVMValueRef v)
{
	if (!t || t->kind != T_PTR || (op != '+' && op != '-') || !t->elem || t->elem->size <= 1)
		return v;
	return LLVMBuildMul(g->b, v, cg_const(g, t->elem->size), "");
}

/* @m[k] op= v and @m[k]++: one key, read (0 if absent), modify, write. */
/* Returns the new value; *oldp, if given, gets the one before. */
static LLVMValueRef map_rmw(struct cg *g, struct node *lv, int op, struct node *rv, bool sgn,
			    LLVMValueRef *oldp)
{
	int mi = sema_map_of(lv);
	LLVMValueRef key = cg_map_key(g, lv, NULL), la[2] = { g->maps[mi], key };
	LLVMValueRef old = cg_alloca(g, 8, "old"), p, cur, nv;
	LLVMBasicBlockRef done;

	LLVMBuildStore(g->b, cg_const(g, 0), old);
	p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, la, 2), g->ptr, "");
	done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "old");
	LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, g->i64, p, ""), old);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	cur = LLVMBuildLoad2(g->b, g->i64, old, "");
	nv = cg_arith(g, op, cur, step_scale(g, lv->type, op, rv ? cg_expr(g, rv) : cg_const(g, 1)),
		      sgn);
	map_update(g, mi, key, nv, type_int(8, true));
	if (oldp)
		*oldp = cur;
	return nv;
}

static void assign(struct cg *g, struct node *n)
{
	struct node *lv = n->a, *rv = n->b;
	bool sgn = !is_u64(lv->type) && !is_u64(rv->type);

	if (rv->type && rv->type->kind == T_AGG) {
		assign_agg(g, lv, rv);
		return;
	}
	if (lv->kind == N_MAP) {
		if (n->op) {
			map_rmw(g, lv, n->op, rv, sgn, NULL);
			return;
		}
		LLVMValueRef v = cg_expr(g, rv);

		map_update(g, sema_map_of(lv), cg_map_key(g, lv, NULL), v, rv->type);
		return;
	}
	struct cg_var *x = cg_var(g, lv->name, lv->type);
	LLVMValueRef v = cg_expr(g, rv);

	if (n->op)
		v = cg_arith(g, n->op, LLVMBuildLoad2(g->b, g->i64, x->slot, ""),
			     step_scale(g, x->type, n->op, v), sgn);
	v = cg_to_int_type(g, v, x->type);   /* a narrow $x wraps at its width */
	cg_store_as(g, x->slot, x->type, v, n->op ? x->type : rv->type,
		    cg_is_mem(x->type) ? x->type->size : 8);
}

LLVMValueRef cg_incdec(struct cg *g, struct node *n)
{
	struct node *lv = n->a;
	int op = n->op == '-' ? '-' : '+';
	LLVMValueRef old, nv;

	if (lv->kind == N_MAP) {
		nv = map_rmw(g, lv, op, NULL, true, &old);
		return n->ival ? nv : old;
	}
	struct cg_var *x = cg_var(g, lv->name, lv->type);

	old = LLVMBuildLoad2(g->b, g->i64, x->slot, "");
	nv = cg_arith(g, op, old, step_scale(g, x->type, op, cg_const(g, 1)), true);
	nv = cg_to_int_type(g, nv, x->type);
	LLVMBuildStore(g->b, nv, x->slot);
	return n->ival ? nv : old;
}

/* ---- statements ---- */

static void if_stmt(struct cg *g, struct node *n)
{
	LLVMValueRef c = cg_expr(g, n->a);
	LLVMBasicBlockRef yes = cg_block(g, "then"), no = cg_block(g, "else");
	LLVMBasicBlockRef done = n->c ? cg_block(g, "endif") : no;

	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, c, cg_const(g, 0), ""), yes, no);
	LLVMPositionBuilderAtEnd(g->b, yes);
	cg_block_stmts(g, n->b);
	LLVMBuildBr(g->b, done);
	if (n->c) {
		LLVMPositionBuilderAtEnd(g->b, no);
		if (n->c->kind == N_IF)
			cg_stmt(g, n->c);
		else
			cg_block_stmts(g, n->c);
		LLVMBuildBr(g->b, done);
	}
	LLVMPositionBuilderAtEnd(g->b, done);
}

static void while_stmt(struct cg *g, struct node *n)
{
	LLVMBasicBlockRef head = cg_block(g, "while"), body = cg_block(g, "body");
	LLVMBasicBlockRef done = cg_block(g, "endwhile");
	LLVMValueRef c;

	if (g->nloops == 32) {
		cg_error(g, n->loc, "loops are nested too deeply");
		return;
	}
	LLVMBuildBr(g->b, head);
	LLVMPositionBuilderAtEnd(g->b, head);
	c = cg_expr(g, n->a);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, c, cg_const(g, 0), ""), body, done);
	LLVMPositionBuilderAtEnd(g->b, body);
	g->brk[g->nloops] = done;
	g->cont[g->nloops++] = head;
	cg_block_stmts(g, n->b);
	g->nloops--;
	LLVMBuildBr(g->b, head);
	LLVMPositionBuilderAtEnd(g->b, done);
}

static long insns_from(LLVMBasicBlockRef bb)
{
	long n = 0;
	for (; bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			n++;
	return n;
}

/*
 * BPF jumps reach 32767 instructions; a longer program makes LLVM abort or
 * the kernel refuse it.  One iteration's size in IR, measured before LLVM
 * optimises, tells whether the copies can fit (1,000 printf copies do,
 * 1,400 do not).
 */
#define UNROLL_MAX_INSNS 25000

static void unroll(struct cg *g, struct node *n)
{
	LLVMBasicBlockRef first = LLVMGetInsertBlock(g->b);
	long before = insns_from(first);

	cg_block_stmts(g, n->b);
	long each = insns_from(first) - before;
	if (each * (long)n->ival > UNROLL_MAX_INSNS) {
		cg_error(g, n->loc, "unroll(%llu) copies a body of about %ld instructions, %ld in all, "
			 "more than a BPF program's jumps can span; give it fewer iterations or a smaller body",
			 (unsigned long long)n->ival, each, each * (long)n->ival);
		return;
	}
	for (uint64_t i = 1; i < n->ival; i++)
		cg_block_stmts(g, n->b);
}

void cg_stmt(struct cg *g, struct node *n)
{
	int mark = cg_tmp_mark(g);

	cg_at(g, n);
	switch (n->kind) {
	case N_EXPRSTMT:
		cg_stmt(g, n->a);
		break;
	case N_ASSIGN:
		assign(g, n);
		break;
	case N_INCDEC:
		cg_incdec(g, n);
		break;
	case N_IF:
		if_stmt(g, n);
		break;
	case N_UNROLL:
		unroll(g, n);
		break;
	case N_WHILE:
		while_stmt(g, n);
		break;
	case N_FORMAP:
		cg_for_map(g, n);
		break;
	case N_BREAK: case N_CONTINUE:
		LLVMBuildBr(g->b, n->kind == N_BREAK ? g->brk[g->nloops - 1] :
			    g->cont[g->nloops - 1]);
		dead_block(g);
		break;
	case N_RETURN:
		ret0(g);
		break;
	case N_BLOCK:
		cg_block_stmts(g, n);
		break;
	default:
		cg_expr(g, n);
	}
	cg_at(g, n);
	cg_tmp_release(g, mark);
}

void cg_block_stmts(struct cg *g, struct node *blk)
{
	for (struct node *s = blk ? blk->list : NULL; s; s = s->next)
		cg_stmt(g, s);
}
