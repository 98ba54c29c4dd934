// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_func.c - code for the builtins and functions of bpftrace 0.17 that
 * compute little in the kernel: cpid, numaid, username, sargN, bswap(),
 * strncmp(), strftime(), strerror() and the like.  Values that are only
 * printed (T_UFMT, types.h) carry raw data here; runtime/format.c turns
 * them into text.
 *
 * cg_func_ident() and cg_func_call() return NULL for names they do not
 * own, so cg_expr.c and cg_stmt.c ask them first and go on otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "codegen_int.h"

#define H_NUMA_NODE_ID 42
#define H_TRACE_PRINTK 6
#define H_OVERRIDE_RETURN 58
#define H_D_PATH 147
/* x86-64 struct pt_regs: sp */
#define REG_SP 152
#define REG_IP 128

/* The u64 at off in the config map (struct pr_config), 0 if the lookup
 * fails (it cannot: the map has one element). */
static LLVMValueRef config_u64(struct cg *g, unsigned off)
{
	LLVMValueRef key = cg_alloca(g, 4, "zero");
	LLVMValueRef args[2] = { cg_config(g), key }, p, v;
	LLVMBasicBlockRef done;

	LLVMBuildStore(g->b, LLVMConstInt(g->i32, 0, 0), key);
	v = cg_alloca(g, 8, "cfgval");
	LLVMBuildStore(g->b, cg_const(g, 0), v);
	p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
	done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "cfg");
	LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, g->i64, cg_gep(g, p, off), ""), v);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildLoad2(g->b, g->i64, v, "");
}

/* 8 bytes of kernel memory at addr (0 on a fault, which is counted). */
static LLVMValueRef read_kernel_u64(struct cg *g, LLVMValueRef addr)
{
	LLVMValueRef buf = cg_alloca(g, 8, "kval");
	LLVMValueRef args[3] = { buf, cg_const(g, 8), LLVMBuildIntToPtr(g->b, addr, g->ptr, "") };

	cg_read(g, H_READ_KERNEL, args);
	return LLVMBuildLoad2(g->b, g->i64, buf, "");
}

/* sargN: at a function's entry the return address is at sp, the stack
 * arguments above it (bpftrace's x86-64 arg_stack_offset of 1). */
static LLVMValueRef sarg(struct cg *g, unsigned long i)
{
	LLVMValueRef sp = cg_ctx_load(g, REG_SP, 8);
	LLVMValueRef addr = LLVMBuildAdd(g->b, sp, cg_const(g, 8 * (i + 1)), "");
	enum probe_kind k = g->probe->kind;

	if (k == PK_UPROBE || k == PK_URETPROBE)
		return cg_read_user(g, addr, 8);
	return read_kernel_u64(g, addr);
}

LLVMValueRef cg_func_ident(struct cg *g, struct node *n)
{
	LLVMValueRef v;

	switch (n->bi) {
	case BI_CPID:
		return config_u64(g, offsetof(struct pr_config, target_pid));
	case BI_NUMAID:
		return LLVMBuildAnd(g->b, cg_helper(g, H_NUMA_NODE_ID, NULL, 0),
				    cg_const(g, 0xffffffffu), "");
	case BI_USERNAME:
		v = cg_helper(g, H_UID_GID, NULL, 0);
		return LLVMBuildAnd(g->b, v, cg_const(g, 0xffffffffu), "");
	case BI_SARGN:
		return sarg(g, strtoul(n->name + 4, NULL, 10));
	}
	return NULL;
}

/* ---- functions ---- */

static LLVMValueRef bswap(struct cg *g, struct node *n)
{
	unsigned size = n->type->size;
	LLVMValueRef v = cg_expr(g, n->list), fn;
	LLVMTypeRef t = LLVMIntTypeInContext(g->ctx, 8 * size);
	unsigned id = LLVMLookupIntrinsicID("llvm.bswap", 10);

	if (size == 1)
		return LLVMBuildAnd(g->b, v, cg_const(g, 0xff), "");
	fn = LLVMGetIntrinsicDeclaration(g->mod, id, &t, 1);
	v = LLVMBuildTrunc(g->b, v, t, "");
	v = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, &v, 1, "");
	return size == 8 ? v : LLVMBuildZExt(g->b, v, g->i64, "");
}

