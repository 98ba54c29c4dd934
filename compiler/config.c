// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - config blocks and BPFTRACE_* environment variables (config.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "lib/types.h"

/* A setting's value as written: a number, or a word or string. */
struct cfg_val {
	bool is_int;
	int64_t i;
	const char *s;
};

/* Variables without a visible effect in perf-run, accepted as they are. */
static const char *const cfg_ignored[] = {
	"lazy_symbolication", "license", "log_size", "max_bpf_progs",
	"max_probes", "max_cat_bytes", "perf_rb_pages", "on_stack_limit",
	"cache_user_symbols", "show_debug_info", "max_type_res_iterations",
};

static bool cfg_bool(const struct cfg_val *v, bool *out)
{
	if (v->is_int && (v->i == 0 || v->i == 1)) {
		*out = v->i;
		return true;
	}
	if (!v->is_int && (!strcmp(v->s, "true") || !strcmp(v->s, "false"))) {
		*out = !strcmp(v->s, "true");
		return true;
	}
	return false;
}

/* name is lower case, without BPFTRACE_. */
static int cfg_set(struct pr_settings *s, const char *name, const struct cfg_val *v,
		   struct diag *d, struct loc at)
{
	bool b;

	if (!strcmp(name, "max_map_keys") || !strcmp(name, "map_keys_max")) {
		if (!v->is_int || v->i < 1 || v->i > (1 << 24))
			goto bad;
		s->max_map_keys = (uint32_t)v->i;
	} else if (!strcmp(name, "max_strlen") || !strcmp(name, "strlen")) {
		if (!v->is_int || v->i < 1 || v->i > 1024)
			goto bad;
		s->max_strlen = (uint32_t)v->i;
	} else if (!strcmp(name, "print_maps_on_exit")) {
		if (!cfg_bool(v, &b))
			goto bad;
		s->no_exit_print = !b;
	} else if (!strcmp(name, "cpp_demangle")) {
		if (!cfg_bool(v, &b))
			goto bad;
		s->no_demangle = !b;
	} else if (!strcmp(name, "no_cpp_demangle")) {   /* bpftrace 0.17's variable */
		if (!cfg_bool(v, &b))
			goto bad;
		s->no_demangle = b;
	} else if (!strcmp(name, "stack_mode")) {
		if (v->is_int || strcmp(v->s, "bpftrace")) {
			diag_error(d, at, "stack_mode %s is not supported yet; only bpftrace (write "
				   "ustack(perf) at the call)", v->is_int ? "(a number)" : v->s);
			return -1;
		}
	} else if (!strcmp(name, "str_trunc_trailer")) {
		if (v->is_int || strcmp(v->s, "..")) {
			diag_error(d, at, "str_trunc_trailer can only be \"..\" in perf-run");
			return -1;
		}
	} else if (!strcmp(name, "missing_probes")) {
		if (v->is_int || strcmp(v->s, "warn")) {
			diag_error(d, at, "missing_probes can only be warn in perf-run: a missing "
				   "function is skipped with a warning when others attach");
			return -1;
		}
	} else if (!strncmp(name, "unstable_", 9)) {
		if (v->is_int || (strcmp(v->s, "enable") && strcmp(v->s, "warn") &&
				  strcmp(v->s, "error")))
			goto bad;
	} else {
		for (size_t i = 0; i < sizeof(cfg_ignored) / sizeof(cfg_ignored[0]); i++)
			if (!strcmp(name, cfg_ignored[i]))
				return 0;
		diag_error(d, at, "unknown config variable '%s'", name);
		return -1;
	}
	return 0;
bad:
	if (v->is_int)
		diag_error(d, at, "%lld is not a valid value of %s", (long long)v->i, name);
	else
		diag_error(d, at, "'%s' is not a valid value of %s", v->s, name);
	return -1;
}

/* "BPFTRACE_STACK_MODE", "STACK_MODE", "stack_mode" are one name. */
static void cfg_norm(const char *in, char *out, size_t n)
{
	size_t i = 0;

	if (!strncasecmp(in, "bpftrace_", 9))
		in += 9;
	for (; in[i] && i + 1 < n; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = 0;
}

static int cfg_block(const struct node *blk, struct pr_settings *s, struct diag *d)
{
	int r = 0;

	for (const struct node *a = blk->list; a; a = a->next) {
		struct cfg_val v = { 0 };
		char name[64];
		const struct node *x = a->b;

		cfg_norm(a->a->name, name, sizeof(name));
		if (x->kind == N_INT) {
			v.is_int = true;
			v.i = (int64_t)x->ival;
		} else if (x->kind == N_IDENT || x->kind == N_STR) {
			v.s = x->name;
		} else {
			diag_error(d, x->loc, "a config value is a number, a word or a string");
			r = -1;
			continue;
		}
		if (cfg_set(s, name, &v, d, a->loc) < 0)
			r = -1;
	}
	return r;
}

/* The environment's variables, BPFTRACE_ plus the name in upper case (and
 * bpftrace 0.17's BPFTRACE_STRLEN, BPFTRACE_MAP_KEYS_MAX). */
static int cfg_env(struct pr_settings *s, struct diag *d)
{
	static const char *const names[] = {
		"max_map_keys", "map_keys_max", "max_strlen", "strlen", "print_maps_on_exit",
		"stack_mode", "str_trunc_trailer", "missing_probes", "cpp_demangle",
		"no_cpp_demangle",
	};
	int r = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char env[64], *end;
		const char *val;
		struct cfg_val v = { 0 };

		snprintf(env, sizeof(env), "BPFTRACE_%s", names[i]);
		for (char *p = env; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		if (!(val = getenv(env)))
			continue;
		errno = 0;
		v.i = strtoll(val, &end, 0);
		v.is_int = *val && !*end && !errno;
		v.s = val;
		if (cfg_set(s, names[i], &v, d, (struct loc){ 0, 0, 0 }) < 0) {
			diag_note(d, "from the environment variable %s", env);
			r = -1;
		}
	}
	return r;
}

bool cfg_demangle(const struct node *prog)
{
	struct pr_settings s;
	struct diag quiet = { 0 };
	FILE *null = fopen("/dev/null", "we");

	/* errors are cfg_read's to report, once, when sema reads the same */
	if (!null)
		return true;
	quiet.out = null;
	cfg_read(prog, &s, &quiet);
	fclose(null);
	return !s.no_demangle;
}

int cfg_read(const struct node *prog, struct pr_settings *s, struct diag *d)
{
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->max_strlen = PR_STRLEN;
	for (const struct node *x = prog ? prog->list : NULL; x; x = x->next)
		if (x->kind == N_BLOCK && cfg_block(x, s, d) < 0)
			r = -1;
	if (cfg_env(s, d) < 0)
		r = -1;
	return r;
}
