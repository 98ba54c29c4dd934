/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * replay.c - runs a fuzz target over files without libFuzzer, so that the
 * kept corpus is exercised by any compiler (the ASan build of gcc in the
 * test suite): every argument is a file or a directory of files, each given
 * to LLVMFuzzerTestOneInput() once.  Prints `N inputs` and exits 0; a crash,
 * a sanitizer report or a leak ends it otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (!f) {
		perror(path);
		return -1;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		fclose(f);
		return -1;
	}
	for (int c; (c = getc(f)) != EOF;)
		putc(c, m);
	fclose(f);
	fclose(m);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct dirent **ents;
	struct stat st;
	int n, rc = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *sub;

		if (ents[i]->d_name[0] != '.' && asprintf(&sub, "%s/%s", path, ents[i]->d_name) >= 0) {
			rc |= run_path(sub, count);
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i], &count);
	printf("%d inputs\n", count);
	return rc ? 1 : 0;
}
