// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctypes.c - a script's C declarations → struct type, through libclang 19.
 *
 * libclang costs about 12 ms of start-up when linked (measured on a
 * one-liner), so it is not linked: ct_parse() loads it with dlopen the
 * first time a script declares C types, and every call goes through the
 * table `lc` filled by dlsym.  The declarations become one unsaved file in
 * which each starts with a #line directive naming its script line, so
 * clang's diagnostics point back into the script.  Types are converted on
 * lookup, from the declaration cursors indexed after parsing; a record is
 * cached before its fields are converted, so self-referring records end.
 * Macros cannot be asked for by name after preprocessing, so each
 * identifier of the script's probes is declared as a constant at the end
 * of the file (CT_MACROS); clang evaluates the ones a macro defines.
 */
#define _GNU_SOURCE
#include "ctypes.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "cinclude.h"
#include "kbtf.h"
#include "lib/types.h"

#define CT_FILE "perf-run-declarations.c"
#define CT_MARK "<script>"
/* Each identifier the script uses gets a constant of this prefix, declared
 * in a part of the file whose errors are not reported: where a #define
 * (the script's or a header's) makes the identifier an integer constant,
 * the constant has its value; any other identifier fails there quietly. */
#define CT_MACROS "<macros>"
#define CT_MACRO_PREFIX "__perf_run_macro_"
/* Errors clang reports before it stops (-ferror-limit), besides CT_MACROS. */
#define CT_ERROR_LIMIT 20

/* ---- the library, loaded on first use ---- */

#define CT_FUNCS(X) \
	X(clang_createIndex) X(clang_disposeIndex) X(clang_parseTranslationUnit2) \
	X(clang_disposeTranslationUnit) X(clang_getNumDiagnostics) X(clang_getDiagnostic) \
	X(clang_getDiagnosticSeverity) X(clang_getDiagnosticSpelling) \
	X(clang_getDiagnosticLocation) X(clang_disposeDiagnostic) X(clang_getPresumedLocation) \
	X(clang_getTranslationUnitCursor) X(clang_visitChildren) X(clang_getCursorKind) \
	X(clang_getCursorSpelling) X(clang_getCursorType) X(clang_getCString) \
	X(clang_disposeString) X(clang_getCanonicalType) X(clang_Type_getSizeOf) \
	X(clang_Cursor_getOffsetOfField) X(clang_Cursor_isBitField) \
	X(clang_getFieldDeclBitWidth) X(clang_getPointeeType) X(clang_getArrayElementType) \
	X(clang_getArraySize) X(clang_getTypeDeclaration) X(clang_getTypedefDeclUnderlyingType) \
	X(clang_getEnumDeclIntegerType) X(clang_getEnumConstantDeclValue) \
	X(clang_Type_visitFields) X(clang_Cursor_isAnonymous) X(clang_isCursorDefinition) \
	X(clang_getCursorDefinition) X(clang_getCanonicalCursor) X(clang_equalCursors) \
	X(clang_Cursor_isNull) X(clang_Cursor_isAnonymousRecordDecl) X(clang_Type_getNamedType) \
	X(clang_Cursor_Evaluate) X(clang_EvalResult_getKind) X(clang_EvalResult_getAsLongLong) \
	X(clang_EvalResult_dispose) X(clang_getCursorLocation)

static struct {
#define CT_PTR(f) __typeof__(f) *f;
	CT_FUNCS(CT_PTR)
#undef CT_PTR
} lc;
static void *lc_handle;

static const char *const lc_names[] = {
	"libclang-19.so.19", "libclang-19.so.1", "/usr/lib/llvm-19/lib/libclang.so",
};

/* Returns NULL, or why libclang cannot be used. */
static const char *lc_load(void)
{
	static char why[256];

	if (lc_handle)
		return NULL;
	for (size_t i = 0; i < sizeof(lc_names) / sizeof(lc_names[0]) && !lc_handle; i++)
		lc_handle = dlopen(lc_names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lc_handle) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return why;
	}
