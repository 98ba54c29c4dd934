// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbols.c - kernel symbols from /proc/kallsyms (read once, sorted, binary
 * searched) and user symbols through libdw's Dwfl, one Dwfl per pid.  A
 * pid's Dwfl is built on first use; sym_prepare() builds it early for the
 * traced process, whose maps must be read before it exits.  An address no
 * module holds makes a live process be read again (dlopen); what was read
 * before an exec stays for the old program's addresses; a file deleted or
 * replaced under a running process is read through /proc/PID/map_files.
 * At most SYM_MAX_PROCS processes are known at once (their files stay
 * open): a system-wide profile meets processes without end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compiler/program.h"
#include "lib/demangle.h"
#include "lib/kscan.h"
#include "symbols.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct upid {
	pid_t pid;
	uint64_t used;     /* s->clock at its last lookup */
	Dwfl *dwfl;        /* NULL if the process could not be read */
	double reread_ms;  /* CLOCK_MONOTONIC ms before which no re-read on a miss */
	int rereads;       /* re-reads on a miss so far (each doubles the wait) */
	Dwfl *prev;        /* its program before the last exec, for older addresses */
};

/* A name and its two demangled forms (NULL: not demangled yet). */
struct dmname {
	char *name, *full, *perf;
};

struct sym {
	struct dmname *dm;          /* open addressing by name, dm_mask + 1 slots */
	size_t dm_mask, dm_used;
	struct ksym *k;
	size_t nk, kcap;
	int k_loaded;
	struct upid *u;
	size_t nu;
	char *debuginfo_path;
	pid_t fb_pid;               /* sym_fallback's process, 0 if none */
	pid_t kept;                 /* sym_prepare's process, never let go */
	uint64_t clock;             /* lookups so far */
	uint64_t let_go;            /* processes let go (SYM_MAX_PROCS) */
	char *(*fb)(void *);
	void *fb_arg;
	bool (*tagkey)(void *, unsigned, struct pr_uw_key *);   /* sym_tags */
	void *tagarg;
	/* Names found, by pid and address: a map of 10,000 stacks names the
	 * same few hundred pcs over and over, and each libdwfl lookup scans
	 * a symbol table (dwfl_module_addrinfo) or a unit's scopes.  A
	 * slot is good while gen is s->gen, which moves whenever a Dwfl is
	 * installed or ended (the names point into its files). */
	struct sym_memo *memo;      /* SYM_MEMO slots, direct-mapped */
	struct sym_imemo *imemo;    /* SYM_IMEMO slots */
	uint64_t gen;
};

#define SYM_MEMO  4096
#define SYM_IMEMO 1024

struct sym_memo {
	uint64_t gen, addr;
	pid_t pid;
	const char *name;
	uint64_t off;
};

struct sym_imemo {
	uint64_t gen, addr;
	pid_t pid;
	int max, n;
	struct sym_frame *f;        /* n + 1 frames */
};

static size_t sym_slot(pid_t pid, uint64_t addr, size_t slots)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (slots - 1);
}

static void sym_end(struct sym *s, Dwfl *d);

void sym_fallback(struct sym *s, pid_t pid, char *(*fn)(void *), void *arg)
{
	s->fb_pid = pid;
	s->fb = fn;
	s->fb_arg = arg;
}

struct sym *sym_new(void)
{
	struct sym *s = calloc(1, sizeof(struct sym));
	if (s)
		s->gen = 1;
	return s;
}

void sym_free(struct sym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nk; i++)
		free(s->k[i].name);
	free(s->k);
	for (size_t i = 0; i < s->nu; i++) {
		if (s->u[i].dwfl)
			sym_end(s, s->u[i].dwfl);
		if (s->u[i].prev)
			sym_end(s, s->u[i].prev);
	}
	free(s->u);
	for (size_t i = 0; s->dm && i <= s->dm_mask; i++) {
		free(s->dm[i].name);
		free(s->dm[i].full);
		free(s->dm[i].perf);
	}
	free(s->dm);
	free(s->memo);
	for (size_t i = 0; s->imemo && i < SYM_IMEMO; i++)
		free(s->imemo[i].f);
	free(s->imemo);
	free(s);
}

