// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind.c - unwind rows of `ustack` through CFI (see unwind.h).  libdw
 * computes the frame at each pc (dwarf_cfi_addrframe): this file only
 * finds where the FDEs start (their initial location, encoded as the CIE
 * says) and walks each FDE's ranges [start, end) with libdw, turning the
 * rules x86-64 code uses (CFA = rsp or rbp + N, the .plt expression,
 * rbp saved at CFA + N, the return address at CFA - 8) into compact rows;
 * any other rule is a row that ends the stack.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/elfsym.h"
#include "lib/objcache.h"
#include "lib/safefile.h"
#include "unwind.h"

#define UW_REG_RBP 6
#define UW_REG_RSP 7
#define UW_REG_RIP 16

struct uw_objent {
	char *path;
	struct pr_uw_key key;
	struct pr_uw_obj obj;
};

/* An object the BPF side asked for, waiting for the loader thread. */
struct uw_job {
	struct uw_job *next;
	int fd;
	struct stat st;
	struct pr_uw_key key;
	uint64_t tgid;
	double t0;
	char name[];
};

struct uw {
	struct pr_uw_row *rows;
	size_t nrows, cap;
	struct uw_objent *objs;
	int nobjs;
	double build_ms;
	int verbose;
	bool ctime;   /* keys hold the file's change time (program.h, pr_uw_key) */
	int cut;   /* FDEs cut at UW_FDE_MAX_ROWS */
	/* the start's build says how far it is on stderr once it has taken
	 * a second (uw_progress): on a terminal one line that updates */
	bool progress, shown, tty;
	unsigned tick;
	double t0, next;
	const char *current_name;
	/* when set and *stop is non-zero, the build gives up (at exit) */
	const int *stop;
	/* after uw_fill: the rows map mapped (room for map_rows rows), the
	 * maps late objects go into, and the ring of the BPF side's misses */
	struct pr_uw_row *map;
	size_t map_rows;
	int objs_fd, seen_fd, notes_fd;   /* objs and seen: our own dups (uw_fill) */
	/* the array of chunks (a dup), its template, the chunks added to it
	 * (mapped; the array and the mapping hold them), the next free row
	 * of theirs; room: the rows beyond the start's that may still be
	 * added (PERF_RUN_USTACK_ROWS) */
	int chunks_fd, inner_fd;
	struct pr_uw_row *chunk[PR_UW_NCHUNKS];
	int nchunks;
	size_t chunk_next, room, grown;
	struct ring_buffer *rb;
	/* objects loaded at run time, unreadable, too big (atomics: read by
	 * uw_report while the loader may still run) */
	int late, late_failed, noroom;
	double late_ms;
	/* The loader thread builds the tables of objects met at run time, so
	 * that the event loop never waits for a build.  lock guards objs,
	 * nobjs, nrows past uw_fill, late_ms and the jobs. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t loader;
	bool loader_on;
	int stopping;   /* atomic: the loader ends, a build in progress gives up */
	struct uw_job *jobs, *current;
	int njobs;
};

/* Rows taken from one FDE.  libdw's dwarf_cfi_addrframe runs the FDE's
 * CFA program from its start for every row, so an FDE of R rows costs
 * R^2/2 steps (one of 100,000 rows: 15 s).  Past the cap, the rest of the
 * FDE is one UNKNOWN row (stacks through that code end there), which keeps
 * the cost linear in the size of .eh_frame.  The biggest FDE of libLLVM-19
 * has 792 rows, of libc 44. */
#define UW_FDE_MAX_ROWS 1024

/* Objects waiting for the loader; past that a miss is dropped and asked
 * again by the next stack that meets the object. */
#define UW_MAX_JOBS 64

/* Rows the start's rows map has room for beyond the start-up set, for
 * objects seen first at run time: 512 KB, twice libc's.  Objects that do
 * not fit go into chunks of PR_UW_CHUNK_ROWS rows (512 KB) added as they
 * are needed (uw_chunks_cover), until PERF_RUN_USTACK_ROWS rows (by
 * default UW_ROOM_ROWS: 256 MB) have been added in all. */
#define UW_HEADROOM_ROWS (1u << 16)
#define UW_ROOM_ROWS (1u << 25)
/* The BPF side's search covers 2^26 rows of one map (cg_unwind.c). */
#define UW_MAP_MAX_ROWS (1u << 26)
#define UW_CHUNK_BYTES (PR_UW_CHUNK_ROWS * sizeof(struct pr_uw_row))

/* An ELF being read: its PT_LOAD headers turn a vaddr into a file offset. */
struct uw_elf {
	Elf *elf;
	GElf_Phdr *load;
	int nload;
};

static double uw_now_ms(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Room for n more rows. */
static int uw_reserve(struct uw *u, size_t n)
{
	if (u->nrows + n <= u->cap)
		return 0;
	size_t cap = u->cap ? u->cap : 4096;
	while (cap < u->nrows + n)
		cap *= 2;
	struct pr_uw_row *v = realloc(u->rows, cap * sizeof(*v));
	if (!v)
		return -1;
	u->rows = v;
	u->cap = cap;
	return 0;
}

static int uw_push(struct uw *u, const struct pr_uw_row *r)
{
	if (u->nrows == u->cap && uw_reserve(u, 1))
		return -1;
	u->rows[u->nrows++] = *r;
	return 0;
}

/* File offset of vaddr in an executable PT_LOAD; false if none holds it. */
static bool uw_offset(const struct uw_elf *e, uint64_t vaddr, uint32_t *off)
{
	for (int i = 0; i < e->nload; i++) {
		const GElf_Phdr *p = &e->load[i];
		if (vaddr >= p->p_vaddr && vaddr < p->p_vaddr + p->p_filesz &&
		    p->p_offset + (vaddr - p->p_vaddr) <= UINT32_MAX) {
			*off = (uint32_t)(p->p_offset + (vaddr - p->p_vaddr));
			return true;
		}
	}
	return false;
}

/* A location rule "at CFA + n" (DW_OP_call_frame_cfa [, DW_OP_plus_uconst n]). */
static bool uw_at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = n == 2 && ops[1].atom == DW_OP_plus_uconst ? (int64_t)ops[1].number : 0;
	return n == 1 || ops[1].atom == DW_OP_plus_uconst;
}

/* The .plt entries' CFA: rsp + 8 + ((rip & 15) >= K) << 3. */
static bool uw_plt_cfa(const Dwarf_Op *o, size_t n, struct pr_uw_row *r)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[1].atom != DW_OP_breg16 || o[1].number ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and || o[4].atom < DW_OP_lit0 ||
	    o[4].atom > DW_OP_lit31 || o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus || (int64_t)o[0].number != 8)
		return false;
	r->rule = PR_UW_PLT;
	r->cfa_off = 8;
	r->rbp_off = (int8_t)(o[4].atom - DW_OP_lit0);
	return true;
}