#define CT_SYM(f) \
	if (!(*(void **)&lc.f = dlsym(lc_handle, #f))) { \
		snprintf(why, sizeof(why), "libclang has no %s", #f); \
		dlclose(lc_handle); \
		lc_handle = NULL; \
		return why; \
	}
	CT_FUNCS(CT_SYM)
#undef CT_SYM
	return NULL;
}

bool ct_available(void)
{
	return lc_load() == NULL;
}

/* ---- the unit and its index of names ---- */

enum ct_kind { CK_RECORD, CK_ENUM, CK_TYPEDEF, CK_ENUMERATOR, CK_MACRO };

struct ct_name {
	char *key;            /* "struct req", "enum color", "req_t", "RED" */
	enum ct_kind kind;
	CXCursor c;
};

struct ct_conv {
	CXCursor decl;        /* canonical declaration of a record or enum */
	const struct type *t;
};

struct ct_unit {
	CXIndex index;
	CXTranslationUnit tu;
	struct ct_name *names;
	int nnames, capnames;
	struct ct_conv *conv;
	int nconv, capconv;
};

/* Names the types hold live with the types, for the whole process. */
static const char *keep(const char *s)
{
	char *k = strdup(s);

	if (!k)
		abort();
	return k;
}

static char *spelling(CXCursor c)
{
	CXString s = lc.clang_getCursorSpelling(c);
	char *r = strdup(lc.clang_getCString(s) ? lc.clang_getCString(s) : "");

	lc.clang_disposeString(s);
	if (!r)
		abort();
	return r;
}

static struct ct_name *name_find(struct ct_unit *u, const char *key)
{
	for (int i = u->nnames - 1; i >= 0; i--)
		if (!strcmp(u->names[i].key, key))
			return &u->names[i];
	return NULL;
}

static void name_add(struct ct_unit *u, const char *kw, CXCursor c, enum ct_kind kind)
{
	char *sp = spelling(c), *key;
	struct ct_name *old;

	if (!*sp || lc.clang_Cursor_isAnonymous(c)) {
		free(sp);
		return;
	}
	if (asprintf(&key, "%s%s%s", kw, *kw ? " " : "", sp) < 0)
		abort();
	free(sp);
	old = name_find(u, key);
	/* A definition wins over a forward declaration of the same tag. */
	if (old && (kind != CK_RECORD || !lc.clang_isCursorDefinition(c))) {
		free(key);
		return;
	}
	if (old) {
		free(key);
		old->c = c;
		return;
	}
	if (u->nnames == u->capnames) {
		u->capnames = u->capnames ? 2 * u->capnames : 64;
		u->names = realloc(u->names, (size_t)u->capnames * sizeof(*u->names));
		if (!u->names)
			abort();
	}
	u->names[u->nnames++] = (struct ct_name){ key, kind, c };
}

/* The constant made for a #define (see CT_MACROS), indexed by the macro's name. */
static void add_macro(struct ct_unit *u, CXCursor c)
{
	char *sp = spelling(c);

	if (!strncmp(sp, CT_MACRO_PREFIX, strlen(CT_MACRO_PREFIX)) && !name_find(u, sp)) {
		if (u->nnames == u->capnames) {
			u->capnames = u->capnames ? 2 * u->capnames : 64;
			u->names = realloc(u->names, (size_t)u->capnames * sizeof(*u->names));
			if (!u->names)
				abort();
		}
		u->names[u->nnames++] = (struct ct_name){
			strdup(sp + strlen(CT_MACRO_PREFIX)), CK_MACRO, c };
	}
	free(sp);
}

static enum CXChildVisitResult index_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct ct_unit *u = data;

	(void)parent;
	switch (lc.clang_getCursorKind(c)) {
	case CXCursor_StructDecl:
		name_add(u, "struct", c, CK_RECORD);
		return CXChildVisit_Recurse;
	case CXCursor_UnionDecl:
		name_add(u, "union", c, CK_RECORD);
		return CXChildVisit_Recurse;
	case CXCursor_EnumDecl:
		name_add(u, "enum", c, CK_ENUM);
		return CXChildVisit_Recurse;
	case CXCursor_TypedefDecl:
		name_add(u, "", c, CK_TYPEDEF);
		return CXChildVisit_Continue;
	case CXCursor_EnumConstantDecl:
		name_add(u, "", c, CK_ENUMERATOR);
		return CXChildVisit_Continue;
	case CXCursor_VarDecl:
		add_macro(u, c);
		return CXChildVisit_Continue;
	default:
		return CXChildVisit_Continue;
	}
}

/* ---- parsing ---- */

/* The declarations as one file, each placed at its script line and column,
 * then a constant for each identifier of the script that a macro may name. */
static char *ct_source(const struct ct_decl *decls, int n, const char *const *idents,
		       int nidents, const char *kernel, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		abort();
	/* bpftrace's declarations may use <stdint.h>'s names without including
	 * it; clang's own types for them, so that an #include <stdint.h> later
	 * repeats the same typedefs (allowed in C11). */
	fputs("#line 1 \"<stdint names>\"\n", f);
	for (int b = 8; b <= 64; b *= 2)
		fprintf(f, "typedef __INT%d_TYPE__ int%d_t; typedef __UINT%d_TYPE__ uint%d_t;\n",
			b, b, b, b);
	fputs("typedef __INTPTR_TYPE__ intptr_t; typedef __UINTPTR_TYPE__ uintptr_t;\n", f);
	if (kernel)   /* the kernel's types the declarations use (kernel_types) */
		fprintf(f, "#line 1 \"<kernel BTF>\"\n%s\n", kernel);
	for (int i = 0; i < n; i++)
		fprintf(f, "#line %d \"" CT_MARK "\"\n%*s%s\n", decls[i].loc.line,
			decls[i].loc.col > 1 ? decls[i].loc.col - 1 : 0, "", decls[i].text);
	fprintf(f, "#line 1 \"" CT_MACROS "\"\n");
	/* Only for macros: no error for every other identifier, so clang's
	 * error limit counts real errors (see ct_parse). */
	for (int i = 0; i < nidents; i++)
		fprintf(f, "#ifdef %s\nstatic const long long " CT_MACRO_PREFIX "%s = (%s);\n#endif\n",
			idents[i], idents[i], idents[i]);
	fclose(f);
	*len = sz;
	return buf;
}

/* Reports one diagnostic if it is an error in the script's declarations
 * or in a header they include; returns 1 if it did. */
static int report_one(CXDiagnostic dg, const struct ct_decl *decls, struct diag *d)
{
	CXString file, msg;
	unsigned line, col;
	int said = 0;

	lc.clang_getPresumedLocation(lc.clang_getDiagnosticLocation(dg), &file, &line, &col);
	const char *fn = lc.clang_getCString(file);
	if (lc.clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error &&
	    !(fn && !strcmp(fn, CT_MACROS))) {
		msg = lc.clang_getDiagnosticSpelling(dg);
		if (fn && !strcmp(fn, CT_MARK))
			diag_error(d, (struct loc){ (int)line, (int)col, 1 }, "%s",
				   lc.clang_getCString(msg));
		else if (fn && *fn)
			diag_error(d, decls[0].loc, "in %s:%u: %s", fn, line, lc.clang_getCString(msg));
		else    /* "too many errors emitted" has no place */
			diag_error(d, decls[0].loc, "%s", lc.clang_getCString(msg));
		lc.clang_disposeString(msg);
		said = 1;
	}
	lc.clang_disposeString(file);
	return said;
}

static int report(CXTranslationUnit tu, const struct ct_decl *decls, struct diag *d)
{
	unsigned nd = lc.clang_getNumDiagnostics(tu);
	int errors = 0;

	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic dg = lc.clang_getDiagnostic(tu, i);

		errors += report_one(dg, decls, d);
		lc.clang_disposeDiagnostic(dg);
	}
	return errors;
}