/* strncmp(a, b, n): 0 when a and b agree in their first n bytes or up to
 * a NUL within them, else 1 (as bpftrace).  Neither string is read past
 * its own size: what lies beyond is taken as NUL. */
static LLVMValueRef strncmp_call(struct cg *g, struct node *n)
{
	struct node *a = n->list, *b = a->next;
	LLVMValueRef x = cg_expr(g, a), y = cg_expr(g, b);

	return LLVMBuildXor(g->b, cg_str_eq_n(g, x, a->type, y, b->type, b->next->ival),
			    cg_const(g, 1), "");
}

/* The byte s[i] of a string value, i a run-time index below its size. */
static LLVMValueRef str_at(struct cg *g, LLVMValueRef s, LLVMValueRef i)
{
	return LLVMBuildLoad2(g->b, g->i8, LLVMBuildGEP2(g->b, g->i8, s, &i, 1, ""), "");
}

static uint32_t str_room(const struct type *t)
{
	return t->str_more && t->size >= 2 ? t->size - 2 : t->size;
}

/* strcontains(h, n): 1 if the string n occurs in h (an empty n does), else
 * 0.  Two bounded loops over the strings' sizes: for each start in h, the
 * bytes of n until its NUL. */
static LLVMValueRef strcontains_call(struct cg *g, struct node *n)
{
	struct node *a = n->list, *b = a->next;
	LLVMValueRef h = cg_expr(g, a), nd = cg_expr(g, b);
	uint32_t hsz = str_room(a->type), nsz = str_room(b->type);
	LLVMValueRef res = cg_alloca(g, 8, "found"), iv = cg_alloca(g, 8, "i");
	LLVMValueRef jv = cg_alloca(g, 8, "j");
	LLVMBasicBlockRef outer = cg_block(g, "sc_outer"), inner = cg_block(g, "sc_inner");
	LLVMBasicBlockRef cmp = cg_block(g, "sc_cmp"), step = cg_block(g, "sc_step");
	LLVMBasicBlockRef next = cg_block(g, "sc_next"), found = cg_block(g, "sc_found");
	LLVMBasicBlockRef done = cg_block(g, "sc_done"), more = cg_block(g, "sc_more");
	LLVMValueRef i, j, k, cb, ca;

	LLVMBuildStore(g->b, cg_const(g, 0), res);
	LLVMBuildStore(g->b, cg_const(g, 0), iv);
	LLVMBuildBr(g->b, outer);
	/* outer: for i < hsz */
	LLVMPositionBuilderAtEnd(g->b, outer);
	i = LLVMBuildLoad2(g->b, g->i64, iv, "");
	LLVMBuildStore(g->b, cg_const(g, 0), jv);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, i, cg_const(g, hsz), ""), inner,
			nsz ? done : found);
	/* inner: for j < nsz: n[j] == 0 is a match; h[i+j] != n[j] is not */
	LLVMPositionBuilderAtEnd(g->b, inner);
	j = LLVMBuildLoad2(g->b, g->i64, jv, "");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, j, cg_const(g, nsz), ""), cmp, found);
	LLVMPositionBuilderAtEnd(g->b, cmp);
	cb = str_at(g, nd, j);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, cb, LLVMConstInt(g->i8, 0, 0), ""),
			found, more);
	LLVMPositionBuilderAtEnd(g->b, more);
	k = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64, iv, ""), j, "");
	LLVMBasicBlockRef in_h = cg_block(g, "sc_inh");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, k, cg_const(g, hsz), ""), in_h, done);
	LLVMPositionBuilderAtEnd(g->b, in_h);
	ca = str_at(g, h, k);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, ca, cb, ""), step, next);
	LLVMPositionBuilderAtEnd(g->b, step);
	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, j, cg_const(g, 1), ""), jv);
	LLVMBuildBr(g->b, inner);
	/* next start, unless h ended here */
	LLVMPositionBuilderAtEnd(g->b, next);
	i = LLVMBuildLoad2(g->b, g->i64, iv, "");
	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, i, cg_const(g, 1), ""), iv);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, str_at(g, h, i),
					    LLVMConstInt(g->i8, 0, 0), ""), done, outer);
	LLVMPositionBuilderAtEnd(g->b, found);
	LLVMBuildStore(g->b, cg_const(g, 1), res);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildLoad2(g->b, g->i64, res, "");
}

