/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * program.h - what the compiler hands to the runtime: a BPF ELF object in
 * memory and the tables needed to attach its programs, decode its ring
 * buffer records and print its maps.
 *
 * It is the border: the one compiler/ header runtime/ includes (with the
 * probe.h it names); what both sides use (diag, types, elfsym, objcache,
 * kfeature, safefile, fmtspec, sysnames) is in lib/, and listing (-l, -L,
 * -V) is on the compile side; mk/layers.sh checks it.  Layout contracts between
 * generated code and the runtime are written here and nowhere else.
 *
 * Ring buffer record (one per printf/print/exit/... call in a probe):
 *   u64 id;                  index into prog->actions
 *   then the arguments, argument i at actions[id].args[i].offset
 *   (8-byte aligned; integers stored as 8 bytes, sign- or zero-extended;
 *   strings as their fixed size, NUL padded).
 *
 * Maps (every script map is a BPF hash map; see struct pr_map):
 *   key: the script keys, key i at map->key->fields[i].offset (8-aligned),
 *        or a single u64 0 for a map without keys ("@x = 1").
 *        hist/lhist maps append a u64 bucket index after the keys.
 *   value, per aggregation (per-CPU maps: the runtime folds the CPUs):
 *     AGG_NONE          the value's type, plain (not per-CPU) hash
 *     AGG_COUNT, SUM    s64 per CPU, summed
 *     AGG_MIN, AGG_MAX  struct { s64 value; u64 valid; } per CPU
 *     AGG_AVG, STATS    struct { s64 sum; u64 count; } per CPU
 *     AGG_HIST, LHIST   u64 count per CPU per bucket
 *   hist bucket: 0 for v < 0, 1 for v == 0, 2 + floor(log2 v) for v >= 1.
 *   lhist bucket: 0 below min, 1 + (v - min) / step, last = 1 + (max-min)/step
 *   for v >= max.
 */
#ifndef PR_PROGRAM_H
#define PR_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/diag.h"
#include "lib/types.h"
#include "probe.h"

/* One BPF program in the object and where it attaches. */
struct pr_prog {
	char *name;               /* function name in the ELF (bpf_object__find_program_by_name) */
	int bpf_prog_type;        /* BPF_PROG_TYPE_* to set before load */
	const struct probe *probe;/* kind, path, tracepoint, perf event... */
	int site;                 /* index into probe->sites, or -1 for all of them */
	int *sites, nsites;       /* or, if sites is not NULL, these (sorted); at a
				   * uprobe every site's attach cookie is its index */
	struct loc loc;           /* the probe's header in the script */
	bool sleepable;           /* load with BPF_F_SLEEPABLE (uprobes reading user memory) */
	bool companion;           /* serves another program: not counted as attached */
};

enum pr_action_kind {
	ACT_PRINTF,    /* fmt, args */
	ACT_PRINT,     /* print(@map [, top [, div]]): map, top, div */
	ACT_PRINTV,    /* print(value): args[0] */
	ACT_CLEAR,     /* clear(@map) */
	ACT_ZERO,      /* zero(@map) */
	ACT_EXIT,      /* exit() */
	ACT_TIME,      /* time(fmt) */
	ACT_SYSTEM,    /* system(fmt, args) (--unsafe only) */
	ACT_CAT,       /* cat(fmt, args): print a file */
	ACT_JOIN,      /* join(argv [, sep]): args[0] is the char *[] read into the record */
	ACT_ERRORF,    /* errorf(fmt, args), newer bpftrace: printed as an error at loc */
	ACT_WATCH,     /* watchpoint:FUNC+argN's uprobe fired: args[0] is the address
	                * to watch, probe the watchpoint (the process is stopped
	                * unless it is an asyncwatchpoint: SIGCONT it once set) */
	ACT_UNWATCH,   /* unwatch(addr): args[0]; every watchpoint at addr is removed */
};

struct pr_arg {
	const struct type *type;  /* T_INT, T_BOOL, T_STR, T_USYM, T_KSYM, T_STACK, T_PTR, ... */
	uint32_t offset;          /* in the record, after the id */
	bool gdb_ptrs;            /* print(args): pointer members in hex, as gdb (0x0) */
};

struct pr_action {
	enum pr_action_kind kind;
	char *fmt;                /* printf-style format, escapes already decoded */
	struct pr_arg *args;
	int nargs;
	uint32_t size;            /* bytes of the whole record including the id */
	int map;                  /* ACT_PRINT, ACT_CLEAR, ACT_ZERO: index into maps */
	int64_t top, div;         /* ACT_PRINT options, 0 if absent */
	const struct probe *probe;/* ACT_WATCH: the watchpoint probe */
	struct loc loc;
};

