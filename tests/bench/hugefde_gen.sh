#!/bin/sh
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
# "late calls=K sum=S" (S = 4 K(K-1)/2 + 2K).
set -eu
n=$1 out=$2
mkdir -p "$(dirname "$out")"
awk -v n="$n" 'BEGIN {
	print "\t.text\n\t.globl late_a\n\t.type late_a, @function\nlate_a:\n\t.cfi_startproc"
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
	print "\tret\n\t.cfi_endproc\n\t.size late_a, .-late_a"
	print "\t.section .note.GNU-stack,\"\",@progbits"
}' > "$out.s"
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