static int sym_kcmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sym_kadd(void *ctx, const struct kscan_sym *k)
{
	struct sym *s = ctx;
	char t = k->type;

	if (!k->addr || (t != 't' && t != 'T' && t != 'w' && t != 'W'))
		return 0;
	if (s->nk == s->kcap) {
		size_t cap = s->kcap ? s->kcap * 2 : 65536;
		struct ksym *v = realloc(s->k, cap * sizeof(*v));
		if (!v)
			return 1;
		s->k = v;
		s->kcap = cap;
	}
	if (!(s->k[s->nk].name = strdup(k->name)))
		return 1;
	s->k[s->nk++].addr = k->addr;
	return 0;
}

/* The kernel's text symbols, through lib/kscan (kallsyms is ~170,000
 * lines: sscanf over stdio's 1 KiB reads took seconds in a slow guest). */
static void sym_kload(struct sym *s)
{
	s->k_loaded = 1;
	kscan("/proc/kallsyms", KSCAN_KALLSYMS, NULL, sym_kadd, s);
	qsort(s->k, s->nk, sizeof(*s->k), sym_kcmp);
}

#define SYM_KMAX_FUNC (1u << 20)   /* larger than any kernel function */

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
	/* kallsyms gives no sizes: an address far past the symbol before it
	 * (above every symbol, or in a gap of the kernel's address space) is
	 * inside no function, not in the last one */
	if (lo == 0 || addr - s->k[lo - 1].addr >= SYM_KMAX_FUNC)
		return NULL;
	*off = addr - s->k[lo - 1].addr;
	return s->k[lo - 1].name;
}

#define SYM_DELETED " (deleted)"

/* The mapping of a file that was deleted or replaced since it was mapped
 * (a binary upgraded under a running process): opened through
 * /proc/PID/map_files, which still reaches the mapped inode, not the file
 * now at that path.  -1 if it cannot be found or opened. */
static int sym_open_deleted(pid_t pid, const char *name, char **file)
{
	char path[64], line[4608];
	unsigned long start, end, off;
	int fd = -1, pos;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	while (f && fd < 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &off, &pos) != 3 ||
		    off != 0 || strcmp(line + pos, name))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid, start, end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			*file = strdup(path);
	}
	if (f)
		fclose(f);
	return fd;
}

/* Dwfl's find_elf: the usual /proc lookup, except for deleted files. */
/* What each module of a process's Dwfl remembers (its user data, freed
 * by sym_end): the process, for sym_find_elf, and the device and inode
 * that /proc/PID/maps gave for its file when the process was read, which
 * a frame's object tag (pr_uw_tag) is checked against. */
/* A unit's address range, for units that .debug_aranges does not list. */
struct cuspan {
	uint64_t lo, hi;
	Dwarf_Off off;
};

struct modinfo {
	pid_t pid;
	bool known;
	uint64_t dev, ino;   /* dev as the kernel numbers it: major << 20 | minor */
	struct cuspan *cus;  /* by lo; built on the first address libdwfl cannot place */
	size_t ncus;
	bool cus_built;
};

static struct modinfo *sym_modinfo(Dwfl_Module *m)
{
	void **user = NULL;

	dwfl_module_info(m, &user, NULL, NULL, NULL, NULL, NULL, NULL);
	return user ? *user : NULL;
}

static int sym_find_elf(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr base,
			char **file, Elf **elf)
{
	size_t n = strlen(name), k = strlen(SYM_DELETED);
	const struct modinfo *mi = *user;
	pid_t pid = mi ? mi->pid : 0;
	if (pid > 0 && n > k && !strcmp(name + n - k, SYM_DELETED)) {
		int fd = sym_open_deleted(pid, name, file);
		if (fd >= 0)
			return fd;
	}
	return dwfl_linux_proc_find_elf(m, user, name, base, file, elf);
}

/* Each module gets its modinfo, before any ELF is opened. */
static int sym_mod_new(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start,
		       void *arg)
{
	(void)m, (void)name, (void)start;
	struct modinfo *mi = calloc(1, sizeof(*mi));
	if (mi)
		mi->pid = *(pid_t *)arg;
	*user = mi;
	return DWARF_CB_OK;
}

