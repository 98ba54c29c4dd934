/*
 * codegen.c - the code generator's frame: one LLVM module per script, the
 * BTF-defined maps (their debug info is what libbpf reads), one function per
 * attach point in a section libbpf 1.1 recognises, debug locations that
 * become BTF line info, the O2 pipeline and emission of a BPF ELF in memory.
 *
 * Expressions are in cg_expr.c, statements, calls and actions in
 * cg_stmt.c, DWARF and USDT variables in cg_dwarf.c.  A body that reads
 * per-address variables gets one program per site, but the sites of a
 * uprobe or usdt wildcard share one where their code is the same (gen_shared).
 * Only the BPF target
 * is initialised.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Object.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "codegen_int.h"
#include "objcache.h"

void cg_error(struct cg *g, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	g->errors++;
	va_start(ap, fmt);
	diag_verror(g->d, loc, fmt, ap);
	va_end(ap);
}

void cg_at(struct cg *g, const struct node *n)
{
	LLVMMetadataRef l;

	if (n && n->loc.line > 0)
		g->at = n->loc;
	if (!g->sp || !n || n->loc.line <= 0)
		return;
	l = LLVMDIBuilderCreateDebugLocation(g->ctx, n->loc.line, n->loc.col, g->sp, NULL);
	LLVMSetCurrentDebugLocation2(g->b, l);
}

LLVMValueRef cg_const(struct cg *g, uint64_t v)
{
	return LLVMConstInt(g->i64, v, 0);
}

/* Tells LLVM that the address v (an i64) is a multiple of 8, as every map
 * value is.  Reached through inttoptr, a map value had no known alignment,
 * and LLVM expanded every copy and zeroing into it one byte at a time:
 * eight times the instructions, and most of the compile time went to
 * selecting them. */
static void assume_aligned8(struct cg *g, LLVMValueRef v)
{
	unsigned id = LLVMLookupIntrinsicID("llvm.assume", strlen("llvm.assume"));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, NULL, 0);
	LLVMValueRef low = LLVMBuildAnd(g->b, v, cg_const(g, 7), "");
	LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntEQ, low, cg_const(g, 0), "");

	LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, &ok, 1, "");
}

/* Helpers are called through their id cast to a pointer, as clang does. */
static bool is_read(int id)
{
	return id == H_READ_USER || id == H_READ_KERNEL || id == H_READ_USER_STR ||
	       id == H_READ_KERNEL_STR || id == H_PROBE_READ_STR;
}

/* A read that faults leaves zeros (the helpers clear their buffer) and is
 * counted, so a value read as 0 is never silent. */
static void count_fault(struct cg *g, LLVMValueRef rc)
{
	LLVMBasicBlockRef ok = cg_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, rc, cg_const(g, 0), ""),
				     "fault");
	cg_count(g, CG_FAULTS);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

LLVMValueRef cg_helper_raw(struct cg *g, int id, LLVMValueRef *args, int n)
{
	LLVMTypeRef at[8];
	LLVMTypeRef ft;
	LLVMValueRef r;

	for (int i = 0; i < n; i++)
		at[i] = LLVMTypeOf(args[i]);
	ft = LLVMFunctionType(g->i64, at, n, 0);
	r = LLVMBuildCall2(g->b, ft, LLVMConstIntToPtr(cg_const(g, id), g->ptr), args, n, "");
	if (id == H_MAP_LOOKUP)
		assume_aligned8(g, r);
	return r;
}

/* A user read at a uprobe may become a faulting one (cg_sleep.c). */
LLVMValueRef cg_helper(struct cg *g, int id, LLVMValueRef *args, int n)
{
	LLVMValueRef r = cg_slp_read(g, id, args, n);

	if (!r)
		r = cg_helper_raw(g, id, args, n);
	if (is_read(id) && g->rp_flag)
		cg_rp_fault(g, r);
	else if (is_read(id))
		count_fault(g, r);
	return r;
}

static void lifetime(struct cg *g, const char *which, LLVMValueRef a, uint32_t size)
{
	unsigned id = LLVMLookupIntrinsicID(which, strlen(which));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, &g->ptr, 1);
	LLVMValueRef args[2] = { cg_const(g, size), a };

	LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

static LLVMValueRef alloca_in_entry(struct cg *g, uint32_t size, const char *name)
{
	LLVMBuilderRef ab = LLVMCreateBuilderInContext(g->ctx);
	LLVMValueRef a;

	LLVMPositionBuilderAtEnd(ab, g->entry);
	a = LLVMBuildAlloca(ab, LLVMArrayType(g->i8, size ? size : 1), name);
	LLVMSetAlignment(a, 8);
	LLVMDisposeBuilder(ab);
	return a;
}

LLVMValueRef cg_alloca_var(struct cg *g, uint32_t size, const char *name)
{
	return alloca_in_entry(g, size, name);
}

static LLVMValueRef heap_alloc(struct cg *g, uint32_t size)
{
	uint32_t off = (g->heap_off + 7) & ~7u;

	if (off + size > CG_HEAP_SIZE) {
		if (!g->heap_full)
			cg_error(g, g->at, "this probe needs more than %d bytes of temporaries "
				 "(strings and records it builds at once)", CG_HEAP_SIZE);
		g->heap_full = true;
		off = 0;
	}
	g->heap_off = off + size;
	if (g->heap_off > g->heap_hw)
		g->heap_hw = g->heap_off;
	return cg_gep(g, cg_heap_ptr(g), off);
}

static void tmp_push(struct cg *g, LLVMValueRef a, uint32_t size, uint32_t heap)
{
	if (g->ntmp == g->captmp) {
		g->captmp = g->captmp ? 2 * g->captmp : 16;
		g->tmp = realloc(g->tmp, g->captmp * sizeof(*g->tmp));
		g->tmpsize = realloc(g->tmpsize, g->captmp * sizeof(*g->tmpsize));
		g->tmpheap = realloc(g->tmpheap, g->captmp * sizeof(*g->tmpheap));
		if (!g->tmp || !g->tmpsize || !g->tmpheap)
			abort();
	}
	g->tmp[g->ntmp] = a;
	g->tmpsize[g->ntmp] = size;
	g->tmpheap[g->ntmp++] = heap;
}

/* Temporaries live for one statement: lifetime markers let LLVM's stack
 * colouring share their slots, and large ones come from the heap, so a
 * script stays within the 512-byte stack. */
LLVMValueRef cg_alloca(struct cg *g, uint32_t size, const char *name)
{
	LLVMValueRef a;

	if (!size)
		size = 1;
	if (size >= CG_HEAP_MIN) {
		uint32_t before = g->heap_off;

		a = heap_alloc(g, size);
		tmp_push(g, a, size, before);
		return a;
	}
	a = alloca_in_entry(g, size, name);
	tmp_push(g, a, size, ~0u);
	lifetime(g, "llvm.lifetime.start", a, size);
	return a;
}

LLVMValueRef cg_heap_tmp(struct cg *g, uint32_t size, uint32_t *off)
{
	uint32_t before = g->heap_off;
	LLVMValueRef a = heap_alloc(g, size ? size : 8);

	*off = g->heap_off - (size ? size : 8);
	tmp_push(g, a, size, before);
	return a;
}

int cg_tmp_mark(struct cg *g)
{
	return g->ntmp;
}

void cg_tmp_release(struct cg *g, int mark)
{
	while (g->ntmp > mark) {
		g->ntmp--;
		if (g->tmpheap[g->ntmp] != ~0u)
			g->heap_off = g->tmpheap[g->ntmp];
		else
			lifetime(g, "llvm.lifetime.end", g->tmp[g->ntmp], g->tmpsize[g->ntmp]);
	}
}

LLVMValueRef cg_gep(struct cg *g, LLVMValueRef p, uint64_t off)
{
	LLVMValueRef i = cg_const(g, off);

	if (!off)
		return p;
	return LLVMBuildGEP2(g->b, g->i8, p, &i, 1, "");
}

void cg_memset0(struct cg *g, LLVMValueRef p, uint32_t size)
{
	if (size)
		LLVMBuildMemSet(g->b, p, LLVMConstInt(g->i8, 0, 0), cg_const(g, size), 1);
}

