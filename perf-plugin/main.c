// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the perf-run executable: perf-style options, then the straight
 * line of the pipeline: read the script, start the traced command (held
 * before exec), compile, run.  Listing modes (-l, -L, -V) answer and exit
 * without loading anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/diag.h"
#include "compiler/dwarf.h"
#include "compiler/kdwarf.h"
#include "lib/elfsym.h"
#include "compiler/program.h"
#include "runtime/child.h"
#include "runtime/exporter.h"
#include "compiler/list.h"
#include "runtime/privilege.h"
#include "runtime/run.h"
#include "lib/safefile.h"

#define PERF_RUN_VERSION "0.1"

struct opts {
	const char *prog;         /* -e */
	const char *file;         /* script file */
	pid_t pid;                /* -p */
	const char *cmd;          /* -c */
	char **cmd_argv;          /* after -- */
	const char *out;          /* -o */
	enum rt_format format;
	bool quiet, unsafe, list, version, help, dry_run, no_demangle;
	int verbose;
	unsigned dump;
	const char *list_pat;
	const char *lines_spec, *vars_spec;
	const char *exe;          /* -x BIN, for -L and -V as perf probe takes it */
	const char *source;       /* -s DIR: -L's sources, as perf probe's --source */
	bool command_status;      /* --command-status */
	char **params;
	int nparams;
	char **named;     /* --name[=value] after "--", for getopt() (newer bpftrace) */
	int nnamed;
	char **argv;      /* as perf-run was run, for perf.data's cmdline */
	const char *listen;       /* --listen ADDR:PORT */
	uint32_t max_series;      /* --max-series */
};

enum { OPT_UNSAFE = 256, OPT_DUMP, OPT_VERSION, OPT_DRY_RUN, OPT_NO_DEMANGLE, OPT_LISTEN,
       OPT_MAX_SERIES };
enum { OPT_COMMAND_STATUS = 320 };