static uint8_t uw_cfa_rule(Dwarf_Frame *f, struct pr_uw_row *r)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(f, &ops, &n) || n == 0)
		return PR_UW_UNKNOWN;
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == UW_REG_RSP || ops[0].number == UW_REG_RBP) &&
	    (int64_t)ops[0].number2 >= 8 && (int64_t)ops[0].number2 <= INT16_MAX) {
		r->cfa_off = (int16_t)ops[0].number2;
		return ops[0].number == UW_REG_RSP ? PR_UW_RSP : PR_UW_RBP;
	}
	/* the signal frame's: the sp saved in the ucontext at rsp */
	if (n == 2 && ops[0].atom == DW_OP_breg7 && ops[0].number == PR_UW_SIG_RSP &&
	    ops[1].atom == DW_OP_deref)
		return PR_UW_SIG;
	return uw_plt_cfa(ops, n, r) ? PR_UW_PLT : PR_UW_UNKNOWN;
}

/* The row of frame f; its CFA rule is UNKNOWN where the rules are not
 * ones the BPF unwinder follows. */
static struct pr_uw_row uw_row(Dwarf_Frame *f, uint32_t off)
{
	struct pr_uw_row r = { .off = off };
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t at;
	uint8_t cfa = uw_cfa_rule(f, &r), bp = PR_UW_BP_UNDEF;

	if (cfa == PR_UW_SIG) {   /* every register is read from the ucontext */
		r.rule = cfa;
		return r;
	}
	if (dwarf_frame_register(f, UW_REG_RIP, mem, &ops, &n))
		cfa = PR_UW_UNKNOWN;
	else if (n == 0 && ops == mem)
		cfa = cfa == PR_UW_UNKNOWN ? cfa : PR_UW_END;   /* undefined: outermost */
	else if (!uw_at_cfa(ops, n, &at) || at != -8)
		cfa = PR_UW_UNKNOWN;
	if (cfa == PR_UW_PLT || dwarf_frame_register(f, UW_REG_RBP, mem, &ops, &n))
		bp = cfa == PR_UW_PLT ? PR_UW_BP_SAME : PR_UW_BP_UNDEF;
	else if (n == 0)
		bp = ops ? PR_UW_BP_UNDEF : PR_UW_BP_SAME;
	else if (uw_at_cfa(ops, n, &at) && at >= INT8_MIN && at <= INT8_MAX && at)
		bp = PR_UW_BP_AT, r.rbp_off = (int8_t)at;
	r.rule = (uint8_t)(cfa | bp << 4);
	return r;
}

static bool uw_stopped(const struct uw *u)
{
	return u->stop && __atomic_load_n(u->stop, __ATOMIC_RELAXED);
}

/*
 * How far the start's build is, on stderr, once it has taken more than
 * UW_PROGRESS_MS (the tables of a 100 MB binary take seconds the first
 * time; later runs read them from the cache): on a terminal one line that
 * updates every 100 ms, else a line a second.  final: the last word, only
 * if something was shown.
 */
#define UW_PROGRESS_MS 1000.0
static void uw_progress(struct uw *u, bool final)
{
	double now = uw_now_ms(CLOCK_MONOTONIC);

	if (final ? !u->shown : now - u->t0 < UW_PROGRESS_MS || now < u->next)
		return;
	u->shown = true;
	u->next = now + (u->tty ? 100 : 1000);
	if (final) {
		fprintf(stderr, "%sperf-run: built the unwind tables of %d objects (%.1fM rows) in "
			"%.1f s; later runs read them from the cache\n", u->tty ? "\r\033[K" : "",
			u->nobjs, (double)u->nrows / 1e6, (now - u->t0) / 1e3);
		return;
	}
	const char *base = u->current_name ? strrchr(u->current_name, '/') : NULL;
	fprintf(stderr, "%sperf-run: building the unwind tables of ustack: %d objects, %.1fM rows, "
		"%.1f s%s%s%s", u->tty ? "\r\033[K" : "", u->nobjs, (double)u->nrows / 1e6,
		(now - u->t0) / 1e3, base ? ": " : "", base ? base + 1 : "", u->tty ? "" : "\n");
	fflush(stderr);
}

/* " (N FDEs cut ...)" for -v, or "" */
static const char *uw_cut_note(char *buf, size_t size, int cut)
{
	if (!cut)
		return "";
	snprintf(buf, size, " (%d FDE%s cut at %d rows: stacks through their later code end there)",
		 cut, cut == 1 ? "" : "s", UW_FDE_MAX_ROWS);
	return buf;
}

/* Rows of [start, end) (vaddrs), at most UW_FDE_MAX_ROWS of them, then an
 * UNKNOWN row at end (replaced by the next FDE's first row where one
 * starts there).  -1 with EINTR once u->stop is set. */
static int uw_fde_rows(struct uw *u, const struct uw_elf *e, Dwarf_CFI *cfi,
		       uint64_t start, uint64_t end)
{
	uint32_t off;
	int taken = 0;

	for (uint64_t a = start; a < end; taken++) {
		Dwarf_Frame *f;
		Dwarf_Addr s, en;
		bool sig;

		if (!uw_offset(e, a, &off))
			return 0;
		if (uw_stopped(u))
			return errno = EINTR, -1;
		if (u->progress && !(++u->tick & 1023))
			uw_progress(u, false);
		if (taken == UW_FDE_MAX_ROWS) {
			u->cut++;
			if (uw_push(u, &(struct pr_uw_row){ .off = off, .rule = PR_UW_UNKNOWN }))
				return -1;
			break;
		}
		if (dwarf_cfi_addrframe(cfi, a, &f))
			break;
		dwarf_frame_info(f, &s, &en, &sig);
		struct pr_uw_row r = uw_row(f, off);
		free(f);
		if (sig && r.rule != PR_UW_SIG)
			r.rule = PR_UW_UNKNOWN;   /* a signal frame of another layout */
		if (uw_push(u, &r))
			return -1;
		if (en <= a)
			break;
		a = en;
	}
	if (!uw_offset(e, end, &off) && !uw_offset(e, end - 1, &off))
		return 0;
	if (!uw_offset(e, end, &off))
		off++;
	return uw_push(u, &(struct pr_uw_row){ .off = off, .rule = PR_UW_UNKNOWN });
}

