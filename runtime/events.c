// SPDX-License-Identifier: GPL-2.0-only
/*
 * events.c - one ring buffer record at a time: its first u64 picks the
 * action in program.h's table, whose arguments sit at the offsets the
 * compiler gave.  Records that do not match their action's size are
 * counted, not trusted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/diag.h"
#include "events.h"
#include "mapprint.h"
#include "profile.h"

/* One record's output (or one printed map): counted until a flush shows
 * whether it reached the file. */
static void ev_put_to(struct ev_ctx *e, FILE *f, const char *text)
{
	errno = 0;
	fputs(text, f);   /* a full buffer is written here, and can fail */
	if (ferror(f) && !e->write_errno)
		e->write_errno = errno ? errno : EIO;
	e->pending++;
}

/* -f folded keeps its stream to folded stacks, which flame-graph tools
 * read line by line (a printf line there became a fake root frame):
 * everything else goes to stderr. */
static void ev_put(struct ev_ctx *e, const char *text)
{
	ev_put_to(e, e->folded ? stderr : e->out, text);
}

void ev_flush(struct ev_ctx *e)
{
	if (fflush(e->out) == 0 && !ferror(e->out)) {
		e->pending = 0;
		return;
	}
	if (!e->write_errno)
		e->write_errno = errno ? errno : EIO;   /* fflush() set it */
	/* What was buffered since the last good flush is gone; later records
	 * are still counted (and tried, in case the disk frees up). */
	e->unwritten += e->pending;
	e->pending = 0;
	clearerr(e->out);
}

static void ev_emit(struct ev_ctx *e, const char *type, const char *text)
{
	if (!e->json) {
		ev_put(e, text);
		return;
	}
	struct fmt_buf b;
	fmt_init(&b);
	fmt_addf(&b, "{\"type\": \"%s\", \"data\": \"", type);
	fmt_json_str(&b, text);
	fmt_puts(&b, "\"}\n");
	ev_put(e, b.s);
	fmt_free(&b);
}

/* Updates of map i that failed since its last print, said now: a long
 * run that prints every second learns then that its map filled, not at
 * exit only, and for that map. */
static void ev_drops_note(struct ev_ctx *e, int i, const struct mp_data *d)
{
	const struct pr_map *m = &e->p->maps[i];

	if (!e->map_drops || !e->drops_said || e->map_drops[i] <= e->drops_said[i])
		return;
	uint64_t n = e->map_drops[i] - e->drops_said[i];
	fprintf(stderr, "perf-run: %s: %llu update%s dropped (%llu in all): %s\n", m->name,
		(unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)e->map_drops[i],
		d->nkeys >= m->max_entries ?
		"the map is full (clear() or delete() makes room)" :
		"the kernel had no element ready (new keys came faster than it refills them)");
	e->drops_said[i] = e->map_drops[i];
}

void ev_print_map(struct ev_ctx *e, int map, int64_t top, int64_t div)
{
	struct mp_data d;
	struct fmt_buf b;
	if (map < 0 || map >= e->p->nmaps)
		return;
	const struct pr_map *m = &e->p->maps[map];
	if (e->map_fds[map] < 0 || mp_read(e->map_fds[map], m, &d))
		return;
	ev_drops_note(e, map, &d);
	if (e->prof && pf_add(e->prof, map, m, &d, &e->fc)) {
		mp_data_free(&d);
		return;
	}
	/* bpftrace's JSON leaves an empty map out; its text does not */
	if (!d.n && (e->json || e->folded)) {
		mp_data_free(&d);
		return;
	}
	mp_sort(m, &d);
	fmt_init(&b);
	bool folded = e->folded && mp_foldable(m);
	if (e->json)
		mp_json(&b, m, &d, top, div, &e->fc);
	else if (folded)
		(e->fold_perf ? mp_folded_perf : mp_folded)(&b, m, &d, top, div, e->fold_names,
							       &e->fc);
	else
		mp_text(&b, m, &d, top, div, &e->fc);
	if (folded)
		ev_put_to(e, e->out, b.s);   /* the one kind of line the stream keeps */
	else
		ev_put(e, b.s);
	fmt_free(&b);
	mp_data_free(&d);
}

static int ev_name_cmp(const void *a, const void *b)
{
	const struct pr_map *x = *(const struct pr_map *const *)a;
	const struct pr_map *y = *(const struct pr_map *const *)b;
	return strcmp(x->name, y->name);
}

void ev_print_maps(struct ev_ctx *e, bool at_exit)
{
	const struct program *p = e->p;
	const struct pr_map **order = calloc((size_t)p->nmaps + 1, sizeof(*order));
	/* bpftrace separates the maps so (not on SIGUSR1); it also writes the
	 * two empty lines among its JSON, where perf-run keeps every line a
	 * JSON object */
	if (at_exit && !e->json && !e->folded && !e->prof)   /* folded: stack lines only */
		fputs("\n\n", e->out);
	if (!order)
		return;
	for (int i = 0; i < p->nmaps; i++)
		order[i] = &p->maps[i];
	qsort(order, (size_t)p->nmaps, sizeof(*order), ev_name_cmp);
	for (int i = 0; i < p->nmaps; i++)
		ev_print_map(e, (int)(order[i] - p->maps), 0, 0);
	free(order);
}