/* The option table, in the order --help prints it. */
static const struct opt_help {
	struct option o;
	const char *shortopt, *arg, *help;
} opt_table[] = {
	{ { "expr", required_argument, NULL, 'e' }, "e", "PROGRAM", "trace with this program text" },
	{ { "pid", required_argument, NULL, 'p' }, "p", "PID", "trace this process" },
	{ { "cmd", required_argument, NULL, 'c' }, "c", "CMD", "run CMD, trace it, stop when it exits (also: -- CMD ...)" },
	{ { "output", required_argument, NULL, 'o' }, "o", "FILE", "write the output to FILE" },
	{ { "format", required_argument, NULL, 'f' }, "f", "text|json|folded|folded-perf|perf|pprof", "output format (folded: stack-keyed maps for flame graphs, folded-perf: as comm;user;kernel frames; perf, pprof: as a perf.data or pprof file, -o FILE)" },
	{ { "quiet", no_argument, NULL, 'q' }, "q", NULL, "no \"Attached\" line" },
	{ { "verbose", no_argument, NULL, 'v' }, "v", NULL, "more detail (libbpf messages, verifier log)" },
	{ { "unsafe", no_argument, NULL, OPT_UNSAFE }, NULL, NULL, "allow system()" },
	{ { "dump", required_argument, NULL, OPT_DUMP }, NULL, "ast|ir|bpf|probes", "print a stage of the compiler and stop" },
	{ { "dry-run", no_argument, NULL, OPT_DRY_RUN }, NULL, NULL, "load and attach the probes, then stop without running BEGIN" },
	{ { "command-status", no_argument, NULL, OPT_COMMAND_STATUS }, NULL, NULL, "exit with the traced command's status, as perf stat and perf record do" },
	{ { "list", optional_argument, NULL, 'l' }, "l", "[PATTERN]", "list probes (all types, or TYPE:PATTERN, uprobe:BIN:FUNC*)" },
	{ { "lines", required_argument, NULL, 'L' }, "L", "BIN:SPEC", "probeable lines, as perf probe -L" },
	{ { "vars", required_argument, NULL, 'V' }, "V", "BIN:SPEC", "variables at a probe point, as perf probe -V" },
	{ { "exec", required_argument, NULL, 'x' }, "x", "BIN", "-L, -V: the binary, as perf probe -x (then SPEC alone)" },
	{ { "source", required_argument, NULL, 's' }, "s", "DIR", "-L: the source tree the debug information's file names are in, as perf probe -s (the kernel's: an unpacked linux-source)" },
	{ { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE }, NULL, NULL, "C++ and Rust names as mangled in the binary (as perf's --no-demangle)" },
	{ { "listen", required_argument, NULL, OPT_LISTEN }, NULL, "ADDR:PORT", "serve the maps as Prometheus metrics at http://ADDR:PORT/metrics" },
	{ { "max-series", required_argument, NULL, OPT_MAX_SERIES }, NULL, "N", "--listen: at most N keys of each map (10000)" },
	{ { "version", no_argument, NULL, OPT_VERSION }, NULL, NULL, "print the version" },
	{ { "help", no_argument, NULL, 'h' }, "h", NULL, "this help" },
};
#define NOPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static void usage(FILE *f)
{
	fprintf(f, "\n usage: perf-run [OPTIONS] (FILE | -e PROGRAM) [ARGS...] [-- COMMAND ...]\n\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt_help *h = &opt_table[i];
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s--%s%s%s", h->shortopt ? "-" : "    ",
			 h->shortopt ? h->shortopt : "", h->shortopt ? ", " : "", h->o.name,
			 h->arg ? " " : "", h->arg ? h->arg : "");
		fprintf(f, "    %-36s %s\n", left, h->help);
	}
	fputc('\n', f);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse_dump(const char *s, unsigned *bits)
{
	char *copy = strdup(s), *save = NULL;
	int ret = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "ast"))
			*bits |= PR_DUMP_AST;
		else if (!strcmp(t, "ir"))
			*bits |= PR_DUMP_IR;
		else if (!strcmp(t, "bpf"))
			*bits |= PR_DUMP_BPF;
		else if (!strcmp(t, "probes"))
			*bits |= PR_DUMP_PROBES;
		else {
			fprintf(stderr, "perf-run: --dump takes ast, ir, bpf or probes, not '%s'\n", t);
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

static int parse_format(struct opts *o, const char *arg)
{
	static const struct { const char *name; enum rt_format f; } fmts[] = {
		{ "text", RT_TEXT }, { "json", RT_JSON }, { "folded", RT_FOLDED },
		{ "perf", RT_PERF }, { "pprof", RT_PPROF }, { "folded-perf", RT_FOLDED_PERF },
	};
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(arg, fmts[i].name)) {
			o->format = fmts[i].f;
			return 0;
		}
	fprintf(stderr, "perf-run: -f takes text, json, folded, folded-perf, perf or pprof, "
		"not '%s'\n", arg);
	return -1;
}

/* --listen's address is checked here, before anything is compiled. */
static int parse_listen(struct opts *o, const char *arg)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256];

	if (ex_parse_addr(arg, &sa, &len, err, sizeof(err))) {
		fprintf(stderr, "perf-run: %s\n", err);
		return -1;
	}
	o->listen = arg;
	return 0;
}

static int parse_max_series(struct opts *o, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*end || !*arg || arg[0] == '-' || n == 0 || n > UINT32_MAX) {
		fprintf(stderr, "perf-run: --max-series takes a number of keys from 1, not '%s'\n",
			arg);
		return -1;
	}
	o->max_series = (uint32_t)n;
	return 0;
}

static int parse_one(struct opts *o, int c, const char *arg)
{
	char *end;
	switch (c) {
	case 'e': o->prog = arg; break;
	case 'c': o->cmd = arg; break;
	case 'o': o->out = arg; break;
	case 'q': o->quiet = true; break;
	case 'v': o->verbose++; break;
	case 'h': o->help = true; break;
	case 'L': o->lines_spec = arg; break;
	case 'V': o->vars_spec = arg; break;
	case 'x': o->exe = arg; break;
	case 's': o->source = arg; break;
	case OPT_UNSAFE: o->unsafe = true; break;
	case OPT_VERSION: o->version = true; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_NO_DEMANGLE: o->no_demangle = true; break;
	case OPT_COMMAND_STATUS: o->command_status = true; break;
	case OPT_DUMP: return parse_dump(arg, &o->dump);
	case OPT_LISTEN: return parse_listen(o, arg);
	case OPT_MAX_SERIES: return parse_max_series(o, arg);
	case 'l':
		o->list = true;
		o->list_pat = arg;
		/* bpftrace's -lv: list verbosely, the pattern follows */
		if (arg && *arg && !arg[strspn(arg, "v")]) {
			o->verbose += (int)strlen(arg);
			o->list_pat = NULL;
		}
		break;
	case 'p':
		o->pid = (pid_t)strtol(arg, &end, 10);
		if (*end || o->pid <= 0) {
			fprintf(stderr, "perf-run: -p takes a process id, not '%s'\n", arg);
			return -1;
		}
		break;
	case 'f':
		return parse_format(o, arg);
	}
	return 0;
}

