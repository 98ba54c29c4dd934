#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# hugefde_gen.sh N OUT - builds OUT.so and OUT, whose late_a has one FDE
# of about 2N rows: N x (nop; .cfi_adjust_cfa_offset 8; nop;
# .cfi_adjust_cfa_offset -8), a CFA program of ~4N bytes (N=50000: a 300
# KB .eh_frame), the shape of review item N6.  late_a(x, cb) calls cb(x)
# before that run of rows and cb(x) again after it, and returns the sum:
# a stack at cb through the first call needs only late_a's first rows, one
# through the second needs its last.  OUT.so is a library for
# tests/progs/unwind_late (which dlopen()s it during the trace: tables
# built at run time); OUT is a program (main calls late_a(i, late_cb) K
# times, K its first argument; tables built at start-up).  Both print
# "late calls=K sum=S" (S = 4 K(K-1)/2 + 2K).  With a third argument M,
# M-1 more functions like late_a (late_a1.., never called): M FDEs of ~2N
# rows each, e.g. N=512 M=2000 for many FDEs just past the rows kept per
# FDE (runtime/unwind.c UW_FDE_MAX_ROWS): the most costly bytes of CFI.
set -eu
n=$1 out=$2 m=${3:-1}
mkdir -p "$(dirname "$out")"
awk -v n="$n" -v m="$m" 'BEGIN { for (f = 0; f < m; f++) fn(f == 0 ? "late_a" : "late_a" f) }
function fn(name, i) {
	printf "\t.text\n\t.globl %s\n\t.type %s, @function\n%s:\n\t.cfi_startproc\n", name, name, name
	print "\tpushq %rbx\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset 3, -16"
	print "\tpushq %rbp\n\t.cfi_def_cfa_offset 24\n\t.cfi_offset 6, -24"
	print "\tpushq %r12\n\t.cfi_def_cfa_offset 32\n\t.cfi_offset 12, -32"
	print "\tmovq %rdi, %rbx\n\tmovq %rsi, %rbp\n\tcall *%rbp\n\tmovq %rax, %r12"
	for (i = 0; i < n; i++)
		print "\tnop\n\t.cfi_adjust_cfa_offset 8\n\tnop\n\t.cfi_adjust_cfa_offset -8"
	print "\tmovq %rbx, %rdi\n\tcall *%rbp\n\taddq %r12, %rax"
	print "\tpopq %r12\n\t.cfi_def_cfa_offset 24"
	print "\tpopq %rbp\n\t.cfi_def_cfa_offset 16"
	print "\tpopq %rbx\n\t.cfi_def_cfa_offset 8"
	printf "\tret\n\t.cfi_endproc\n\t.size %s, .-%s\n", name, name
}
END { print "\t.section .note.GNU-stack,\"\",@progbits" }' </dev/null > "$out.s"
cat > "$out.main.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
long late_a(long x, long (*cb)(long));
__attribute__((noipa)) long late_cb(long x)
{
	return x * 2 + 1;
}
int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	for (long i = 0; i < k; i++)
		sum += late_a(i, late_cb);
	fprintf(stderr, "late calls=%ld sum=%ld\n", k, sum);
	return 0;
}
EOC
${CC:-gcc} -O2 -fomit-frame-pointer -shared -fPIC -o "$out.so" "$out.s"
${CC:-gcc} -O2 -fomit-frame-pointer -o "$out" "$out.main.c" "$out.s"
rm -f "$out.s" "$out.main.c"