void cg_memcpy(struct cg *g, LLVMValueRef dst, LLVMValueRef src, uint32_t size)
{
	if (size)
		LLVMBuildMemCpy(g->b, dst, 1, src, 1, cg_const(g, size));
}

LLVMBasicBlockRef cg_block(struct cg *g, const char *name)
{
	return LLVMAppendBasicBlockInContext(g->ctx, g->fn, name);
}

LLVMBasicBlockRef cg_if(struct cg *g, LLVMValueRef v, const char *name)
{
	LLVMBasicBlockRef yes = cg_block(g, name), no = cg_block(g, "");
	LLVMValueRef c = LLVMTypeOf(v) == LLVMInt1TypeInContext(g->ctx) ? v :
		LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");

	LLVMBuildCondBr(g->b, c, yes, no);
	LLVMPositionBuilderAtEnd(g->b, yes);
	return no;
}

/* Stores a constant string 8 bytes at a time; the verifier needs every
 * byte of a buffer initialised before a helper reads it. */
LLVMValueRef cg_store_const_str(struct cg *g, const char *s, size_t len, uint32_t size)
{
	LLVMValueRef buf = cg_alloca(g, size, "str");

	for (uint32_t off = 0; off < size; off += 8) {
		uint64_t w = 0;
		uint32_t n = size - off < 8 ? size - off : 8;

		for (uint32_t i = 0; i < n; i++)
			if (off + i < len)
				w |= (uint64_t)(unsigned char)s[off + i] << (8 * i);
		if (n == 8) {
			LLVMBuildStore(g->b, cg_const(g, w), cg_gep(g, buf, off));
		} else {
			for (uint32_t i = 0; i < n; i++)
				LLVMBuildStore(g->b, LLVMConstInt(g->i8, (w >> (8 * i)) & 0xff, 0),
					       cg_gep(g, buf, off + i));
		}
	}
	return buf;
}

/* ---- maps ---- */

LLVMMetadataRef cg_di_basic(struct cg *g, const char *name, unsigned bits, unsigned enc)
{
	return LLVMDIBuilderCreateBasicType(g->di, name, strlen(name), bits, enc, LLVMDIFlagZero);
}

LLVMMetadataRef cg_di_ptr(struct cg *g, LLVMMetadataRef t)
{
	return LLVMDIBuilderCreatePointerType(g->di, t, 64, 64, 0, NULL, 0);
}

static LLVMMetadataRef di_array(struct cg *g, LLVMMetadataRef elem, unsigned elem_bits,
				uint64_t n)
{
	LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(g->di, 0, (int64_t)n);

	return LLVMDIBuilderCreateArrayType(g->di, n * elem_bits, elem_bits > 32 ? 64 : 32,
					    elem, &sub, 1);
}

/* `int (*name)[v]`: how BTF-defined maps carry integers in a type. */
static LLVMMetadataRef di_int_member(struct cg *g, LLVMMetadataRef scope, const char *name,
				     uint64_t v, unsigned off)
{
	LLVMMetadataRef t = cg_di_ptr(g, di_array(g, g->di_int, 32, v));

	return LLVMDIBuilderCreateMemberType(g->di, scope, name, strlen(name), g->di_file, 0,
					     64, 64, off, LLVMDIFlagZero, t);
}

static LLVMMetadataRef di_bytes(struct cg *g, uint32_t size)
{
	if (size == 4)
		return cg_di_basic(g, "unsigned int", 32, 7 /* DW_ATE_unsigned */);
	if (size == 8)
		return cg_di_basic(g, "unsigned long long", 64, 7);
	return di_array(g, cg_di_basic(g, "unsigned char", 8, 8 /* DW_ATE_unsigned_char */), 8, size);
}

/* Whether the running kernel is older than want_major.want_minor. */
static bool kernel_before(int want_major, int want_minor)
{
	static int major = -1, minor;
	struct utsname u;

	if (major < 0 && (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2))
		major = minor = 0;
	return major < want_major || (major == want_major && minor < want_minor);
}

/*
 * Whether hash maps are allocated whole when created.  Preallocating costs
 * the kernel a per-CPU allocation for every possible entry of a per-CPU
 * hash (4096 or 16384 of them, 1.4 ms per map here) before anything is
 * attached; since 6.1 (bpf_mem_alloc) a tracing program may use maps that
 * allocate an entry when a key first comes, and earlier kernels refuse
 * them in perf_event programs.
 */
static bool prealloc_hashes(void)
{
	return kernel_before(6, 1);
}

/*
 * BPF ISA v4 (kernel 6.6) has stores of an immediate, which every record
 * and key that starts with a constant uses, and sign-extending moves and
 * loads.  The choice is also written into each function's attributes so
 * that the IR, which keys the object cache, tells the two apart.
 */
const char *cg_bpf_cpu(void)
{
	return kernel_before(6, 6) ? "v3" : "v4";
}

static LLVMValueRef map_define(struct cg *g, const char *name, int type, uint32_t max,
			       uint32_t key_size, uint32_t value_size)
{
	LLVMMetadataRef mem[5], st, gve;
	LLVMTypeRef pt[5] = { g->ptr, g->ptr, g->ptr, g->ptr, g->ptr };
	int n = 0;
	LLVMValueRef gv;

	mem[n++] = di_int_member(g, g->di_cu, "type", type, 0);
	mem[n++] = di_int_member(g, g->di_cu, "max_entries", max, 64);
	if (((type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH) &&
	     !prealloc_hashes()) || type == BPF_MAP_TYPE_TASK_STORAGE)
		mem[n] = di_int_member(g, g->di_cu, "map_flags", BPF_F_NO_PREALLOC, 64 * n), n++;
	if (key_size)
		mem[n] = LLVMDIBuilderCreateMemberType(g->di, g->di_cu, "key", 3, g->di_file, 0,
					64, 64, 64 * n, LLVMDIFlagZero,
					cg_di_ptr(g, di_bytes(g, key_size))), n++;
	if (value_size)
		mem[n] = LLVMDIBuilderCreateMemberType(g->di, g->di_cu, "value", 5, g->di_file, 0,
					64, 64, 64 * n, LLVMDIFlagZero,
					cg_di_ptr(g, di_bytes(g, value_size))), n++;
	st = LLVMDIBuilderCreateStructType(g->di, g->di_cu, "", 0, g->di_file, 0, 64 * n, 64,
					   LLVMDIFlagZero, NULL, mem, n, 0, NULL, "", 0);
	gv = LLVMAddGlobal(g->mod, LLVMStructTypeInContext(g->ctx, pt, n, 0), name);
	LLVMSetInitializer(gv, LLVMConstNull(LLVMGlobalGetValueType(gv)));
	LLVMSetSection(gv, ".maps");
	LLVMSetAlignment(gv, 8);
	gve = LLVMDIBuilderCreateGlobalVariableExpression(g->di, g->di_cu, name, strlen(name),
			name, strlen(name), g->di_file, 0, st, 0,
			LLVMDIBuilderCreateExpression(g->di, NULL, 0), NULL, 64);
	LLVMGlobalSetMetadata(gv, LLVMGetMDKindIDInContext(g->ctx, "dbg", 3), gve);
	return gv;
}

LLVMValueRef cg_map_define(struct cg *g, const char *name, int type, uint32_t max,
			   uint32_t key_size, uint32_t value_size)
{
	return map_define(g, name, type, max, key_size, value_size);
}

static uint32_t agg_buckets(const struct type *v)
{
	if (v->agg == AGG_HIST)
		return hist_buckets((int)v->lh_step);
	if (v->agg == AGG_LHIST)
		return (uint32_t)((v->lh_max - v->lh_min) / v->lh_step) + 2;
	if (v->agg == AGG_TSERIES)
		return (uint32_t)v->lh_max;
	return 1;
}

/*
 * An aggregation without keys (@ = count(), @ = hist(x)) is a per-CPU
 * array indexed by its hist bucket, or 0: its entries always exist, so a
 * hit is one inlined lookup and an add, with no update call and no full
 * map.  A count is printed even when 0, as bpftrace prints its keyless
 * count; for the others an all-zero value is absent (the buckets, the hits
 * of sum, avg and stats, the valid flag of min and max are zero until the
 * first hit).  A map the script delete()s stays a hash: an array
 * entry cannot be removed from BPF on every CPU.
 */
