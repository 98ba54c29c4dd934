// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_syscall.c - the one program of a syscalls:* wildcard, attached to
 * raw_syscalls:sys_enter or sys_exit (syscalls.h); its table of probe
 * names also serves uprobe programs shared by sites (cg_expr.c).
 *
 * Its context is the raw tracepoint's: ctx[0] the syscall's struct
 * pt_regs, ctx[1] the syscall number (sys_enter) or its result
 * (sys_exit).  The syscalls:* events it stands for never see a 32-bit
 * syscall (the kernel skips them) or a syscall outside the wildcard; the
 * prologue returns at once for both.
 */
#include "codegen_int.h"

#include <stdlib.h>
#include <string.h>

#include "lib/types.h"

/* x86-64 struct pt_regs */
enum { PT_ORIG_AX = 120, PT_CS = 136 };
/* __USER_CS: the task entered with a 64-bit syscall */
#define USER64_CS 0x33
/* The syscall arguments' registers: di, si, dx, r10, r8, r9. */
static const unsigned arg_reg[6] = { 112, 104, 96, 56, 72, 64 };

/* size bytes at the registers plus off, into dst; false (an i1) if the read failed. */
static LLVMValueRef read_regs(struct cg *g, LLVMValueRef dst, unsigned off, unsigned size)
{
	LLVMValueRef a[3] = { dst, cg_const(g, size), cg_gep(g, g->sys_regs, off) };

	return LLVMBuildICmp(g->b, LLVMIntEQ, cg_read(g, H_READ_KERNEL, a), cg_const(g, 0), "");
}

/* The site of syscall nr: sys_site as a .rodata table of u16, 0xffff for none. */
static LLVMValueRef site_of(struct cg *g, LLVMValueRef nr)
{
	const struct probe *p = g->probe;
	char name[128];
	size_t len;

	snprintf(name, sizeof(name), "%s_sites", LLVMGetValueName2(g->fn, &len));
	LLVMValueRef tab = cg_rodata(g, name, p->sys_site, 2u * (uint32_t)p->nsys);
	LLVMValueRef at = LLVMBuildGEP2(g->b, g->i16, tab, &nr, 1, "");

	return LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i16, at, ""), g->i64, "site");
}

/* Returns 0 unless the registers' read went well and say a 64-bit syscall. */
static void only_64bit(struct cg *g, LLVMValueRef ok, LLVMValueRef cs)
{
	cg_ret0_unless(g, LLVMBuildAnd(g->b, ok,
		LLVMBuildICmp(g->b, LLVMIntEQ, cs, cg_const(g, USER64_CS), ""), ""), true);
}

void cg_sys_prologue(struct cg *g)
{
	const struct probe *p = g->probe;
	LLVMValueRef buf = cg_alloca_var(g, 24, "regs"), ok = NULL, cs;

	g->sys_regs = LLVMBuildIntToPtr(g->b, cg_ctx_load(g, 0, 8), g->ptr, "");
	if (p->sys_raw == SYS_ENTER) {
		g->sys_nr = cg_ctx_load(g, 8, 8);
	} else {
		/* The result is in ctx[1]; the number is where the kernel's
		 * syscall_get_nr() finds it. */
		ok = read_regs(g, buf, PT_ORIG_AX, 24);
		cs = LLVMBuildLoad2(g->b, g->i64, cg_gep(g, buf, PT_CS - PT_ORIG_AX), "cs");
		only_64bit(g, ok, cs);
		g->sys_nr = LLVMBuildLoad2(g->b, g->i64, buf, "nr");
	}
	cg_ret0_unless(g, LLVMBuildICmp(g->b, LLVMIntULT, g->sys_nr,
					cg_const(g, (uint64_t)p->nsys), ""), true);
	g->sys_site = site_of(g, g->sys_nr);
	/* Also tells the verifier that the names table is indexed in bounds. */
	cg_ret0_unless(g, LLVMBuildICmp(g->b, LLVMIntULT, g->sys_site,
					cg_const(g, (uint64_t)p->nsites), ""), true);
	/* At sys_enter, syscalls outside the wildcard return before this read. */
	if (!ok) {
		ok = read_regs(g, buf, PT_CS, 8);
		cs = LLVMBuildLoad2(g->b, g->i64, buf, "cs");
		only_64bit(g, ok, cs);
	}
}

LLVMValueRef cg_sys_field(struct cg *g, const struct field *f, const struct type *t)
{
	unsigned i = (f->offset - 16) / 8;

	/* Every syscalls:* format: __syscall_nr at 8, then the arguments
	 * (sys_enter_*) or ret (sys_exit_*) in 8-byte slots from 16. */
	if (f->offset == 8)
		return cg_to_int_type(g, g->sys_nr, t);
	if (f->offset == 16 && g->probe->sys_raw == SYS_EXIT)
		return cg_to_int_type(g, cg_ctx_load(g, 8, 8), t);
	if (f->offset < 16 || f->offset % 8 || i >= 6 || g->probe->sys_raw != SYS_ENTER) {
		cg_error(g, (struct loc){ 0 }, "internal error: syscall field '%s' at %u", f->name,
			 f->offset);
		return cg_const(g, 0);
	}
	LLVMValueRef buf = cg_alloca(g, 8, "arg");

	/* A failed read leaves 0, as the event's own copy would not fail. */
	LLVMBuildStore(g->b, cg_const(g, 0), buf);
	read_regs(g, buf, arg_reg[i], 8);
	return cg_to_int_type(g, LLVMBuildLoad2(g->b, g->i64, buf, ""), t);
}

LLVMValueRef cg_sys_probe_name(struct cg *g, uint32_t size)
{
	const struct probe *p = g->probe;
	char name[128], buf[1024];

	/* 8-byte aligned entries, as the stack buffers of other strings. */
	uint32_t stride = (size + 7) & ~7u;

	/* One table per probe, whichever of its programs asks (a uprobe
	 * wildcard's programs share it, indexed by their cookie). */
	snprintf(name, sizeof(name), "p%d_names%u", g->pidx, size);
	LLVMValueRef tab = LLVMGetNamedGlobal(g->mod, name);
	if (!tab) {
		char *all = calloc((size_t)p->nsites, stride);

		if (!all)
			abort();
		for (int i = 0; i < p->nsites; i++) {
			const char *s = probe_site_name(p, i, buf, sizeof(buf));

			memcpy(all + (size_t)i * stride, s, strlen(s) < size ? strlen(s) : size);
		}
		tab = cg_rodata(g, name, all, stride * (uint32_t)p->nsites);
		free(all);
	}
	/* The entry itself, not a copy: whoever uses the value copies it
	 * (a key, a record) or reads it, and the kernel refuses a program
	 * that would write to .rodata. */
	LLVMValueRef off = LLVMBuildMul(g->b, g->sys_site, cg_const(g, stride), "");

	return LLVMBuildGEP2(g->b, g->i8, tab, &off, 1, "probe");
}