/* An encoded pointer of .eh_frame (the DW_EH_PE_* forms compilers emit);
 * false for others. */
static bool uw_read_ptr(uint8_t enc, const uint8_t *p, uint64_t here, uint64_t *v, int *size)
{
	int64_t x;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
		memcpy(&x, p, 8); *size = 8; break;
	case DW_EH_PE_udata4: { uint32_t y; memcpy(&y, p, 4); x = y; *size = 4; break; }
	case DW_EH_PE_sdata4: { int32_t y; memcpy(&y, p, 4); x = y; *size = 4; break; }
	case DW_EH_PE_udata2: { uint16_t y; memcpy(&y, p, 2); x = y; *size = 2; break; }
	case DW_EH_PE_sdata2: { int16_t y; memcpy(&y, p, 2); x = y; *size = 2; break; }
	default: return false;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		x += (int64_t)here;
	else if ((enc & 0x70) != DW_EH_PE_absptr)
		return false;
	*v = (uint64_t)x;
	return true;
}

/* The FDE pointer encoding of a CIE: its 'R' augmentation, else absptr. */
static int uw_fde_encoding(const Dwarf_CIE *c)
{
	const uint8_t *d = c->augmentation_data;
	size_t i = 0, n = c->augmentation_data_size;
	int size;
	uint64_t v;

	if (!c->augmentation || c->augmentation[0] != 'z')
		return c->augmentation && *c->augmentation ? -1 : DW_EH_PE_absptr;
	for (const char *a = c->augmentation + 1; *a; a++) {
		if (*a == 'R')
			return i < n ? d[i] : -1;
		if (*a == 'L')
			i++;
		else if (*a == 'P') {
			if (i >= n || !uw_read_ptr(d[i] & 0x0f, d + i + 1, 0, &v, &size))
				return -1;
			i += 1 + (size_t)size;
		} else if (*a != 'S' && *a != 'B') {
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

struct uw_cie { Dwarf_Off off; int enc; };

static int uw_cie_enc(const struct uw_cie *c, int n, Dwarf_Off off)
{
	for (int i = n - 1; i >= 0; i--)
		if (c[i].off == off)
			return c[i].enc;
	return -1;
}

/* Every FDE of .eh_frame, walked with libdw. */
static int uw_eh_frame(struct uw *u, const struct uw_elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *s = elfsym_section(e->elf, ".eh_frame", &sh);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;
	/* a section of type NOBITS has a size and no bytes (d_buf NULL) */
	Dwarf_CFI *cfi = d && d->d_buf ? dwarf_getcfi_elf(e->elf) : NULL;
	const unsigned char *ident = (const unsigned char *)elf_getident(e->elf, NULL);
	struct uw_cie *cies = NULL;
	int ncie = 0, rc = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry ent;

	if (!cfi || !ident)
		return 0;
	for (; rc == 0 && dwarf_next_cfi(ident, d, true, off, &next, &ent) == 0; off = next) {
		if (ent.CIE_id == DW_CIE_ID_64) {
			struct uw_cie *v = realloc(cies, (size_t)(ncie + 1) * sizeof(*v));
			if (!v) { rc = -1; break; }
			cies = v;
			cies[ncie++] = (struct uw_cie){ off, uw_fde_encoding(&ent.cie) };
			continue;
		}
		int enc = uw_cie_enc(cies, ncie, ent.fde.CIE_pointer), size;
		const uint8_t *p = ent.fde.start;
		uint64_t start, len;
		if (enc < 0 || p + 16 > (const uint8_t *)d->d_buf + d->d_size ||
		    !uw_read_ptr((uint8_t)enc, p, sh.sh_addr + (uint64_t)(p - (const uint8_t *)d->d_buf),
				 &start, &size) ||
		    !uw_read_ptr((uint8_t)(enc & 0x0f), p + size, 0, &len, &size) || !len)
			continue;
		rc = uw_fde_rows(u, e, cfi, start, start + len);
	}
	free(cies);
	dwarf_cfi_end(cfi);
	return rc;
}

static int uw_row_cmp(const void *a, const void *b)
{
	const struct pr_uw_row *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* at one offset, an FDE's own row before the UNKNOWN that ended the
	 * previous FDE there; then keep their order */
	return (x->rule == PR_UW_UNKNOWN) - (y->rule == PR_UW_UNKNOWN);
}

/* Sorts rows [lo, nrows), keeps one per offset (the first in sort order)
 * and drops a row that repeats the one before it.  The offset of a row
 * dropped as a repeat is still taken: the UNKNOWN that ended the previous
 * FDE there must not stand in its place (a leaf FDE after a leaf FDE,
 * both CFA = rsp + 8, ended every stack in the second one). */
static void uw_sort(struct uw *u, size_t lo)
{
	size_t n = lo;
	bool any = false;
	uint32_t last = 0;

	/* no rows (an .eh_frame that yields none): u->rows may still be NULL,
	 * which qsort must not be given even for zero elements */
	if (u->nrows <= lo)
		return;
	qsort(u->rows + lo, u->nrows - lo, sizeof(*u->rows), uw_row_cmp);
	for (size_t i = lo; i < u->nrows; i++) {
		const struct pr_uw_row *r = &u->rows[i];
		if (any && r->off == last)
			continue;
		any = true;
		last = r->off;
		if (n > lo && u->rows[n - 1].rule == r->rule && u->rows[n - 1].cfa_off == r->cfa_off &&
		    u->rows[n - 1].rbp_off == r->rbp_off)
			continue;
		u->rows[n++] = *r;
	}
	u->nrows = n;
}

/* fd, or the image at mem (size bytes) when fd < 0. */
static int uw_elf_open(struct uw_elf *e, int fd, char *mem, size_t size)
{
	size_t n;

	memset(e, 0, sizeof(*e));
	e->elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : elf_memory(mem, size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || elf_getphdrnum(e->elf, &n))
		return -1;
	e->load = calloc(n + 1, sizeof(*e->load));
	if (!e->load)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			e->load[e->nload++] = ph;
	}
	return 0;
}

static void uw_elf_close(struct uw_elf *e)
{
	free(e->load);
	if (e->elf)
		elf_end(e->elf);
}

static bool uw_known(const struct uw *u, const struct pr_uw_key *k)
{
	for (int i = 0; i < u->nobjs; i++)
		if (u->objs[i].key.dev == k->dev && u->objs[i].key.ino == k->ino)
			return true;
	return false;
}

/* The libraries an ELF names (DT_NEEDED) and its interpreter, resolved as
 * ld.so would, appended to *list. */
static void uw_needed(Elf *elf, pid_t pid, char ***list, int *n)
{
	Elf_Scn *s = NULL;
	GElf_Shdr sh;

	while ((s = elf_nextscn(elf, s))) {
		Elf_Data *d;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 16); i++) {
			GElf_Dyn dyn;
			const char *name;
			char *path;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED ||
			    !(name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) ||
			    !(path = elfsym_find_binary(name, pid)))
				continue;
			char **v = realloc(*list, (size_t)(*n + 1) * sizeof(*v));
			if (!v) { free(path); return; }
			*list = v;
			(*list)[(*n)++] = path;
		}
	}
	size_t np;
	if (elf_getphdrnum(elf, &np))
		return;
	for (size_t i = 0; i < np; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP ||
		    !(d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE)))
			continue;
		char **v = realloc(*list, (size_t)(*n + 1) * sizeof(*v));
		if (!v || !(v[*n] = strndup(d->d_buf, d->d_size))) {
			if (v) *list = v;
			return;
		}
		*list = v;
		(*n)++;
	}
}