int cg_define_maps(struct cg *g)
{
	struct program *p = g->prog;

	p->maps = calloc(g->s->nmaps ? g->s->nmaps : 1, sizeof(*p->maps));
	g->maps = calloc(g->s->nmaps ? g->s->nmaps : 1, sizeof(*g->maps));
	if (!p->maps || !g->maps)
		return -1;
	for (int i = 0; i < g->s->nmaps; i++) {
		struct sema_map *sm = &g->s->maps[i];
		struct pr_map *m = &p->maps[i];
		const struct type *v = sm->value;
		bool agg = v->kind == T_AGG;
		bool hist = agg && (v->agg == AGG_HIST || v->agg == AGG_LHIST ||
				    v->agg == AGG_TSERIES);   /* keyed by bucket too */
		bool array = agg && !sm->key && !sm->deleted && !sm->decl_type;

		m->name = strdup(sm->name);
		if (asprintf(&m->bpf_name, "map_%d_%s", i, sm->name[1] ? sm->name + 1 : "") < 0)
			return -1;
		m->bpf_type = sm->decl_type ? sm->decl_type : array ? BPF_MAP_TYPE_PERCPU_ARRAY :
			      agg ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH;
		m->array = array;
		m->key = sm->key;
		m->value = v;
		m->key_size = array ? 4 : (sm->key ? sm->key->size : 0) + (hist || !sm->key ? 8 : 0);
		m->value_size = agg ? v->size : v->kind == T_STR ? v->size : v->size < 8 ? 8 : v->size;
		m->max_entries = sm->key ? (hist ? 16384 : 4096) : agg_buckets(v);
		if (sm->key && g->s->cfg.max_map_keys)   /* config max_map_keys */
			m->max_entries = hist ? 4 * g->s->cfg.max_map_keys : g->s->cfg.max_map_keys;
		if (sm->decl_type)   /* let @m = hash(N): N entries (hist: N keys' buckets) */
			m->max_entries = !sm->key ? (hist ? agg_buckets(v) : 1) : !hist ? sm->decl_max :
				sm->decl_max * agg_buckets(v) < (1u << 22) ?
				sm->decl_max * agg_buckets(v) : (1u << 22);
		g->maps[i] = cg_map_define(g, m->bpf_name, m->bpf_type, m->max_entries,
					   m->key_size, m->value_size);
	}
	p->nmaps = g->s->nmaps;
	p->no_exit_print = g->s->cfg.no_exit_print;
	return 0;
}

LLVMValueRef cg_ringbuf(struct cg *g)
{
	if (!g->ringbuf) {
		g->prog->ringbuf_name = strdup("ringbuf");
		g->ringbuf = cg_map_define(g, "ringbuf", BPF_MAP_TYPE_RINGBUF, RINGBUF_BIG, 0, 0);
	}
	return g->ringbuf;
}

/*
 * The ring buffer's pages are allocated, charged and mapped before anything
 * runs: 4 MB cost 1.7 ms of a 7 ms start.  Records sent only from BEGIN and
 * END outside loops are counted here, and they alone get a small buffer;
 * records that can come at any rate get the big one.
 */
void cg_send(struct cg *g, LLVMValueRef rec, uint32_t size)
{
	enum probe_kind k = g->probe ? g->probe->kind : PK_BEGIN;

	if ((k == PK_BEGIN || k == PK_END) && !g->nloops)
		g->once_bytes += ((size + 7) & ~7u) + 8;   /* + the ring buffer's header */
	else
		g->ringbuf_busy = true;

	LLVMValueRef out[4] = { cg_ringbuf(g), rec, cg_const(g, size), cg_const(g, 0) };
	LLVMBasicBlockRef ok = cg_if(g, cg_helper(g, H_RINGBUF_OUTPUT, out, 4), "lost");

	cg_count(g, CG_LOST);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

void cg_size_ringbuf(struct cg *g)
{
	g->prog->ringbuf_size = RINGBUF_SMALL;
	if (g->ringbuf_busy || g->once_bytes > RINGBUF_SMALL / 2)
		g->prog->ringbuf_size = RINGBUF_BIG;
}

LLVMValueRef cg_stackmap(struct cg *g)
{
	g->slp_stack = true;    /* not allowed in a sleepable program */
	if (!g->stackmap) {
		g->prog->stack_map_name = strdup("stacks");
		g->stackmap = cg_map_define(g, "stacks", BPF_MAP_TYPE_STACK_TRACE, 16384, 4, 127 * 8);
	}
	return g->stackmap;
}

static LLVMValueRef cg_heap(struct cg *g)
{
	if (!g->heap)
		g->heap = cg_map_define(g, "heap", BPF_MAP_TYPE_PERCPU_ARRAY, 1, 4, CG_HEAP_SIZE);
	return g->heap;
}

/* The per-CPU heap, looked up where g->b is (in the entry block). */
LLVMValueRef cg_percpu_heap_lookup(struct cg *g)
{
	LLVMValueRef key = LLVMBuildAlloca(g->b, LLVMArrayType(g->i8, 4), "zero"), args[2];

	LLVMSetAlignment(key, 8);
	LLVMBuildStore(g->b, LLVMConstInt(g->i32, 0, 0), key);
	args[0] = cg_heap(g);
	args[1] = key;
	return LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "heap");
}

/* Looked up once per hit in the entry block; func_end makes the entry
 * return when it is NULL (never, for an array), as the verifier wants.
 * A program that may become sleepable decides at its end (cg_sleep.c). */
LLVMValueRef cg_heap_ptr(struct cg *g)
{
	if (!g->heap_ptr) {
		LLVMBuilderRef saved = g->b, eb = LLVMCreateBuilderInContext(g->ctx);

		LLVMPositionBuilderAtEnd(eb, g->entry);
		g->heap_ptr = cg_slp_heap_ptr(g, eb);
		if (!g->heap_ptr) {
			g->b = eb;
			g->heap_ptr = cg_percpu_heap_lookup(g);
			g->b = saved;
		}
		LLVMDisposeBuilder(eb);
	}
	return g->heap_ptr;
}

LLVMValueRef cg_config(struct cg *g)
{
	if (!g->config) {
		g->prog->config_map_name = strdup("config");
		g->config = cg_map_define(g, "config", BPF_MAP_TYPE_ARRAY, 1, 4,
					  sizeof(struct pr_config));
	}
	return g->config;
}

/* Debug info of a global of size bytes: libbpf reads the section's
 * variables from it (BTF DATASEC). */
void cg_di_global(struct cg *g, LLVMValueRef gv, const char *name, uint32_t size)
{
	LLVMMetadataRef gve = LLVMDIBuilderCreateGlobalVariableExpression(g->di, g->di_cu,
			name, strlen(name), name, strlen(name), g->di_file, 0, di_bytes(g, size), 0,
			LLVMDIBuilderCreateExpression(g->di, NULL, 0), NULL, 64);

	LLVMGlobalSetMetadata(gv, LLVMGetMDKindIDInContext(g->ctx, "dbg", 3), gve);
}

/*
 * The loss counters, u64 [CG_LOST] ring buffer records that did not fit,
 * [CG_DROPS] map updates that failed, [CG_FAULTS] reads that faulted, and
 * the [CG_EXIT] flag, then each script map's failed updates: one global in
 * .bss, which libbpf makes an array map the runtime reads at exit (and maps
 * into memory, to watch the flag and say at each print of a map what it
 * dropped).  A loss costs one atomic add on a constant address, no map
 * lookup.
 */
void cg_counters(struct cg *g)
{
	if (g->counters)
		return;
	/* then one slot per script map: its failed updates (program.h) */
	uint64_t n = CG_NCOUNTERS + (uint64_t)g->s->nmaps;
	LLVMTypeRef t = LLVMArrayType2(g->i64, n);
	g->counters = LLVMAddGlobal(g->mod, t, "pr_counters");
	LLVMSetInitializer(g->counters, LLVMConstNull(t));
	LLVMSetSection(g->counters, ".bss");
	LLVMSetAlignment(g->counters, 8);
	cg_di_global(g, g->counters, "pr_counters", 8 * (uint32_t)n);
	g->prog->counters_map_name = strdup(".bss");
}

