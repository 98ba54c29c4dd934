/*
 * symbols.c - kernel symbols from /proc/kallsyms (read once, sorted, binary
 * searched) and user symbols through libdw's Dwfl, one Dwfl per pid.  A
 * pid's Dwfl is built on first use; sym_prepare() builds it early for the
 * traced process, whose maps must be read before it exits.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "symbols.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct upid {
	pid_t pid;
	Dwfl *dwfl;   /* NULL if the process could not be read */
};

struct sym {
	struct ksym *k;
	size_t nk;
	int k_loaded;
	struct upid *u;
	size_t nu;
	char *debuginfo_path;
};

struct sym *sym_new(void)
{
	return calloc(1, sizeof(struct sym));
}

void sym_free(struct sym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nk; i++)
		free(s->k[i].name);
	free(s->k);
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].dwfl)
			dwfl_end(s->u[i].dwfl);
	free(s->u);
	free(s);
}

static int sym_kcmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sym_kload(struct sym *s)
{
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	s->k_loaded = 1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (s->nk == cap) {
			cap = cap ? cap * 2 : 65536;
			struct ksym *k = realloc(s->k, cap * sizeof(*k));
			if (!k)
				break;
			s->k = k;
		}
		s->k[s->nk].addr = addr;
		s->k[s->nk].name = strdup(name);
		s->nk++;
	}
	fclose(f);
	qsort(s->k, s->nk, sizeof(*s->k), sym_kcmp);
}

const char *sym_kernel(struct sym *s, uint64_t addr, uint64_t *off)
{
	if (!s->k_loaded)
		sym_kload(s);
	size_t lo = 0, hi = s->nk;
	while (lo < hi) {   /* last symbol with k.addr <= addr */
		size_t mid = (lo + hi) / 2;
		if (s->k[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	*off = addr - s->k[lo - 1].addr;
	return s->k[lo - 1].name;
}

static Dwfl *sym_dwfl_open(struct sym *s, pid_t pid)
{
	static Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl *d;

	cb.debuginfo_path = &s->debuginfo_path;
	d = dwfl_begin(&cb);
	if (!d)
		return NULL;
	if (dwfl_linux_proc_report(d, pid) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

static Dwfl *sym_dwfl(struct sym *s, pid_t pid)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid)
			return s->u[i].dwfl;
	struct upid *u = realloc(s->u, (s->nu + 1) * sizeof(*u));
	if (!u)
		return NULL;
	s->u = u;
	u[s->nu].pid = pid;
	u[s->nu].dwfl = pid > 0 ? sym_dwfl_open(s, pid) : NULL;
	return u[s->nu++].dwfl;
}

static int sym_open_module(Dwfl_Module *m, void **user, const char *name,
			   Dwarf_Addr start, void *arg)
{
	GElf_Addr bias;
	(void)user, (void)name, (void)start, (void)arg;
	dwfl_module_getelf(m, &bias);
	return DWARF_CB_OK;
}

void sym_prepare(struct sym *s, pid_t pid)
{
	Dwfl *d = sym_dwfl(s, pid);
	if (!d)
		return;
	/* open every module's ELF now: the files may only be reachable through
	 * /proc/PID while the process lives */
	dwfl_getmodules(d, sym_open_module, NULL, 0);
}

void sym_refresh(struct sym *s, pid_t pid)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid) {
			if (s->u[i].dwfl)
				dwfl_end(s->u[i].dwfl);
			s->u[i] = s->u[--s->nu];
			break;
		}
	sym_prepare(s, pid);
}

const char *sym_user(struct sym *s, pid_t pid, uint64_t addr, uint64_t *off)
{
	Dwfl *d = sym_dwfl(s, pid);
	if (!d)
		return NULL;
	Dwfl_Module *m = dwfl_addrmodule(d, addr);
	if (!m)
		return NULL;
	GElf_Off o = 0;
	GElf_Sym esym;
	const char *name = dwfl_module_addrinfo(m, addr, &o, &esym, NULL, NULL, NULL);
	if (name)
		*off = o;
	return name;
}

const char *sym_user_line(struct sym *s, pid_t pid, uint64_t addr, int *line)
{
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Line *l = d ? dwfl_getsrc(d, addr) : NULL;
	if (!l)
		return NULL;
	return dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
}
