/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * stamp.c - times a tracer from exec to "attached", and what it costs.
 *
 * Runs CMD with its stdout and stderr on pipes and timestamps (CLOCK_MONOTONIC,
 * from just before fork) the first output containing PATTERN (bpftrace prints
 * its banner on stdout, perf-run on stderr): the same
 * external measure for every tool, whatever it claims itself.  Optionally
 * it then lists the BPF programs the tracer holds (from its fdinfo, with the
 * instruction counts the kernel reports), sends it a signal and times its
 * exit (detach), and reports its peak RSS from wait4().
 *
 *   stamp [-m PATTERN] [-s SIGNUM] [-d DELAY_MS] [-t TIMEOUT_S] [-o OUT] [-e ERR] [-b] -- CMD...
 *
 * Prints, last, one line: attach_ms= release_ms= total_ms= detach_ms= rss_kb=
 * status= lost= timeout= lines= (-1 where not measured); before it, with -b, one
 * "prog ID TYPE NAME XLATED JITED" line per program, listed when the signal
 * is sent (or at the pattern without -s).  release_ms is when a traced
 * command wrote "stamp_now=MS" (its CLOCK_MONOTONIC start, see loop.c):
 * tracers that print their banner before attaching are caught out by it.
 * lines= counts the command's stdout lines; -o keeps them, -e keeps stderr.
 * Exit status 0 unless stamp itself failed.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

struct opts {
	const char *pattern, *out, *err;
	int sig, delay_ms, timeout_s;
	bool progs;
	char **cmd;
};

struct result {
	double attach_ms, release_ms, total_ms, detach_ms;
	long rss_kb, lost;
	int status;
	bool timed_out;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .pattern = "Attach", .out = "/dev/null", .timeout_s = 600 };
	while ((c = getopt(argc, argv, "+m:s:d:t:o:e:b")) != -1) {
		switch (c) {
		case 'm': o->pattern = optarg; break;
		case 's': o->sig = atoi(optarg); break;
		case 'd': o->delay_ms = atoi(optarg); break;
		case 't': o->timeout_s = atoi(optarg); break;
		case 'o': o->out = optarg; break;
		case 'e': o->err = optarg; break;
		case 'b': o->progs = true; break;
		default: return -1;
		}
	}
	if (optind >= argc)
		return -1;
	o->cmd = argv + optind;
	return 0;
}

/* fds[0], fds[1]: read ends of the command's stdout and stderr. */
static pid_t spawn(const struct opts *o, int fds[2])
{
	int p[2][2];
	pid_t pid;

	if (pipe2(p[0], O_CLOEXEC) < 0 || pipe2(p[1], O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (dup2(p[0][1], 1) < 0 || dup2(p[1][1], 2) < 0)
			_exit(126);
		setpgid(0, 0);
		execvp(o->cmd[0], o->cmd);
		_exit(127);
	}
	close(p[0][1]);
	close(p[1][1]);
	fds[0] = p[0][0];
	fds[1] = p[1][0];
	return pid;
}

static long bpf_sys(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static void print_prog(unsigned id)
{
	struct bpf_prog_info info;
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_id = id;
	fd = (int)bpf_sys(BPF_PROG_GET_FD_BY_ID, &a);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (bpf_sys(BPF_OBJ_GET_INFO_BY_FD, &a) == 0)
		printf("prog %u %u %s %u %u\n", id, info.type, info.name[0] ? info.name : "-",
		       info.xlated_prog_len / 8, info.jited_prog_len);
	close(fd);
}

/* The BPF programs pid holds an fd of, each once. */
static void list_progs(pid_t pid)
{
	char dir[64], path[320], line[256];
	unsigned seen[4096];
	int nseen = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		FILE *f;
		unsigned id;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			bool dup = false;

			if (sscanf(line, "prog_id: %u", &id) != 1)
				continue;
			for (int i = 0; i < nseen; i++)
				dup |= seen[i] == id;
			if (!dup && nseen < 4096) {
				seen[nseen++] = id;
				print_prog(id);
			}
		}
		fclose(f);
	}
	closedir(d);
}

/* Adds the first number of every stderr line that speaks of lost events. */
static void scan_lost(char *buf, struct result *r)
{
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strcasestr(l, "lost"))
			continue;
		char *p = l + strcspn(l, "0123456789");
		if (*p)
			r->lost = (r->lost < 0 ? 0 : r->lost) + strtol(p, NULL, 10);
	}
}

