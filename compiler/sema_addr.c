// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema_addr.c - builtin functions on memory, addresses and the task:
 * buf, kaddr, percpu_kaddr, kstack/ustack, uaddr, reg, kptr/uptr, ntop,
 * macaddr, signal, override, path and cgroupid.  check_call (sema_call.c)
 * dispatches to them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/bpf.h>

#include "ctypes.h"
#include "dwarf.h"
#include "lib/elfsym.h"
#include "lib/kscan.h"
#include "kbtf.h"
#include "lexer.h"
#include "builtin.h"
#include "sema_int.h"

/* A byte array that codegen can copy (cg_func.c bytes_into): a place in
 * memory, a tracepoint field, or pton()'s bytes; count bytes if given. */
static const struct type *byte_array_arg(struct sctx *c, struct node *n, struct node *a,
					 bool *is_array)
{
	const struct type *t;

	*is_array = false;
	if (a->kind == N_CALL && bi_lookup(a->name) == bi_row(BI_PTON)) {
		a->bi = BI_PTON;
		t = check_pton(c, a);
	} else
		t = check_expr(c, a);
	set_type(a, t);
	if (!t || type_is_int(t) || t->kind == T_PTR)
		return t;
	if (t->kind == T_STR && n->bi == BI_BUF) {
		/* buf("ab\n", 4): the string's own bytes, its NUL included (bpftrace 0.17) */
		*is_array = true;
		return type_array(type_int(1, true), t->size);
	}
	if (t->kind == T_ARRAY && t->elem && type_is_int(t->elem) && t->size &&
	    (t->elem->size == 1 || n->bi == BI_BUF) &&
	    (is_place(a) || a->kind == N_CALL || a->kind == N_VAR || a->kind == N_MAP)) {
		*is_array = true;
		return t;
	}
	char b1[64];

	err(c, a->loc, "%s() takes an integer or a byte array, not %s", n->name,
	    tname(t, b1, sizeof(b1)));
	return NULL;
}

/* buf(p [, n]): n bytes (a constant, at most 64) at p, or an array's. */
const struct type *check_buf(struct sctx *c, struct node *n)
{
	const struct type *t;
	int64_t len = 0;
	bool arr;

	if (!bi_args(c, n))
		return NULL;
	t = byte_array_arg(c, n, n->list, &arr);
	if (!t)
		return NULL;
	n->op = 0;
	if (arg(n, 1) && arg(n, 1)->kind != N_INT && !c->quiet) {
		/* buf(p, $n): a length known at run time, at most 64 bytes read
		 * (bpftrace 0.17's cap), as undump.bt does with skb->len; of an
		 * array, at most its size (bpftrace reads on past its end) */
		const struct type *lt = check_expr(c, arg(n, 1));

		if (!lt)
			return NULL;
		if (!type_is_int(lt)) {
			err(c, arg(n, 1)->loc, "the length of buf() must be an integer");
			return NULL;
		}
		n->op = 1;
		return type_ufmt(UF_BUF, 8 + (arr && t->size < PR_STRLEN ? t->size : PR_STRLEN), NULL);
	}
	if (arg(n, 1) && !const_arg(c, n, 1, &len))
		return NULL;
	if (!arg(n, 1) && arr)
		len = t->size;
	if (len < 1 || len > PR_STRLEN || (arr && len > t->size)) {
		err(c, n->loc, "buf() needs a length of 1 to %u bytes%s",
		    arr && t->size < PR_STRLEN ? t->size : PR_STRLEN,
		    arg(n, 1) || arr ? "" : " (given as a constant)");
		return NULL;
	}
	return type_ufmt(UF_BUF, 8 + (uint32_t)len, NULL);
}

/* kaddr("sym"): the kernel symbol's address from /proc/kallsyms, found
 * when compiling; codegen takes it from n->ival.  Found once: sema walks
 * a probe two or more times, and each read of kallsyms costs tens of ms. */
const struct type *check_kaddr(struct sctx *c, struct node *n)
{
	struct node *a = n->list;
	uint64_t addr;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, a, "kaddr() takes a string literal"))
		return NULL;
	if (n->ival)
		return type_int(8, false);
	if (kscan_addr(a->name, &addr) < 0) {
		err(c, a->loc, "no kernel symbol '%s' with an address in /proc/kallsyms", a->name);
		return NULL;
	}
	n->ival = addr;
	return type_int(8, false);
}