static int sym_mod_free(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start,
			void *arg)
{
	(void)m, (void)name, (void)start, (void)arg;
	struct modinfo *mi = *user;
	if (mi)
		free(mi->cus);
	free(*user);
	*user = NULL;
	return DWARF_CB_OK;
}

static void sym_end(struct sym *s, Dwfl *d)
{
	if (!d)
		return;
	s->gen++;
	dwfl_getmodules(d, sym_mod_free, NULL, 0);
	dwfl_end(d);
}

/* The modules' files by the device and inode of the first line of maps
 * (a /proc/PID/maps text) that maps each, where that line names the file
 * the module was reported from. */
static void sym_ids(Dwfl *d, pid_t pid, const char *maps)
{
	dwfl_getmodules(d, sym_mod_new, &pid, 0);
	for (const char *l = maps; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		unsigned long long start, ino;
		unsigned maj, min;
		int pos = 0;
		if (sscanf(l, "%llx-%*x %*s %*x %x:%x %llu %n", &start, &maj, &min, &ino, &pos) < 4 ||
		    !ino || !pos)
			continue;
		Dwfl_Module *m = dwfl_addrmodule(d, start);
		struct modinfo *mi = m ? sym_modinfo(m) : NULL;
		const char *name = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
		size_t len = strcspn(l + pos, "\n");
		if (!mi || mi->known || !name || strlen(name) != len || strncmp(name, l + pos, len))
			continue;
		mi->known = true;
		mi->dev = ((uint64_t)maj << 20) | min;
		mi->ino = ino;
	}
}

/* /proc/PID/maps, malloc'd (at most 16 MiB), or NULL. */
static char *sym_read_maps(pid_t pid)
{
	char path[64];
	size_t n = 0, cap = 0;
	char *buf = NULL;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (n + 4097 > cap) {
			char *b = cap >= (16u << 20) ? NULL : realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!b)
				break;
			buf = b;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	return buf;
}

static Dwfl *sym_dwfl_open(struct sym *s, pid_t pid)
{
	static Dwfl_Callbacks cb = {
		.find_elf = sym_find_elf,
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
	char *maps = sym_read_maps(pid);
	sym_ids(d, pid, maps);
	free(maps);
	return d;
}

/* Whether module m may name a frame of the object tag (pr_uw_tag): the
 * same file, or nothing known to tell them apart (no tag, a module read
 * without its device and inode, the vDSO). */
static bool sym_same(const struct sym *s, Dwfl_Module *m, unsigned tag)
{
	struct pr_uw_key k;
	const struct modinfo *mi = sym_modinfo(m);

	if (!tag || !s->tagkey || !s->tagkey(s->tagarg, tag, &k) || !mi || !mi->known ||
	    (k.dev == PR_UW_VDSO_DEV && k.ino == PR_UW_VDSO_INO))
		return true;
	return (k.dev & 0xffffffffu) == mi->dev && k.ino == mi->ino;
}

void sym_tags(struct sym *s, bool (*key)(void *, unsigned, struct pr_uw_key *), void *arg)
{
	s->tagkey = key;
	s->tagarg = arg;
}

/* Makes room for one more process: the least recently used one, unless
 * it is the traced one, is let go. */
static void sym_room(struct sym *s)
{
	size_t lru = s->nu;

	if (s->nu < SYM_MAX_PROCS)
		return;
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid != s->fb_pid && s->u[i].pid != s->kept &&
		    (lru == s->nu || s->u[i].used < s->u[lru].used))
			lru = i;
	if (lru == s->nu)
		return;
	if (s->u[lru].dwfl)
		sym_end(s, s->u[lru].dwfl);
	if (s->u[lru].prev)
		sym_end(s, s->u[lru].prev);
	s->u[lru] = s->u[--s->nu];
	s->let_go++;
}

static Dwfl *sym_dwfl(struct sym *s, pid_t pid)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid) {
			s->u[i].used = ++s->clock;
			return s->u[i].dwfl;
		}
	sym_room(s);
	struct upid *u = realloc(s->u, (s->nu + 1) * sizeof(*u));
	if (!u)
		return NULL;
	s->u = u;
	u[s->nu] = (struct upid){ .pid = pid, .used = ++s->clock };
	u[s->nu].dwfl = pid > 0 ? sym_dwfl_open(s, pid) : NULL;
	return u[s->nu++].dwfl;
}

