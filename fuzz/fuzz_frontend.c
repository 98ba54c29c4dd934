/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * fuzz_frontend.c - libFuzzer target for the front end: script text through
 * the lexer, parser, attach-point resolution and semantic checks, the same
 * stages pr_compile() runs before code generation.
 *
 * Any input must end in a checked tree or in reported errors: no crash, no
 * undefined behaviour, no leak.  Diagnostics go to /dev/null.  Types, the
 * DWARF cache and the kernel BTF live as long as the process, as in
 * perf-run (kbtf.c keeps converted types by BTF id, so freeing types between
 * inputs would leave it dangling); everything else is freed after each
 * input.  Attach points that name device or pseudo files are left out:
 * reading /dev/zero as an ELF file proves nothing.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/ast.h"
#include "lib/diag.h"
#include "compiler/parser.h"
#include "compiler/probe.h"
#include "fuzz/sink.h"
#include "compiler/sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Files whose reading hangs or says nothing about our parser. */
static int unsafe_attach(const char *s)
{
	return strstr(s, "/dev") || strstr(s, "/proc") || strstr(s, "/sys") ||
	       strstr(s, "..");
}

/* compile.c's test: a body that reads args gets perf probe's DWARF sites. */
static int uses_args(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_IDENT && n->name && !strcmp(n->name, "args"))
			return 1;
		if (n->kind != N_ATTACH && (uses_args(n->a) || uses_args(n->b) ||
					    uses_args(n->c) || uses_args(n->list)))
			return 1;
	}
	return 0;
}

/* Resolves every attach point of every probe into sp[]; -1 if any failed. */
static int resolve(struct node *root, struct sema_probe *sp, struct probe **all,
		   int *nall, struct diag *d)
{
	int k = 0, rc = 0;

	for (struct node *n = root->list; n; n = n->next) {
		struct probe_opts po = { 0 };

		if (n->kind != N_PROBE)
			continue;
		sp[k].node = n;
		sp[k].probes = &all[*nall];
		po.use_args = uses_args(n->a) || uses_args(n->b);
		for (struct node *a = n->list; a; a = a->next) {
			struct probe *p = NULL;

			if (unsafe_attach(a->name) ||
			    probe_resolve(a->name, a->loc, &po, d, &p) < 0) {
				rc = -1;
				continue;
			}
			all[(*nall)++] = p;
			sp[k].nprobes++;
		}
		k++;
	}
	return rc;
}

static void check(struct node *root, struct diag *d)
{
	int nprobe = 0, nattach = 0, nall = 0;
	struct sema_opts so = { 0 };
	struct sema s = { 0 };
	struct sema_probe *sp;
	struct probe **all;

	for (struct node *n = root->list; n; n = n->next)
		if (n->kind == N_PROBE) {
			nprobe++;
			nattach += ast_count(n->list);
		}
	sp = calloc((size_t)nprobe + 1, sizeof(*sp));
	all = calloc((size_t)nattach + 1, sizeof(*all));
	if (sp && all && resolve(root, sp, all, &nall, d) == 0) {
		sema_check(root, sp, nprobe, &so, d, &s);
		sema_free(&s);
	}
	for (int i = 0; i < nall; i++)
		probe_free(all[i]);
	free(all);
	free(sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct source src = { "fuzz.bt", text };
	struct diag d;
	struct node *root;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	diag_init(&d, &src, sink());
	root = parse_program(&src, &d);
	if (root && d.errors == 0)
		check(root, &d);
	if (root)
		ast_free(root);
	free(text);
	return 0;
}
