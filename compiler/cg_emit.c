// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_emit.c - from the finished LLVM module to a BPF ELF in memory: the
 * module and its debug-info compile unit, LLVM's diagnostics routed to the
 * script's, the BPF target machine, the size check, the O2 pipeline, the
 * object cache keyed by the IR, debug info dropped above the BTF writer's
 * budget, and --dump bpf.  Only the BPF target is initialised.  An LLVM
 * upgrade lands here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Object.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "codegen_int.h"
#include "lib/objcache.h"

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
