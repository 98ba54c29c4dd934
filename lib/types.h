/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * types.h - the types of script values, of tracepoint fields and of the
 * traced program's DWARF types, in one representation.
 *
 * Types are immutable once built and interned where that is cheap (the
 * integer types are singletons).  Aggregate types (records, arrays,
 * pointers to program types) are built by the tracepoint format reader, by
 * the DWARF reader and by sema, and live until type_free_all().
 */
#ifndef PR_TYPES_H
#define PR_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum type_kind {
	T_VOID,
	T_INT,      /* size 1/2/4/8, is_signed */
	T_BOOL,     /* result of comparisons, size 8 in registers (printed 0/1) */
	T_STR,      /* fixed buffer of `size` bytes, NUL-padded (string literals, str(), comm) */
	T_PTR,      /* elem: pointee (T_VOID for void *); is_user: points into user memory */
	T_ARRAY,    /* elem, count; size = elem size * count */
	T_RECORD,   /* struct or union: name ("struct req"), fields, size; is_union */
	T_ENUM,     /* name, size, is_signed, enumerators (for printing) */
	T_STACK,    /* ustack/kstack value: u64 = stack id (low 32) | tgid << 32; is_user */
	T_USYM,     /* an address printed as a user symbol (func, usym()), size 16: addr, tgid */
	T_KSYM,     /* an address printed as a kernel symbol (ksym()), size 8 */
	T_AGG,      /* a map value written by count()/hist()/...: agg says which */
	T_ARGS,     /* the record of all args at a probe (print(args)) */
	T_TUPLE,    /* fields: the keys of a multi-key map, laid out as map keys */
	T_FLOAT,    /* size 4 (float) or 8 (double): IEEE bits, kept as they are and
	             * printed as a number in user space; no arithmetic */
	T_UFMT,     /* a value only printed, turned into text in user space: ufmt says
	             * which and how it is laid out (enum ufmt_kind) */
};

/* T_UFMT values, as bpftrace 0.17 has them.  The first three are one u64
 * (integer-like in registers); the others are bytes (size). */
enum ufmt_kind {
	UF_NONE = 0,
	UF_USERNAME,  /* u64 uid, printed as its user name (getpwuid) */
	UF_STRFTIME,  /* u64 nsecs since boot; name is the strftime format (%f: us) */
	UF_STRERROR,  /* s64 errno, printed as strerror() */
	UF_SYSCALL,   /* u64 syscall number, printed as its name (syscall_name()) */
	UF_INET,      /* 24 bytes: u64 af (AF_INET, AF_INET6), then 16 address bytes */
	UF_MAC,       /* 8 bytes: the 6 bytes of a MAC address, then padding */
	UF_BUF,       /* 8 + n bytes: u64 length read, then n bytes, printed \xNN-escaped */
	UF_CGPATH,    /* u64 cgroup id, printed as its paths (cgroup_path()); name is
	               * the filter of hierarchies, NULL for all */
	UF_JOIN,      /* join(): u64 count, then PR_JOIN_ARGS strings of PR_JOIN_ARGSZ
	               * bytes; name is the separator */
};

/* What a map holds when it was assigned an aggregation function. */
enum agg_kind {
	AGG_NONE = 0, AGG_COUNT, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX,
	AGG_STATS, AGG_HIST, AGG_LHIST,
	AGG_TSERIES,  /* tseries(v, interval, n[, agg]) (newer bpftrace): lh_step is the
	               * interval (ns), lh_max the intervals kept, lh_min the enum
	               * ts_agg; one TS_SLOT-byte slot per interval, keyed as hist
	               * buckets are, by (epoch % n) */
};

/* How tseries() folds the values of one interval. */
enum ts_agg { TS_LAST = 0, TS_AVG, TS_MAX, TS_MIN, TS_SUM };
/* A tseries slot: u64 epoch (wall ns / interval), s64 value (the sum for
 * avg), u64 count, u64 ns of the last update (which CPU's `last` wins). */
#define TS_SLOT 32

struct field {
	const char *name;
	const struct type *type;
	uint32_t offset;     /* bytes from the start of the record */
	uint16_t bit_offset; /* within the storage unit at `offset`, 0 unless a bitfield */
	uint16_t bit_size;   /* 0 unless a bitfield */
};

struct enumerator {
	const char *name;
	int64_t value;
};

struct type {
	enum type_kind kind;
	uint32_t size;              /* bytes; 0 for void */
	bool is_signed;
	bool is_user;               /* T_PTR: user address space; T_STACK: ustack */
	bool is_union;              /* T_RECORD */
	bool is_const;
	bool is_word;               /* T_BOOL: newer bpftrace's `bool` (true, false,
	                             * (bool)x, has_key()), printed true/false; a
	                             * comparison stays 0.17's 0/1 */
	bool is_char;               /* T_INT: plain C `char` (not signed char, int8_t):
	                             * its arrays are strings, as bpftrace prints them */
	bool str_more;              /* T_STR read by str() from memory: one byte more than
	                             * is shown, only there to tell that the source went
	                             * on (printed with a ".." trailer then) */
	bool data_loc;              /* T_STR of a tracepoint `__data_loc char[]` field: the
	                             * field is a u32, string at ctx + (v & 0xffff), length
	                             * v >> 16 (at most `size` bytes are read) */
	const char *name;           /* records, enums, typedef'd names for messages */
	const struct type *elem;    /* T_PTR, T_ARRAY */
	uint32_t count;             /* T_ARRAY elements */
	const struct field *fields; /* T_RECORD, T_ARGS, T_TUPLE */
	int nfields;
	const struct enumerator *enums; /* T_ENUM */
	int nenums;
	enum agg_kind agg;          /* T_AGG */
	enum ufmt_kind ufmt;        /* T_UFMT */
	int64_t lh_min, lh_max, lh_step; /* T_AGG with AGG_LHIST */
	uint16_t frames;            /* T_STACK: ustack(n)'s n, 0 for all */
	bool perf_mode;             /* T_STACK: ustack(perf), kstack(perf): perf script's lines */
	/* T_RECORD whose fields are built on first need (type_complete): kernel
	 * BTF records, since task_struct alone reaches thousands of them and a
	 * script reads a few.  fill sets fields, nfields and size. */
	void (*fill)(struct type *t);
	uint32_t fill_id;           /* the filler's own key (a BTF type id) */
};