/* The long option a word names ("--dump=x", "--du"): its table index, -1
 * for none, -2 when the prefix fits more than one (getopt's "ambiguous"). */
static int long_match(const char *word, size_t len)
{
	int found = -1;
	for (size_t i = 0; i < NOPTS; i++)
		if (!strncmp(opt_table[i].o.name, word + 2, len - 2)) {
			if (strlen(opt_table[i].o.name) == len - 2)
				return (int)i;
			found = found == -1 ? (int)i : -2;
		}
	return found;
}

/* getopt's own messages are off (opterr = 0): it would name argv[0], and
 * we would add a second line; one line here names the option and what to do. */
static void bad_option(int c, char **argv)
{
	const char *word = argv[optind - 1];
	size_t len = strcspn(word, "=");
	int i = strncmp(word, "--", 2) ? -1 : long_match(word, len);
	bool is_long = i == -2 || (i >= 0 ? opt_table[i].o.val == optopt : !optopt);

	if (!is_long && c == ':') {
		const char *arg = "VALUE";
		for (size_t k = 0; k < NOPTS; k++)
			if (opt_table[k].shortopt && opt_table[k].shortopt[0] == optopt)
				arg = opt_table[k].arg;
		fprintf(stderr, "perf-run: -%c needs a value: -%c %s\n", optopt, optopt, arg);
	} else if (!is_long)
		fprintf(stderr, "perf-run: there is no option -%c; see 'perf-run --help'\n", optopt);
	else if (i == -2)
		fprintf(stderr, "perf-run: %.*s fits more than one option; give more of its "
			"name (see 'perf-run --help')\n", (int)len, word);
	else if (i < 0)
		fprintf(stderr, "perf-run: there is no option %.*s; see 'perf-run --help'\n",
			(int)len, word);
	else if (c == ':')
		fprintf(stderr, "perf-run: --%s needs a value: --%s %s\n", opt_table[i].o.name,
			opt_table[i].o.name, opt_table[i].arg);
	else
		fprintf(stderr, "perf-run: --%s takes no value; give it as --%s\n",
			opt_table[i].o.name, opt_table[i].o.name);
}

/* -x BIN names the binary for -L and -V only, as in perf probe. */
static int check_exe(const struct opts *o)
{
	if (!o->exe || o->lines_spec || o->vars_spec)
		return 0;
	fprintf(stderr, "perf-run: -x BIN names the binary for -L and -V only; in a program, "
		"name it in the probe (uprobe:BIN:FUNC)\n");
	return -1;
}

/* Options before "--" (permuted, perf style); the command after it is
 * never parsed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	struct option lopts[NOPTS + 1];
	int n = argc;

	memset(lopts, 0, sizeof(lopts));
	for (size_t i = 0; i < NOPTS; i++)
		lopts[i] = opt_table[i].o;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			int j = i + 1;

			n = i;
			/* --name=value words first are the script's named
			 * parameters; a command never starts with "--" */
			while (argv[j] && !strncmp(argv[j], "--", 2) && argv[j][2])
				j++;
			o->named = &argv[i + 1];
			o->nnamed = j - (i + 1);
			o->cmd_argv = argv[j] ? &argv[j] : NULL;
			if (!o->cmd_argv && !o->nnamed) {
				fprintf(stderr, "perf-run: '--' ends the options but no command follows it\n");
				return -1;
			}
			break;
		}
	int c;
	opterr = 0;
	while ((c = getopt_long(n, argv, ":e:p:c:o:f:qvhl::L:V:x:s:", lopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			bad_option(c, argv);
			return -1;
		}
		if (parse_one(o, c, optarg))
			return -1;
	}
	if (check_exe(o))
		return -1;
	if (o->pid > 0 && (o->cmd || o->cmd_argv)) {
		fprintf(stderr, "perf-run: give -p PID or a command to start (-c CMD or -- CMD), "
			"not both\n");
		return -1;
	}
	char **rest = &argv[optind];
	int nrest = n - optind;
	if (o->list && !o->list_pat && nrest > 0) {
		o->list_pat = rest[0];   /* "-l PATTERN" with a space */
		rest++, nrest--;
	}
	if (!o->prog && !o->list && nrest > 0) {
		o->file = rest[0];
		rest++, nrest--;
	}
	o->params = rest;
	o->nparams = nrest;
	return 0;
}