/* percpu_kaddr("sym"[, cpu]) (newer bpftrace): the address of a kernel
 * per-CPU variable on this CPU or on cpu, through its BTF id (n->ival);
 * 0 for a cpu past the last one. */
const struct type *check_percpu_kaddr(struct sctx *c, struct node *n)
{
	struct node *a = n->list;
	int id;

	if (!bi_args(c, n) || (a->next && !int_arg(c, n, 1)))
		return NULL;
	if (!str_literal(c, a, "percpu_kaddr() takes a string literal"))
		return NULL;
	id = kbtf_percpu_var(a->name);
	if (id < 0) {
		err(c, a->loc, id == -ENODEV ? "percpu_kaddr() needs the kernel's BTF "
		    "(/sys/kernel/btf/vmlinux), which this kernel lacks" :
		    "the kernel's BTF has no per-CPU variable '%s'", a->name);
		return NULL;
	}
	n->ival = (uint64_t)id;
	return type_ptr(type_int(8, false), false);
}

/* ustack([mode,] [n]) / kstack(...): mode `bpftrace` or `perf` (bpftrace
 * 0.17 has no `raw`), n frames from 1 to PR_UW_DEPTH (127, 0.17's limit). */
const struct type *check_stack_call(struct sctx *c, struct node *n)
{
	struct node *a = n->list, *lim = NULL;
	bool perf = false;
	int64_t limit = 0;

	if (!bi_args(c, n))
		return NULL;
	if (a->kind == N_IDENT) {
		if (strcmp(a->name, "perf") && strcmp(a->name, "bpftrace")) {
			err(c, a->loc, "%s() takes the mode bpftrace or perf, not '%s'", n->name,
			    a->name);
			return NULL;
		}
		perf = !strcmp(a->name, "perf");
		set_type(a, type_int(8, true));
		lim = a->next;
	} else {
		if (a->next) {
			err(c, a->next->loc, "%s(): the mode comes first: %s(perf, n)", n->name, n->name);
			return NULL;
		}
		lim = a;
	}
	if (lim) {
		if (lim->kind != N_INT) {
			err(c, lim->loc, "the frame count of %s() must be an integer literal", n->name);
			return NULL;
		}
		set_type(lim, type_int(8, true));
		limit = (int64_t)lim->ival;
		if (limit < 1 || limit > PR_UW_DEPTH) {
			err(c, lim->loc, "%s() shows 1 to %d frames", n->name, PR_UW_DEPTH);
			return NULL;
		}
	}
	c->s->uses_stack = true;
	return type_stack_mode(n->name[0] == 'u', perf, (unsigned)limit);
}

/* uaddr("sym"): the address of a data symbol of the probed binary, typed
 * by its size as bpftrace 0.17 types it (uint8/16/32/64 *, else uint64 *).
 * n->ival is its address in the file; in a PIE the load bias is added at
 * run time (codegen), where bpftrace 0.17 gives the unrelocated address. */
const struct type *check_uaddr(struct sctx *c, struct node *n)
{
	struct node *a = n->list;
	const char *path = NULL;
	uint64_t addr = 0, size = 0;
	int rc;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, a, "uaddr() takes a string literal"))
		return NULL;
	if (!probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_USDT))) {
		err(c, n->loc, "uaddr() is only available at uprobe, uretprobe and usdt probes");
		return NULL;
	}
	for (int i = 0; i < c->cur->nprobes; i++) {
		const char *p = c->cur->probes[i]->path;

		if (path && p && strcmp(path, p)) {
			err(c, n->loc, "uaddr() in a body shared by probes of two binaries (%s, %s)",
			    path, p);
			return NULL;
		}
		path = p;
	}
	rc = path ? elfsym_object(path, a->name, &addr, &size) : 1;
	if (rc) {
		err(c, a->loc, "no data symbol '%s' in %s", a->name, path ? path : "the binary");
		return NULL;
	}
	n->ival = addr;
	n->op = !elfsym_is_exec(path); /* PIE: codegen adds the load bias */
	if (n->op)
		c->cur->per_site = true; /* the bias is ip - this site's address */
	return type_ptr(type_int(size == 1 || size == 2 || size == 4 ? (unsigned)size : 8, false),
			true);
}

