// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_uprobe_multi.c - uprobe_multi links on the running kernel.
 *
 * Loads a hand-written BPF program that counts hits per attach cookie in an
 * array map, attaches it with um_attach() to functions of the generated
 * program build/bench/many1000 (tests/progs/many_gen.sh), runs that program
 * and checks every count, then closes the link and checks that no probe and
 * no link is left.  Run from the top of the tree, as root.
 *
 *   test_uprobe_multi [BIN]     BIN defaults to build/bench/many1000
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "lib/elfsym.h"
#include "runtime/uprobe_multi.h"

#define MAX_SITES 1024
#define DEFAULT_BIN "build/bench/many1000"

static int passed, failed;

#define CHECK(cond, ...)                                            \
	do {                                                        \
		if (cond) {                                         \
			passed++;                                   \
		} else {                                            \
			failed++;                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
		}                                                   \
	} while (0)

struct fixture {
	const char *bin;
	struct elfsym *syms;   /* f0..f999, by address */
	int nsyms;
	int map_fd;            /* array u32 cookie -> u64 hits */
	int prog_fd;
};

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* map[bpf_get_attach_cookie(ctx)] += 1 */
static int load_counter(int map_fd, int attach_type)
{
	struct bpf_insn insns[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_attach_cookie),
		INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -4, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = attach_type);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "um_count", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &o);
}