LLVMValueRef cg_site_late(struct cg *g, uint64_t val)
{
	const struct probe *p = g->probe;
	int k = g->nsitetab_used++;

	if (g->act_share_from < 0 || !g->site_cookie || g->site < 0)
		return cg_const(g, val);
	if (k == g->nsitetab) {
		char name[64];
		LLVMTypeRef t = LLVMArrayType2(g->i64, (uint64_t)p->nsites);
		struct cg_sitetab *v = realloc(g->sitetab, (size_t)(k + 1) * sizeof(*v));

		if (!v)
			abort();
		g->sitetab = v;
		snprintf(name, sizeof(name), "p%d_late%d", g->pidx, k);
		v[k].gv = LLVMAddGlobal(g->mod, t, name);
		v[k].vals = calloc((size_t)p->nsites, 8);
		if (!v[k].vals)
			abort();
		LLVMSetInitializer(v[k].gv, LLVMConstNull(t));
		LLVMSetGlobalConstant(v[k].gv, 1);
		LLVMSetSection(v[k].gv, ".rodata");
		LLVMSetAlignment(v[k].gv, 8);
		cg_di_global(g, v[k].gv, name, 8u * (uint32_t)p->nsites);
		g->nsitetab++;
	}
	g->sitetab[k].vals[g->site] = val;
	LLVMValueRef at = LLVMBuildGEP2(g->b, g->i64, g->sitetab[k].gv, &g->sys_site, 1, "");
	return LLVMBuildLoad2(g->b, g->i64, at, "site_late");
}

/* Every late table gets the values its sites gave. */
void cg_sitetab_fill(struct cg *g, int nsites)
{
	LLVMValueRef *c = calloc((size_t)nsites, sizeof(*c));

	if (!c)
		abort();
	for (int k = 0; k < g->nsitetab; k++) {
		for (int i = 0; i < nsites; i++)
			c[i] = cg_const(g, g->sitetab[k].vals[i]);
		LLVMSetInitializer(g->sitetab[k].gv, LLVMConstArray2(g->i64, c, (uint64_t)nsites));
		free(g->sitetab[k].vals);
	}
	free(c);
	free(g->sitetab);
	g->sitetab = NULL;
	g->nsitetab = 0;
}

/* Constant bytes the programs index at run time: libbpf makes .rodata a
 * frozen array map.  The name must be unique in the object. */
LLVMValueRef cg_rodata(struct cg *g, const char *name, const void *data, uint32_t size)
{
	LLVMValueRef init = LLVMConstStringInContext(g->ctx, data, size, 1);
	LLVMValueRef gv = LLVMAddGlobal(g->mod, LLVMTypeOf(init), name);

	LLVMSetInitializer(gv, init);
	LLVMSetGlobalConstant(gv, 1);
	LLVMSetSection(gv, ".rodata");
	LLVMSetAlignment(gv, 8);
	cg_di_global(g, gv, name, size);
	return gv;
}

/* Sets a slot to 1: a plain store, no atomic add needed. */
void cg_flag(struct cg *g, int slot)
{
	cg_counters(g);
	LLVMBuildStore(g->b, cg_const(g, 1), cg_gep(g, g->counters, 8 * (uint64_t)slot));
}

void cg_count(struct cg *g, int slot)
{
	cg_counters(g);
	LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, cg_gep(g, g->counters, 8 * (uint64_t)slot),
			   cg_const(g, 1), LLVMAtomicOrderingMonotonic, 0);
}

LLVMValueRef cg_pid_tgid(struct cg *g)
{
	if (!g->pid_tgid) {
		LLVMBuilderRef saved = g->b;
		LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->ctx);

		/* Once per hit, in the entry block, so every use dominates. */
		LLVMPositionBuilderAtEnd(eb, g->entry);
		g->b = eb;
		g->pid_tgid = cg_helper(g, H_PID_TGID, NULL, 0);
		g->b = saved;
		LLVMDisposeBuilder(eb);
	}
	return g->pid_tgid;
}

/* ---- functions ---- */

struct sec_info {
	const char *kind;
	int prog_type;
};

static struct sec_info section_of(const struct probe *p, int idx, char *sec, size_t n)
{
	switch (p->kind) {
	case PK_BEGIN:
		snprintf(sec, n, "raw_tp/begin");
		return (struct sec_info){ "begin", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_END:
		snprintf(sec, n, "raw_tp/end");
		return (struct sec_info){ "end", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_UPROBE: case PK_USDT:
		snprintf(sec, n, "uprobe/p%d", idx);
		return (struct sec_info){ p->kind == PK_USDT ? "usdt" : "uprobe",
					  BPF_PROG_TYPE_KPROBE };
	case PK_URETPROBE:
		snprintf(sec, n, "uretprobe/p%d", idx);
		return (struct sec_info){ "uretprobe", BPF_PROG_TYPE_KPROBE };
	case PK_KPROBE:
		snprintf(sec, n, "kprobe/p%d", idx);
		return (struct sec_info){ "kprobe", BPF_PROG_TYPE_KPROBE };
	case PK_KRETPROBE:
		snprintf(sec, n, "kretprobe/p%d", idx);
		return (struct sec_info){ "kretprobe", BPF_PROG_TYPE_KPROBE };
	case PK_TRACEPOINT:
		if (p->sys_raw) {
			snprintf(sec, n, "raw_tp/%s", p->sys_raw == SYS_ENTER ? "sys_enter" : "sys_exit");
			return (struct sec_info){ "syscalls", BPF_PROG_TYPE_RAW_TRACEPOINT };
		}
		if (p->tp_raw) {
			snprintf(sec, n, "raw_tp/%s", p->event ? p->event : "x");
			return (struct sec_info){ "tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT };
		}
		snprintf(sec, n, "tracepoint/%s/%s", p->category ? p->category : "x",
			 p->event ? p->event : "x");
		return (struct sec_info){ "tracepoint", BPF_PROG_TYPE_TRACEPOINT };
	case PK_RAWTP:
		snprintf(sec, n, "raw_tp/%s", p->event ? p->event : "x");
		return (struct sec_info){ "rawtracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_FENTRY: case PK_FEXIT:
		snprintf(sec, n, "%s/%s", p->kind == PK_FENTRY ? "fentry" : "fexit",
			 p->nsites ? p->sites[0].func : "x");
		return (struct sec_info){ p->kind == PK_FENTRY ? "fentry" : "fexit",
					  BPF_PROG_TYPE_TRACING };
	default:
		snprintf(sec, n, "perf_event");
		return (struct sec_info){ probe_kind_name(p->kind), BPF_PROG_TYPE_PERF_EVENT };
	}
}

static LLVMMetadataRef di_subroutine(struct cg *g)
{
	LLVMMetadataRef t[2] = { g->di_int, cg_di_ptr(g, NULL) };

	return LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, t, 2, LLVMDIFlagZero);
}

/*
 * The callback of bpf_for_each_map_elem() that len(@m) passes: adds one to
 * the u64 its ctx points to and returns 0 (go on).  One static function in
 * .text for the object, with BTF (the kernel wants it of every subprogram,
 * each argument named).
 */
LLVMValueRef cg_count_callback(struct cg *g)
{
	static const char *const pn[4] = { "map", "key", "value", "ctx" };
	LLVMTypeRef at[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMMetadataRef dt[5] = { g->di_int, cg_di_ptr(g, NULL), cg_di_ptr(g, NULL),
				  cg_di_ptr(g, NULL), cg_di_ptr(g, NULL) };
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, "pr_count_elem");

	if (fn)
		return fn;
	fn = LLVMAddFunction(g->mod, "pr_count_elem", LLVMFunctionType(g->i64, at, 4, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->ctx, "target-cpu", 10, cg_bpf_cpu(),
							  (unsigned)strlen(cg_bpf_cpu())));
	LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt, 5,
								LLVMDIFlagZero);
	LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, "pr_count_elem", 13,
							 "pr_count_elem", 13, g->di_file, 1, st, 1,
							 1, 1, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, sp);
	for (unsigned i = 0; i < 4; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, sp, pn[i], strlen(pn[i]), i + 1,
						     g->di_file, 1, cg_di_ptr(g, NULL), 1,
						     LLVMDIFlagZero);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(g->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(g->ctx, fn, "entry"));
	LLVMSetCurrentDebugLocation2(b, LLVMDIBuilderCreateDebugLocation(g->ctx, 1, 1, sp, NULL));
	LLVMValueRef p = LLVMGetParam(fn, 3);
	LLVMValueRef v = LLVMBuildLoad2(b, g->i64, p, "");
	LLVMBuildStore(b, LLVMBuildAdd(b, v, LLVMConstInt(g->i64, 1, 0), ""), p);
	LLVMBuildRet(b, LLVMConstInt(g->i64, 0, 0));
	LLVMDisposeBuilder(b);
	return fn;
}

/* The per-function state a callback sets aside and gives back (struct
 * cg_fnstate): one list, so that saving and restoring cannot disagree. */
#define FN_STATE(X) X(fn) X(ctxarg) X(pid_tgid) X(sys_nr) X(sys_site) X(sys_regs) \
	X(heap_ptr) X(entry) X(start) X(sp) X(vars) X(nvars) X(capvars) X(nloops) \
	X(tmp) X(tmpsize) X(tmpheap) X(ntmp) X(captmp) X(heap_off) X(slp_cand)

static void fn_save(struct cg *g, struct cg_fnstate *st)
{
#define SAVE(f) st->f = g->f;
	FN_STATE(SAVE)
#undef SAVE
	memcpy(st->brk, g->brk, sizeof(st->brk));
	memcpy(st->cont, g->cont, sizeof(st->cont));
	st->at = LLVMGetInsertBlock(g->b);
	st->loc = LLVMGetCurrentDebugLocation2(g->b);
}

/* What every function of the object carries: nounwind (BPF has no
 * unwinding) and the BPF CPU version the object is built for. */
static void fn_attrs(struct cg *g, LLVMValueRef fn)
{
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);

	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(g->ctx, nounwind, 0));
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->ctx, "target-cpu", 10, cg_bpf_cpu(),
							  (unsigned)strlen(cg_bpf_cpu())));
}