/* ---- listing ---- */

static int do_list(const struct opts *o)
{
	/* bpftrace 0.17's variable turns demangling off for -l as well */
	const char *env = getenv("BPFTRACE_NO_CPP_DEMANGLE");
	bool off = o->no_demangle || (env && (!strcmp(env, "1") || !strcmp(env, "true")));
	return ls_list(stdout, o->list_pat, o->pid, o->verbose > 0, !off);
}

/* -L / -V: "BIN:SPEC" (an optional "uprobe:" in front), or SPEC alone with -p;
 * "kprobe:SPEC", or SPEC alone without -p, is in the running kernel (its
 * vmlinux with debuginfo, kdwarf.h), as perf probe without -x. */
static int do_dwarf_list(const struct opts *o)
{
	const char *arg = o->lines_spec ? o->lines_spec : o->vars_spec;
	char err[512] = "", *bin = NULL, *spec;
	bool kernel = !strncmp(arg, "kprobe:", 7);
	if (kernel && o->exe) {
		fprintf(stderr, "perf-run: -x BIN is a user binary; drop -x for kprobe:%s\n", arg + 7);
		return 1;
	}
	if (kernel || !strncmp(arg, "uprobe:", 7))
		arg += 7;
	char *copy = strdup(arg), *colon = kernel || o->exe ? NULL : strchr(copy, ':');
	if (colon && colon[1] == ':')   /* a C++ scope, not BIN: */
		colon = NULL;
	if (o->exe) {   /* -x BIN SPEC, as perf probe: all of SPEC is the spec */
		spec = copy;
		bin = elfsym_find_binary(o->exe, o->pid);
		if (!bin)
			snprintf(err, sizeof(err), "-x %s: no such binary; give its path", o->exe);
	} else if (colon && (*colon = 0, (bin = elfsym_find_binary(copy, o->pid)) != NULL)) {
		spec = colon + 1;
	} else {
		if (colon)
			*colon = ':';
		spec = copy;
		const char *why;
		if (o->pid > 0 && !kernel)
			bin = elfsym_pid_exe(o->pid, &why);
		else
			kernel = true;
	}
	int r = -1;
	dw_set_source(o->source);
	char *mod = NULL, *in_mod;
	if (kernel && (in_mod = kdw_split_module(spec)) && strcmp(spec, "vmlinux")) {
		mod = spec;   /* MOD:SPEC, as perf probe -m MOD SPEC */
		spec = in_mod;
	} else if (kernel && in_mod) {
		spec = in_mod;
	}
	if (kernel && mod)
		bin = kdw_module(mod, err, sizeof(err));
	else if (kernel)
		bin = kdw_vmlinux(err, sizeof(err));   /* or err says why not */
	if (!bin && !kernel && !err[0])
		snprintf(err, sizeof(err), "give the binary: -%c BIN:SPEC, or -x BIN -%c SPEC",
			 o->lines_spec ? 'L' : 'V', o->lines_spec ? 'L' : 'V');
	else if (!bin)
		;
	else if (kernel)
		r = o->lines_spec ? dw_list_lines(stdout, bin, spec, err, sizeof(err))
				  : dw_list_vars(stdout, bin, spec, false, err, sizeof(err));
	else
		r = ls_dwarf(stdout, bin, spec, o->lines_spec != NULL, err, sizeof(err));
	if (r && kernel && o->lines_spec && !o->source && strstr(err, "cannot open the source"))
		fprintf(stderr, "perf-run: %s; give the kernel's sources with -s DIR (Debian: apt "
			"install linux-source-VERSION, then unpack /usr/src/linux-source-VERSION.tar.xz "
			"and give its top directory)\n", err);
	else if (r)
		fprintf(stderr, "perf-run: %s\n", err);
	free(bin);
	free(copy);
	return r ? 1 : 0;
}

/* ---- running ---- */