struct size_check {
	const struct ct_decl *decls;
	struct diag *d;
	int errors;
};

/* A type's size is 32 bits wide here (struct type): a record or typedef of
 * 4 GiB or more would be 0 bytes (sizeof 0, reads of nothing), so it is an
 * error at its declaration. */
static enum CXChildVisitResult size_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct size_check *sc = data;
	enum CXCursorKind k = lc.clang_getCursorKind(c);
	(void)parent;
	if (k != CXCursor_StructDecl && k != CXCursor_UnionDecl && k != CXCursor_TypedefDecl)
		return CXChildVisit_Continue;
	if (k != CXCursor_TypedefDecl && !lc.clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	long long size = lc.clang_Type_getSizeOf(lc.clang_getCursorType(c));
	if (size <= (long long)UINT32_MAX)
		return CXChildVisit_Continue;
	CXString file, name = lc.clang_getCursorSpelling(c);
	unsigned line, col;
	lc.clang_getPresumedLocation(lc.clang_getCursorLocation(c), &file, &line, &col);
	const char *fn = lc.clang_getCString(file);
	struct loc at = fn && !strcmp(fn, CT_MARK) ? (struct loc){ (int)line, (int)col, 1 } :
						     sc->decls[0].loc;
	diag_error(sc->d, at, "%s%s is %lld bytes: types of 4 GiB or more are not supported",
		   k == CXCursor_StructDecl ? "struct " : k == CXCursor_UnionDecl ? "union " : "",
		   lc.clang_getCString(name), size);
	lc.clang_disposeString(name);
	lc.clang_disposeString(file);
	sc->errors++;
	return CXChildVisit_Continue;
}