/* Runs BIN K: every f<i> is called K times. */
static int run_bin(const char *bin, int k)
{
	char arg[16];
	int status;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%d", k);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* many_gen programs write a timestamp on stderr for the benchmarks */
		if (null >= 0)
			dup2(null, 2);
		execl(bin, bin, arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static uint64_t hits(const struct fixture *f, uint32_t cookie)
{
	uint64_t v = 0;

	bpf_map_lookup_elem(f->map_fd, &cookie, &v);
	return v;
}

static void reset(const struct fixture *f)
{
	uint64_t zero = 0;

	for (uint32_t i = 0; i < MAX_SITES; i++)
		bpf_map_update_elem(f->map_fd, &i, &zero, BPF_ANY);
}

/* Links of this kernel whose program is prog_fd's, found by walking link ids. */
static int links_of(int prog_fd)
{
	struct bpf_prog_info pi;
	__u32 len = sizeof(pi), id = 0;
	int n = 0;

	memset(&pi, 0, sizeof(pi));
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		return -1;
	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li;
		__u32 llen = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		if (!bpf_obj_get_info_by_fd(fd, &li, &llen) && li.prog_id == pi.id &&
		    li.type == UM_LINK_TYPE)
			n++;
		close(fd);
	}
	return n;
}

/* Offsets and cookies (the number in "f<n>") of the first cnt functions. */
static void sites(const struct fixture *f, int cnt, uint64_t *off, uint64_t *cookie)
{
	for (int i = 0; i < cnt; i++) {
		off[i] = f->syms[i].offset;
		cookie[i] = strtoull(f->syms[i].name + 1, NULL, 10);
	}
}

static int count_wrong(const struct fixture *f, const uint64_t *cookie, int cnt, uint64_t want)
{
	int bad = 0;

	for (int i = 0; i < cnt; i++)
		if (hits(f, (uint32_t)cookie[i]) != want)
			bad++;
	return bad;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Attach to cnt functions, run the binary with K=3, check, detach, check. */
static void test_attach(struct fixture *f, int cnt, bool ret)
{
	uint64_t off[MAX_SITES], cookie[MAX_SITES];
	double t0, t1, t2;
	int link, rc;

	sites(f, cnt, off, cookie);
	reset(f);
	t0 = now_ms();
	link = um_attach(f->prog_fd, f->bin, off, NULL, cookie, cnt, ret, 0);
	t1 = now_ms();
	CHECK(link >= 0, "um_attach %d sites: %s", cnt, strerror(-link));
	if (link < 0)
		return;
	CHECK(links_of(f->prog_fd) == 1, "%d uprobe_multi links of the program while attached",
	      links_of(f->prog_fd));
	rc = run_bin(f->bin, 3);
	CHECK(rc == 0, "%s 3 exited with %d", f->bin, rc);
	rc = count_wrong(f, cookie, cnt, 3);
	CHECK(rc == 0, "%d of %d %s sites without exactly 3 hits (f%d: %llu)", rc, cnt,
	      ret ? "return" : "entry", (int)cookie[0],
	      (unsigned long long)hits(f, (uint32_t)cookie[0]));
	if (cnt < f->nsyms) {
		uint32_t other = (uint32_t)strtoul(f->syms[cnt].name + 1, NULL, 10);

		CHECK(hits(f, other) == 0, "f%u was not attached but has %llu hits", other,
		      (unsigned long long)hits(f, other));
	}
	t2 = now_ms();
	close(link);
	printf("  %4d %s probes: attach %.2f ms, detach %.2f ms\n", cnt,
	       ret ? "return" : "entry", t1 - t0, now_ms() - t2);
	CHECK(links_of(f->prog_fd) == 0, "%d links left after close", links_of(f->prog_fd));
	run_bin(f->bin, 2);
	rc = count_wrong(f, cookie, cnt, 3);
	CHECK(rc == 0, "%d sites still counted after close", rc);
}

/* pid > 0 limits the probes to that process: ours never calls f0. */
static void test_pid_filter(struct fixture *f)
{
	uint64_t off[2], cookie[2];
	int link;

	sites(f, 2, off, cookie);
	reset(f);
	link = um_attach(f->prog_fd, f->bin, off, NULL, cookie, 2, false, getpid());
	CHECK(link >= 0, "um_attach with pid: %s", strerror(-link));
	if (link < 0)
		return;
	run_bin(f->bin, 1);
	CHECK(count_wrong(f, cookie, 2, 0) == 0, "a probe for pid %d fired in another process",
	      getpid());
	close(link);
}

static void test_errors(struct fixture *f)
{
	uint64_t off = f->syms[0].offset;
	int rc, plain;

	rc = um_attach(f->prog_fd, "/nonexistent/bin", &off, NULL, NULL, 1, false, 0);
	CHECK(rc == -ENOENT, "missing file gave %d, want -ENOENT", rc);
	rc = um_attach(f->prog_fd, f->bin, &off, NULL, NULL, 0, false, 0);
	CHECK(rc == -EINVAL, "zero sites gave %d, want -EINVAL", rc);
	plain = load_counter(f->map_fd, 0);
	CHECK(plain >= 0, "load plain kprobe program: %s", strerror(errno));
	if (plain >= 0) {
		rc = um_attach(plain, f->bin, &off, NULL, NULL, 1, false, 0);
		CHECK(rc == -EINVAL, "program without attach type 48 gave %d, want -EINVAL", rc);
		if (rc >= 0)
			close(rc);
		close(plain);
	}
}

static int setup(struct fixture *f, const char *bin)
{
	char cmd[512];

	f->bin = bin;
	if (access(bin, X_OK) && !strcmp(bin, DEFAULT_BIN)) {
		snprintf(cmd, sizeof(cmd), "tests/progs/many_gen.sh 1000 %s", bin);
		if (system(cmd))
			return -1;
	}
	f->nsyms = elfsym_match(bin, "f[0-9]*", &f->syms);
	if (f->nsyms < 1000) {
		printf("FAIL %s: %d functions f<n>, want 1000\n", bin, f->nsyms);
		return -1;
	}
	f->map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "um_hits", 4, 8, MAX_SITES, NULL);
	if (f->map_fd < 0)
		return -1;
	f->prog_fd = load_counter(f->map_fd, UM_ATTACH_TYPE);
	return f->prog_fd < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct fixture f = { 0 };

	CHECK(um_supported(), "um_supported() is false on this kernel");
	CHECK(um_supported(), "um_supported() changed its answer");
	if (setup(&f, argc > 1 ? argv[1] : DEFAULT_BIN) < 0) {
		printf("FAIL setup: %s\n", strerror(errno));
		failed++;
	} else {
		test_attach(&f, 2, false);
		test_attach(&f, 1000, false);
		test_attach(&f, 1000, true);
		test_pid_filter(&f);
		test_errors(&f);
	}
	elfsym_free(f.syms, f.nsyms);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