LLVMValueRef cg_callback_begin(struct cg *g, struct cg_fnstate *st, const char *name,
			       struct loc at)
{
	static const char *const pn[4] = { "map", "key", "value", "ctx" };
	LLVMTypeRef pt[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMMetadataRef dt[5] = { g->di_int, cg_di_ptr(g, NULL), cg_di_ptr(g, NULL),
				  cg_di_ptr(g, NULL), cg_di_ptr(g, NULL) };
	int line = at.line > 0 ? at.line : 1;

	fn_save(g, st);
	g->fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(g->i32, pt, 4, 0));
	LLVMSetLinkage(g->fn, LLVMInternalLinkage);
	fn_attrs(g, g->fn);
	g->sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					    strlen(name), g->di_file, line,
					    LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt,
									      5, LLVMDIFlagZero),
					    1, 1, line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(g->fn, g->sp);
	for (unsigned i = 0; i < 4; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, g->sp, pn[i], strlen(pn[i]), i + 1,
						     g->di_file, line, cg_di_ptr(g, NULL), 1,
						     LLVMDIFlagZero);
	g->ctxarg = NULL;
	g->entry = cg_block(g, "entry");
	g->start = cg_block(g, "start");
	LLVMPositionBuilderAtEnd(g->b, g->start);
	LLVMSetCurrentDebugLocation2(g->b, LLVMDIBuilderCreateDebugLocation(g->ctx, line,
				     at.col > 0 ? at.col : 1, g->sp, NULL));
	g->vars = NULL;
	g->nvars = g->capvars = 0;
	g->nloops = 0;
	g->tmp = NULL;
	g->tmpsize = g->tmpheap = NULL;
	g->ntmp = g->captmp = 0;
	g->heap_ptr = NULL;
	g->pid_tgid = NULL;
	g->sys_nr = g->sys_site = g->sys_regs = NULL;
	/* The callback finds the caller's variables in the per-CPU heap
	 * (cg_formap.c): neither function may take the sleepable path's
	 * task-local heap (cg_sleep.c). */
	g->slp_stack = true;
	g->slp_cand = false;
	return g->fn;
}

/* The entry block, whose allocas are now all known, goes on to the body:
 * only once the per-CPU heap was found, if the function uses it. */
static void close_entry(struct cg *g)
{
	LLVMPositionBuilderAtEnd(g->b, g->entry);
	if (g->heap_ptr) {
		LLVMBasicBlockRef none = cg_block(g, "noheap");

		LLVMBuildCondBr(g->b, LLVMBuildIsNotNull(g->b, g->heap_ptr, ""), g->start, none);
		LLVMPositionBuilderAtEnd(g->b, none);
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	} else {
		LLVMBuildBr(g->b, g->start);
	}
}

void cg_callback_end(struct cg *g, struct cg_fnstate *st)
{
	/* func_end without the sleepable decision, which is the caller's */
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)))
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	close_entry(g);
	free(g->vars);
	free(g->tmp);
	free(g->tmpsize);
	free(g->tmpheap);
#define RESTORE(f) g->f = st->f;
	FN_STATE(RESTORE)
#undef RESTORE
	memcpy(g->brk, st->brk, sizeof(st->brk));
	memcpy(g->cont, st->cont, sizeof(st->cont));
	LLVMPositionBuilderAtEnd(g->b, st->at);
	LLVMSetCurrentDebugLocation2(g->b, st->loc);
}

/*
 * A static function of .text that a helper calls back (bpf_loop,
 * bpf_find_vma: cg_unwind.c): n pointer parameters named pnames, an i64
 * result, nounwind, with the BTF the kernel wants of every subprogram.
 * Returns it with an empty "entry" block; *sp gets its debug scope.
 */
LLVMValueRef cg_callback_fn(struct cg *g, const char *name, int n, const char *const *pnames,
			    LLVMMetadataRef *sp)
{
	LLVMTypeRef at[5];
	LLVMMetadataRef dt[6] = { g->di_int };

	for (int i = 0; i < n && i < 5; i++)
		at[i] = g->ptr, dt[i + 1] = cg_di_ptr(g, NULL);
	LLVMValueRef fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(g->i64, at, (unsigned)n, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	fn_attrs(g, fn);
	LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt,
							       (unsigned)n + 1, LLVMDIFlagZero);
	*sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					  strlen(name), g->di_file, 1, st, 1, 1, 1,
					  LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, *sp);
	for (int i = 0; i < n; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, *sp, pnames[i], strlen(pnames[i]),
						     (unsigned)i + 1, g->di_file, 1, cg_di_ptr(g, NULL),
						     1, LLVMDIFlagZero);
	LLVMAppendBasicBlockInContext(g->ctx, fn, "entry");
	return fn;
}

/* Loads from the context must keep a constant offset (the verifier refuses
 * "modified ctx ptr"), yet LLVM merges two loads at different offsets in
 * two branches into one load at a phi of the offsets.  A pointer marked
 * with llvm.preserve.static.offset has its loads kept whole by the BPF
 * back end's own pass. */
static LLVMValueRef static_offsets(struct cg *g, LLVMValueRef ctx)
{
	unsigned id = LLVMLookupIntrinsicID("llvm.preserve.static.offset", 27);
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, NULL, 0);
	LLVMTypeRef ft = LLVMFunctionType(g->ptr, &g->ptr, 1, 0);

	return LLVMBuildCall2(g->b, ft, fn, &ctx, 1, "ctx");
}