uint64_t sym_let_go(const struct sym *s)
{
	return s->let_go;
}

/* A re-read per miss, 50 ms apart at first, then ever further (to about
 * 6 s): an address that no mapping holds (JIT code, a bad pointer) must
 * not cost a re-read per record. */
static bool sym_may_reread(struct sym *s, pid_t pid)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid) {
			if (now < s->u[i].reread_ms)
				return false;
			s->u[i].reread_ms = now + (50 << (s->u[i].rereads < 7 ? s->u[i].rereads : 7));
			s->u[i].rereads++;
		}
	return true;
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
	s->kept = pid;
	Dwfl *d = sym_dwfl(s, pid);
	if (!d)
		return;
	/* open every module's ELF now: the files may only be reachable through
	 * /proc/PID while the process lives */
	dwfl_getmodules(d, sym_open_module, NULL, 0);
}

/* d becomes what is known of pid, replacing what was. */
static void sym_install(struct sym *s, pid_t pid, Dwfl *d)
{
	s->gen++;
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid) {
			if (s->u[i].dwfl)
				sym_end(s, s->u[i].dwfl);
			s->u[i].dwfl = d;
			return;
		}
	sym_room(s);
	struct upid *u = realloc(s->u, (s->nu + 1) * sizeof(*u));
	if (!u) {
		dwfl_end(d);
		return;
	}
	s->u = u;
	u[s->nu++] = (struct upid){ .pid = pid, .dwfl = d, .used = ++s->clock };
}

/* A process that has just exited (a zombie) shows no mappings: what was
 * read before is kept rather than replaced by nothing. */
void sym_refresh(struct sym *s, pid_t pid)
{
	Dwfl *d = pid > 0 ? sym_dwfl_open(s, pid) : NULL;
	if (!d)
		return;
	dwfl_getmodules(d, sym_open_module, NULL, 0);
	sym_install(s, pid, d);
}

/* Where an ELF file whose page at file offset pgoff is mapped at start is
 * placed (its bias), from its program headers; 0 for ET_EXEC.  -1 if the
 * file at that path is not the one mapped (dev, ino) or has no such
 * segment: a wrong name is worse than none. */
static int sym_bias(const char *path, uint64_t start, uint64_t pgoff, unsigned maj,
		    unsigned min, unsigned long long ino, uint64_t *bias)
{
	struct stat st;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = -1;
	if (fd < 0)
		return -1;
	Elf *e = fstat(fd, &st) == 0 && st.st_ino == ino && major(st.st_dev) == maj &&
		 minor(st.st_dev) == min ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	GElf_Ehdr eh;
	size_t n = 0;
	if (e && gelf_getehdr(e, &eh) && eh.e_type == ET_EXEC) {
		*bias = 0;
		ok = 0;
	} else if (e && eh.e_type == ET_DYN && !elf_getphdrnum(e, &n)) {
		for (size_t i = 0; i < n && ok; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_offset & ~(page - 1)) == pgoff) {
				*bias = start - (ph.p_vaddr & ~(page - 1));
				ok = 0;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/* One line of a maps text, reported if it names a file not reported yet
 * (the earlier lines are `maps` up to `line`). */
static void sym_report_line(Dwfl *d, const char *maps, const char *line)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	uint64_t bias;
	int pos = 0;
	if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &start, &end, &pgoff, &maj, &min,
		   &ino, &pos) < 6 || line[pos] != '/')
		return;
	size_t len = strcspn(line + pos, "\n");
	for (const char *p = maps; (p = memmem(p, (size_t)(line - p), line + pos, len)); p++)
		if (p[-1] == ' ' && p[len] == '\n')
			return;   /* an earlier line (p > maps: a line starts with an address) */
	char *name = strndup(line + pos, len);
	if (name && !sym_bias(name, start, pgoff, maj, min, ino, &bias))
		dwfl_report_elf(d, name, name, -1, bias, false);
	free(name);
}

