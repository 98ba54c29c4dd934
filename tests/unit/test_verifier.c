// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verifier.c - runtime/verifier.c without the kernel: scripts are
 * compiled for real (the BTF line info comes from LLVM), the verifier's
 * log is written by hand, and the explanation must land on the right
 * construct with the right sentence.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "runtime/verifier.h"
#include "unit.h"

static struct program *compile(struct source *src, const char *text)
{
	struct diag d;
	struct pr_compile_opts o = { 0 };
	src->name = "-e";
	src->text = text;
	diag_init(&d, src, stderr);
	struct program *p = pr_compile(src, &o, &d);
	if (p && d.errors) {
		pr_program_free(p);
		return NULL;
	}
	return p;
}

static void test_last_insn(void)
{
	const char *log = "0: R1=ctx() R10=fp0\n"
			  "; @ -e:1\n"
			  "21: (b7) r4 = 0                       ; R4=0\n"
			  "22: (85) call bpf_map_update_elem#2   ; R0=scalar()\n"
			  "The sequence of 8193 jumps is too complex.\n";
	unit_expect("last instruction of a log", vf_last_insn(log) == 22);
	unit_expect("no instruction in a log", vf_last_insn("bad\n") == -1);
	unit_expect("no log", vf_last_insn(NULL) == -1);
}

/* Every instruction of a one-line probe maps to line 1 at a column that
 * exists on it, and some to the loop's body. */
static void test_insn_loc(void)
{
	struct source src;
	const char *text = "BEGIN { $i = 0; while ($i < 10) { @x[$i] = 1; $i++; } exit(); }";
	struct program *p = compile(&src, text);
	unit_expect("compiles", p != NULL);
	if (!p)
		return;
	struct loc l;
	int found = 0, bad = 0;
	for (int i = 0; i < 200; i++) {
		if (vf_insn_loc(p, p->progs[0].name, i, &l))
			continue;
		found++;
		bad += l.line != 1 || l.col < 1 || l.col > (int)strlen(text);
	}
	unit_expect("line info found for instructions", found > 5);
	unit_expect("line info within the text", bad == 0);
	unit_expect("unknown program", vf_insn_loc(p, "nosuch", 0, &l) == -1);
	pr_program_free(p);
}

/* A complexity failure inside the inner loop names the inner loop. */
static void test_explain_loop(void)
{
	struct source src;
	const char *text = "BEGIN {\n"
			   "  $i = 0;\n"
			   "  while ($i < 10) {\n"
			   "    $j = 0;\n"
			   "    while ($j < 100000) { @x[$i, $j] = 1; $j++; }\n"
			   "    $i++;\n"
			   "  }\n"
			   "}\n";
	struct program *p = compile(&src, text);
	unit_expect("nested loops compile", p != NULL);
	if (!p)
		return;
	/* the last instruction on line 5 stands for where the verifier stopped */
	int insn = -1;
	struct loc l;
	for (int i = 0; i < 400; i++)
		if (!vf_insn_loc(p, p->progs[0].name, i, &l) && l.line == 5 && l.col > 25)
			insn = i;
	unit_expect("an instruction of the inner body", insn >= 0);
	char log[512];
	snprintf(log, sizeof(log), "0: R1=ctx() R10=fp0\n%d: (07) r1 += 1\n"
		 "The sequence of 8193 jumps is too complex.\n"
		 "processed 123456 insns (limit 1000000) max_states_per_insn 4\n", insn);
	struct vf_explain x;
	unit_expect("explained", vf_explain(p, p->progs[0].name, log, &x) == 0);
	unit_expect("at the inner while", x.loc.line == 5 && x.loc.col == 5 && x.loc.len == 5);
	unit_expect_str("sentence", x.sentence,
			"the kernel verifier gave up on this while loop after walking 123456 "
			"instructions (The sequence of 8193 jumps is too complex.): it follows "
			"every iteration, so give it fewer iterations or a smaller body");
	free(x.sentence);

	/* a verdict followed by state dumps is still the verdict */
	snprintf(log, sizeof(log), "%d: (07) r1 += 1\ninfinite loop detected at insn %d\n"
		 "cur state: R1=1\nold state: R1=1\n", insn, insn);
	unit_expect("explained", vf_explain(p, NULL, log, &x) == 0);
	unit_expect("infinite loop sentence", x.sentence &&
		    !strncmp(x.sentence, "the kernel verifier cannot prove that this while loop "
			     "ends (infinite loop detected at insn", 71));
	free(x.sentence);

	/* anything else: the kernel's words, at the instruction's place */
	snprintf(log, sizeof(log), "%d: (61) r0 = *(u32 *)(r1 +0)\n"
		 "R1 invalid mem access 'scalar'\nprocessed 2 insns\n", insn);
	unit_expect("explained", vf_explain(p, NULL, log, &x) == 0);
	unit_expect("other rejection at its line", x.loc.line == 5);
	unit_expect_str("other rejection", x.sentence,
			"the kernel verifier rejected this probe: R1 invalid mem access 'scalar'");
	free(x.sentence);
	pr_program_free(p);
}

/* Keywords in strings and comments, and names that contain them, are
 * not loops. */
static void test_not_loops(void)
{
	struct source src;
	const char *text = "BEGIN { $unrolled = 1; /* while { */ printf(\"while {\\n\"); "
			   "@while_x = 1; exit(); }";
	struct program *p = compile(&src, text);
	unit_expect("compiles", p != NULL);
	if (!p)
		return;
	struct vf_explain x;
	const char *log = "0: (07) r1 += 1\nBPF program is too large. Processed 1000001 insn\n"
			  "processed 1000001 insns (limit 1000000)\n";
	unit_expect("explained", vf_explain(p, NULL, log, &x) == 0);
	unit_expect("no loop named", x.sentence &&
		    strstr(x.sentence, "gave up on this probe after walking 1000001") != NULL);
	free(x.sentence);
	pr_program_free(p);
}

int main(void)
{
	test_last_insn();
	test_insn_loc();
	test_explain_loop();
	test_not_loops();
	return unit_summary();
}
