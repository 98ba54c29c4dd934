/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * cjson_work.c - the deterministic workload of the cjson corpus binaries
 * (tests/dwarf/realcode.sh): parses each JSON file named on the command
 * line, prints it formatted and unformatted, duplicates and compares it,
 * walks it summing the numbers, and patches it with cJSON_Utils.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "cJSON_Utils.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static double walk(const cJSON *j, int depth)
{
	double sum = 0;

	for (const cJSON *c = j->child; c; c = c->next) {
		if (cJSON_IsNumber(c))
			sum += c->valuedouble * (depth + 1);
		else if (cJSON_IsString(c))
			sum += (double)(unsigned char)c->valuestring[0];
		sum += walk(c, depth + 1);
	}
	return sum;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *text = slurp(argv[i]);
		cJSON *j = text ? cJSON_Parse(text) : NULL;

		if (!j) {
			printf("%s: no parse\n", argv[i]);
			free(text);
			continue;
		}
		char *pretty = cJSON_Print(j), *flat = cJSON_PrintUnformatted(j);
		cJSON *dup = cJSON_Duplicate(j, 1);
		printf("%s: %zu %zu equal %d sum %.6g\n", argv[i], strlen(pretty), strlen(flat),
		       cJSON_Compare(j, dup, 1), walk(j, 0));
		cJSON *patch = cJSONUtils_GeneratePatches(j, dup);
		cJSON_AddNumberToObject(dup, "added", 2.5);
		cJSON_AddItemToObject(dup, "list", cJSON_CreateDoubleArray((double[]){ 1.5, -2.25, 1e10 }, 3));
		cJSON *patch2 = cJSONUtils_GeneratePatches(j, dup);
		char *p2 = cJSON_PrintUnformatted(patch2);
		printf("patch %d %s\n", cJSON_GetArraySize(patch), p2);
		cJSONUtils_SortObject(dup);
		cJSON_free(p2);
		cJSON_Delete(patch2);
		cJSON_Delete(patch);
		cJSON_Delete(dup);
		cJSON_free(pretty);
		cJSON_free(flat);
		cJSON_Delete(j);
		free(text);
	}
	return 0;
}
