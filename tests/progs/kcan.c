/* SPDX-License-Identifier: GPL-2.0-only */ /* kcan WHAT: asks this kernel whether it can do WHAT, for the cases that
 * need it (REQUIRES ./tests/progs/kcan WHAT).  Exits 0 if it can; else
 * prints why in one line on stdout (the runners show it in the SKIP line)
 * and exits 1.  Tests never assume the developers' kernel: machines of
 * one kind differ (IA32 emulation, debug registers, kprobes, a PMU).
 *   exec32      exec an i386 program (tests/progs/elf32, built with -m32)
 *   breakpoint  open a hardware breakpoint on this process
 *   bpfires     a breakpoint on this process counts its writes
 *   kprobe      open a kprobe perf event (on vfs_read)
 *   pmu         count CPU cycles (a hardware PMU)
 *   kprobe_multi  create kprobe_multi links (5.18+, CONFIG_FPROBE)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int no(const char *fmt, const char *detail)
{
	printf(fmt, detail);
	putchar('\n');
	return 1;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	a->size = sizeof(*a);
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The elf32 test program with no calls: exits 0 where the kernel runs it. */
static int exec32(void)
{
	const char *bin = "tests/progs/elf32";
	int pipefd[2], err = 0;

	if (access(bin, X_OK))
		return no("%s is not built (gcc -m32 needs gcc-multilib)", bin);
	if (pipe2(pipefd, O_CLOEXEC))
		return no("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(bin, bin, "0", (char *)NULL);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		close(pipefd[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return no("this kernel cannot exec i386 programs (%s: no IA32 emulation)",
			  strerror(pid < 0 ? errno : err));
	}
	close(pipefd[0]);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return no("%s 0 did not exit 0", bin);
	return 0;
}

static volatile int watched;

static int breakpoint(int fire)
{
	struct perf_event_attr a;
	uint64_t n = 0;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&watched;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = perf_open(&a, 0, -1);
	if (fd < 0)
		return no("this kernel opens no hardware breakpoint (%s)", strerror(errno));
	if (!fire) {
		close(fd);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		watched = i;
	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		n = 0;
	close(fd);
	if (n != 3)
		return no("this machine's breakpoints open but do not fire (%s of 3 writes counted)",
			  n ? "some" : "none");
	return 0;
}

static int pmu_type(const char *name)
{
	char path[128];
	int type = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

static int kprobe(void)
{
	struct perf_event_attr a;
	int type = pmu_type("kprobe");

	if (type < 0)
		return no("this kernel has no kprobes (%s)", "no kprobe PMU: CONFIG_KPROBES is off");
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)type;
	a.config1 = (uint64_t)(uintptr_t)"vfs_read";
	int fd = perf_open(&a, -1, 0);
	if (fd < 0)
		return no("this kernel refuses a kprobe on vfs_read (%s)", strerror(errno));
	close(fd);
	return 0;
}

static int pmu(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	int fd = perf_open(&a, 0, -1);
	if (fd < 0)
		return no("this machine has no hardware PMU (cycles: %s)", strerror(errno));
	close(fd);
	return 0;
}

/* A kernel without CONFIG_FPROBE refuses any kprobe_multi link with
 * EOPNOTSUPP; one with it refuses an empty one with EINVAL. */
static int kprobe_multi(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int prog, link;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = BPF_TRACE_KPROBE_MULTI;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	prog = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (prog < 0)
		return no("this kernel has no kprobe_multi links (loading a program for one: %s)",
			  strerror(errno));
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	link = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	int err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	if (err != EINVAL)
		return no("this kernel has no kprobe_multi links (%s: CONFIG_FPROBE is off)",
			  strerror(err));
	return 0;
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";

	if (!strcmp(w, "exec32"))
		return exec32();
	if (!strcmp(w, "breakpoint"))
		return breakpoint(0);
	if (!strcmp(w, "bpfires"))
		return breakpoint(1);
	if (!strcmp(w, "kprobe"))
		return kprobe();
	if (!strcmp(w, "pmu"))
		return pmu();
	if (!strcmp(w, "kprobe_multi"))
		return kprobe_multi();
	fprintf(stderr, "usage: kcan exec32|breakpoint|bpfires|kprobe|pmu|kprobe_multi\n");
	return 2;
}