struct pr_map {
	char *name;               /* as printed: "@", "@bytes" */
	char *bpf_name;           /* the global in .maps (bpf_object__find_map_by_name) */
	int bpf_type;             /* BPF_MAP_TYPE_(PERCPU_)HASH or _PERCPU_ARRAY */
	bool array;               /* PERCPU_ARRAY: see define_script_maps() */
	const struct type *key;   /* T_TUPLE of the keys, NULL for a map without keys */
	const struct type *value; /* T_AGG for aggregations, else the stored value type */
	uint32_t key_size;        /* bytes, including a hist bucket */
	uint32_t value_size;      /* bytes for one CPU */
	uint32_t max_entries;
	bool zeroed;              /* runtime: zero() ran since the last clear(), so an
	                           * array entry prints though all zero, as bpftrace
	                           * 0.17 keeps a zeroed entry (mapprint.c) */
};

/* A user symbol value (T_USYM: address, pid) whose address has this bit
 * names a probe site instead: probe index in bits 32..62, site index below.
 * `func` at a single-site uprobe is known when compiling, and so stays
 * nameable after the traced process has exited. */
#define PR_SITE_TAG (1ULL << 63)

/* retval at a kretprobe wildcard, whose one program serves functions of
 * several result types: each function's kind from BTF by its address
 * (bpf_get_func_ip), in a hash the runtime fills before it attaches
 * (runtime/kret.c).  The u8 kind: the left shift that drops the bits of
 * rax above the result (64 - 8 * size; 0 or no entry: rax whole), with
 * PR_KRET_SIGNED to sign-extend, PR_KRET_BOOL for 0/1. */
#define PR_KRET_MAP "kret_kind"
#define PR_KRET_MAX (1u << 17)
#define PR_KRET_SIGNED 0x40
#define PR_KRET_BOOL 0x80

/* `probe` at a kprobe wildcard: each function's name (NUL-padded, cut to
 * PR_KNAME_SIZE - 1 bytes) by its address, in a hash the runtime fills
 * before it attaches (runtime/kret.c); the program writes it after the
 * probe type's "kprobe:" (a function not in it keeps the wildcard's name). */
#define PR_KNAME_MAP "kname"
#define PR_KNAME_SIZE 128

/* Slots of counters_map_name: ring buffer records that did not fit, map
 * updates that failed, memory reads that faulted (the value read as 0),
 * a flag exit() sets, since its record can be among the lost ones,
 * hits skipped at sites that lack a DWARF variable the probe reads, and
 * hits skipped in calls whose entry values are unknown (they began before
 * the entry probe was attached), and hits skipped where no call site
 * gives a parameter's value (DW_OP_GNU_parameter_ref), and user reads
 * refused at a syscall's return (cg_replay.c: the memory may have changed
 * since the kernel read it). */
enum { PR_LOST, PR_DROPS, PR_FAULTS, PR_EXIT, PR_ABSENT, PR_NOENTRY, PR_NOCALLSITE,
       PR_RP_REFUSED, PR_NCOUNTERS };
/* After them, slot PR_NCOUNTERS + i: the failed updates of maps[i] (full),
 * which each print of the map says as it happens. */

struct program {
	void *elf;                /* BPF ELF object, malloc'd */
	size_t elf_size;
	bool cached;              /* elf came from the object cache (objcache.h) */
	struct pr_prog *progs;
	int nprogs;
	struct probe **probes;    /* every resolved probe, owned here */
	int nprobes;
	struct pr_action *actions;
	int nactions;
	struct pr_map *maps;
	int nmaps;
	char *ringbuf_name;       /* the BPF_MAP_TYPE_RINGBUF global, NULL if none */
	uint32_t ringbuf_size;    /* its bytes (the loader sets them, see cg_send) */
	char *stack_map_name;     /* the BPF_MAP_TYPE_STACK_TRACE global, NULL if none */
	/* ustack through CFI (cg_unwind.c, runtime/unwind.c), NULL if none:
	 * rows (array of struct pr_uw_row, sized and filled by the runtime
	 * before load), objects (hash pr_uw_key -> pr_uw_obj) and the user
	 * stacks by id (hash u32 -> PR_UW_DEPTH u64 pcs, as the stack map) */
	char *uw_rows_name, *uw_objs_name, *ustack_map_name;
	bool uw_ctime;            /* object keys hold PR_UW_CTIME_GEN (struct pr_uw_key) */
	char *config_map_name;    /* array [0]: struct pr_config written before attach */
	char *counters_map_name;  /* ".bss", one u64 array indexed by PR_LOST.. */
	const struct source *src; /* for verifier messages */
	bool no_exit_print;       /* config print_maps_on_exit = false: no maps at exit */
	bool no_demangle;         /* --no-demangle, config cpp_demangle = false or
				   * BPFTRACE_NO_CPP_DEMANGLE=1: user symbols as in the ELF */
	bool lean_btf;            /* no line info (too many probes and maps, cg_emit.c) */
	const char *keep_debug;   /* a lean compile keeps this program's line info */
};