void sym_refresh_text(struct sym *s, pid_t pid, const char *maps)
{
	static Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl *d;

	if (!maps)
		return;
	cb.debuginfo_path = &s->debuginfo_path;
	if (!(d = dwfl_begin(&cb)))
		return;
	dwfl_report_begin(d);
	for (const char *l = maps; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		sym_report_line(d, maps, l);
	if (dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return;
	}
	sym_ids(d, pid, maps);
	sym_install(s, pid, d);
}

void sym_exec(struct sym *s, pid_t pid)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid && s->u[i].dwfl) {
			if (s->u[i].prev)
				sym_end(s, s->u[i].prev);
			s->u[i].prev = s->u[i].dwfl;
			s->u[i].dwfl = NULL;
		}
}

/* The module of addr in what was read of pid before its last exec. */
static Dwfl_Module *sym_prev_module(struct sym *s, pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid && s->u[i].prev)
			return dwfl_addrmodule(s->u[i].prev, addr);
	return NULL;
}

static const char *sym_user_find(struct sym *s, pid_t pid, uint64_t addr, uint64_t *off);

const char *sym_user_note(uint64_t addr)
{
	if (addr == PR_UW_PC_LOADING)
		return "[unknown: unwind tables loading]";
	if (addr == PR_UW_PC_NOROOM)
		return "[unknown: no room for unwind tables]";
	if (addr == PR_UW_PC_BUSY)
		return "[unknown: mapping not cached yet]";
	return NULL;
}

const char *sym_user(struct sym *s, pid_t pid, uint64_t addr, uint64_t *off)
{
	const char *note = sym_user_note(addr);
	if (note) {
		*off = 0;
		return note;
	}
	if (!s->memo)
		s->memo = calloc(SYM_MEMO, sizeof(*s->memo));
	struct sym_memo *e = s->memo ? &s->memo[sym_slot(pid, addr, SYM_MEMO)] : NULL;
	if (e && e->gen == s->gen && e->pid == pid && e->addr == addr) {
		*off = e->off;
		return e->name;
	}
	const char *name = sym_user_find(s, pid, addr, off);
	/* a miss is not kept: the next one may re-read the process */
	if (e && name)
		*e = (struct sym_memo){ .gen = s->gen, .addr = addr, .pid = pid, .name = name,
					.off = *off };
	return name;
}

static const char *sym_user_find(struct sym *s, pid_t pid, uint64_t addr, uint64_t *off)
{
	unsigned tag = pr_uw_tag(addr);
	addr = pr_uw_addr(addr);
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	if (!m && pid > 0 && sym_may_reread(s, pid)) {
		/* mapped since the last read (dlopen, exec) while the process lives */
		sym_refresh(s, pid);
		d = sym_dwfl(s, pid);
		m = d ? dwfl_addrmodule(d, addr) : NULL;
	}
	if (!m && pid > 0 && pid == s->fb_pid) {
		/* gone, or a zombie whose /proc maps are empty: what it mapped,
		 * from the fallback, if it has news */
		char *text = s->fb(s->fb_arg);
		if (text) {
			sym_refresh_text(s, pid, text);
			free(text);
			d = sym_dwfl(s, pid);
			m = d ? dwfl_addrmodule(d, addr) : NULL;
		}
	}
	if (!m)
		m = sym_prev_module(s, pid, addr);
	/* another object mapped there since the frame ran: no name rather
	 * than its name (printed as the address) */
	if (!m || !sym_same(s, m, tag))
		return NULL;
	GElf_Off o = 0;
	GElf_Sym esym;
	const char *name = dwfl_module_addrinfo(m, addr, &o, &esym, NULL, NULL, NULL);
	if (name)
		*off = o;
	return name;
}

static size_t sym_dm_hash(const char *name)
{
	size_t h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return h;
}

static int sym_dm_grow(struct sym *s)
{
	size_t cap = s->dm ? (s->dm_mask + 1) * 2 : 256;
	struct dmname *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; s->dm && i <= s->dm_mask; i++) {
		if (!s->dm[i].name)
			continue;
		size_t j = sym_dm_hash(s->dm[i].name) & (cap - 1);
		while (t[j].name)
			j = (j + 1) & (cap - 1);
		t[j] = s->dm[i];
	}
	free(s->dm);
	s->dm = t;
	s->dm_mask = cap - 1;
	return 0;
}

