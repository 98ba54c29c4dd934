/*
 * resolve_main.c - a small driver of the dwarf module for the conformance
 * script: prints what perf-run would probe, in forms easy to compare with
 * `perf probe -D`, `-V` and `-L`.
 *
 *   resolve_main BIN SPEC...        "SPEC -> 0xOFFSET" per site (file offset)
 *   resolve_main -r BIN SPEC...     the same for SPEC%return
 *   resolve_main -V BIN SPEC        perf probe -V's listing
 *   resolve_main -L BIN SPEC        perf probe -L's listing
 *   resolve_main -d BIN SPEC        sites, variables, types and locations
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/dwarf.h"
#include "../../compiler/probe.h"
#include "../../compiler/types.h"

static int resolve(const char *bin, const char *spec, bool ret, bool dump)
{
	struct probe_site *s;
	char err[512];
	int n;

	if (dw_resolve(bin, spec, ret, &s, &n, err, sizeof(err))) {
		printf("%s -> error: %s\n", spec, err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
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
		int r = argv[1][1] == 'V' ? dw_list_vars(stdout, argv[2], argv[3], err, sizeof(err))
					  : dw_list_lines(stdout, argv[2], argv[3], err, sizeof(err));
		if (r)
			fprintf(stderr, "error: %s\n", err);
		rc = r ? 1 : 0;
	} else if (argc >= 3) {
		bool ret = !strcmp(argv[1], "-r"), dump = !strcmp(argv[1], "-d");
		int first = ret || dump ? 3 : 2;
		for (int i = first; i < argc; i++)
			rc |= resolve(argv[first - 1], argv[i], ret, dump);
	} else {
		fprintf(stderr, "usage: resolve_main [-r|-d|-V|-L] BIN SPEC...\n");
		return 2;
	}
	type_free_all();
	dw_close_all();
	return rc;
}