/*
 * ustack through CFI.  One row per range of pcs of one object that share
 * a rule, sorted by `off`, the file offset of the range's first pc (the
 * next row's off ends it).  The caller's frame: CFA = (rule & 15) RSP or
 * RBP + cfa_off; PLT: rsp + cfa_off, + 8 more when (rip & 15) >= rbp_off
 * (the .plt entries' expression); the return address at CFA - 8; rbp
 * (rule >> 4) unchanged, or read at CFA + rbp_off, or unknown.  UNKNOWN
 * ends the stack there, END is the outermost frame (_start).  SIG is the
 * kernel's signal frame (__restore_rt): rsp points at the ucontext, whose
 * saved rip, rsp and rbp are the interrupted code's (PR_UW_SIG_*).
 */
enum { PR_UW_UNKNOWN, PR_UW_RSP, PR_UW_RBP, PR_UW_END, PR_UW_PLT, PR_UW_SIG };
enum { PR_UW_BP_SAME, PR_UW_BP_AT, PR_UW_BP_UNDEF };
struct pr_uw_row {
	uint32_t off;
	int16_t cfa_off;
	int8_t rbp_off;
	uint8_t rule;             /* CFA rule | rbp rule << 4 */
};
/* An object by its file: the kernel's dev_t (major << 20 | minor) of the
 * inode's super block and its inode number; its rows [lo, hi). */
/* dev: the device as the kernel numbers it (major << 20 | minor), and
 * above bit 32 the file's change time folded, PR_UW_CTIME_GEN, where the
 * kernel's BTF says where it is (else 0): a file rewritten in place is
 * another object. */
struct pr_uw_key { uint64_t dev, ino; };
#define PR_UW_CTIME_MUL 0x9e3779b1u
#define PR_UW_NSEC_MASK 0x3fffffffu   /* nanoseconds < 2^30; 6.13 keeps a flag above */
#define PR_UW_CTIME_GEN(sec, nsec) \
	((uint32_t)((uint32_t)(sec) * PR_UW_CTIME_MUL + ((uint32_t)(nsec) & PR_UW_NSEC_MASK)))
/* the vDSO's key: no file, no device */
#define PR_UW_VDSO_DEV 0
#define PR_UW_VDSO_INO 1
/* lo == hi: an object without rows (its frame pointers are followed);
 * lo > hi: its rows did not fit (PR_UW_PC_NOROOM).  chunked: 0, rows
 * [lo, hi) of the start's rows map (uw_rows); 1, of the chunks: row i is
 * row i % PR_UW_CHUNK_ROWS of the rows map in slot i / PR_UW_CHUNK_ROWS of
 * the array of maps PR_UW_CHUNKS_MAP, which the runtime fills with maps of
 * PR_UW_CHUNK_ROWS rows as objects met later need room (runtime/unwind.c). */
struct pr_uw_obj { uint32_t lo, hi, tag, chunked; };
#define PR_UW_CHUNKS_MAP "uw_chunks"
#define PR_UW_CHUNK_SHIFT 16
#define PR_UW_CHUNK_ROWS (1u << PR_UW_CHUNK_SHIFT)
#define PR_UW_NCHUNKS 1024   /* 2^26 rows: the BPF side's search covers as many */
/* Each pc of a CFI ustack carries its object's tag (1.. PR_UW_MAX_OBJS,
 * the runtime's numbering; 0: anonymous memory, the vDSO, or not found)
 * above the user address space, so that a frame is named from the object
 * it ran in, not from whatever is mapped at its address when it is
 * printed (a library dlclose'd and another mapped there). */