/* The entry of name, made if new; NULL if out of memory. */
static struct dmname *sym_dm_entry(struct sym *s, const char *name)
{
	if ((!s->dm || (s->dm_used + 1) * 2 > s->dm_mask + 1) && sym_dm_grow(s))
		return NULL;
	size_t j = sym_dm_hash(name) & s->dm_mask;
	for (; s->dm[j].name; j = (j + 1) & s->dm_mask)
		if (!strcmp(s->dm[j].name, name))
			return &s->dm[j];
	if (!(s->dm[j].name = strdup(name)))
		return NULL;
	s->dm_used++;
	return &s->dm[j];
}

const char *sym_demangled(struct sym *s, const char *name, bool perf_form)
{
	struct dmname *e;

	if (!s || !name || !dm_is_mangled(name) || !(e = sym_dm_entry(s, name)))
		return name;
	char **form = perf_form ? &e->perf : &e->full;
	if (!*form) {
		/* a name that does not demangle is kept as itself */
		*form = dm_demangle(name, perf_form ? DM_SHORT : DM_FULL);
		if (!*form)
			*form = strdup(name);
	}
	return *form ? *form : name;
}

const char *sym_user_module(struct sym *s, pid_t pid, uint64_t addr)
{
	unsigned tag = pr_uw_tag(addr);
	addr = pr_uw_addr(addr);
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	const char *mainfile = NULL, *name;

	if (!m)
		m = sym_prev_module(s, pid, addr);
	if (!m || !sym_same(s, m, tag))
		return NULL;
	name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	return mainfile ? mainfile : name;
}

/* The PT_LOAD of e that holds vaddr and runs; false if none. */
static bool sym_text_phdr(Elf *e, uint64_t vaddr, GElf_Phdr *out)
{
	size_t n = 0;

	if (!e || elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, out) && out->p_type == PT_LOAD &&
		    (out->p_flags & PF_X) && vaddr >= out->p_vaddr &&
		    vaddr < out->p_vaddr + out->p_memsz)
			return true;
	return false;
}

int sym_user_map(struct sym *s, pid_t pid, uint64_t addr, struct sym_map *out)
{
	unsigned tag = pr_uw_tag(addr);
	addr = pr_uw_addr(addr);
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	Dwarf_Addr low = 0, high = 0;
	const char *mainfile = NULL, *name;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr, bias = 0;
	GElf_Phdr ph;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!m)
		m = sym_prev_module(s, pid, addr);
	if (!m || !sym_same(s, m, tag))
		return -1;
	memset(out, 0, sizeof(*out));
	name = dwfl_module_info(m, NULL, &low, &high, NULL, NULL, &mainfile, NULL);
	/* the name /proc gave, not /proc/PID/map_files/... (gone after the run) */
	out->file = name && name[0] == '/' ? name : mainfile ? mainfile : name;
	int n = dwfl_module_build_id(m, &bits, &vaddr);
	if (n > 0 && bits) {
		out->build_id_len = n > 20 ? 20 : n;
		memcpy(out->build_id, bits, (size_t)out->build_id_len);
	}
	Elf *e = dwfl_module_getelf(m, &bias);
	if (sym_text_phdr(e, addr - bias, &ph)) {
		out->start = (ph.p_vaddr + bias) & ~(page - 1);
		out->end = (ph.p_vaddr + ph.p_memsz + bias + page - 1) & ~(page - 1);
		out->pgoff = ph.p_offset & ~(page - 1);
	} else {   /* no program headers to read: the module as a whole */
		out->start = low;
		out->end = high;
		out->pgoff = 0;
	}
	return out->file ? 0 : -1;
}