/* debugf(fmt, a, b, c): bpf_trace_printk(fmt, size, ...); a string
 * argument is passed as the address of its buffer (%s reads it). */
static LLVMValueRef debugf_call(struct cg *g, struct node *n)
{
	struct node *fmt = n->list;
	LLVMValueRef args[5];
	int k = 0;

	args[k++] = cg_store_const_str(g, fmt->name, fmt->len, fmt->len + 1);
	args[k++] = cg_const(g, fmt->len + 1);
	for (struct node *a = fmt->next; a && k < 5; a = a->next) {
		LLVMValueRef v = cg_expr(g, a);

		args[k++] = cg_is_mem(a->type) ? LLVMBuildPtrToInt(g->b, v, g->i64, "") : v;
	}
	cg_helper(g, H_TRACE_PRINTK, args, (unsigned)k);
	return cg_const(g, 0);
}

/* pton("addr"): the address's bytes, known when compiling (sema checked it). */
static LLVMValueRef pton_call(struct cg *g, struct node *n)
{
	unsigned char b[16];
	uint32_t count = n->type->count;

	inet_pton(count == 16 ? AF_INET6 : AF_INET, n->list->name, b);
	return cg_store_const_str(g, (const char *)b, count, count);
}

/* A per-site value of a program that sites share: vals[cookie], from a
 * read-only table named name (one per probe and value, whichever of the
 * probe's programs asks first builds it). */
LLVMValueRef cg_site_value(struct cg *g, const char *name,
			   uint64_t (*val)(struct cg *g, int site, int arg), int arg)
{
	const struct probe *p = g->probe;
	LLVMValueRef tab = LLVMGetNamedGlobal(g->mod, name);

	if (!tab) {
		uint64_t *a = calloc((size_t)p->nsites, 8);

		if (!a)
			abort();
		for (int i = 0; i < p->nsites; i++)
			a[i] = val(g, i, arg);
		tab = cg_rodata(g, name, a, 8u * (uint32_t)p->nsites);
		free(a);
	}
	LLVMValueRef at = LLVMBuildGEP2(g->b, g->i64, tab, &g->sys_site, 1, "");

	return LLVMBuildLoad2(g->b, g->i64, at, "site_val");
}

static uint64_t addr_of(struct cg *g, int site, int arg)
{
	(void)arg;
	return g->probe->sites[site].addr;
}

/* The address of a shared program's site, from a table by its cookie. */
static LLVMValueRef site_addr(struct cg *g)
{
	char name[64];

	snprintf(name, sizeof(name), "p%d_addrs", g->pidx);
	return cg_site_value(g, name, addr_of, 0);
}

/* uaddr("sym"): sema's file address; in a PIE plus the load bias, the
 * probed address (the ip at a uprobe or usdt site, the function's address
 * at a uretprobe) less the site's address in the file (known to a
 * program per site, looked up by one that sites share). */
static LLVMValueRef uaddr_call(struct cg *g, struct node *n)
{
	const struct probe_site *s;
	LLVMValueRef ip;

	if (!n->op)
		return cg_const(g, n->ival);
	s = &g->probe->sites[g->site < 0 ? 0 : g->site];
	ip = g->probe->kind == PK_URETPROBE ? cg_helper(g, H_GET_FUNC_IP, &g->ctxarg, 1)
					     : cg_ctx_load(g, REG_IP, 8);
	return LLVMBuildAdd(g->b, LLVMBuildSub(g->b, ip, g->site_cookie ? site_addr(g) :
					       cg_const(g, s->addr), ""),
			    cg_const(g, n->ival), "");
}

/* Is n a field of a tracepoint's record, read from the context? */
static bool is_ctx_field(struct cg *g, const struct node *n)
{
	return n->kind == N_FIELD && n->a->kind == N_IDENT && n->a->type->kind != T_PTR &&
	       g->probe->kind == PK_TRACEPOINT && !cg_is_dwarf_var(g, (struct node *)n);
}

