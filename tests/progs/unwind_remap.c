/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_remap A.so B.so ROUNDS N: maps A's file at one address, calls
 * its entry point (remap_spin, counting N down) from run_obj, unmaps it,
 * maps B's file at the same address and does the same, ROUNDS times.  A
 * profile's stacks in remap_spin must reach main through run_obj either
 * way: a per-process mapping cache kept across the munmap and mmap would
 * unwind B's code by A's rows.  Built -O2 without frame pointers.  Prints
 * "remap rounds=R". */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEEP __attribute__((noipa))

typedef void (*spin_fn)(volatile long *);

KEEP long run_obj(spin_fn f, long n)
{
	volatile long c = n;

	f(&c);
	return c + n;   /* work after the call: no tail call */
}

/* The file offset of the ELF's entry point, or -1. */
static long entry_off(const char *m, size_t size)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)m;

	if (size < sizeof(*h) || h->e_phoff + (size_t)h->e_phnum * sizeof(Elf64_Phdr) > size)
		return -1;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + h->e_phoff);
	for (int i = 0; i < h->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && h->e_entry >= ph[i].p_vaddr &&
		    h->e_entry < ph[i].p_vaddr + ph[i].p_filesz)
			return (long)(h->e_entry - ph[i].p_vaddr + ph[i].p_offset);
	return -1;
}

/* Maps path at addr (MAP_FIXED): the whole file, executable. */
static spin_fn map_at(char *addr, size_t len, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size > len)
		return NULL;
	char *m = mmap(addr, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0);
	close(fd);
	long off = m == MAP_FAILED ? -1 : entry_off(m, (size_t)st.st_size);
	return off < 0 ? NULL : (spin_fn)(void *)(m + off);
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int rounds = atoi(argv[3]);
	long n = atol(argv[4]), sum = 0;
	size_t len = 1 << 20;
	char *addr = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (addr == MAP_FAILED)
		return 1;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < 2; k++) {
			spin_fn f = map_at(addr, len, argv[1 + k]);
			if (!f) {
				fprintf(stderr, "unwind_remap: cannot map %s\n", argv[1 + k]);
				return 1;
			}
			sum += run_obj(f, n);
			munmap(addr, len);
		}
	printf("remap rounds=%d\n", rounds);
	return sum == 2L * rounds * n ? 0 : 1;
}
