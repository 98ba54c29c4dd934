// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_ir.c - the code generator's toolbox, the floor every cg_ file stands
 * on: errors and debug locations, constants, BPF helper calls, temporaries
 * (stack slots, or the per-CPU heap for large ones, at offsets fixed at
 * compile time), GEPs, memset/memcpy, blocks and branches, constant
 * strings, the debug-info builders, BTF-defined map globals and what the
 * running kernel takes (ISA v3/v4, preallocated hashes).
 *
 * It calls no other cg_ file.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "codegen_int.h"

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

/* The helpers that read memory: cg_read() (cg_read.c) makes their calls. */
static bool is_read(int id)
{
	return id == H_READ_USER || id == H_READ_KERNEL || id == H_READ_USER_STR ||
	       id == H_READ_KERNEL_STR || id == H_PROBE_READ_STR;
}

/* Helpers are called through their id cast to a pointer, as clang does. */
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

/* A read of memory is not one: what it does when it faults, or at a
 * program that may sleep, is cg_read()'s. */
LLVMValueRef cg_helper(struct cg *g, int id, LLVMValueRef *args, int n)
{
	assert(!is_read(id));
	return cg_helper_raw(g, id, args, n);
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

/* Debug info of a global of size bytes: libbpf reads the section's
 * variables from it (BTF DATASEC). */
void cg_di_global(struct cg *g, LLVMValueRef gv, const char *name, uint32_t size)
{
	LLVMMetadataRef gve = LLVMDIBuilderCreateGlobalVariableExpression(g->di, g->di_cu,
			name, strlen(name), name, strlen(name), g->di_file, 0, di_bytes(g, size), 0,
			LLVMDIBuilderCreateExpression(g->di, NULL, 0), NULL, 64);

	LLVMGlobalSetMetadata(gv, LLVMGetMDKindIDInContext(g->ctx, "dbg", 3), gve);
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

/* A function named name that is never defined: its calls stand for values
 * known only once the function being built is complete, when they are
 * replaced and erased (cg_sleep.c). */
LLVMValueRef cg_placeholder(struct cg *g, const char *name, LLVMTypeRef ret)
{
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, name);

	if (!fn)
		fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(ret, NULL, 0, 0));
	return fn;
}

/* Looked up once per hit in the entry block; func_end makes the entry
 * return when it is NULL (never, for an array), as the verifier wants.
 * A program that may become sleepable (g->slp_cand) has its heap decided
 * at its end: a placeholder until cg_slp_end settles it (cg_sleep.c). */
LLVMValueRef cg_heap_ptr(struct cg *g)
{
	if (!g->heap_ptr) {
		LLVMBuilderRef saved = g->b, eb = LLVMCreateBuilderInContext(g->ctx);

		LLVMPositionBuilderAtEnd(eb, g->entry);
		if (g->slp_cand) {
			g->slp_heap_ph = LLVMBuildCall2(eb, LLVMFunctionType(g->ptr, NULL, 0, 0),
							cg_placeholder(g, "pr.heap", g->ptr),
							NULL, 0, "heap.ph");
			g->heap_ptr = g->slp_heap_ph;
		} else {
			g->b = eb;
			g->heap_ptr = cg_percpu_heap_lookup(g);
			g->b = saved;
		}
		LLVMDisposeBuilder(eb);
	}
	return g->heap_ptr;
}