/*
 * cinclude.c checks the files a script's #include lines name before clang
 * reads them, but not every way to include one: through a macro
 * (#define H "/dev/zero" then #include H), #include_next, #import,
 * #embed, a directive split by comments or a backslash.  clang reads an
 * endless file for ever, 100 MB a second.  So a script whose declarations
 * could include a file is first parsed in a child process that is killed
 * after CT_TRIAL_MS: the real parse runs only if that one ended.  Costs a
 * second parse (6-35 ms) for scripts with #include and nothing for others;
 * the child's memory is bounded too (CT_TRIAL_MB).
 */
#define CT_TRIAL_MS 5000

static bool ct_may_include(const char *text)
{
	return strstr(text, "include") || strstr(text, "import") || strstr(text, "embed") ||
	       strchr(text, '\\');
}

/* The child may grow CT_TRIAL_MB past what it has (an ASan build has a
 * shadow of terabytes already, so the limit is relative): clang then
 * fails to allocate and the child dies, which counts as endless. */
#define CT_TRIAL_MB 1024

static void ct_trial_limit(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmData: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	rlim_t bytes = (kb + CT_TRIAL_MB * 1024ull) * 1024;
	struct rlimit rl = { bytes, bytes };
	if (kb)
		setrlimit(RLIMIT_DATA, &rl);
}

static int ct_trial(const char *text, size_t len, const char *const *args, int nargs)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 0;   /* no child to spare: the real parse goes ahead */
	if (pid == 0) {
		ct_trial_limit();
		struct CXUnsavedFile uf = { CT_FILE, text, (unsigned long)len };
		CXTranslationUnit tu;
		CXIndex ix = lc.clang_createIndex(0, 0);
		/* libclang survives its own crash (out of memory) as an error */
		_exit(lc.clang_parseTranslationUnit2(ix, CT_FILE, args, nargs, &uf, 1,
				CXTranslationUnit_SkipFunctionBodies, &tu) != CXError_Success);
	}
	for (int ms = 0;; ms += 10) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
		if (w < 0 && errno != EINTR)
			return 0;
		if (ms >= CT_TRIAL_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(10000);
	}
}

/* The kernel types that the declarations use without defining them
 * ("field has incomplete type 'struct list_head'", "unknown type name
 * 'u32'"), as C from the kernel's BTF: bpftrace 0.17 takes them so. NULL
 * if there are none, or no BTF has them. */