/* The script file; "-" is standard input, as in bpftrace 0.17. */
static char *read_file(const char *path, size_t *len)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;
	if (!f) {
		fprintf(stderr, "perf-run: cannot read '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	FILE *m = open_memstream(&buf, &n);
	char chunk[8192];
	size_t k;
	while (m && (k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, k, m);
	bool bad = ferror(f);
	if (!in)
		fclose(f);
	if (m)
		fclose(m);
	if (bad || !m) {
		fprintf(stderr, "perf-run: cannot read '%s': %s\n", path, strerror(errno));
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The lexer stops at a NUL byte: a script holding one would end there
 * without a word (a binary file, a bad copy).  -1 if it does, reported at it. */
static int check_no_nul(const struct source *src, size_t len)
{
	const char *nul = memchr(src->text, 0, len);
	if (!nul)
		return 0;
	const char *bol = src->text;
	int line = 1;
	for (const char *p = src->text; p < nul; p++)
		if (*p == '\n')
			line++, bol = p + 1;
	struct diag d;
	diag_init(&d, src, stderr);
	diag_error(&d, (struct loc){ line, (int)(nul - bol) + 1, 1 },
		   "a NUL byte: a script is text, and nothing after it would be read");
	return -1;
}

/* -o FILE, opened as docs/SECURITY.md says (lib/safefile.h): the text
 * stream, or for -f perf and -f pprof the file written at exit (the text
 * then stays on stdout).  -1 if it cannot be, said. */
static int open_output(const struct opts *o, FILE **out, int *prof_fd)
{
	bool binary = o->format == RT_PERF || o->format == RT_PPROF;
	char why[512] = "";
	int fd;

	if (binary && !o->out) {
		fprintf(stderr, "perf-run: -f %s writes a file: give it with -o FILE\n",
			o->format == RT_PERF ? "perf" : "pprof");
		return -1;
	}
	if (!o->out)
		return 0;
	if ((fd = sf_open_write(o->out, why, sizeof(why))) < 0) {
		fprintf(stderr, "perf-run: cannot write '%s': %s\n", o->out, why);
		return -1;
	}
	if (binary) {
		*prof_fd = fd;
		return 0;
	}
	if (!(*out = fdopen(fd, "w"))) {
		fprintf(stderr, "perf-run: cannot write '%s': %s\n", o->out, strerror(errno));
		close(fd);
		*out = stdout;
		return -1;
	}
	return 0;
}

static int start_child(const struct opts *o, struct child *c)
{
	if (o->cmd && o->cmd_argv) {
		fprintf(stderr, "perf-run: give the command with -c or after --, not both\n");
		return -1;
	}
	/* -f folded on stdout is a stream of stacks that a flame-graph tool
	 * reads: the command's own output (stdout) goes to stderr, never into
	 * it.  The child is forked with fd 1 pointing at stderr, then fd 1 is
	 * perf-run's again. */
	bool split = (o->format == RT_FOLDED || o->format == RT_FOLDED_PERF) && !o->out;
	fflush(stdout);   /* nothing of perf-run's own may follow fd 1 to stderr */
	int keep = split ? dup(STDOUT_FILENO) : -1, r;
	if (split && (keep < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)) {
		fprintf(stderr, "perf-run: cannot keep the command's output apart: %s\n",
			strerror(errno));
		if (keep >= 0)
			close(keep);
		return -1;
	}
	r = o->cmd ? child_spawn_line(c, o->cmd) : child_spawn(c, o->cmd_argv);
	if (split) {
		dup2(keep, STDOUT_FILENO);
		close(keep);
	}
	return r;
}

/* NULL for a kernel thread or an unreadable executable: probe.c says so
 * where a probe needs it. */
static char *pid_binary(pid_t pid)
{
	const char *why;
	return elfsym_pid_exe(pid, &why);
}

/* One fd per program, map and link: a wildcard of a few hundred
 * functions passes the usual soft limit of 1024 (and failed as a verifier
 * rejection without a message).  The soft limit goes up to the hard one;
 * called after the traced command is forked, which keeps the limits it
 * was given (select() breaks past 1024). */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* What a verifier rejection in a lean compile needs to compile the script
 * again (runtime/loader.h, ld_recompile_fn). */
struct recompile {
	const struct source *src;
	const struct pr_compile_opts *co;
};

/* The script compiled again with program `prog`'s line info kept; its
 * diagnostics were said by the first compile, so they go nowhere. */
static struct program *recompile(void *arg, const char *prog)
{
	const struct recompile *rc = arg;
	struct pr_compile_opts co = *rc->co;
	FILE *null = fopen("/dev/null", "we");
	struct diag d;

	if (!null)
		return NULL;
	co.keep_debug = prog;
	co.verbose = 0;
	diag_init(&d, rc->src, null);
	struct program *p = pr_compile(rc->src, &co, &d);
	fclose(null);
	if (p && d.errors) {
		pr_program_free(p);
		return NULL;
	}
	return p;
}

static int run(const struct opts *o, double start)
{
	struct source src = { o->prog ? "-e" : !strcmp(o->file, "-") ? "stdin" : o->file, NULL };
	size_t len = 0;
	char *text = o->prog ? strdup(o->prog) : read_file(o->file, &len);
	struct child child, *cp = NULL;
	char *pbin = NULL;
	FILE *out = stdout;
	int ret = 1, prof_fd = -1;

	if (!text)
		return 1;
	src.text = text;
	if (!o->prog && check_no_nul(&src, len))
		goto out;
	if (o->pid > 0 && kill(o->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "perf-run: no process with pid %d\n", (int)o->pid);
		goto out;
	}
	if (open_output(o, &out, &prof_fd))
		goto out;
	if (o->cmd || o->cmd_argv) {
		if (start_child(o, &child))
			goto out;
		cp = &child;
	}
	raise_nofile();
	pid_t pid = cp ? cp->pid : o->pid;
	if (!cp && o->pid > 0)
		pbin = pid_binary(o->pid);
	struct pr_compile_opts co = {
		.pid = pid, .default_bin = cp ? child_path(cp) : pbin,
		.params = o->params, .nparams = o->nparams, .unsafe = o->unsafe,
		.named = o->named, .nnamed = o->nnamed,
		.has_child = cp != NULL, .dump = o->dump, .verbose = o->verbose,
		.no_demangle = o->no_demangle,
	};
	struct diag d;
	diag_init(&d, &src, stderr);
	struct program *p = pr_compile(&src, &co, &d);
	if (!p || d.errors) {
		if (cp)
			child_kill(cp);
		if (p)
			pr_program_free(p);
		goto out;
	}
	if (o->dump) {   /* a look at the compiler's work, nothing loaded */
		ret = 0;
		pr_program_free(p);
		goto out;
	}
	struct rt_opts ro = {
		.out = out, .format = o->format, .quiet = o->quiet, .verbose = o->verbose,
		.pid = pid, .child = cp, .start_ms = start, .dry_run = o->dry_run,
		.command_status = o->command_status,
		.recompile = recompile, .recompile_arg = &(struct recompile){ &src, &co },
		.prof_fd = prof_fd, .prof_path = o->out, .cmdline = o->argv,
		.listen = o->listen, .max_series = o->max_series,
	};
	ret = rt_run(p, &ro, &d);
	pr_program_free(p);
out:
	if (cp) {
		child_kill(cp);
		free(cp->path);
	}
	if (out && out != stdout)
		fclose(out);
	if (prof_fd >= 0)
		close(prof_fd);
	free(pbin);
	free(text);
	return ret;
}

/* A closed standard stream would be the number the next open() gets: an
 * -o file or a map would then take stdout's or stderr's writes.  Each one
 * closed at start is /dev/null instead. */
static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(1);
}

int main(int argc, char **argv)
{
	double start = now_ms();   /* first thing: "Attached ... in T ms" counts from exec */
	struct opts o = { .format = RT_TEXT, .argv = argv };

	std_fds_open();

	if (parse_args(argc, argv, &o))
		return 1;
	if (o.help) {
		usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("perf-run %s\n", PERF_RUN_VERSION);
		return 0;
	}
	if (o.list)
		return do_list(&o);
	if (o.lines_spec || o.vars_spec)
		return do_dwarf_list(&o);
	if (!o.prog && !o.file) {
		fprintf(stderr, "perf-run: give a script FILE or -e PROGRAM; see 'perf-run --help'\n");
		return 1;
	}
	const char *missing = o.dump ? NULL : priv_missing();
	if (missing) {
		fprintf(stderr, "perf-run: tracing needs root, or CAP_BPF and CAP_PERFMON, "
			"and this process is missing %s\n", missing);
		return 1;
	}
	return run(&o, start);
}
