/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * rpswap DIR thread|shared - a program that changes a file name while the
 * open(2) that uses it blocks (reliability-2 N8): a tracer that reads the
 * name when the call returns must not print the new one.
 *
 * DIR/name.txt holds "DIR/fifo" and is mapped but never touched, so a
 * tracer cannot read the name at sys_enter_openat.  The open of DIR/fifo
 * blocks until a writer opens it.  Meanwhile the name is rewritten to
 * DIR/innocent.txt, then the FIFO is opened for writing, which lets the
 * first open return:
 *   thread: by a second thread, through the same private mapping;
 *   shared: by a child process, through a MAP_SHARED mapping of the file.
 * Prints on stderr what the blocked open really opened.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];
static char *name;

static void writer(void)
{
	char path[300];

	usleep(300 * 1000);
	snprintf(path, sizeof(path), "%s/innocent.txt", dir);
	strcpy(name, path);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	int fd = open(path, O_WRONLY);
	if (fd >= 0)
		close(fd);
}

static void *rewrite(void *arg)
{
	(void)arg;
	writer();
	return NULL;
}

int main(int argc, char **argv)
{
	char path[300];
	bool shared = argc > 2 && !strcmp(argv[2], "shared");

	if (argc < 3 || strlen(argv[1]) > 200) {
		fprintf(stderr, "usage: rpswap DIR thread|shared\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	unlink(path);
	if (mkfifo(path, 0600))
		return perror("mkfifo"), 1;
	char text[4096] = { 0 };
	snprintf(text, sizeof(text), "%s/fifo", dir);
	snprintf(path, sizeof(path), "%s/name.txt", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, sizeof(text)) != (ssize_t)sizeof(text))
		return perror("name.txt"), 1;
	/* written through the file, never through this mapping: its page is
	 * not in this process's page tables until open() reads it */
	name = mmap(NULL, sizeof(text), PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE,
		    fd, 0);
	if (name == MAP_FAILED)
		return perror("mmap"), 1;
	pthread_t t;
	pid_t child = -1;
	if (shared) {
		child = fork();
		if (child == 0) {
			writer();
			_exit(0);
		}
	} else if (pthread_create(&t, NULL, rewrite, NULL)) {
		return 1;
	}
	int got = open(name, O_RDONLY);
	char real[300] = "", link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", got);
	ssize_t n = readlink(link, real, sizeof(real) - 1);
	real[n > 0 ? n : 0] = 0;
	fprintf(stderr, "opened %s\n", real);
	if (shared)
		waitpid(child, NULL, 0);
	else
		pthread_join(t, NULL);
	return 0;
}