/* reg("name"): x86-64 struct pt_regs, as bpftrace names its registers;
 * the offset goes to codegen in n->ival. */
const struct type *check_reg(struct sctx *c, struct node *n)
{
	static const char *const regs[] = {
		"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx",
		"dx", "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss",
	};
	struct node *a = n->list;

	if (!bi_args(c, n))
		return NULL;
	if (!str_literal(c, a, "reg() takes a string literal"))
		return NULL;
	if (!probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_KPROBE) | K(PK_KRETPROBE))) {
		err(c, n->loc, "reg() is only available at uprobe and kprobe probes");
		return NULL;
	}
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(a->name, regs[i])) {
			n->ival = 8 * i;
			return type_int(8, false);
		}
	err(c, a->loc, "'%s' is not a register name (x86-64: ax, bx, ..., ip, sp)", a->name);
	return NULL;
}

/* uptr(p), kptr(p): p, marked as pointing into user or kernel memory. */
const struct type *check_addr_space(struct sctx *c, struct node *n)
{
	bool user = n->bi == BI_UPTR;
	const struct type *t;

	if (!bi_args(c, n) || !(t = check_expr(c, n->list)))
		return NULL;
	if (t->kind == T_PTR)
		return type_ptr(t->elem, user);
	if (!type_is_int(t)) {
		char b1[64];

		err(c, n->list->loc, "%s() takes a pointer, not %s", n->name, tname(t, b1, sizeof(b1)));
		return NULL;
	}
	return t;
}

/* ntop([af,] addr): an integer or 4 bytes are IPv4, 16 bytes IPv6. */
const struct type *check_ntop(struct sctx *c, struct node *n)
{
	const struct type *t;
	bool arr;

	if (!bi_args(c, n))
		return NULL;
	if (arg(n, 1) && !int_arg(c, n, 0))
		return NULL;
	t = byte_array_arg(c, n, arg(n, ast_count(n->list) - 1), &arr);
	if (!t)
		return NULL;
	if (t->kind == T_PTR || (arr && t->count != 4 && t->count != 16)) {
		char b1[64];

		err(c, n->loc, "ntop() takes an integer or a 4- or 16-byte array, not %s",
		    tname(t, b1, sizeof(b1)));
		return NULL;
	}
	return type_ufmt(UF_INET, 24, NULL);
}

/* macaddr(p): 6 bytes, of an array or at the address p. */
const struct type *check_macaddr(struct sctx *c, struct node *n)
{
	const struct type *t;
	bool arr;

	if (!bi_args(c, n))
		return NULL;
	t = byte_array_arg(c, n, n->list, &arr);
	if (!t)
		return NULL;
	if (arr && t->count != 6) {
		err(c, n->list->loc, "macaddr() takes 6 bytes, not %u", t->count);
		return NULL;
	}
	return type_ufmt(UF_MAC, 8, NULL);
}

/* "KILL", "SIGKILL", "kill" -> 9 (glibc's names of signals 1..31); 0 if none. */
static int signal_number(const char *name)
{
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (int sig = 1; sig < 32; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && !strcasecmp(abbrev, name))
			return sig;
	}
	return 0;
}

/*
 * signal(SIG): --unsafe only, as in bpftrace (it can kill whatever process
 * a probe fires in), a signal name or a number 1..64, and never in BEGIN or
 * END, where the process it signals is perf-run itself.
 */
const struct type *check_signal(struct sctx *c, struct node *n)
{
	struct node *a = n->list;

	if (!c->o->unsafe) {
		err(c, n->loc, "signal() can kill the processes it fires in; pass --unsafe to allow it");
		return NULL;
	}
	if (!bi_args(c, n))
		return NULL;
	for (int i = 0; i < c->cur->nprobes; i++)
		if (c->cur->probes[i]->kind == PK_BEGIN || c->cur->probes[i]->kind == PK_END) {
			err(c, n->loc, "signal() cannot be used in BEGIN or END: it would signal perf-run");
			return NULL;
		}
	if (a->kind == N_STR) {
		int sig = signal_number(a->name);

		if (!sig) {
			err(c, a->loc, "'%s' is not a signal; write a name (\"KILL\", \"SIGTERM\") or "
			    "a number 1..64", a->name);
			return NULL;
		}
		free(a->name);
		a->name = NULL;
		fold_to_int(a, sig);
	}
	if (!int_arg(c, n, 0))
		return NULL;
	if (a->kind == N_INT && (a->ival < 1 || a->ival > 64)) {
		err(c, a->loc, "%lld is not a signal number; signals are 1..64", (long long)a->ival);
		return NULL;
	}
	return type_void();
}

