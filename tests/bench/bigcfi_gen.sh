#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bigcfi_gen.sh N PAD OUT - builds OUT, a large program for the start-up
# of ustack through CFI (tests/bench/ustack.sh): N functions big_f0..,
# written in assembly with their CFI (.cfi_* directives: four rows each,
# as gcc -O2 emits for a function that saves two registers and keeps a
# frame), each PAD bytes of code, so that N=100000 PAD=480 makes a 50 MB
# binary whose .eh_frame has 100,000 FDEs; assembly builds in seconds where
# as many C functions take minutes.  main (C, -O2 without frame pointers)
# calls big_f0(x) K times (K: its first argument); big_f0 calls big_leaf,
# the probe target, from inside its frame: a stack at big_leaf needs
# big_f0's rows to reach main.  With a second argument S, main first
# sleeps S seconds (a process to trace with -p).
set -eu
n=$1 pad=$2 out=$3
mkdir -p "$(dirname "$out")"
awk -v n="$n" -v pad="$pad" 'BEGIN {
	print "\t.text"
	print "\t.globl big_leaf\n\t.type big_leaf, @function\nbig_leaf:\n\t.cfi_startproc"
	print "\tleaq 1(%rdi), %rax\n\tret\n\t.cfi_endproc\n\t.size big_leaf, .-big_leaf"
	for (i = 0; i < n; i++) {
		printf "\t.globl big_f%d\n\t.type big_f%d, @function\nbig_f%d:\n", i, i, i
		print "\t.cfi_startproc"
		print "\tpushq %rbx\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset 3, -16"
		print "\tpushq %rbp\n\t.cfi_def_cfa_offset 24\n\t.cfi_offset 6, -24"
		print "\tsubq $40, %rsp\n\t.cfi_def_cfa_offset 64"
		print "\tmovq %rdi, %rbx"
		if (i == 0)
			print "\tcall big_leaf"
		else
			print "\tmovq %rdi, %rax"
		printf "\t.fill %d, 1, 0x90\n", pad
		print "\taddq $40, %rsp\n\t.cfi_def_cfa_offset 24"
		print "\tpopq %rbp\n\t.cfi_def_cfa_offset 16"
		print "\tpopq %rbx\n\t.cfi_def_cfa_offset 8"
		print "\tret\n\t.cfi_endproc"
		printf "\t.size big_f%d, .-big_f%d\n", i, i
	}
	print "\t.section .note.GNU-stack,\"\",@progbits"
}' > "$out.s"
cat > "$out.main.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
long big_f0(long x);
int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	if (argc > 2)
		sleep((unsigned)atoi(argv[2]));
	for (long i = 0; i < k; i++)
		sum += big_f0(i);
	return sum == 42 ? 1 : 0;
}
EOC
${CC:-gcc} -O2 -fomit-frame-pointer -o "$out" "$out.main.c" "$out.s"
