/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * fuzz_elf.c - libFuzzer target for the readers of ELF files that other
 * users control and perf-run reads as root (docs/SECURITY.md): the input
 * is an ELF file (a file in /tmp), read as perf-run reads a traced binary:
 *   - its .eh_frame into unwind rows (runtime/unwind.c, uw_file_rows);
 *   - its symbol tables (lib/elfsym.c);
 *   - its USDT notes and their argument specs (compiler/usdt.c);
 *   - its DWARF: -V of its first functions, which walks each function's
 *     scopes, variables, types and location lists (compiler/dwarf*.c).
 * Seeds: the suite's test programs (tests/suites/fuzz.sh adds them) and
 * fuzz/corpus/elf.  The DWARF module cache is emptied after each input:
 * the file's path is the same every time.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/dwarf.h"
#include "lib/elfsym.h"
#include "compiler/program.h"
#include "compiler/usdt.h"
#include "fuzz/sink.h"
#include "runtime/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void remove_input(void);

static void read_as_root_would(const char *path)
{
	struct pr_uw_row *rows = NULL;
	struct elfsym *syms = NULL;
	struct usdt_note *notes = NULL;
	char err[256];

	uw_file_rows(path, &rows);
	free(rows);
	int n = elfsym_every(path, &syms);
	/* -V of a few functions (not the _init kind, which have no DWARF) */
	for (int i = 0, tried = 0; i < n && tried < 4; i++)
		if (syms[i].name && syms[i].name[0] != '_') {
			dw_list_vars(sink(), path, syms[i].name, false, err, sizeof(err));
			tried++;
		}
	if (n > 0)
		elfsym_free(syms, n);
	int nn = usdt_notes(path, &notes);
	for (int i = 0; i < nn; i++) {   /* as probe.c parses each note's arguments */
		struct usdt_arg *args = NULL;
		if (usdt_parse_args(notes[i].args, &args, err, sizeof(err)) >= 0)
			free(args);
	}
	if (nn > 0)
		usdt_notes_free(notes, nn);
	dw_close_all();
}

static char input[64];

static void remove_input(void)
{
	if (input[0])
		unlink(input);
}

/* A real file, not a memfd: the readers resolve a path as they would a
 * traced binary's, and /proc/self/fd/N of a memfd resolves to no file. */
static const char *input_path(void)
{
	if (!input[0]) {
		snprintf(input, sizeof(input), "/tmp/perf-run-fuzz-elf.%d", (int)getpid());
		atexit(remove_input);
	}
	return input;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_path();
	FILE *f = fopen(path, "wb");

	if (!f)
		return 0;
	size_t n = fwrite(data, 1, size, f);
	if (fclose(f) == 0 && n == size)
		read_as_root_would(path);
	return 0;
}