static char *kernel_types(CXTranslationUnit tu)
{
	static const char *const pats[] = { "has incomplete type '", "unknown type name '" };
	unsigned nd = lc.clang_getNumDiagnostics(tu);
	const char *names[64];
	int n = 0;
	char *text;

	for (unsigned i = 0; i < nd && n < 64; i++) {
		CXDiagnostic dg = lc.clang_getDiagnostic(tu, i);
		CXString msg = lc.clang_getDiagnosticSpelling(dg);
		const char *m = lc.clang_getCString(msg), *q;

		for (size_t k = 0; m && k < sizeof(pats) / sizeof(pats[0]); k++) {
			const char *p = strstr(m, pats[k]);

			if (p && (q = strchr(p + strlen(pats[k]), '\'')))
				names[n++] = strndup(p + strlen(pats[k]),
						     (size_t)(q - p - strlen(pats[k])));
		}
		lc.clang_disposeString(msg);
		lc.clang_disposeDiagnostic(dg);
	}
	for (int i = 0; i < n; i++)
		if (!names[i])
			abort();
	text = n && kbtf_available() ? kbtf_c_decls(names, n) : NULL;
	for (int i = 0; i < n; i++)
		free((char *)names[i]);
	return text;
}

int ct_parse(const struct ct_decl *decls, int n, const char *const *idents, int nidents,
	     struct diag *d, struct ct_unit **out)
{
	/* An error limit, so that a header that is not C does not print an
	 * error per line; CT_MACROS fails quietly only for macros that are not
	 * integer constants, at most one error per identifier. */
	char limit[40];
	snprintf(limit, sizeof(limit), "-ferror-limit=%d", CT_ERROR_LIMIT + nidents);
	/* As bpftrace: scripts test BPFTRACE_HAVE_BTF to skip kernel headers
	 * (`#ifndef BPFTRACE_HAVE_BTF #include <linux/path.h>`). */
	const char *const args[] = { "-x", "c", "-std=gnu11", "-w", limit,
				     kbtf_available() ? "-DBPFTRACE_HAVE_BTF" : "-w" };
	const char *why = lc_load();
	struct ct_unit *u;
	size_t len;
	char *text;

	*out = NULL;
	if (why) {
		diag_error(d, decls[0].loc, "C declarations need libclang 19 (Debian package "
			   "libclang1-19): %s", why);
		return -1;
	}
	if (ci_check(decls, n, d))
		return -1;
	u = calloc(1, sizeof(*u));
	if (!u)
		abort();
	text = ct_source(decls, n, idents, nidents, NULL, &len);
	int nargs = (int)(sizeof(args) / sizeof(args[0]));
	if (ct_may_include(text) && ct_trial(text, len, args, nargs)) {
		diag_error(d, decls[0].loc, "clang did not finish reading the declarations' "
			   "headers within %d s and %d MiB: an #include (through a macro, "
			   "#include_next, #import or #embed) names an endless file such as "
			   "/dev/zero, or a FIFO", CT_TRIAL_MS / 1000, CT_TRIAL_MB);
		free(text);
		ct_free(u);
		return -1;
	}
	struct CXUnsavedFile uf = { CT_FILE, text, (unsigned long)len };
	u->index = lc.clang_createIndex(0, 0);
	enum CXErrorCode ec = lc.clang_parseTranslationUnit2(u->index, CT_FILE, args, nargs,
		&uf, 1, CXTranslationUnit_SkipFunctionBodies, &u->tu);
	char *kernel = ec == CXError_Success ? kernel_types(u->tu) : NULL;

	free(text);
	if (kernel) {   /* again, after the kernel's definitions of what was missing */
		lc.clang_disposeTranslationUnit(u->tu);
		u->tu = NULL;
		text = ct_source(decls, n, idents, nidents, kernel, &len);
		free(kernel);
		uf = (struct CXUnsavedFile){ CT_FILE, text, (unsigned long)len };
		ec = lc.clang_parseTranslationUnit2(u->index, CT_FILE, args, nargs, &uf, 1,
			CXTranslationUnit_SkipFunctionBodies, &u->tu);
		free(text);
	}
	if (ec != CXError_Success) {
		diag_error(d, decls[0].loc, "libclang cannot parse the declarations (error %d)", ec);
		ct_free(u);
		return -1;
	}
	struct size_check sc = { decls, d, 0 };
	int bad = report(u->tu, decls, d);
	if (!bad) {
		lc.clang_visitChildren(lc.clang_getTranslationUnitCursor(u->tu), size_visit, &sc);
		bad = sc.errors;
	}
	if (bad) {
		ct_free(u);
		return -1;
	}
	lc.clang_visitChildren(lc.clang_getTranslationUnitCursor(u->tu), index_visit, u);
	*out = u;
	return 0;
}