/*
 * override(rc): --unsafe only, as in bpftrace, and at kprobes only (the
 * kernel's bpf_override_return() changes what the probed function returns
 * and skips it).  The runtime checks that each function is in the kernel's
 * error-injection list before loading (prov_kernel.c).
 */
const struct type *check_override(struct sctx *c, struct node *n)
{
	if (!c->o->unsafe) {
		err(c, n->loc, "override() changes what a kernel function returns; pass --unsafe "
		    "to allow it");
		return NULL;
	}
	if (!probe_is(c, K(PK_KPROBE))) {
		err(c, n->loc, "override() can only be used at kprobes (the entry of a kernel "
		    "function), not at %s", probe_type_name(c->cur->probes[0]->kind));
		return NULL;
	}
	if (!bi_args(c, n) || !int_arg(c, n, 0))
		return NULL;
	for (int i = 0; i < c->cur->nprobes; i++)
		c->cur->probes[i]->override = true;
	return type_void();
}

static bool is_struct_path(const struct type *t)
{
	return t && t->kind == T_RECORD && t->name &&
	       (!strcmp(t->name, "struct path") || !strcmp(t->name, "path"));
}

/*
 * path(p): bpf_d_path(), the full path of a struct path, as bpftrace 0.17:
 * at fentry/fexit only (the kernel allows it in a few functions, its
 * btf_allowlist_d_path), of a struct path * or a struct path field
 * (args->filp->f_path), a string of max_strlen bytes.  The kernel checks
 * that the pointer is one it typed (BTF), so it must come from args.
 */
const struct type *check_path(struct sctx *c, struct node *n)
{
	const struct type *t;

	if (!probe_is(c, K(PK_FENTRY) | K(PK_FEXIT))) {
		err(c, n->loc, "path() can only be used at fentry/fexit (kfunc/kretfunc) probes, "
		    "not at %s", probe_type_name(c->cur->probes[0]->kind));
		return NULL;
	}
	if (!bi_args(c, n) || !(t = check_expr(c, n->list)))
		return NULL;
	if (!(t->kind == T_PTR && is_struct_path(t->elem)) &&
	    !(is_struct_path(t) && is_place(n->list))) {
		err(c, n->list->loc, "path() takes a struct path * or a struct path field "
		    "(args->filp->f_path), not %s", type_str_name(t, (char[64]){ 0 }, 64));
		return NULL;
	}
	return type_str((unsigned)c->s->cfg.max_strlen);
}

/* cgroupid("/sys/fs/cgroup/..."): the cgroup v2 id of the directory, which
 * is its file handle (as bpftrace finds it), resolved when compiling and
 * folded to a constant. */
const struct type *check_cgroupid(struct sctx *c, struct node *n)
{
	struct node *a = n->list;
	struct {
		struct file_handle fh;
		uint64_t room;            /* f_handle's bytes */
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	uint64_t id;
	int mount_id;

	if (!bi_args(c, n))
		return NULL;
	if (a->kind != N_STR) {
		err(c, a->loc, "cgroupid() takes a string literal");
		return NULL;
	}
	/* A handle longer than a cgroup id (EOVERFLOW) is another file
	 * system's: the tmpfs at /sys/fs/cgroup of a hybrid hierarchy. */
	int r = name_to_handle_at(AT_FDCWD, a->name, &h.fh, &mount_id, 0);
	if (r < 0 && errno != EOVERFLOW) {
		err(c, a->loc, "cannot get the cgroup id of '%s': %s", a->name, strerror(errno));
		return NULL;
	}
	if (r < 0 || h.fh.handle_bytes != sizeof(uint64_t)) {
		err(c, a->loc, "'%s' is not in a cgroup v2 file system", a->name);
		return NULL;
	}
	memcpy(&id, h.fh.f_handle, sizeof(id));
	fold_to_int(n, (int64_t)id);
	return type_int(8, false);
}
