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

struct sym {
	struct ksym *k;
	size_t nk;
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
};

void sym_fallback(struct sym *s, pid_t pid, char *(*fn)(void *), void *arg)
{
	s->fb_pid = pid;
	s->fb = fn;
	s->fb_arg = arg;
}

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
	for (size_t i = 0; i < s->nu; i++) {
		if (s->u[i].dwfl)
			dwfl_end(s->u[i].dwfl);
		if (s->u[i].prev)
			dwfl_end(s->u[i].prev);
	}
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
static int sym_find_elf(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr base,
			char **file, Elf **elf)
{
	size_t n = strlen(name), k = strlen(SYM_DELETED);
	pid_t pid = (pid_t)(intptr_t)*user;
	if (pid > 0 && n > k && !strcmp(name + n - k, SYM_DELETED)) {
		int fd = sym_open_deleted(pid, name, file);
		if (fd >= 0)
			return fd;
	}
	return dwfl_linux_proc_find_elf(m, user, name, base, file, elf);
}

/* Each module remembers its pid for sym_find_elf, before any ELF is opened. */
static int sym_tag_pid(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start,
		       void *arg)
{
	(void)m, (void)name, (void)start;
	*user = arg;
	return DWARF_CB_OK;
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
	dwfl_getmodules(d, sym_tag_pid, (void *)(intptr_t)pid, 0);
	return d;
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
		dwfl_end(s->u[lru].dwfl);
	if (s->u[lru].prev)
		dwfl_end(s->u[lru].prev);
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
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid) {
			if (s->u[i].dwfl)
				dwfl_end(s->u[i].dwfl);
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
	sym_install(s, pid, d);
}

void sym_exec(struct sym *s, pid_t pid)
{
	for (size_t i = 0; i < s->nu; i++)
		if (s->u[i].pid == pid && s->u[i].dwfl) {
			if (s->u[i].prev)
				dwfl_end(s->u[i].prev);
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
	if (!m)
		return NULL;
	GElf_Off o = 0;
	GElf_Sym esym;
	const char *name = dwfl_module_addrinfo(m, addr, &o, &esym, NULL, NULL, NULL);
	if (name)
		*off = o;
	return name;
}

const char *sym_user_module(struct sym *s, pid_t pid, uint64_t addr)
{
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	const char *mainfile = NULL, *name;

	if (!m)
		m = sym_prev_module(s, pid, addr);
	if (!m)
		return NULL;
	name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	return mainfile ? mainfile : name;
}

const char *sym_user_line(struct sym *s, pid_t pid, uint64_t addr, int *line)
{
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Line *l = d ? dwfl_getsrc(d, addr) : NULL;
	if (!l)
		return NULL;
	return dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
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

int sym_user_inlined(struct sym *s, pid_t pid, uint64_t addr, struct sym_frame *out, int max)
{
	Dwfl *d = sym_dwfl(s, pid);
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = m ? dwfl_module_addrdie(m, addr, &bias) : NULL, *scopes = NULL;
	Dwfl_Line *l = m ? dwfl_module_getsrc(m, addr) : NULL;
	int line = 0, n = 0, ns;
	const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;

	if (max < 1)
		return 0;
	ns = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
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
		const char *name = dwarf_attr_integrate(&scopes[i], DW_AT_name, &a) ?
				   dwarf_formstring(&a) : NULL;
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