#define PR_UW_TAG_SHIFT 48
static inline int pr_uw_is_note(uint64_t pc) { return pc >= 0xffffffffffffff00ull; }
static inline uint64_t pr_uw_addr(uint64_t pc)
{
	return pr_uw_is_note(pc) ? pc : pc & ((1ull << PR_UW_TAG_SHIFT) - 1);
}
static inline unsigned pr_uw_tag(uint64_t pc)
{
	return pr_uw_is_note(pc) ? 0 : (unsigned)(pc >> PR_UW_TAG_SHIFT);
}
/* offsets in the ucontext of the signal frame: uc_mcontext's rbp, rsp, rip */
#define PR_UW_SIG_RBP 120
#define PR_UW_SIG_RSP 160
#define PR_UW_SIG_RIP 168
/* An object first seen by the BPF program (a dlopen'd library, a process
 * that appeared later): its key and mapping, sent to the runtime through
 * the ring uw_missq so that it loads the object's rows into the maps. */
struct pr_uw_miss { uint64_t dev, ino, tgid, start, end, pgoff; };
/* Frames that end a stack with a note instead of a pc: the next object's
 * rows were still being loaded, or did not fit, or (in an interrupt, where
 * bpf_find_vma runs once) its mapping was not cached yet; counted in
 * uw_notes. */
#define PR_UW_PC_LOADING 0xffffffffffffff01ull
#define PR_UW_PC_NOROOM  0xffffffffffffff02ull
#define PR_UW_PC_BUSY    0xffffffffffffff03ull
enum { PR_UW_NOTE_LOADING, PR_UW_NOTE_NOROOM, PR_UW_NOTE_BUSY, PR_UW_NNOTES };
#define PR_UW_DEPTH 127           /* frames, as the stack map's value */
#define PR_UW_MAX_OBJS 4096
#define PR_UW_MAX_STACKS 16384
/* A CFI ustack's id when there is none: no frame at all (PR_UW_ID_NONE,
 * printed as nothing, as bpftrace), or every id of the run taken
 * (PR_UW_ID_FULL: printed as a note, never as an empty key that looks
 * like data). */
#define PR_UW_ID_NONE 0xffffffffu
#define PR_UW_ID_FULL 0xfffffffeu
#define PR_UW_ID_FULL_NOTE "[unknown: no stack id left: 16384 distinct user stacks are held or met in the last seconds]"
/* A stack's id by its pcs: a hash per key class, keyed by the first C pcs
 * of stacks of at most C frames ("uw_ids_C", "uw_ids" for PR_UW_DEPTH),
 * value struct pr_uw_ident.  Ids the runtime gives back (runtime/
 * stackids.c: no map holds them and their stack was not met for
 * PR_UW_IDLE_TICKS) wait in the queue PR_UW_FREE_MAP; new ones come from
 * the counter uw_next. */
#define PR_UW_KEY_CLASSES { 8, 16, 32, PR_UW_DEPTH }
#define PR_UW_FREE_MAP "uw_freeids"
#define PR_UW_TICK_SHIFT 28       /* a tick: bpf_ktime_get_ns() >> 28, ~268 ms */
#define PR_UW_IDLE_TICKS 4        /* a stack not met for 0.8 s to 1.07 s */
struct pr_uw_ident {
	uint32_t id;
	uint32_t last;            /* the tick of the stack's latest hit */
};

/* Written by the runtime into the config map before anything runs. */
struct pr_config {
	uint64_t start_ns;        /* bpf_ktime_get_ns() base of `elapsed` */
	uint64_t target_pid;      /* -p / -c pid, 0 if none */
};

/* Options of one compile. */
struct pr_compile_opts {
	pid_t pid;                /* -p PID or the -c command's pid (0: none) */
	const char *default_bin;  /* binary that an attach point without BIN means */
	char **params;            /* positional parameters $1.. */
	int nparams;
	char **named;             /* "--name=value" / "--name" words, for getopt() */
	int nnamed;
	bool unsafe;              /* allow system() */
	bool has_child;           /* pid is a command's that perf-run started (cpid) */
	unsigned dump;            /* PR_DUMP_* bits: print that stage to stdout */
	int verbose;
	const char *keep_debug;   /* program name: keeps its line info even in a lean
				   * compile (to place a verifier rejection, loader.h) */
	bool no_demangle;         /* --no-demangle: C++ and Rust names as mangled */
};

#define PR_DUMP_AST    1u
#define PR_DUMP_IR     2u
#define PR_DUMP_BPF    4u
#define PR_DUMP_PROBES 8u

/* source text -> struct program.  Reports errors through d and returns
 * NULL if there were any. */
struct program *pr_compile(const struct source *src, const struct pr_compile_opts *o,
			   struct diag *d);
void pr_program_free(struct program *p);

#endif