static void func_begin(struct cg *g, const char *name, const char *sec, struct node *pn)
{
	LLVMTypeRef ft = LLVMFunctionType(g->i32, &g->ptr, 1, 0);
	int line = pn->loc.line > 0 ? pn->loc.line : 1;

	g->fn = LLVMAddFunction(g->mod, name, ft);
	LLVMSetSection(g->fn, sec);
	fn_attrs(g, g->fn);
	g->ctxarg = LLVMGetParam(g->fn, 0);
	LLVMSetValueName2(g->ctxarg, "ctx", 3);
	g->sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					    strlen(name), g->di_file, line, di_subroutine(g), 0, 1,
					    line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(g->fn, g->sp);
	/* The kernel wants every BTF function argument named; a preserved
	 * parameter variable is where LLVM's BTF writer takes the name from. */
	LLVMDIBuilderCreateParameterVariable(g->di, g->sp, "ctx", 3, 1, g->di_file, line,
					     cg_di_ptr(g, NULL), 1, LLVMDIFlagZero);
	/* Allocas and once-per-hit values go to "entry", which branches to
	 * "start" when the function is complete. */
	g->entry = cg_block(g, "entry");
	g->start = cg_block(g, "start");
	LLVMPositionBuilderAtEnd(g->b, g->entry);
	g->ctxarg = static_offsets(g, g->ctxarg);
	LLVMPositionBuilderAtEnd(g->b, g->start);
	cg_at(g, pn);
	g->nvars = 0;
	g->nloops = 0;
	g->ntmp = 0;
	g->heap_ptr = NULL;
	g->heap_off = 0;
	g->heap_full = false;
	g->pid_tgid = NULL;
	g->sys_nr = g->sys_site = g->sys_regs = NULL;
	cg_slp_begin(g);
}

static void func_end(struct cg *g)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->b);

	if (!LLVMGetBasicBlockTerminator(cur))
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	g->fn_sleepable = cg_slp_end(g);
	close_entry(g);
	LLVMSetCurrentDebugLocation2(g->b, NULL);
	g->sp = NULL;
}

struct pr_prog *cg_func_begin(struct cg *g, const char *name, const char *sec, struct loc at)
{
	struct node pn = { .kind = N_PROBE, .loc = at };
	struct pr_prog *v = realloc(g->prog->progs, (g->prog->nprogs + 1) * sizeof(*v));

	if (!v)
		abort();
	g->prog->progs = v;
	v = &v[g->prog->nprogs++];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->loc = at;
	v->site = -1;
	g->site = -1;
	g->probe = NULL;
	func_begin(g, name, sec, &pn);
	return v;
}

void cg_func_end(struct cg *g)
{
	func_end(g);
}

void cg_ret0_unless(struct cg *g, LLVMValueRef v, bool want)
{
	LLVMBasicBlockRef go = cg_block(g, "go"), stop = cg_block(g, "stop");
	LLVMValueRef c = LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");

	LLVMBuildCondBr(g->b, c, want ? go : stop, want ? stop : go);
	LLVMPositionBuilderAtEnd(g->b, stop);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	LLVMPositionBuilderAtEnd(g->b, go);
}

/* Once exit() has set its flag, a hit does nothing: the runtime detaches
 * the probes only when it has seen the flag, and a probe that fires every
 * millisecond would count on until then. */
void cg_skip_after_exit(struct cg *g)
{
	cg_counters(g);
	cg_ret0_unless(g, LLVMBuildLoad2(g->b, g->i64,
				      cg_gep(g, g->counters, 8 * (uint64_t)CG_EXIT), "exited"),
		    false);
}

void cg_probe_body(struct cg *g, struct node *pn)
{
	if (pn->a) {
		int mark = cg_tmp_mark(g);

		cg_at(g, pn->a);
		LLVMValueRef c = cg_expr(g, pn->a);
		cg_tmp_release(g, mark);
		cg_ret0_unless(g, c, true);
	}
	cg_block_stmts(g, pn->b);
}

/* The site of a program that several share: its attach cookie, which is
 * its index in probe->sites (runtime/prov_uprobe.c), checked so that the
 * tables indexed by it are in bounds for the verifier. */
static void site_cookie(struct cg *g)
{
	g->sys_site = cg_helper(g, H_GET_ATTACH_COOKIE, &g->ctxarg, 1);
	cg_ret0_unless(g, LLVMBuildICmp(g->b, LLVMIntULT, g->sys_site,
					cg_const(g, (uint64_t)g->probe->nsites), ""), true);
}

static int gen_function(struct cg *g, struct node *pn, const struct probe *p, int idx,
			int site)
{
	char name[64], sec[512];
	struct sec_info si = section_of(p, idx, sec, sizeof(sec));
	struct pr_prog *pp = realloc(g->prog->progs, (g->prog->nprogs + 1) * sizeof(*pp));

	if (!pp)
		abort();
	g->prog->progs = pp;
	pp = &pp[g->prog->nprogs];
	memset(pp, 0, sizeof(*pp));

	if (site >= 0) {
		snprintf(name, sizeof(name), "p%d_s%d_%s", idx, site, si.kind);
		snprintf(sec, sizeof(sec), "uprobe/p%d_s%d", idx, site);
	} else {
		snprintf(name, sizeof(name), "p%d_%s", idx, si.kind);
	}
	g->site = site;
	g->pidx = idx;
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			*c = '_';
	g->probe = p;
	func_begin(g, name, sec, pn);
	if (g->site_cookie)
		site_cookie(g);
	if (p->sys_raw)
		cg_sys_prologue(g);
	if (g->s->has_exit && p->kind != PK_BEGIN && p->kind != PK_END)
		cg_skip_after_exit(g);
	if (g->rp_on)
		cg_rp_enter(g, pn, idx);
	if (site >= 0 && p->sites[site].absent)
		cg_count(g, CG_ABSENT);  /* a variable the body reads is not here */
	else
		cg_probe_body(g, pn);
	func_end(g);
	pp->name = strdup(name);
	pp->bpf_prog_type = si.prog_type;
	pp->probe = p;
	pp->site = site;
	pp->loc = pn->loc;
	pp->sleepable = g->fn_sleepable;
	g->prog->nprogs++;
	return 0;
}

/* ---- programs shared by sites ---- */

/* A function's IR without what differs between otherwise identical ones:
 * its header (name, section) and metadata numbers (the debug locations of
 * each function are in its own scope). */
static char *fn_text(LLVMValueRef fn, uint64_t *hash)
{
	char *ir = LLVMPrintValueToString(fn), *body = strstr(ir, "{\n");
	char *out = malloc(strlen(ir) + 1), *o = out;

	if (!out)
		abort();
	*hash = 14695981039346656037ULL;
	for (const char *c = body ? body : ir; *c; c++) {
		*o++ = *c;
		*hash = (*hash ^ (unsigned char)*c) * 1099511628211ULL;
		if (*c == '!')
			while (c[1] >= '0' && c[1] <= '9')
				c++;
	}
	*o = '\0';
	LLVMDisposeMessage(ir);
	return out;
}

struct cg_group { int prog; uint64_t hash; char *text; };

static void group_add(struct pr_prog *pp, int site)
{
	int *v = realloc(pp->sites, (size_t)(pp->nsites + 1) * sizeof(*v));

	if (!v)
		abort();
	pp->sites = v;
	v[pp->nsites++] = site;
}

/* The sites of a uprobe or usdt wildcard share programs through the attach
 * cookie.  A body that reads only the site's name or address has one
 * program for all of them.  One that reads DWARF or USDT locations is
 * generated for each site, and a site whose code comes out identical to
 * an earlier one's (the same locations read the same way) joins that
 * program instead of having its own: sound for every kind of location,
 * since what is compared is the code itself. */
static void gen_shared(struct cg *g, const struct sema_probe *sp, const struct probe *p,
		       int idx)
{
	struct cg_group *grp;
	int ngrp = 0;

	g->site_cookie = true;
	if (!sp->dwarf_site) {
		gen_function(g, sp->node, p, idx, -1);
		g->site_cookie = false;
		return;
	}
	grp = calloc((size_t)p->nsites, sizeof(*grp));
	if (!grp)
		abort();
	g->act_share_from = g->prog->nactions;
	for (int k = 0; k < p->nsites && !g->errors; k++) {
		g->nsitetab_used = 0;
		gen_function(g, sp->node, p, idx, k);
		struct pr_prog *pp = &g->prog->progs[g->prog->nprogs - 1];
		uint64_t h;
		char *text = fn_text(g->fn, &h);
		int j = 0;

		while (j < ngrp && (grp[j].hash != h || g->prog->progs[grp[j].prog].sleepable !=
				    pp->sleepable || strcmp(grp[j].text, text)))
			j++;
		if (j == ngrp) {
			grp[ngrp++] = (struct cg_group){ g->prog->nprogs - 1, h, text };
			group_add(pp, k);
			continue;
		}
		free(text);
		LLVMDeleteFunction(g->fn);
		g->fn = NULL;
		free(pp->name);
		g->prog->nprogs--;
		group_add(&g->prog->progs[grp[j].prog], k);
	}
	for (int j = 0; j < ngrp; j++)
		free(grp[j].text);
	free(grp);
	cg_sitetab_fill(g, p->nsites);
	g->act_share_from = -1;
	g->site_cookie = false;
}