void ct_free(struct ct_unit *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->nnames; i++)
		free(u->names[i].key);
	free(u->names);
	free(u->conv);
	if (u->tu)
		lc.clang_disposeTranslationUnit(u->tu);
	if (u->index)
		lc.clang_disposeIndex(u->index);
	free(u);
}

/* ---- conversion ---- */

static const struct type *convert(struct ct_unit *u, CXType t, const char *hint);

static const struct type *conv_find(struct ct_unit *u, CXCursor decl)
{
	for (int i = 0; i < u->nconv; i++)
		if (lc.clang_equalCursors(u->conv[i].decl, decl))
			return u->conv[i].t;
	return NULL;
}

static void conv_put(struct ct_unit *u, CXCursor decl, const struct type *t)
{
	if (u->nconv == u->capconv) {
		u->capconv = u->capconv ? 2 * u->capconv : 32;
		u->conv = realloc(u->conv, (size_t)u->capconv * sizeof(*u->conv));
		if (!u->conv)
			abort();
	}
	u->conv[u->nconv++] = (struct ct_conv){ decl, t };
}

struct fields_acc {
	struct ct_unit *u;
	struct field *f;
	int n, cap;
	long long base;       /* bits: offset of an anonymous member being flattened */
};

static enum CXVisitorResult field_visit(CXCursor c, CXClientData data)
{
	struct fields_acc *a = data;
	char *name = spelling(c);
	CXType decl_t = lc.clang_getCursorType(c);
	CXType ft = lc.clang_getCanonicalType(decl_t);
	long long off = lc.clang_Cursor_getOffsetOfField(c);

	if (off < 0)
		off = 0;
	/* clang 19 spells the implicit member "struct view::(anonymous at ...)". */
	if (ft.kind == CXType_Record &&
	    lc.clang_Cursor_isAnonymousRecordDecl(lc.clang_getTypeDeclaration(ft))) {
		/* An anonymous struct or union: C names its fields directly. */
		long long saved = a->base;

		a->base += off;
		lc.clang_Type_visitFields(ft, field_visit, a);
		a->base = saved;
		free(name);
		return CXVisit_Continue;
	}
	const struct type *t = convert(a->u, decl_t, NULL);
	if (t && *name) {
		if (a->n == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 8;
			a->f = realloc(a->f, (size_t)a->cap * sizeof(*a->f));
			if (!a->f)
				abort();
		}
		struct field *f = &a->f[a->n++];
		uint64_t bit = (uint64_t)(a->base + off);

		*f = (struct field){ .name = keep(name), .type = t, .offset = (uint32_t)(bit / 8) };
		if (lc.clang_Cursor_isBitField(c))
			type_bitfield(f, bit, (unsigned)lc.clang_getFieldDeclBitWidth(c));
	}
	free(name);
	return CXVisit_Continue;
}

static const char *tag_name(CXCursor decl, const char *kw, const char *hint)
{
	char *sp = spelling(decl), *s;

	/* clang spells "typedef struct { } pair_t" as a struct named pair_t. */
	if (lc.clang_Cursor_isAnonymous(decl) || !*sp || (hint && !strcmp(sp, hint))) {
		free(sp);
		return hint ? keep(hint) : keep(!strcmp(kw, "enum") ? "enum (anonymous)" :
					       !strcmp(kw, "union") ? "union (anonymous)"
								   : "struct (anonymous)");
	}
	if (asprintf(&s, "%s %s", kw, sp) < 0)
		abort();
	free(sp);
	return s;
}