/* Singletons. */
const struct type *type_void(void);
const struct type *type_int(unsigned size, bool is_signed);
const struct type *type_bool(void);
/* Newer bpftrace's bool, printed "true"/"false" (is_word). */
const struct type *type_truth(void);
/* Plain `char`: a signed byte whose arrays print as strings. */
const struct type *type_char(void);
const struct type *type_float(unsigned size);        /* 4 or 8 */
const struct type *type_str(unsigned size);          /* interned per size */
/* str() of a pointer: room for size - 1 characters shown, plus the byte
 * that marks truncation (size + 1 bytes in all, str_more set). */
const struct type *type_str_read(unsigned size);
const struct type *type_ptr(const struct type *elem, bool is_user);
const struct type *type_array(const struct type *elem, uint32_t count);
const struct type *type_stack(bool is_user);
/* ustack(perf), ustack(n), ustack(perf, n): interned by mode and frames. */
const struct type *type_stack_mode(bool is_user, bool perf_mode, unsigned frames);
const struct type *type_usym(void);
const struct type *type_ksym(void);
/* A T_UFMT of kind k, size bytes; fmt (copied) for UF_STRFTIME, else NULL. */
const struct type *type_ufmt(enum ufmt_kind k, uint32_t size, const char *fmt);
/* Is t's value bytes in memory (T_UFMT kinds INET, MAC, BUF)? */
bool type_ufmt_mem(const struct type *t);
const struct type *type_agg(enum agg_kind agg, int64_t lh_min, int64_t lh_max, int64_t lh_step);
/* A record; `fields` is copied. */
const struct type *type_record(const char *name, bool is_union, uint32_t size,
			       const struct field *fields, int nfields);
const struct type *type_enum(const char *name, uint32_t size, bool is_signed,
			     const struct enumerator *enums, int nenums);
/* Keys of a multi-key map: each element at an 8-byte aligned offset. */
const struct type *type_tuple(const struct type *const *elems, int n);
/* Resolves a script type name ("uint32", "int64", "int", "char", "u8", ...)
 * to an integer type, or NULL. */
const struct type *type_by_name(const char *name);

bool type_is_int(const struct type *t);   /* T_INT, T_BOOL, T_ENUM */
bool type_equal(const struct type *a, const struct type *b);
/* Alike in everything a value of either is printed or stored by (names,
 * members, layout): equal types built apart, as DWARF's of two units. */
bool type_same(const struct type *a, const struct type *b);
const struct field *type_field(const struct type *rec, const char *name);
/* Sets f->offset, bit_offset and bit_size of a bitfield of f->type that
 * starts bit_pos bits into its record: offset is the aligned storage unit
 * of the declared type (bytes where a packed field straddles units), bit 0
 * the least significant (x86-64). */
void type_bitfield(struct field *f, uint64_t bit_pos, unsigned bits);
/* Builds a lazily filled record's fields (see `fill`); a no-op otherwise. */
void type_complete(const struct type *t);
/* Completes what a value of t holds: a record and the records it holds by
 * value (not through pointers), an array's elements, a pointer's pointee
 * (its own fields).  sema calls it on every expression's type (and
 * print(args) on each variable's), so code generation and output never
 * meet an unfilled record. */
void type_complete_value(const struct type *t);
/* "uint32", "string[64]", "struct req *", "hist" ... for messages and dumps. */
void type_print(FILE *out, const struct type *t);
const char *type_str_name(const struct type *t, char *buf, size_t n);
const char *agg_name(enum agg_kind agg);
void type_free_all(void);

/* Size of a string that str() or a map key holds unless the script says otherwise. */
#define PR_STRLEN 64
/* join(): the elements read and the bytes of each (bpftrace 0.17 reads 16). */
#define PR_JOIN_ARGS 16
#define PR_JOIN_ARGSZ 256
/* Hist buckets: 0 for v < 0, 1 for v == 0, 2 + floor(log2(v)) for v >= 1. */
#define PR_HIST_BUCKETS 66
/* hist(x, k) (newer bpftrace; k in lh_step of the T_AGG, 0..5): each power
 * of two split in N = 2^k buckets.  Bucket 0 is v < 0, 1 + v for
 * 0 <= v < 2N, else ((p - k + 1) << k) + (v >> (p - k)) - N + 1 with
 * p = floor(log2 v).  Their number: */
uint32_t hist_buckets(int k);
/* The first value of bucket i + 1 for i >= 2N - 1 (bpftrace's hist_index_label):
 * 2^((i >> k) - 1) * (N + (i & (N - 1))). */
uint64_t hist_bucket_start(int k, uint32_t i);

#endif