struct stream {
	int fd;
	FILE *copy;      /* stdout: the OUT file; stderr: kept in buf */
	char *buf;       /* stderr text, or the last bytes of stdout */
	size_t len, cap;
	long lines;
};

/* One read; returns false at EOF.  stdout is counted and copied, stderr kept
 * whole (it is short and scanned for lost counts at the end). */
static bool pump(struct stream *s, bool keep)
{
	char tmp[65536];
	ssize_t n = read(s->fd, tmp, sizeof(tmp));

	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		s->lines += tmp[i] == '\n';
	if (s->copy)
		fwrite(tmp, 1, (size_t)n, s->copy);
	if (!keep)
		s->len = 0;     /* stdout: only this chunk is searched */
	if (s->len + (size_t)n + 1 > s->cap) {
		s->cap = (s->len + (size_t)n + 1) * 2;
		s->buf = realloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, tmp, (size_t)n);
	s->len += (size_t)n;
	s->buf[s->len] = '\0';
	return true;
}

static void stamp_release(const char *buf, double t0, struct result *r)
{
	const char *p = r->release_ms < 0 ? strstr(buf, "stamp_now=") : NULL;

	if (p)
		r->release_ms = strtod(p + 10, NULL) - t0;
}

/* Reads both streams until EOF or timeout, stamps the pattern, signals. */
static void watch(const struct opts *o, pid_t pid, struct stream st[2], double t0,
		  struct result *r)
{
	double sig_at = -1;
	int open_streams = 2;

	while (open_streams > 0) {
		double left = o->timeout_s * 1e3 - (now_ms() - t0);
		struct pollfd p[2];

		if (left <= 0) {
			r->timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (r->attach_ms >= 0 && o->sig && sig_at < 0) {
			double wait = o->delay_ms - (now_ms() - t0 - r->attach_ms);

			if (wait <= 0) {
				if (o->progs)
					list_progs(pid);
				sig_at = now_ms();
				kill(pid, o->sig);
			} else if (left > wait) {
				left = wait;
			}
		}
		for (int i = 0; i < 2; i++)
			p[i] = (struct pollfd){ .fd = st[i].fd, .events = POLLIN };
		if (poll(p, 2, (int)left + 1) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (st[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!pump(&st[i], i == 1)) {
				close(st[i].fd);
				st[i].fd = -1;
				open_streams--;
				continue;
			}
			if (r->attach_ms < 0 && strstr(st[i].buf, o->pattern)) {
				r->attach_ms = now_ms() - t0;
				if (o->progs && !o->sig)
					list_progs(pid);
			}
			stamp_release(st[i].buf, t0, r);
		}
	}
	if (sig_at >= 0)
		r->detach_ms = now_ms() - sig_at;
}

int main(int argc, char **argv)
{
	struct result r = { -1, -1, -1, -1, -1, -1, -1, false };
	struct stream st[2] = { { 0 }, { 0 } };
	struct rusage ru;
	struct opts o;
	int fds[2], status;
	pid_t pid;
	double t0;

	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: stamp [-m PAT] [-s SIG] [-d MS] [-t S] [-o OUT] [-e ERR] [-b] -- CMD...\n");
		return 2;
	}
	if (strcmp(o.out, "/dev/null"))
		st[0].copy = fopen(o.out, "w");
	t0 = now_ms();
	pid = spawn(&o, fds);
	if (pid < 0) {
		perror("stamp: fork");
		return 1;
	}
	st[0].fd = fds[0];
	st[1].fd = fds[1];
	watch(&o, pid, st, t0, &r);
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("stamp: wait4");
		return 1;
	}
	r.total_ms = now_ms() - t0;
	r.rss_kb = ru.ru_maxrss;
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (st[0].copy)
		fclose(st[0].copy);
	if (o.err) {
		FILE *f = fopen(o.err, "w");

		if (f) {
			fwrite(st[1].buf ? st[1].buf : "", 1, st[1].len, f);
			fclose(f);
		}
	}
	if (st[1].buf)
		scan_lost(st[1].buf, &r);
	fflush(stdout);
	printf("attach_ms=%.3f release_ms=%.3f total_ms=%.3f detach_ms=%.3f rss_kb=%ld status=%d lost=%ld timeout=%d lines=%ld\n",
	       r.attach_ms, r.release_ms, r.total_ms, r.detach_ms, r.rss_kb, r.status, r.lost, r.timed_out,
	       st[0].lines);
	free(st[0].buf);
	free(st[1].buf);
	return 0;
}