static const struct type *record(struct ct_unit *u, CXType t, const char *hint)
{
	CXCursor decl = lc.clang_getCanonicalCursor(lc.clang_getTypeDeclaration(t));
	CXCursor def = lc.clang_getCursorDefinition(decl);
	bool is_union = lc.clang_getCursorKind(decl) == CXCursor_UnionDecl;
	const struct type *r = conv_find(u, decl);
	long long size = lc.clang_Type_getSizeOf(t);
	struct fields_acc a = { .u = u };

	if (r)
		return r;
	r = type_record(tag_name(decl, is_union ? "union" : "struct", hint), is_union,
			size > 0 ? (uint32_t)size : 0, NULL, 0);
	conv_put(u, decl, r);
	if (lc.clang_Cursor_isNull(def))
		return r;
	lc.clang_Type_visitFields(t, field_visit, &a);
	/* types.c owns record fields as one malloc'd array: swap ours in. */
	struct type *w = (struct type *)r;
	free((void *)w->fields);
	w->fields = a.f ? a.f : calloc(1, sizeof(*a.f));
	w->nfields = a.n;
	return r;
}

struct enums_acc {
	struct enumerator *v;
	int n, cap;
};

static enum CXChildVisitResult enum_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct enums_acc *a = data;

	(void)parent;
	if (lc.clang_getCursorKind(c) != CXCursor_EnumConstantDecl)
		return CXChildVisit_Continue;
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->v = realloc(a->v, (size_t)a->cap * sizeof(*a->v));
		if (!a->v)
			abort();
	}
	char *name = spelling(c);
	a->v[a->n++] = (struct enumerator){ keep(name), lc.clang_getEnumConstantDeclValue(c) };
	free(name);
	return CXChildVisit_Continue;
}

static bool kind_signed(enum CXTypeKind k)
{
	return k == CXType_Char_S || k == CXType_SChar || k == CXType_Short || k == CXType_Int ||
	       k == CXType_Long || k == CXType_LongLong || k == CXType_WChar;
}

static const struct type *enumeration(struct ct_unit *u, CXType t, const char *hint)
{
	CXCursor decl = lc.clang_getCanonicalCursor(lc.clang_getTypeDeclaration(t));
	CXCursor def = lc.clang_getCursorDefinition(decl);
	const struct type *r = conv_find(u, decl);
	long long size = lc.clang_Type_getSizeOf(t);
	struct enums_acc a = { 0 };

	if (r)
		return r;
	if (!lc.clang_Cursor_isNull(def))
		lc.clang_visitChildren(def, enum_visit, &a);
	r = type_enum(tag_name(decl, "enum", hint), size > 0 ? (uint32_t)size : 4,
		      kind_signed(lc.clang_getCanonicalType(
			      lc.clang_getEnumDeclIntegerType(decl)).kind), a.v, a.n);
	free(a.v);
	conv_put(u, decl, r);
	return r;
}

/* orig: the pointer type as written, whose pointee may keep a typedef name. */
static const struct type *pointer(struct ct_unit *u, CXType t, CXType orig)
{
	CXType e = lc.clang_getPointeeType(orig.kind == CXType_Pointer ? orig : t);
	CXType ce = lc.clang_getCanonicalType(e);
	const struct type *et;

	if (ce.kind == CXType_FunctionProto || ce.kind == CXType_FunctionNoProto)
		return type_ptr(type_void(), true);
	et = convert(u, e, NULL);
	return type_ptr(et ? et : type_void(), true);
}

static const struct type *array(struct ct_unit *u, CXType t)
{
	const struct type *e = convert(u, lc.clang_getArrayElementType(t), NULL);
	long long n = t.kind == CXType_ConstantArray ? lc.clang_getArraySize(t) : 0;

	return e ? type_array(e, n > 0 ? (uint32_t)n : 0) : NULL;
}

/* Scalars: integers by size and sign; floating point as raw bits, as the
 * DWARF reader does; wider than 8 bytes as bytes. */
static const struct type *scalar(CXType t)
{
	long long size = lc.clang_Type_getSizeOf(t);

	if (t.kind == CXType_Char_S)
		return type_char();   /* not signed char: its arrays are strings */
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return type_int((unsigned)size, kind_signed(t.kind));
	if (size > 8)
		return type_array(type_int(1, false), (uint32_t)size);
	return NULL;
}

/* The typedef name a type is written with, if any: it names an otherwise
 * anonymous record ("typedef struct { ... } pair_t"). */
