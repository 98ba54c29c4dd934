/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * fuzz_probe.c - libFuzzer target for attach-point resolution: one attach
 * point's text ("uprobe:./tests/progs/loop:func+4", "interval:ms:5", ...)
 * through probe_resolve() and, on success, probe_dump().
 *
 * The perf-probe SPEC parser (dwarf_spec.c) and the ELF, tracefs and USDT
 * readers run on the binaries of tests/progs, so the fuzzer runs from the
 * top of the tree.  Texts naming device or pseudo files are skipped, like
 * in fuzz_frontend.c; everything but types and the DWARF and BTF caches
 * (kept for the process, see fuzz_frontend.c) is freed after each input.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "compiler/probe.h"
#include "fuzz/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct source src = { "fuzz.bt", text };
	struct probe_opts po = { 0 };
	struct probe *p = NULL;
	struct diag d;

	if (!text)
		return 0;
	/* The lexer never hands over a line break inside an attach point. */
	text[strcspn(text, "\n")] = '\0';
	diag_init(&d, &src, sink());
	po.use_args = size > 0 && (data[0] & 1);
	if (!strstr(text, "/dev") && !strstr(text, "/proc") && !strstr(text, "/sys") &&
	    !strstr(text, "..") &&
	    probe_resolve(text, (struct loc){ 1, 1, (int)strlen(text) + 1 }, &po, &d, &p) == 0) {
		probe_dump(sink(), p);
		probe_free(p);
	}
	free(text);
	return 0;
}