static void ev_time(struct ev_ctx *e, const struct pr_action *a)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char *s = fmt_strftime_tm(a->fmt ? a->fmt : "%H:%M:%S\n", &tm);
	ev_emit(e, "time", s ? s : "(?)\n");
	free(s);
}

static void ev_cat(struct ev_ctx *e, const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "perf-run: cat: cannot read '%s'\n", path);
		return;
	}
	struct fmt_buf b;
	fmt_init(&b);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fmt_putn(&b, buf, n);
	fclose(f);
	ev_emit(e, "cat", b.s);
	fmt_free(&b);
}

/* join(): an array of strings, joined with the separator, ended by a newline. */
static void ev_join(struct ev_ctx *e, const struct pr_action *a, const char *rec, size_t len)
{
	const struct type *t = a->nargs ? a->args[0].type : NULL;
	const char *sep = a->fmt ? a->fmt : " ";
	struct fmt_buf b;
	if (!t || t->kind != T_ARRAY || !t->elem || a->args[0].offset + t->size > len)
		return;
	fmt_init(&b);
	for (uint32_t i = 0; i < t->count; i++) {
		const char *s = rec + a->args[0].offset + i * t->elem->size;
		size_t n = strnlen(s, t->elem->size);
		if (!n)
			break;
		if (i)
			fmt_puts(&b, sep);
		fmt_putn(&b, s, n);
	}
	fmt_putc(&b, '\n');
	ev_emit(e, "join", b.s);
	fmt_free(&b);
}

/* system(): the command's output goes where perf-run's goes (-o FILE, and
 * as "syscall" records with -f json), as bpftrace does; a SIGINT that comes
 * meanwhile stops the run after this command, not only the command. */