static const char *typedef_name(CXType t, char *buf, size_t n)
{
	if (t.kind == CXType_Elaborated)
		t = lc.clang_Type_getNamedType(t);
	if (t.kind != CXType_Typedef)
		return NULL;
	char *sp = spelling(lc.clang_getTypeDeclaration(t));
	snprintf(buf, n, "%s", sp);
	free(sp);
	return buf;
}

static const struct type *convert(struct ct_unit *u, CXType t, const char *hint)
{
	char buf[128];
	CXType orig = t.kind == CXType_Elaborated ? lc.clang_Type_getNamedType(t) : t;

	if (!hint)
		hint = typedef_name(t, buf, sizeof(buf));
	t = lc.clang_getCanonicalType(t);
	switch (t.kind) {
	case CXType_Void:
		return type_void();
	case CXType_Pointer:
		return pointer(u, t, orig);
	case CXType_ConstantArray: case CXType_IncompleteArray:
		return array(u, t);
	case CXType_Record:
		return record(u, t, hint);
	case CXType_Enum:
		return enumeration(u, t, hint);
	default:
		if (t.kind >= CXType_FirstBuiltin && t.kind <= CXType_LastBuiltin)
			return scalar(t);
		return NULL;
	}
}

const struct type *ct_type(struct ct_unit *u, const char *name)
{
	struct ct_name *e = u ? name_find(u, name) : NULL;

	if (!e || e->kind == CK_ENUMERATOR || e->kind == CK_MACRO)
		return NULL;
	if (e->kind == CK_TYPEDEF)
		return convert(u, lc.clang_getTypedefDeclUnderlyingType(e->c), name);
	return convert(u, lc.clang_getCursorType(e->c), NULL);
}

bool ct_enum_value(struct ct_unit *u, const char *name, int64_t *value)
{
	struct ct_name *e = u ? name_find(u, name) : NULL;
	CXEvalResult r;
	bool ok;

	if (e && e->kind == CK_ENUMERATOR) {
		*value = lc.clang_getEnumConstantDeclValue(e->c);
		return true;
	}
	if (!e || e->kind != CK_MACRO)
		return false;
	r = lc.clang_Cursor_Evaluate(e->c);
	ok = r && lc.clang_EvalResult_getKind(r) == CXEval_Int;
	if (ok)
		*value = lc.clang_EvalResult_getAsLongLong(r);
	if (r)
		lc.clang_EvalResult_dispose(r);
	return ok;
}

bool ct_is_typedef(struct ct_unit *u, const char *name)
{
	struct ct_name *e = u ? name_find(u, name) : NULL;

	return e && e->kind == CK_TYPEDEF;
}

/* The name a typedef declares, found without libclang: the parser must
 * know it before any C is parsed, to tell `(name *)x` is a cast.  The name
 * is the last identifier outside braces, brackets and parameter lists, or
 * for a function pointer the one after '(' '*'. */
bool ct_typedef_name(const char *text, char *buf, size_t n)
{
	int brace = 0, paren = 0, bracket = 0;
	const char *last = NULL, *fnptr = NULL, *p;
	size_t len = 0, fnlen = 0;

	if (strncmp(text, "typedef", 7) || !isspace((unsigned char)text[7]))
		return false;
	for (p = text + 7; *p; p++) {
		if (*p == '{') brace++;
		else if (*p == '}') brace--;
		else if (*p == '(') paren++;
		else if (*p == ')') paren--;
		else if (*p == '[') bracket++;
		else if (*p == ']') bracket--;
		else if ((isalpha((unsigned char)*p) || *p == '_') &&
			 (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			size_t l = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789_");
			const char *q = p - 1;

			while (q > text && isspace((unsigned char)*q))
				q--;
			if (!brace && !bracket && !paren) {
				last = p;
				len = l;
			} else if (!brace && !bracket && paren == 1 && *q == '*' && !fnptr) {
				fnptr = p;
				fnlen = l;
			}
			p += l - 1;
		}
	}
	if (fnptr) {
		last = fnptr;
		len = fnlen;
	}
	if (!last || len >= n)
		return false;
	memcpy(buf, last, len);
	buf[len] = '\0';
	return true;
}