static bool shared_sites(const struct sema_probe *sp, const struct probe *p)
{
	return sp->per_site && !p->sys_raw && p->nsites > 1 &&
	       (p->kind == PK_UPROBE || p->kind == PK_URETPROBE || p->kind == PK_USDT);
}

/* ---- module ---- */

/* LLVM reports some failures (the BPF stack limit) as diagnostics rather
 * than errors of the emit call: route them to the script's diag. */
static void on_llvm_diag(LLVMDiagnosticInfoRef di, void *arg)
{
	struct cg *g = arg;
	char *msg;

	if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || g->llvm_failed++)
		return;
	msg = LLVMGetDiagInfoDescription(di);
	if (strstr(msg, "stack limit"))
		cg_error(g, (struct loc){ 0 }, "a probe needs more than 512 bytes of BPF stack; "
			 "use fewer strings in one statement");
	else
		cg_error(g, (struct loc){ 0 }, "BPF code generation failed: %s", msg);
	LLVMDisposeMessage(msg);
}

void cg_module_init(struct cg *g, const struct source *src)
{
	const char *fname = src && src->name ? src->name : "-e";
	LLVMMetadataRef v;

	g->ctx = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(g->ctx, on_llvm_diag, g);
	g->mod = LLVMModuleCreateWithNameInContext("perf-run", g->ctx);
	LLVMSetTarget(g->mod, "bpfel");
	LLVMSetDataLayout(g->mod, "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128");
	g->b = LLVMCreateBuilderInContext(g->ctx);
	g->di = LLVMCreateDIBuilder(g->mod);
	g->i8 = LLVMInt8TypeInContext(g->ctx);
	g->i16 = LLVMInt16TypeInContext(g->ctx);
	g->i32 = LLVMInt32TypeInContext(g->ctx);
	g->i64 = LLVMInt64TypeInContext(g->ctx);
	g->ptr = LLVMPointerTypeInContext(g->ctx, 0);
	g->di_file = LLVMDIBuilderCreateFile(g->di, fname, strlen(fname), ".", 1);
	g->di_cu = LLVMDIBuilderCreateCompileUnit(g->di, LLVMDWARFSourceLanguageC, g->di_file,
			"perf-run", 8, 1, "", 0, 0, "", 0, LLVMDWARFEmissionFull, 0, 0, 0,
			"", 0, "", 0);
	g->di_int = cg_di_basic(g, "int", 32, 5 /* DW_ATE_signed */);
	v = LLVMValueAsMetadata(LLVMConstInt(g->i32, 3, 0));
	LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18, v);
	v = LLVMValueAsMetadata(LLVMConstInt(g->i32, 4, 0));
	LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13, v);
}

void cg_add_license(struct cg *g)
{
	LLVMValueRef s = LLVMConstStringInContext(g->ctx, "GPL", 3, 0);
	LLVMValueRef gv = LLVMAddGlobal(g->mod, LLVMTypeOf(s), "_license");

	LLVMSetInitializer(gv, s);
	LLVMSetSection(gv, "license");
}

/*
 * LLVM exits on errors it cannot return (a jump past 32767 instructions);
 * nothing is loaded or attached yet, so one sentence and exit 1 is clean.
 */
static void llvm_fatal(const char *reason)
{
	fprintf(stderr, "perf-run: error: LLVM cannot build this script's BPF program (%s); "
		"make the script smaller, with fewer unroll iterations\n", reason);
	fflush(stderr);
}

static LLVMTargetMachineRef target_machine(void)
{
	static int inited;
	LLVMTargetRef t;
	char *err = NULL;

	if (!inited) {
		LLVMInitializeBPFTargetInfo();
		LLVMInitializeBPFTarget();
		LLVMInitializeBPFTargetMC();
		LLVMInitializeBPFAsmPrinter();
		LLVMInitializeBPFAsmParser();
		LLVMInitializeBPFDisassembler();
		LLVMInstallFatalErrorHandler(llvm_fatal);
		inited = 1;
	}
	if (LLVMGetTargetFromTriple("bpfel", &t, &err)) {
		LLVMDisposeMessage(err);
		return NULL;
	}
	return LLVMCreateTargetMachine(t, "bpfel", cg_bpf_cpu(), "", LLVMCodeGenLevelDefault,
				       LLVMRelocStatic, LLVMCodeModelDefault);
}

static int emit_llvm(struct cg *g, unsigned dump)
{
	LLVMTargetMachineRef tm = target_machine();
	LLVMPassBuilderOptionsRef po;
	LLVMMemoryBufferRef mb;
	LLVMErrorRef e;
	char *err = NULL;

	if (!tm) {
		cg_error(g, (struct loc){ 0 }, "LLVM has no BPF target");
		return -1;
	}
	if (LLVMVerifyModule(g->mod, LLVMReturnStatusAction, &err)) {
		cg_error(g, (struct loc){ 0 }, "internal error: invalid IR: %s", err);
		LLVMDisposeMessage(err);
		LLVMDisposeTargetMachine(tm);
		return -1;
	}
	LLVMDisposeMessage(err);
	po = LLVMCreatePassBuilderOptions();
	e = LLVMRunPasses(g->mod, "default<O2>", tm, po);
	LLVMDisposePassBuilderOptions(po);
	if (e) {
		char *m = LLVMGetErrorMessage(e);

		cg_error(g, (struct loc){ 0 }, "internal error: LLVM passes: %s", m);
		LLVMDisposeErrorMessage(m);
		LLVMDisposeTargetMachine(tm);
		return -1;
	}
	if (dump & PR_DUMP_IR) {
		char *ir = LLVMPrintModuleToString(g->mod);

		fputs(ir, stdout);
		LLVMDisposeMessage(ir);
	}
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, g->mod, LLVMObjectFile, &err, &mb)) {
		cg_error(g, (struct loc){ 0 }, "cannot generate BPF code: %s", err);
		LLVMDisposeMessage(err);
		LLVMDisposeTargetMachine(tm);
		return -1;
	}
	LLVMDisposeTargetMachine(tm);
	if (g->errors) {
		LLVMDisposeMemoryBuffer(mb);
		return -1;
	}
	g->prog->elf_size = LLVMGetBufferSize(mb);
	g->prog->elf = malloc(g->prog->elf_size);
	if (g->prog->elf)
		memcpy(g->prog->elf, LLVMGetBufferStart(mb), g->prog->elf_size);
	LLVMDisposeMemoryBuffer(mb);
	return g->prog->elf ? 0 : -1;
}

/* A dump wants LLVM's own stages, so it always compiles. */
/*
 * LLVM 19's BTF writer completes every BTF type again at the start of each
 * function with debug info, and its string table looks each name up by a
 * linear search: each function costs the square of the globals (maps) the
 * object has, a script with a probe and a map per function the cube of its
 * size (1,000 of each: 6 s of a 7 s compile).  A function without debug
 * info is skipped by the writer: past a budget, the probe functions lose
 * theirs, so the object keeps the maps' BTF (libbpf needs it) but has no
 * line info to map a verifier rejection to a statement: the error then
 * names the probe (runtime/loader.c).  Objects with helper callbacks keep
 * everything, since the kernel wants BTF of a callback's program.
 */
#define CG_BTF_BUDGET 20000000.0
#define CG_SLOW_PROGS 500

static bool is_prog_section(const char *name);

void cg_lean_debug_info(struct cg *g)
{
	double nfn = 0, nvar = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(g->mod); f; f = LLVMGetNextFunction(f)) {
		const char *sec = LLVMGetSection(f);

		if (!LLVMCountBasicBlocks(f))
			continue;
		if (!sec || !is_prog_section(sec))
			return;   /* a callback */
		nfn++;
	}
	for (LLVMValueRef v = LLVMGetFirstGlobal(g->mod); v; v = LLVMGetNextGlobal(v))
		nvar++;
	if (nfn * nvar * nvar / 2 < CG_BTF_BUDGET)
		return;
	for (LLVMValueRef f = LLVMGetFirstFunction(g->mod); f; f = LLVMGetNextFunction(f)) {
		size_t len;
		const char *name = LLVMGetValueName2(f, &len);

		if (!LLVMCountBasicBlocks(f))
			continue;
		/* one function's line info costs the writer little */
		if (g->prog->keep_debug && !strcmp(name, g->prog->keep_debug))
			continue;
		LLVMSetSubprogram(f, NULL);
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
				LLVMInstructionSetDebugLoc(i, NULL);
	}
	g->prog->lean_btf = true;
}