static int cuspan_cmp(const void *a, const void *b)
{
	const struct cuspan *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static void cuspans_build(struct modinfo *mi, Dwarf *dbg)
{
	Dwarf_Off off = 0, next;
	size_t hl, cap = 0;

	mi->cus_built = true;
	while (dwarf_nextcu(dbg, off, &next, &hl, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		while (dwarf_offdie(dbg, off + hl, &cu) &&
		       (r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
			if (mi->ncus == cap) {
				struct cuspan *v = realloc(mi->cus, sizeof(*v) * (cap = cap ? cap * 2 : 64));
				if (!v)
					return;
				mi->cus = v;
			}
			mi->cus[mi->ncus++] = (struct cuspan){ lo, hi, off + hl };
		}
		off = next;
	}
	qsort(mi->cus, mi->ncus, sizeof(*mi->cus), cuspan_cmp);
}

/* The unit of addr in m.  libdwfl finds it through .debug_aranges, which
 * clang does not write by default: else through the units' own ranges,
 * as gdb and perf (addr2line) find them, or a clang binary's frames lose
 * their inlined functions and lines. */
static bool sym_cu(Dwfl_Module *m, uint64_t addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	Dwarf_Die *c = dwfl_module_addrdie(m, addr, bias);
	struct modinfo *mi = sym_modinfo(m);
	Dwarf *dbg;

	/* and libdw 0.188 may give a unit that does not hold addr (a clang
	 * unit with DW_AT_ranges), whose scopes then have nothing there */
	if (c && dwarf_haspc(c, addr - *bias) == 1) {
		*cu = *c;
		return true;
	}
	if (!mi || !(dbg = dwfl_module_getdwarf(m, bias)))
		return false;
	if (!mi->cus_built)
		cuspans_build(mi, dbg);
	uint64_t a = addr - *bias;
	size_t lo = 0, hi = mi->ncus;   /* the spans starting at or before a */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (mi->cus[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;)   /* spans of several units may nest */
		if (a < mi->cus[i].hi)
			return dwarf_offdie(dbg, mi->cus[i].off, cu) != NULL;
	return false;
}

/* addr's source file and line in m, libdwfl's, else its unit's table. */
static const char *sym_src(Dwfl_Module *m, uint64_t addr, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(m, addr);
	Dwarf_Die cu;
	Dwarf_Addr bias;
	Dwarf_Line *dl;

	if (l)
		return dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (!sym_cu(m, addr, &cu, &bias) || !(dl = dwarf_getsrc_die(&cu, addr - bias)) ||
	    dwarf_lineno(dl, line))
		return NULL;
	return dwarf_linesrc(dl, NULL, NULL);
}

const char *sym_user_line(struct sym *s, pid_t pid, uint64_t addr, int *line)
{
	unsigned tag = pr_uw_tag(addr);
	addr = pr_uw_addr(addr);
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	return m && sym_same(s, m, tag) ? sym_src(m, addr, line) : NULL;
}


/* The file of a DW_AT_call_file index in cu's line table, or NULL. */
static const char *sym_call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;

	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static void sym_frame_set(struct sym_frame *f, const char *name, const char *file, int line)
{
	snprintf(f->name, sizeof(f->name), "%s", name ? name : "");
	snprintf(f->file, sizeof(f->file), "%s", file ? file : "");
	f->line = file ? line : 0;
}

static int sym_inlined_find(struct sym *s, pid_t pid, uint64_t addr, struct sym_frame *out, int max);
/* An inlined C++ function DWARF gives no linkage name (gcc: a method of a
 * class in an anonymous namespace) named by the namespaces and classes its
 * declaration is in, as llvm-symbolizer and perf's short form name it:
 * "leveldb::(anonymous namespace)::MemTableInserter::Put".  False (q
 * untouched) for a function in no namespace or class: a C function. */
static bool qualified_name(Dwarf_Die *inl, char *q, size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Die d = *inl, *sc = NULL;

	for (int i = 0; i < 8 && (dwarf_attr(&d, DW_AT_abstract_origin, &a) ||
				  dwarf_attr(&d, DW_AT_specification, &a)); i++)
		if (!dwarf_formref_die(&a, &d))
			return false;
	const char *name = dwarf_diename(&d);
	int n = name ? dwarf_getscopes_die(&d, &sc) : 0, at = 0;
	bool scoped = false;

	/* sc: d itself, its parents, the unit last */
	for (int i = n - 2; i >= 1 && at >= 0 && (size_t)at < len; i--) {
		int tag = dwarf_tag(&sc[i]);
		const char *p = dwarf_diename(&sc[i]);
		if (tag == DW_TAG_namespace && !p)
			p = "(anonymous namespace)";
		else if ((tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
			  tag != DW_TAG_structure_type && tag != DW_TAG_union_type) || !p)
			at = -1;  /* a class local to a function, or unnamed: not named so */
		if (at >= 0)
			at += snprintf(q + at, len - (size_t)at, "%s::", p);
		scoped = true;
	}
	free(sc);
	if (!scoped || at < 0 || (size_t)at >= len)
		return false;
	snprintf(q + at, len - (size_t)at, "%s", name);
	return true;
}

int sym_user_inlined(struct sym *s, pid_t pid, uint64_t addr, struct sym_frame *out, int max)
{
	if (max < 1)
		return 0;
	if (!s->imemo)
		s->imemo = calloc(SYM_IMEMO, sizeof(*s->imemo));
	struct sym_imemo *e = s->imemo ? &s->imemo[sym_slot(pid, addr, SYM_IMEMO)] : NULL;
	if (e && e->f && e->gen == s->gen && e->pid == pid && e->addr == addr && e->max == max) {
		memcpy(out, e->f, sizeof(*out) * (size_t)(e->n + 1));
		return e->n;
	}
	int n = sym_inlined_find(s, pid, addr, out, max);
	struct sym_frame *f = e ? realloc(e->f, sizeof(*f) * (size_t)(n + 1)) : NULL;
	if (f) {
		memcpy(f, out, sizeof(*f) * (size_t)(n + 1));
		*e = (struct sym_imemo){ .gen = s->gen, .addr = addr, .pid = pid, .max = max, .n = n,
					 .f = f };
	}
	return n;
}

/* The innermost function, inlined copy or block under parent holding pc,
 * into *out.  libdw 0.188's dwarf_getscopes finds none in some clang
 * units (DWARF 5, a CU with DW_AT_ranges, functions in namespaces) whose
 * DIEs each say they hold pc. */
static bool sym_innermost(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return false;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_lexical_block:
			if (dwarf_haspc(&c, pc) == 1) {
				*out = c;
				sym_innermost(&c, pc, out);
				return true;
			}
			break;
		case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		case DW_TAG_union_type: case DW_TAG_module:
			if (sym_innermost(&c, pc, out))
				return true;
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static int sym_inlined_find(struct sym *s, pid_t pid, uint64_t addr, struct sym_frame *out, int max)
{
	unsigned tag = pr_uw_tag(addr);
	addr = pr_uw_addr(addr);
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;

	if (m && !sym_same(s, m, tag))
		m = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Die cudie, *cu = m && sym_cu(m, addr, &cudie, &bias) ? &cudie : NULL, *scopes = NULL;
	int line = 0, n = 0, ns;
	const char *file = m ? sym_src(m, addr, &line) : NULL;

	if (max < 1)
		return 0;
	ns = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	Dwarf_Die in;
	if (ns <= 0 && cu && sym_innermost(cu, addr - bias, &in)) {
		free(scopes);
		scopes = NULL;
		ns = dwarf_getscopes_die(&in, &scopes);
	}
	/* past an inlined copy dwarf_getscopes goes on into its abstract
	 * definition: the concrete scopes around the innermost copy instead */
	for (int i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Die die = scopes[i];
			free(scopes);
			scopes = NULL;
			ns = dwarf_getscopes_die(&die, &scopes);
			break;
		}
	}
	/* innermost first, up to the function the code is in */
	for (int i = 0; i < ns && n < max - 1; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute a;
		/* a C++ method's DW_AT_name is its bare name ("total"): the
		 * linkage name is demangled where it is printed */
		char q[sizeof(out->name)];
		const char *name = dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &a) ||
				   dwarf_attr_integrate(&scopes[i], DW_AT_MIPS_linkage_name, &a) ?
				   dwarf_formstring(&a) : NULL;
		if (!name && qualified_name(&scopes[i], q, sizeof(q)))
			name = q;
		if (!name && dwarf_attr_integrate(&scopes[i], DW_AT_name, &a))
			name = dwarf_formstring(&a);
		sym_frame_set(&out[n++], name ? name : "??", file, line);
		/* the caller's line: where this copy was inlined */
		Dwarf_Word cl = 0;
		file = sym_call_file(cu, &scopes[i]);
		line = dwarf_attr(&scopes[i], DW_AT_call_line, &a) && !dwarf_formudata(&a, &cl) ?
		       (int)cl : 0;
	}
	free(scopes);
	sym_frame_set(&out[n], NULL, file, line);
	return n;
}