/* count bytes of the array a (sema's byte_array_arg) into dst. */
static void bytes_into(struct cg *g, struct node *a, LLVMValueRef dst, uint32_t count)
{
	LLVMValueRef args[3] = { dst, cg_const(g, count), NULL };
	int helper = H_READ_KERNEL;

	if (a->kind == N_VAR || a->kind == N_MAP) {   /* a copy made before */
		cg_memcpy(g, dst, cg_expr(g, a), count);
		return;
	}
	if (a->kind == N_CALL) {   /* pton(): known when compiling */
		unsigned char b[16];
		bool v6 = count == 16;

		inet_pton(v6 ? AF_INET6 : AF_INET, a->list->name, b);
		cg_memcpy(g, dst, cg_store_const_str(g, (const char *)b, count, count), count);
		return;
	}
	if (is_ctx_field(g, a)) {
		const struct field *f = type_field(g->probe->args, a->name);

		if (!f || g->probe->sys_raw) {
			cg_error(g, a->loc, "field '%s' cannot be read as bytes here", a->name);
			return;
		}
		args[2] = cg_gep(g, g->ctxarg, f->offset);
	} else {
		args[2] = cg_place_addr(g, a);
		if (sema_place_is_user(a))
			helper = H_READ_USER;
	}
	cg_read(g, helper, args);
}

/* n bytes (a run-time value, bounded by the caller) at the address v. */
static void bytes_at_n(struct cg *g, struct node *a, LLVMValueRef v, LLVMValueRef dst,
		       LLVMValueRef n)
{
	enum probe_kind k = g->probe->kind;
	bool user = a->type->kind == T_PTR ? a->type->is_user :
		    k == PK_UPROBE || k == PK_URETPROBE || k == PK_USDT;
	LLVMValueRef args[3] = { dst, n, v };

	cg_read(g, user ? H_READ_USER : H_READ_KERNEL, args);
}

/* count bytes at the address v of a's type (an integer or a pointer). */
static void bytes_at(struct cg *g, struct node *a, LLVMValueRef v, LLVMValueRef dst,
		     uint32_t count)
{
	bytes_at_n(g, a, v, dst, cg_const(g, count));
}

/* ntop(): { u64 af; u8 addr[16]; } (types.h UF_INET). */
static LLVMValueRef ntop(struct cg *g, struct node *n)
{
	struct node *a = n->list->next ? n->list->next : n->list;
	bool arr = a->type->kind == T_ARRAY;
	uint32_t count = arr ? a->type->count : 4;
	LLVMValueRef buf = cg_alloca(g, 24, "inet");

	cg_memset0(g, buf, 24);
	LLVMBuildStore(g->b, a == n->list ? cg_const(g, count == 16 ? AF_INET6 : AF_INET)
					  : cg_expr(g, n->list), buf);
	if (arr)
		bytes_into(g, a, cg_gep(g, buf, 8), count);
	else
		LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, cg_expr(g, a), g->i32, ""),
			       cg_gep(g, buf, 8));
	return buf;
}

/* macaddr(): the 6 bytes of an array, or at an address. */
static LLVMValueRef macaddr(struct cg *g, struct node *n)
{
	struct node *a = n->list;
	LLVMValueRef buf = cg_alloca(g, 8, "mac");

	cg_memset0(g, buf, 8);
	if (a->type->kind == T_ARRAY)
		bytes_into(g, a, buf, 6);
	else
		bytes_at(g, a, cg_expr(g, a), buf, 6);
	return buf;
}

/* buf(): { u64 length; u8 bytes[length]; } (types.h UF_BUF). */
static LLVMValueRef buf_call(struct cg *g, struct node *n)
{
	struct node *a = n->list;
	uint32_t len = n->type->size - 8;
	LLVMValueRef buf = cg_alloca(g, n->type->size, "buf");

	cg_memset0(g, buf, n->type->size);
	if (n->op) {   /* a run-time length, cut to the buffer: only that much is read */
		LLVMValueRef l = cg_expr(g, a->next);
		l = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, l, cg_const(g, len), ""),
				    cg_const(g, len), l, "");
		LLVMBuildStore(g->b, l, buf);
		if (a->type->kind == T_ARRAY) {
			/* the array copied whole, then its first l bytes: the rest
			 * stays zero, so that equal bufs are equal map keys */
			LLVMValueRef tmp = cg_alloca(g, len, "arr"), args[3];

			bytes_into(g, a, tmp, len);
			args[0] = cg_gep(g, buf, 8);
			args[1] = l;
			args[2] = tmp;
			cg_read(g, H_READ_KERNEL, args);
		} else
			bytes_at_n(g, a, cg_expr(g, a), cg_gep(g, buf, 8), l);
		return buf;
	}
	LLVMBuildStore(g->b, cg_const(g, len), buf);
	if (a->type->kind == T_STR)   /* a string value: its bytes, on the BPF stack */
		cg_memcpy(g, cg_gep(g, buf, 8), cg_expr(g, a), len < a->type->size ? len : a->type->size);
	else if (a->type->kind == T_ARRAY)
		bytes_into(g, a, cg_gep(g, buf, 8), len);
	else
		bytes_at(g, a, cg_expr(g, a), cg_gep(g, buf, 8), len);
	return buf;
}