/*
 * LLVM's back end needs memory superlinear in a function's size (its
 * stack colouring and live ranges): one BEGIN of 100,000 statements took
 * 21.5 GB and 287 s, and the kernel then refused the program (E2BIG); the
 * verifier gives up on straight-line code well below this size (10,000
 * map assignments, about 200,000 instructions).  A program past it is
 * refused before the passes run.
 */
#define CG_MAX_FUNC_INSNS 250000

static int too_large(struct cg *g)
{
	for (int i = 0; i < g->prog->nprogs; i++) {
		const struct pr_prog *pp = &g->prog->progs[i];
		LLVMValueRef f = LLVMGetNamedFunction(g->mod, pp->name);
		long n = 0;

		for (LLVMBasicBlockRef bb = f ? LLVMGetFirstBasicBlock(f) : NULL; bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
			     in = LLVMGetNextInstruction(in))
				n++;
		if (n > CG_MAX_FUNC_INSNS) {
			cg_error(g, pp->loc, "this probe's code is %ld LLVM instructions, more than "
				 "the %d perf-run compiles in one program: the kernel's verifier "
				 "does not take straight-line code this long; split it across "
				 "probes, or repeat it with a loop", n, CG_MAX_FUNC_INSNS);
			return -1;
		}
	}
	return 0;
}

int cg_emit(struct cg *g, unsigned dump)
{
	if (too_large(g))
		return -1;
	char *ir = dump ? NULL : LLVMPrintModuleToString(g->mod);
	int r;

	if (ir && !g->errors && !objcache_get(ir, &g->prog->elf, &g->prog->elf_size)) {
		LLVMDisposeMessage(ir);
		g->prog->cached = true;
		return 0;
	}
	/* LLVM takes about 1 ms a program: say why a large script is slow to
	 * start (once: not again when a rejection is placed, keep_debug). */
	if (!dump && !g->prog->keep_debug && g->prog->nprogs >= CG_SLOW_PROGS)
		fprintf(stderr, "perf-run: compiling %d BPF programs...\n", g->prog->nprogs);
	r = emit_llvm(g, dump);
	if (!r && ir)
		objcache_put(ir, g->prog->elf, g->prog->elf_size);
	if (ir)
		LLVMDisposeMessage(ir);
	return r;
}

static bool is_prog_section(const char *name)
{
	static const char *const pre[] = { "uprobe/", "uretprobe/", "kprobe/", "kretprobe/",
		"tracepoint/", "raw_tp/", "perf_event", "fentry/", "fexit/" };

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(name, pre[i], strlen(pre[i])))
			return true;
	return false;
}

static void dump_section(LLVMDisasmContextRef dc, const char *name,
			 const uint8_t *bytes, uint64_t size)
{
	char line[256];
	uint64_t pc = 0;

	printf("%s:\n", name);
	while (pc < size) {
		size_t n = LLVMDisasmInstruction(dc, (uint8_t *)bytes + pc, size - pc, pc,
						 line, sizeof(line));

		if (!n)
			n = 8;
		printf("%5llu:%s\n", (unsigned long long)(pc / 8), line);
		pc += n;
	}
}

/* --dump bpf: every program section of the emitted object, disassembled. */
void cg_dump_bpf(const struct program *p)
{
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(p->elf, p->elf_size,
								       "bpf", 0);
	LLVMBinaryRef bin = LLVMCreateBinary(mb, NULL, NULL);
	LLVMDisasmContextRef dc = LLVMCreateDisasmCPU("bpfel", cg_bpf_cpu(), NULL, 0, NULL, NULL);
	LLVMSectionIteratorRef it;

	if (!bin || !dc)
		goto out;
	it = LLVMObjectFileCopySectionIterator(bin);
	for (; !LLVMObjectFileIsSectionIteratorAtEnd(bin, it); LLVMMoveToNextSection(it)) {
		const char *name = LLVMGetSectionName(it);

		if (name && is_prog_section(name))
			dump_section(dc, name, (const uint8_t *)LLVMGetSectionContents(it),
				     LLVMGetSectionSize(it));
	}
	LLVMDisposeSectionIterator(it);
out:
	if (dc)
		LLVMDisasmDispose(dc);
	if (bin)
		LLVMDisposeBinary(bin);
	LLVMDisposeMemoryBuffer(mb);
}

static void cg_dispose(struct cg *g)
{
	for (int i = 0; i < g->nentries; i++)
		free(g->entries[i].func);
	free(g->entries);
	free(g->slp_marks);
	free(g->vars);
	free(g->maps);
	free(g->tmp);
	free(g->tmpsize);
	free(g->tmpheap);
	free(g->late);
	if (g->di)
		LLVMDisposeDIBuilder(g->di);
	if (g->b)
		LLVMDisposeBuilder(g->b);
	if (g->mod)
		LLVMDisposeModule(g->mod);
	if (g->ctx)
		LLVMContextDispose(g->ctx);
}

/* The probes codegen made (sys_exit_* replays) join the program's once
 * the walk over the sema probes, which point into its array, is done. */
static void add_late_probes(struct cg *g)
{
	struct program *p = g->prog;
	struct probe **v;

	if (!g->nlate)
		return;
	v = realloc(p->probes, (p->nprobes + g->nlate) * sizeof(*v));
	if (!v)
		abort();
	memcpy(v + p->nprobes, g->late, g->nlate * sizeof(*v));
	p->probes = v;
	p->nprobes += g->nlate;
	g->nlate = 0;
}

int cg_generate(struct sema_probe *probes, int nprobes, struct sema *s,
		const struct source *src, unsigned dump, struct program *out,
		struct diag *d)
{
	struct cg g = { .prog = out, .s = s, .d = d, .act_share_from = -1 };
	int nfn = 0, idx = 0, rc = -1;

	for (int i = 0; i < nprobes; i++)
		for (int j = 0; j < probes[i].nprobes; j++)
			nfn += probes[i].per_site && !probes[i].probes[j]->sys_raw ?
				probes[i].probes[j]->nsites : 1;
	out->progs = calloc(nfn ? nfn : 1, sizeof(*out->progs));
	if (!out->progs)
		return -1;
	cg_module_init(&g, src);
	cg_add_license(&g);
	if (cg_define_maps(&g))
		goto out;
	cg_counters(&g);
	if (s->has_actions)
		cg_ringbuf(&g);
	for (int i = 0; i < nprobes; i++)
		for (int j = 0; j < probes[i].nprobes; j++, idx++) {
			const struct probe *p = probes[i].probes[j];

			if (shared_sites(&probes[i], p)) {
				gen_shared(&g, &probes[i], p, idx);
				continue;
			}
			if (!probes[i].per_site || p->sys_raw) {
				/* The companion first: it is attached first. */
				g.rp_on = cg_rp_wanted(probes[i].node, p);
				if (g.rp_on)
					cg_rp_exit(&g, probes[i].node, p, idx);
				gen_function(&g, probes[i].node, p, idx, -1);
				g.rp_on = false;
				continue;
			}
			/* DWARF locations differ per address: one program per site. */
			for (int k = 0; k < p->nsites; k++)
				gen_function(&g, probes[i].node, p, idx, k);
		}
	add_late_probes(&g);
	if (!g.errors && cg_entry_companions(&g))
		goto out;
	if (!g.errors)
		cg_watch_setups(&g);
	if (g.errors)
		goto out;
	cg_slp_finish(&g);
	cg_lean_debug_info(&g);
	LLVMDIBuilderFinalize(g.di);
	cg_size_ringbuf(&g);
	if (cg_emit(&g, dump))
		goto out;
	if (dump & PR_DUMP_BPF)
		cg_dump_bpf(out);
	rc = 0;
out:
	cg_dispose(&g);
	return rc;
}