/* A hash of a section's bytes, into h (unchanged if the ELF has no such
 * section): FNV-1a's step over 8-byte words, each step folding the high
 * half back in, then the tail byte by byte.  Not a cryptographic hash
 * (see uw_cacheable); fast enough that a cache hit of perf-run's own
 * tables (3.8 MB of .eh_frame and its index, 700,000 rows) still takes
 * 8.5 ms in all, where building them takes 180 ms. */
static uint64_t uw_section_hash(Elf *elf, const char *name, uint64_t h)
{
	GElf_Shdr sh;
	Elf_Scn *s = elfsym_section(elf, name, &sh);
	Elf_Data *d = s && sh.sh_type != SHT_NOBITS ? elf_rawdata(s, NULL) : NULL;

	if (!d || !d->d_buf)
		return h;
	const unsigned char *p = d->d_buf;
	size_t i = 0;
	for (; i + 8 <= d->d_size; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 32;
	}
	for (; i < d->d_size; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ^ d->d_size;
}

/*
 * The object cache's key of an object's rows.  With a build-id, the
 * build-id, so that the same library at another path, a copy or a
 * reinstall reuses them; with the executable segments' layout and
 * .eh_frame's place and size beside it, since the rows hold file offsets
 * and a file rewritten after linking (objcopy) can keep its build-id; and
 * a hash of the bytes of .eh_frame and .eh_frame_hdr, since a build-id is
 * only a claim: a copy with doctored CFI and the same build-id must not
 * leave its rows for the original (review item N4).  Without one, the
 * file's identity (path, device, inode, size, change time).  NULL if out
 * of memory.
 */
static char *uw_rows_key(const char *path, const struct stat *st, const struct uw_elf *e)
{
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(e->elf, (const void **)&id);
	char *key = NULL;
	size_t len = 0;
	FILE *f;

	if (n <= 0) {
		if (asprintf(&key, "perf-run unwind rows 4\n%s\n%llu %llu %lld %lld.%09ld\n", path,
			     (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
			     (long long)st->st_size, (long long)st->st_ctim.tv_sec,
			     st->st_ctim.tv_nsec) < 0)
			return NULL;
		return key;
	}
	if (!(f = open_memstream(&key, &len)))
		return NULL;
	fputs("perf-run unwind rows 4\nbuild-id ", f);
	for (ssize_t i = 0; i < n; i++)
		fprintf(f, "%02x", id[i]);
	for (int i = 0; i < e->nload; i++)
		fprintf(f, "\nload %llx %llx %llx", (unsigned long long)e->load[i].p_offset,
			(unsigned long long)e->load[i].p_vaddr, (unsigned long long)e->load[i].p_filesz);
	GElf_Shdr sh;
	if (elfsym_section(e->elf, ".eh_frame", &sh))
		fprintf(f, "\neh_frame %llx %llx %llx", (unsigned long long)sh.sh_addr,
			(unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size);
	uint64_t h = uw_section_hash(e->elf, ".eh_frame", 0xcbf29ce484222325ULL);
	fprintf(f, "\ncfi-hash %016llx", (unsigned long long)uw_section_hash(e->elf, ".eh_frame_hdr", h));
	fputc('\n', f);
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

/*
 * Whether rows built from the file st describes may go into the cache,
 * where later runs (root's) take them as the rows of any file with the
 * same key: only if the file is owned by root or by the effective user and
 * no one else may write it.  Another user's file (a copy of libc that
 * process maps, seen by a system-wide profile) is read for this run only;
 * its bytes are not ours to vouch for, and a 64-bit hash in the key can be
 * matched on purpose.
 */
static bool uw_cacheable(const struct stat *st)
{
	char why[64];

	return sf_trusted(st, 0, why, sizeof(why));   /* safefile.h's one rule */
}

/*
 * An object's rows, from the object cache when the same object (by
 * build-id and CFI bytes, else this very file) was read before: libc's
 * 28000 rows take 10-50 ms to build.  *cached tells which.
 */
static int uw_cached_rows(struct uw *u, const char *path, const struct stat *st,
			  const struct uw_elf *e, bool *cached)
{
	char *key = uw_rows_key(path, st, e);
	void *v = NULL;
	size_t n = 0, lo = u->nrows;
	int rc;

	*cached = false;
	if (key && !objcache_get(key, &v, &n) && n % sizeof(*u->rows) == 0) {
		/* in one copy: libLLVM's 1.2 million rows took 10 ms row by row */
		rc = uw_reserve(u, n / sizeof(*u->rows));
		if (!rc && n) {
			memcpy(u->rows + u->nrows, v, n);
			u->nrows += n / sizeof(*u->rows);
		}
		free(v);
		free(key);
		*cached = !rc;
		return rc;
	}
	free(v);
	rc = uw_eh_frame(u, e);
	uw_sort(u, lo);
	if (!rc && key && uw_cacheable(st))
		objcache_put(key, u->rows + lo, (u->nrows - lo) * sizeof(*u->rows));
	free(key);
	return rc;
}

/* The object at key, whose rows are [lo, nrows). */
static int uw_add(struct uw *u, const char *path, const struct pr_uw_key *k, size_t lo)
{
	struct uw_objent *v = realloc(u->objs, (size_t)(u->nobjs + 1) * sizeof(*v));
	char *name;

	if (!v)
		return -1;
	u->objs = v;
	if (!(name = strdup(path)))
		return -1;
	u->objs[u->nobjs] = (struct uw_objent){ name, *k, { (uint32_t)lo, (uint32_t)u->nrows,
							     (uint32_t)u->nobjs + 1, 0 } };
	u->nobjs++;
	return 0;
}

/* The name path shows: a /proc/PID/map_files link's target, or path. */
static const char *uw_name(const char *path, char *buf, size_t size)
{
	ssize_t n;

	if (strncmp(path, "/proc/", 6) || !strstr(path, "/map_files/") ||
	    (n = readlink(path, buf, size - 1)) <= 0)
		return path;
	buf[n] = 0;
	return buf;
}

/* An object's key as the BPF side makes it from the file's inode. */
static struct pr_uw_key uw_key(const struct uw *u, const struct stat *st)
{
	uint64_t gen = u->ctime ? PR_UW_CTIME_GEN(st->st_ctim.tv_sec, st->st_ctim.tv_nsec) : 0;

	return (struct pr_uw_key){ ((uint64_t)major(st->st_dev) << 20) | minor(st->st_dev) |
				   gen << 32, st->st_ino };
}

/* One object: its rows and the libraries it needs (into *more). */
static int uw_object(struct uw *u, const char *path, pid_t pid, char ***more, int *nmore,
		     int verbose)
{
	char buf[4096];
	const char *name = uw_name(path, buf, sizeof(buf));
	struct stat st;
	struct uw_elf e;
	/* a DT_NEEDED name or a mapping's file is the traced program's
	 * choice: only a regular file is opened (a FIFO would hang us, a
	 * device's open has effects) */
	int fd = sf_open_regular(path, &st), rc = 0;

	if (fd < 0)
		return 0;
	struct pr_uw_key k = uw_key(u, &st);
	if (uw_known(u, &k) || u->nobjs >= PR_UW_MAX_OBJS) {
		close(fd);
		return 0;
	}
	if (uw_elf_open(&e, fd, NULL, 0)) {
		uw_elf_close(&e);
		close(fd);
		return 0;
	}
	size_t lo = u->nrows;
	int cut = u->cut;
	bool cached;
	u->current_name = name;
	rc = uw_cached_rows(u, name, &st, &e, &cached);
	u->current_name = NULL;
	uw_needed(e.elf, pid, more, nmore);
	uw_elf_close(&e);
	close(fd);
	if (rc)
		return rc;
	/* without rows too: known as an object whose frame pointers are
	 * followed, rather than asked for when first seen */
	if (uw_add(u, name, &k, lo))
		return -1;
	if (u->progress)
		uw_progress(u, false);
	char note[128];
	if (verbose > 0)
		fprintf(stderr, "perf-run: unwind: %s: %zu rows%s%s\n", name, u->nrows - lo,
			cached ? " (from the cache)" : "", uw_cut_note(note, sizeof(note), u->cut - cut));
	return 0;
}

/*
 * The vDSO: the kernel maps the same image into every process, so ours
 * (AT_SYSINFO_EHDR) gives the rows of all of them; it ends with its
 * section headers.  The BPF side knows it as the mapping at mm's
 * context.vdso, key PR_UW_VDSO.
 */
static void uw_vdso(struct uw *u, int verbose)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct uw_elf e;

	if (!h || memcmp(h->e_ident, ELFMAG, SELFMAG) || u->nobjs >= PR_UW_MAX_OBJS)
		return;
	size_t size = h->e_shoff + (size_t)h->e_shnum * h->e_shentsize;
	char *copy = size <= (1u << 20) ? malloc(size) : NULL;
	if (!copy)
		return;
	memcpy(copy, h, size);
	size_t lo = u->nrows;
	if (!uw_elf_open(&e, -1, copy, size) && !uw_eh_frame(u, &e)) {
		uw_sort(u, lo);
		struct uw_objent *v = realloc(u->objs, (size_t)(u->nobjs + 1) * sizeof(*v));
		char *name = strdup("[vdso]");
		if (v && name && u->nrows > lo) {
			u->objs = v;
			u->objs[u->nobjs] = (struct uw_objent){ name,
				{ PR_UW_VDSO_DEV, PR_UW_VDSO_INO },
				{ (uint32_t)lo, (uint32_t)u->nrows, (uint32_t)u->nobjs + 1, 0 } };
			u->nobjs++;
			if (verbose > 0)
				fprintf(stderr, "perf-run: unwind: [vdso]: %zu rows\n", u->nrows - lo);
		} else {
			if (v)
				u->objs = v;
			free(name);
			u->nrows = lo;
		}
	}
	uw_elf_close(&e);
	free(copy);
}

/* The file of the mapping m names, through /proc/PID/map_files (which
 * opens it even if deleted or in another mount namespace); its path into
 * name.  -1 once the process has gone. */
static int uw_open_mapping(const struct pr_uw_miss *m, char *name, size_t size)
{
	char link[128];

	snprintf(link, sizeof(link), "/proc/%llu/map_files/%llx-%llx", (unsigned long long)m->tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	ssize_t n = readlink(link, name, size - 1);
	if (n <= 0)
		return -1;
	name[n] = 0;
	struct stat st;
	return sf_open_regular(link, &st);   /* never a device the process mapped */
}

/* Whether an object is loaded, or waiting for the loader; under lock. */
static bool uw_pending(const struct uw *u, const struct pr_uw_key *k)
{
	if (u->current && u->current->key.dev == k->dev && u->current->key.ino == k->ino)
		return true;
	for (const struct uw_job *j = u->jobs; j; j = j->next)
		if (j->key.dev == k->dev && j->key.ino == k->ino)
			return true;
	return false;
}

/* One more chunk, mapped and in the array of chunks; -1 if none. */
static int uw_add_chunk(struct uw *u)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	uint32_t key = (uint32_t)u->nchunks;
	char name[16];

	snprintf(name, sizeof(name), "uw_chunk%u", key);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, 4, sizeof(struct pr_uw_row),
				PR_UW_CHUNK_ROWS, &o);
	if (fd < 0)
		return -1;
	void *m = mmap(NULL, UW_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int rc = m == MAP_FAILED || bpf_map_update_elem(u->chunks_fd, &key, &fd, BPF_ANY) ? -1 : 0;
	close(fd);   /* the array and the mapping keep the map */
	if (rc) {
		if (m != MAP_FAILED)
			munmap(m, UW_CHUNK_BYTES);
		return -1;
	}
	u->chunk[u->nchunks++] = m;
	return 0;
}

/* Chunks enough for rows [0, end) of theirs, within the room left; -1
 * (none added) if the room or the array's slots are short. */
static int uw_chunks_cover(struct uw *u, size_t end)
{
	size_t want = (end + PR_UW_CHUNK_ROWS - 1) / PR_UW_CHUNK_ROWS, had = (size_t)u->nchunks;

	if (want <= had)
		return 0;
	if (u->chunks_fd < 0 || want > PR_UW_NCHUNKS || (want - had) * PR_UW_CHUNK_ROWS > u->room)
		return -1;
	while ((size_t)u->nchunks < want)
		if (uw_add_chunk(u))
			return -1;
	u->room -= (want - had) * PR_UW_CHUNK_ROWS;
	__atomic_store_n(&u->grown, u->grown + (want - had) * PR_UW_CHUNK_ROWS,
			 __ATOMIC_RELAXED);   /* uw_report reads it */
	if (u->verbose > 0)
		fprintf(stderr, "perf-run: unwind: room for %zu more rows (%zu KB): %d chunks of %u "
			"rows in all\n", (want - had) * PR_UW_CHUNK_ROWS,
			(want - had) * UW_CHUNK_BYTES / 1024, u->nchunks, PR_UW_CHUNK_ROWS);
	return 0;
}

/* Puts n rows where the BPF side reads them: the start's rows map if it
 * has room, else the chunks (*chunked), from *lo; -1 if the room is used
 * up.  Under lock. */
static int uw_place(struct uw *u, const struct pr_uw_row *rows, size_t n, uint32_t *chunked,
		    size_t *lo)
{
	*chunked = 0;
	*lo = u->nrows;
	if (u->nrows + n <= u->map_rows) {
		memcpy(u->map + u->nrows, rows, n * sizeof(*rows));
		u->nrows += n;   /* u->rows itself keeps only the start-up rows */
		return 0;
	}
	*chunked = 1;
	*lo = u->chunk_next;
	if (u->chunk_next + n > UW_MAP_MAX_ROWS || uw_chunks_cover(u, u->chunk_next + n))
		return -1;
	for (size_t i = 0; i < n;) {   /* an object's rows may span chunks */
		size_t at = u->chunk_next + i, off = at % PR_UW_CHUNK_ROWS;
		size_t k = n - i < PR_UW_CHUNK_ROWS - off ? n - i : PR_UW_CHUNK_ROWS - off;
		memcpy(u->chunk[at / PR_UW_CHUNK_ROWS] + off, rows + i, k * sizeof(*rows));
		i += k;
	}
	u->chunk_next += n;
	return 0;
}

/* The rows of a late object (w's) into room for them, then its entry,
 * which later stacks find. */
static void uw_install(struct uw *u, const struct uw_job *j, const struct uw *w, bool cached)
{
	pthread_mutex_lock(&u->lock);
	uint32_t chunked;
	size_t lo;
	struct pr_uw_obj ob = { 1, 0, 0, 0 };
	if (uw_place(u, w->rows, w->nrows, &chunked, &lo) == 0)
		ob = (struct pr_uw_obj){ (uint32_t)lo, (uint32_t)(lo + w->nrows), 0, chunked };
	else
		__atomic_fetch_add(&u->noroom, 1, __ATOMIC_RELAXED);
	int added = uw_add(u, j->name, &j->key, lo);
	if (added == 0) {
		ob.tag = u->objs[u->nobjs - 1].obj.tag;
		u->objs[u->nobjs - 1].obj = ob;
		/* the rows are in place before the entry that leads to them */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (bpf_map_update_elem(u->objs_fd, &j->key, &ob, BPF_ANY) == 0)
			bpf_map_delete_elem(u->seen_fd, &j->key);
		__atomic_fetch_add(&u->late, 1, __ATOMIC_RELAXED);
		u->late_ms += uw_now_ms(CLOCK_MONOTONIC) - j->t0;
	}
	pthread_mutex_unlock(&u->lock);
	char note[128];
	if (added == 0 && u->verbose > 0)
		fprintf(stderr, "perf-run: unwind: %s: %u rows%s, loaded at run time for pid %llu "
			"in %.1f ms%s%s\n", j->name, ob.hi > ob.lo ? ob.hi - ob.lo : 0,
			cached ? " (from the cache)" : "", (unsigned long long)j->tgid,
			uw_now_ms(CLOCK_MONOTONIC) - j->t0, ob.lo > ob.hi ? " (no room: not loaded)" : "",
			uw_cut_note(note, sizeof(note), w->cut));
}

/* Builds (or reads from the cache) the rows of a late object and installs
 * them; not an ELF file, or one without CFI: known, with no rows.  Given
 * up, installing nothing, once uw_free has set u->stopping. */
static void uw_late_load(struct uw *u, struct uw_job *j)
{
	struct uw w = { .stop = &u->stopping };
	struct uw_elf e;
	bool cached = false;
	int rc = -1;

	if (!uw_elf_open(&e, j->fd, NULL, 0))
		rc = uw_cached_rows(&w, j->name, &j->st, &e, &cached);
	uw_elf_close(&e);
	close(j->fd);
	j->fd = -1;
	if (!uw_stopped(&w)) {
		if (rc)
			w.nrows = 0;
		uw_install(u, j, &w, cached);
	}
	free(w.rows);
}

/* The loader thread: the jobs in the order they came. */
static void *uw_loader(void *arg)
{
	struct uw *u = arg;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		while (!u->stopping && !u->jobs)
			pthread_cond_wait(&u->wake, &u->lock);
		if (u->stopping)
			break;
		struct uw_job *j = u->current = u->jobs;
		u->jobs = j->next;
		u->njobs--;
		pthread_mutex_unlock(&u->lock);
		uw_late_load(u, j);
		pthread_mutex_lock(&u->lock);
		u->current = NULL;
		free(j);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* Hands j to the loader (started at the first job); false if it cannot
 * take it (queue full, no thread). */
static bool uw_enqueue(struct uw *u, struct uw_job *j)
{
	bool ok = true;

	pthread_mutex_lock(&u->lock);
	if (!u->loader_on)
		u->loader_on = ok = pthread_create(&u->loader, NULL, uw_loader, u) == 0;
	if (ok && u->njobs >= UW_MAX_JOBS)
		ok = false;
	if (ok) {
		struct uw_job **t = &u->jobs;
		while (*t)
			t = &(*t)->next;
		*t = j;
		u->njobs++;
		pthread_cond_signal(&u->wake);
	}
	pthread_mutex_unlock(&u->lock);
	return ok;
}

/*
 * The ring's record of an object the BPF side found without an entry (a
 * library dlopen'd, a process that started after us): its file is opened
 * here, while the process still maps it, and its rows are built by the
 * loader thread (uw_loader), since a big .eh_frame takes seconds and the
 * event loop must go on meanwhile (exit(), Ctrl-C, the output).  A process
 * gone before it was read is forgotten (uw_seen), so that the next one to
 * run the object asks again.
 */
static int uw_on_miss(void *ctx, void *data, size_t size)
{
	struct uw *u = ctx;
	struct pr_uw_miss m;
	struct pr_uw_key k;
	char name[4096];
	int fd = -1;

	if (size < sizeof(m))
		return 0;
	memcpy(&m, data, sizeof(m));
	k = (struct pr_uw_key){ m.dev, m.ino };
	pthread_mutex_lock(&u->lock);
	bool known = uw_known(u, &k), pending = !known && uw_pending(u, &k);
	pthread_mutex_unlock(&u->lock);
	if (pending)
		return 0;
	struct uw_job *j = NULL;
	if (!known && (fd = uw_open_mapping(&m, name, sizeof(name))) >= 0 &&
	    (j = malloc(sizeof(*j) + strlen(name) + 1)) && !fstat(fd, &j->st)) {
		j->next = NULL;
		j->fd = fd;
		j->key = k;
		j->tgid = m.tgid;
		j->t0 = uw_now_ms(CLOCK_MONOTONIC);
		strcpy(j->name, name);
		if (uw_enqueue(u, j))
			return 0;
		if (!u->loader_on) {   /* no thread: built here, as before */
			uw_late_load(u, j);
			free(j);
			return 0;
		}
	} else if (!known) {
		__atomic_fetch_add(&u->late_failed, 1, __ATOMIC_RELAXED);
	}
	if (fd >= 0)
		close(fd);
	free(j);
	bpf_map_delete_elem(u->seen_fd, &k);
	return 0;
}

/* The executable file mappings of a running process, as the links of
 * /proc/PID/map_files: each opens the mapped file itself, where the path
 * that maps prints may have been replaced since (" (deleted)"), may hold
 * a space or a newline, or may lie in another mount namespace. */
static void uw_proc_maps(pid_t pid, char ***list, int *n)
{
	char fn[64], line[4352], perm[8];
	unsigned long long lo, hi;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");

	while (f && fgets(line, sizeof(line), f)) {
		/* only file mappings have a path, and so a map_files link */
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3 || perm[2] != 'x' ||
		    !strchr(line, '/'))
			continue;
		char **v = realloc(*list, (size_t)(*n + 1) * sizeof(*v));
		if (!v || asprintf(&v[*n], "/proc/%d/map_files/%llx-%llx", (int)pid, lo, hi) < 0) {
			if (v) *list = v;
			break;
		}
		*list = v;
		(*n)++;
	}
	if (f)
		fclose(f);
}

static void uw_roots(const struct program *p, pid_t pid, const char *child_path,
		     char ***list, int *n)
{
	for (int i = 0; i < p->nprobes; i++) {
		const struct probe *pr = p->probes[i];
		if ((pr->kind == PK_UPROBE || pr->kind == PK_URETPROBE || pr->kind == PK_USDT) &&
		    pr->path) {
			char **v = realloc(*list, (size_t)(*n + 1) * sizeof(*v));
			if (!v || !(v[*n] = strdup(pr->path))) {
				if (v) *list = v;
				return;
			}
			*list = v;
			(*n)++;
		}
	}
	if (child_path) {
		char **v = realloc(*list, (size_t)(*n + 1) * sizeof(*v));
		if (v && (v[*n] = strdup(child_path)))
			(*n)++;
		if (v)
			*list = v;
	}
	if (pid > 0 && !child_path)
		uw_proc_maps(pid, list, n);
}

/* Ends the loader: a build in progress gives up at its next row. */
static void uw_stop_loader(struct uw *u)
{
	pthread_mutex_lock(&u->lock);
	__atomic_store_n(&u->stopping, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	if (u->loader_on)
		pthread_join(u->loader, NULL);
	u->loader_on = false;
	while (u->jobs) {
		struct uw_job *j = u->jobs;
		u->jobs = j->next;
		close(j->fd);
		free(j);
	}
}

void uw_free(struct uw *u)
{
	if (!u)
		return;
	uw_stop_loader(u);
	if (u->objs_fd >= 0)
		close(u->objs_fd);
	if (u->seen_fd >= 0)
		close(u->seen_fd);
	for (int i = 0; i < u->nchunks; i++)
		munmap(u->chunk[i], UW_CHUNK_BYTES);
	if (u->chunks_fd >= 0)
		close(u->chunks_fd);
	if (u->inner_fd >= 0)
		close(u->inner_fd);
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	ring_buffer__free(u->rb);
	if (u->map)
		munmap(u->map, u->map_rows * sizeof(*u->rows));
	for (int i = 0; i < u->nobjs; i++)
		free(u->objs[i].path);
	free(u->objs);
	free(u->rows);
	free(u);
}

/* The template of the chunks added at run time, which the array of them
 * is created with: every chunk has its size, so that the verifier inlines
 * their lookups. */
int uw_chunks_template(struct bpf_object *obj, int *fd)
{
	struct bpf_map *chunks = bpf_object__find_map_by_name(obj, PR_UW_CHUNKS_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);

	*fd = -1;
	if (!chunks)
		return 0;
	*fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_chunk_tmpl", 4,
			     sizeof(struct pr_uw_row), PR_UW_CHUNK_ROWS, &o);
	if (*fd < 0)
		return -1;
	return bpf_map__set_inner_map_fd(chunks, *fd) ? -1 : 0;
}

struct uw *uw_build(const struct program *p, struct bpf_object *obj, pid_t pid,
		    const char *child_path, int verbose, bool progress)
{
	struct bpf_map *rows = p->uw_rows_name ? bpf_object__find_map_by_name(obj, p->uw_rows_name)
					       : NULL;
	struct uw *u;
	char **list = NULL;
	int n = 0;
	double t0 = uw_now_ms(CLOCK_MONOTONIC), c0 = uw_now_ms(CLOCK_PROCESS_CPUTIME_ID);

	if (!rows || !(u = calloc(1, sizeof(*u))))
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->wake, NULL);
	u->objs_fd = u->seen_fd = u->notes_fd = u->chunks_fd = u->inner_fd = -1;
	u->ctime = p->uw_ctime;
	u->progress = progress && verbose <= 0;   /* -v names each object as it comes */
	u->tty = isatty(STDERR_FILENO);
	u->t0 = t0;
	elf_version(EV_CURRENT);
	uw_roots(p, pid, child_path, &list, &n);
	/* the list grows with each object's libraries: a breadth-first walk */
	for (int i = 0; i < n; i++)
		if (uw_object(u, list[i], pid, &list, &n, verbose))
			break;
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	uw_vdso(u, verbose);
	if (u->progress)
		uw_progress(u, true);
	u->build_ms = uw_now_ms(CLOCK_MONOTONIC) - t0;
	if (verbose > 0)
		fprintf(stderr, "perf-run: unwind: %d objects, %zu rows (%zu KB) in %.1f ms "
			"(%.1f ms of CPU)\n", u->nobjs, u->nrows, u->nrows * sizeof(*u->rows) / 1024,
			u->build_ms, uw_now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
	/* an empty array cannot be created: one UNKNOWN row */
	if (!u->nrows && uw_push(u, &(struct pr_uw_row){ 0 })) {
		uw_free(u);
		return NULL;
	}
	const char *hr = getenv("PERF_RUN_USTACK_ROWS");
	u->room = hr && *hr ? strtoul(hr, NULL, 10) : UW_ROOM_ROWS;
	size_t head = u->room < UW_HEADROOM_ROWS ? u->room : UW_HEADROOM_ROWS;
	if (head > UW_MAP_MAX_ROWS - u->nrows)
		head = UW_MAP_MAX_ROWS - u->nrows;
	u->room -= head;
	u->map_rows = u->nrows + head;
	u->verbose = verbose;
	bpf_map__set_max_entries(rows, (uint32_t)u->map_rows);
	bpf_map__set_map_flags(rows, bpf_map__map_flags(rows) | BPF_F_MMAPABLE);
	if (uw_chunks_template(obj, &u->inner_fd)) {
		uw_free(u);
		return NULL;
	}
	return u;
}

static int uw_map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
	return m ? bpf_map__fd(m) : -1;
}

static int uw_dup(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

int uw_fill(struct uw *u, const struct program *p, struct bpf_object *obj)
{
	struct bpf_map *rows = bpf_object__find_map_by_name(obj, p->uw_rows_name);
	size_t len = u->map_rows * sizeof(*u->rows);

	/* dups, since the loader may still use them after run.c has closed
	 * the object (its fds, whose numbers could then name other files) */
	u->objs_fd = uw_dup(uw_map_fd(obj, p->uw_objs_name));
	u->seen_fd = uw_dup(uw_map_fd(obj, "uw_seen"));
	u->chunks_fd = uw_dup(uw_map_fd(obj, PR_UW_CHUNKS_MAP));
	if (u->inner_fd >= 0) {   /* the array of chunks is made: its template's 512 KB go */
		close(u->inner_fd);
		u->inner_fd = -1;
	}
	u->notes_fd = uw_map_fd(obj, "uw_notes");
	if (!rows || u->objs_fd < 0)
		return errno = ENOENT, -1;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(rows), 0);
	if (m == MAP_FAILED)
		return -1;
	u->map = m;
	memcpy(m, u->rows, u->nrows * sizeof(*u->rows));
	for (int i = 0; i < u->nobjs; i++)
		if (bpf_map_update_elem(u->objs_fd, &u->objs[i].key, &u->objs[i].obj, BPF_ANY))
			return -1;
	int q = uw_map_fd(obj, "uw_missq");
	if (q >= 0 && !(u->rb = ring_buffer__new(q, uw_on_miss, u, NULL)))
		return -1;
	return 0;
}

int uw_poll_fd(const struct uw *u)
{
	return u && u->rb ? ring_buffer__epoll_fd(u->rb) : -1;
}

void uw_poll(struct uw *u)
{
	if (u && u->rb)
		ring_buffer__consume(u->rb);
}

void uw_report(const struct uw *u)
{
	uint64_t n[PR_UW_NNOTES] = { 0 };

	if (!u || u->notes_fd < 0)
		return;
	int late = __atomic_load_n(&u->late, __ATOMIC_RELAXED);
	int noroom = __atomic_load_n(&u->noroom, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < PR_UW_NNOTES; i++)
		bpf_map_lookup_elem(u->notes_fd, &i, &n[i]);
	if (n[PR_UW_NOTE_LOADING])
		fprintf(stderr, "perf-run: %llu user stack%s at [unknown: unwind tables loading]: "
			"%s an object first seen during the run before its tables were loaded "
			"(%d object%s loaded at run time)\n",
			(unsigned long long)n[PR_UW_NOTE_LOADING],
			n[PR_UW_NOTE_LOADING] == 1 ? " ends" : "s end",
			n[PR_UW_NOTE_LOADING] == 1 ? "it reached" : "they reached",
			late, late == 1 ? "" : "s");
	if (n[PR_UW_NOTE_BUSY])
		fprintf(stderr, "perf-run: %llu user stack%s at [unknown: mapping not cached yet]: "
			"the kernel could not look the mapping up without waiting (bpf_find_vma: "
			"the process's memory map was locked by another of its threads mapping "
			"memory or faulting pages in, or, in an interrupt, the CPU's one lookup "
			"was taken), and the process's mappings were not cached yet (its first "
			"hits, or the first after it mapped or unmapped memory)\n",
			(unsigned long long)n[PR_UW_NOTE_BUSY], n[PR_UW_NOTE_BUSY] == 1 ? " ends" : "s end");
	if (n[PR_UW_NOTE_NOROOM])
		fprintf(stderr, "perf-run: %llu user stack%s at [unknown: no room for unwind "
			"tables]: %d object%s did not fit in the %zu rows of the table; "
			"PERF_RUN_USTACK_ROWS=N lets the tables grow to N rows more than the start "
			"needs (%u by default)\n",
			(unsigned long long)n[PR_UW_NOTE_NOROOM],
			n[PR_UW_NOTE_NOROOM] == 1 ? " ends" : "s end",
			noroom, noroom == 1 ? "" : "s",
			u->map_rows + __atomic_load_n(&u->grown, __ATOMIC_RELAXED), UW_ROOM_ROWS);
}

long uw_file_rows(const char *path, struct pr_uw_row **rows)
{
	struct uw u = { 0 };
	struct uw_elf e;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*rows = NULL;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	rc = uw_elf_open(&e, fd, NULL, 0) ? -1 : uw_eh_frame(&u, &e);
	uw_elf_close(&e);
	close(fd);
	if (rc) {
		free(u.rows);
		return -1;
	}
	uw_sort(&u, 0);
	*rows = u.rows;
	return (long)u.nrows;
}

bool uw_tag_key(struct uw *u, unsigned tag, struct pr_uw_key *k)
{
	bool ok = false;

	if (!u || !tag)
		return false;
	pthread_mutex_lock(&u->lock);
	if (tag <= (unsigned)u->nobjs) {
		*k = u->objs[tag - 1].key;
		ok = true;
	}
	pthread_mutex_unlock(&u->lock);
	return ok;
}