static void ev_system(struct ev_ctx *e, const char *cmd)
{
	struct fmt_buf out;
	char chunk[4096];
	size_t n;

	if (e->no_system || (e->stop && *e->stop)) {
		e->system_skipped++;
		return;
	}
	ev_flush(e);
	FILE *f = popen(cmd, "r");
	if (!f) {
		fprintf(stderr, "perf-run: system: cannot run '%s': %s\n", cmd, strerror(errno));
		return;
	}
	fmt_init(&out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fmt_putn(&out, chunk, n);
	pclose(f);
	if (out.len)
		ev_emit(e, "syscall", out.s);
	fmt_free(&out);
}

/* errorf(): the message on stderr as a script error at the call, after the
 * output before it. */
static void ev_errorf(struct ev_ctx *e, const struct pr_action *a, const char *msg)
{
	struct diag d;

	ev_flush(e);
	diag_init(&d, e->p->src, stderr);
	diag_error(&d, a->loc, "%s", msg);
}

/* join(argv, sep): codegen's printf("%s\n") of one UF_JOIN value. */
static bool ev_is_join(const struct pr_action *a)
{
	return a->nargs == 1 && a->args[0].type && a->args[0].type->kind == T_UFMT &&
	       a->args[0].type->ufmt == UF_JOIN;
}

static void ev_formatted(struct ev_ctx *e, const struct pr_action *a, const char *rec,
			 size_t len)
{
	struct fmt_buf b;
	fmt_init(&b);
	if (fmt_printf(&b, a->fmt ? a->fmt : "", a->args, a->nargs, rec, len, &e->fc)) {
		e->bad++;
	} else if (a->kind == ACT_PRINTF && ev_is_join(a)) {
		/* bpftrace 0.17's JSON: {"type": "join", "data": "a,b"}, no newline */
		if (e->json && b.len && b.s[b.len - 1] == '\n')
			b.s[--b.len] = '\0';
		ev_emit(e, "join", b.s);
	} else if (a->kind == ACT_PRINTF) {
		ev_emit(e, "printf", b.s);
	} else if (a->kind == ACT_SYSTEM) {
		ev_system(e, b.s);
	} else if (a->kind == ACT_ERRORF) {
		ev_errorf(e, a, b.s);
	} else {
		ev_cat(e, b.s);
	}
	fmt_free(&b);
}

static void ev_printv(struct ev_ctx *e, const struct pr_action *a, const char *rec, size_t len)
{
	struct fmt_buf b;
	const struct type *t = a->nargs ? a->args[0].type : NULL;
	bool agg = t && (t->kind == T_TUPLE || t->kind == T_RECORD || t->kind == T_ARRAY);
	if (!t || a->args[0].offset + (agg ? t->size : 8) > len)
		return;
	fmt_init(&b);
	fmt_value(&b, a->args[0].type, rec + a->args[0].offset, &e->fc);
	if (e->json) {
		/* bpftrace: a number stays a JSON number, anything else a string */
		enum type_kind k = a->args[0].type->kind;
		if (k == T_INT || k == T_BOOL || k == T_TUPLE || k == T_RECORD ||
		    (k == T_ARRAY && !(t->elem && t->elem->is_char))) {
			struct fmt_buf j;
			fmt_init(&j);
			fmt_puts(&j, "{\"type\": \"value\", \"data\": ");
			fmt_json_value(&j, a->args[0].type, rec + a->args[0].offset, &e->fc);
			fmt_puts(&j, "}\n");
			ev_put(e, j.s);
			fmt_free(&j);
		} else {
			ev_emit(e, "value", b.s);
		}
	} else {
		fmt_putc(&b, '\n');
		ev_put(e, b.s);
	}
	fmt_free(&b);
}

/* watchpoint:FUNC+argN's uprobe fired.  Out of breakpoint registers is
 * said as bpftrace says it, where it says it (its lost-events message, in
 * the output). */
static void ev_watch(struct ev_ctx *e, const struct pr_action *a, const char *rec)
{
	uint64_t addr;

	memcpy(&addr, rec + a->args[0].offset, sizeof(addr));
	if (e->watch && e->watch(e->watch_arg, a->probe, addr) == EV_WATCH_NOSPC)
		ev_emit(e, "lost_events", e->json ? "Failed to attach watchpoint probe. You are out "
			"of watchpoint registers." : "Failed to attach watchpoint probe. You are out "
			"of watchpoint registers.\n");
}

static void ev_action(struct ev_ctx *e, const char *rec, size_t len)
{
	uint64_t id;

	if (len < 8) {
		e->bad++;
		return;
	}
	memcpy(&id, rec, 8);
	if (id >= (uint64_t)e->p->nactions || len < e->p->actions[id].size) {
		e->bad++;
		return;
	}
	const struct pr_action *a = &e->p->actions[id];
	switch (a->kind) {
	case ACT_PRINTF: case ACT_SYSTEM: case ACT_CAT: case ACT_ERRORF:
		ev_formatted(e, a, rec, len);
		break;
	case ACT_PRINT:
		ev_print_map(e, a->map, a->top, a->div);
		break;
	case ACT_PRINTV:
		ev_printv(e, a, rec, len);
		break;
	case ACT_CLEAR:
		if (a->map >= 0 && e->map_fds[a->map] >= 0)
			mp_clear(e->map_fds[a->map], &e->p->maps[a->map]);
		e->clears++;
		break;
	case ACT_ZERO:
		if (a->map >= 0 && e->map_fds[a->map] >= 0)
			mp_zero(e->map_fds[a->map], &e->p->maps[a->map]);
		break;
	case ACT_TIME:
		ev_time(e, a);
		break;
	case ACT_JOIN:
		ev_join(e, a, rec, len);
		break;
	case ACT_WATCH:
		ev_watch(e, a, rec);
		break;
	case ACT_UNWATCH:
		if (e->unwatch) {
			uint64_t addr;

			memcpy(&addr, rec + a->args[0].offset, sizeof(addr));
			e->unwatch(e->watch_arg, addr);
		}
		break;
	case ACT_EXIT:
		e->exit_requested = true;
		if (a->nargs == 1)   /* exit(code): the status perf-run ends with */
			memcpy(&e->exit_code, rec + a->args[0].offset, sizeof(e->exit_code));
		break;
	}
}

static void ev_after_exit(struct ev_ctx *e, const char *rec, size_t len)
{
	uint64_t id;

	if (len < 8)
		return;
	memcpy(&id, rec, 8);
	if (id < (uint64_t)e->p->nactions && len >= e->p->actions[id].size &&
	    e->p->actions[id].kind == ACT_WATCH)
		ev_watch(e, &e->p->actions[id], rec);
}

int ev_record(void *ctx, void *data, size_t len)
{
	struct ev_ctx *e = ctx;
	bool first = false;

	if (e->exit_requested) {
		/* bpftrace stops at exit(); so do we, but a process that a
		 * watchpoint's setup stopped is still let go */
		ev_after_exit(e, data, len);
		return 0;
	}
	if (e->exit_flag && *e->exit_flag) {
		first = !e->after_flag;
		e->after_flag += (len + 8 + 7) & ~(size_t)7;   /* with its header */
		if (e->after_flag > e->flag_budget) {
			e->exit_requested = true;   /* exit()'s record was among the lost */
			return -EINTR;
		}
	}
	ev_action(e, data, len);
	/* the first record after exit() returns, so that the runtime stops the
	 * probes before reading on */
	return first || e->exit_requested || (e->stop && *e->stop) ? -EINTR : 0;
}