/* override(rc): the probed function returns rc and does not run. */
static LLVMValueRef override_call(struct cg *g, struct node *n)
{
	LLVMValueRef args[2] = { g->ctxarg, cg_expr(g, n->list) };

	cg_helper(g, H_OVERRIDE_RETURN, args, 2);
	return cg_const(g, 0);
}

/* path(p): bpf_d_path() into a string buffer.  A path longer than the
 * buffer fails (ENAMETOOLONG) with the buffer half written: it is cleared
 * and counted as a fault, so that no cut path is ever printed. */
static LLVMValueRef path_call(struct cg *g, struct node *n)
{
	struct node *a = n->list;
	uint32_t size = n->type->size;
	LLVMValueRef buf = cg_alloca(g, size, "path");
	LLVMValueRef p = a->type->kind == T_PTR ? cg_expr(g, a) : cg_place_addr(g, a);
	LLVMValueRef args[3] = { p, buf, LLVMConstInt(g->i32, size, 0) }, rc;
	LLVMBasicBlockRef ok;

	cg_memset0(g, buf, size);
	rc = cg_helper(g, H_D_PATH, args, 3);
	ok = cg_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, rc, cg_const(g, 0), ""), "dpath_err");
	cg_memset0(g, buf, size);
	cg_count(g, CG_FAULTS);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
	return buf;
}

/* percpu_kaddr(): the per-CPU variable's BTF id (sema) as a pseudo load
 * (BPF_PSEUDO_BTF_ID, of vmlinux), then this CPU's or cpu's copy. */
static LLVMValueRef percpu_kaddr(struct cg *g, struct node *n)
{
	unsigned id = LLVMLookupIntrinsicID("llvm.bpf.pseudo", 15);
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, NULL, 0);
	LLVMValueRef args[2] = { cg_const(g, 3), cg_const(g, n->ival) };
	LLVMValueRef p = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");

	if (!n->list->next)
		return cg_helper(g, H_THIS_CPU_PTR, &p, 1);
	args[0] = p;
	args[1] = cg_expr(g, n->list->next);
	return cg_helper(g, H_PER_CPU_PTR, args, 2);
}

LLVMValueRef cg_func_call(struct cg *g, struct node *n)
{
	switch (n->bi) {
	case BI_BUF:
		return buf_call(g, n);
	case BI_OVERRIDE:
		return override_call(g, n);
	case BI_UNWATCH:
		cg_unwatch(g, cg_expr(g, n->list), n->loc);
		return cg_const(g, 0);
	case BI_PATH:
		return path_call(g, n);
	case BI_REG:
		return cg_ctx_load(g, (unsigned)n->ival, 8);   /* sema's pt_regs offset */
	case BI_KADDR:
		return cg_const(g, n->ival);   /* sema found it */
	case BI_PERCPU_KADDR:
		return percpu_kaddr(g, n);
	case BI_UADDR:
		return uaddr_call(g, n);
	case BI_USTACK: case BI_KSTACK:   /* mode, n: in the type */
		return cg_stack_id(g, n->type);
	case BI_UPTR: case BI_KPTR:
		return cg_expr(g, n->list);

	case BI_NTOP:
		return ntop(g, n);
	case BI_MACADDR:
		return macaddr(g, n);

	case BI_BSWAP:
		return bswap(g, n);
	case BI_STRNCMP:
		return strncmp_call(g, n);
	case BI_STRCONTAINS:
		return strcontains_call(g, n);
	case BI_PTON:
		return pton_call(g, n);
	case BI_DEBUGF:
		return debugf_call(g, n);
	case BI_STRFTIME:
		return cg_expr(g, n->list->next);
	case BI_STRERROR: case BI_SYSCALL_NAME: case BI_CGROUP_PATH:
		return cg_expr(g, n->list);
	}
	return NULL;
}
