// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpformat.c - parse tracefs format files into record types.
 *
 * A field line reads
 *   field:const char * filename;	offset:24;	size:8;	signed:0;
 * The declared C type gives the width and signedness where the kernel pads
 * a narrower value into a wider slot (syscall arguments are 8-byte slots
 * holding an `int`); otherwise size and signed are taken as given.
 */
#define _GNU_SOURCE
#include "tpformat.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbtf.h"
#include "lib/types.h"

const char *tpf_events_dir(void)
{
	static const char *dir;
	struct stat st;
	if (dir)
		return dir;
	if (!stat("/sys/kernel/tracing/events", &st))
		return dir = "/sys/kernel/tracing/events";
	int e = errno;   /* EACCES: tracefs is there, root's only */
	if (!mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    !stat("/sys/kernel/tracing/events", &st))
		return dir = "/sys/kernel/tracing/events";
	if (!stat("/sys/kernel/debug/tracing/events", &st))
		return dir = "/sys/kernel/debug/tracing/events";
	errno = e == EACCES ? EACCES : ENOENT;
	return NULL;
}

struct ctype {
	const char *name;
	unsigned size;
	bool is_signed;
};

/* C integer type names whose width the declaration fixes. */
static const struct ctype ctypes[] = {
	{"char", 1, true}, {"signed char", 1, true}, {"unsigned char", 1, false},
	{"short", 2, true}, {"unsigned short", 2, false}, {"int", 4, true},
	{"unsigned int", 4, false}, {"unsigned", 4, false}, {"long", 8, true},
	{"unsigned long", 8, false}, {"long long", 8, true}, {"unsigned long long", 8, false},
	{"bool", 1, false}, {"_Bool", 1, false},
	{"u8", 1, false}, {"u16", 2, false}, {"u32", 4, false}, {"u64", 8, false},
	{"s8", 1, true}, {"s16", 2, true}, {"s32", 4, true}, {"s64", 8, true},
	{"__u8", 1, false}, {"__u16", 2, false}, {"__u32", 4, false}, {"__u64", 8, false},
	{"__s8", 1, true}, {"__s16", 2, true}, {"__s32", 4, true}, {"__s64", 8, true},
	{"pid_t", 4, true}, {"uid_t", 4, false}, {"gid_t", 4, false}, {"size_t", 8, false},
	{"ssize_t", 8, true}, {"loff_t", 8, true}, {"off_t", 8, true}, {"umode_t", 2, false},
	{"dev_t", 4, false}, {"gfp_t", 4, false}, {"clockid_t", 4, true}, {"key_t", 4, true},
	{"qid_t", 4, false}, {"time_t", 8, true}, {"__kernel_size_t", 8, false},
	{"cpumask_t", 0, false},
};

static const struct ctype *find_ctype(const char *decl)
{
	for (size_t i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
		if (!strcmp(ctypes[i].name, decl))
			return &ctypes[i];
	return NULL;
}

/* Splits "const char * filename" into a type text and the field name; the
 * array count of "char comm[16]" goes to *count (0 if not an array). */
static char *split_decl(char *decl, char **type, unsigned *count)
{
	/* Only a trailing "[N]" belongs to the name; "__data_loc char[] name" keeps its "[]". */
	size_t n = strlen(decl);
	while (n && decl[n - 1] == ' ')
		decl[--n] = '\0';
	*count = 0;
	char *br = strrchr(decl, '[');
	if (br && n && decl[n - 1] == ']') {
		*count = (unsigned)strtoul(br + 1, NULL, 10);
		*br = '\0';
		n = (size_t)(br - decl);
		while (n && decl[n - 1] == ' ')
			decl[--n] = '\0';
	}
	char *name = decl + n;
	while (name > decl && (name[-1] == '_' || name[-1] == '$' ||
			       (name[-1] >= 'a' && name[-1] <= 'z') || (name[-1] >= 'A' && name[-1] <= 'Z') ||
			       (name[-1] >= '0' && name[-1] <= '9')))
		name--;
	char *end = name;
	while (end > decl && end[-1] == ' ')
		end--;
	*end = '\0';
	if (!strncmp(decl, "const ", 6))
		decl += 6;
	if (!strncmp(decl, "volatile ", 9))
		decl += 9;
	*type = decl;
	return name;
}

static const struct type *field_type(const char *category, char *ctype, unsigned count,
				     unsigned size, bool is_signed)
{
	if (!strncmp(ctype, "__data_loc ", 11)) {
		struct type *t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		*t = *type_str(PR_STRLEN);
		t->data_loc = true;
		return t;
	}
	if (strchr(ctype, '*')) {
		bool is_char = !strncmp(ctype, "char", 4) || !strncmp(ctype, "unsigned char", 13);
		/* Syscall arguments point into the caller's memory; other events' into the kernel's. */
		bool user = !strcmp(category, "syscalls");
		const struct type *rec = NULL;
		char *star = strchr(ctype, '*');
		/* `struct __kernel_timespec *`: the record from BTF, on first use */
		if (!is_char && star && !strchr(star + 1, '*') && !strncmp(ctype, "struct ", 7)) {
			char *name = strndup(ctype, (size_t)(star - ctype));
			size_t n = name ? strlen(name) : 0;
			while (n && name[n - 1] == ' ')
				name[--n] = '\0';
			rec = name && kbtf_available() ? kbtf_record_stub(name) : NULL;
			free(name);
		}
		return type_ptr(is_char ? type_int(1, true) : rec ? rec : type_void(), user);
	}
	const struct ctype *c = find_ctype(ctype);
	if (count) {
		if (c && c->size == 1 && strstr(ctype, "char"))
			return type_str(size);
		unsigned esz = c && c->size ? c->size : size / count;
		return type_array(type_int(esz, c ? c->is_signed : is_signed), count);
	}
	if (c && c->size && c->size <= size)
		return type_int(c->size, c->is_signed);
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return type_int(size, is_signed);
	return type_array(type_int(1, false), size);
}

static int parse_field(const char *category, char *line, struct field *f)
{
	char *decl = strstr(line, "field:");
	if (!decl)
		return 0;
	decl += 6;
	char *semi = strchr(decl, ';');
	char *off = strstr(line, "offset:"), *sz = strstr(line, "size:"), *sg = strstr(line, "signed:");
	if (!semi || !off || !sz || !sg)
		return 0;
	*semi = '\0';
	char *ctype;
	unsigned count;
	char *name = split_decl(decl, &ctype, &count);
	if (!strncmp(name, "common_", 7) || !*name)
		return 0;
	unsigned size = (unsigned)strtoul(sz + 5, NULL, 10);
	f->name = strdup(name);
	f->offset = (uint32_t)strtoul(off + 7, NULL, 10);
	f->type = field_type(category, ctype, count, size, sg[7] == '1');
	f->bit_offset = f->bit_size = 0;
	return f->name && f->type ? 1 : -1;
}

const struct type *tpf_read(const char *category, const char *event)
{
	const char *dir = tpf_events_dir();
	char path[512], line[1024];
	if (!dir) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s/%s/format", dir, category, event);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	struct field fields[128];
	int n = 0;
	uint32_t end = 0;
	while (fgets(line, sizeof(line), f) && n < 128) {
		int r = parse_field(category, line, &fields[n]);
		if (r < 0)
			break;
		if (r) {
			uint32_t e = fields[n].offset + (fields[n].type->data_loc ? 4 : fields[n].type->size);
			end = e > end ? e : end;
			n++;
		}
	}
	fclose(f);
	/* type_record() keeps the name pointer: it must outlive this frame. */
	char *name;
	if (asprintf(&name, "tracepoint %s:%s", category, event) < 0)
		return NULL;
	return type_record(name, false, end, fields, n);
}

int tpf_match(const char *cat_pattern, const char *event_pattern,
	      int (*fn)(const char *category, const char *event, void *arg), void *arg)
{
	const char *dir = tpf_events_dir();
	if (!dir)
		return -1;
	if (!strpbrk(cat_pattern, "*?[\\") && !strpbrk(event_pattern, "*?[\\")) {
		/* One name: no need to list 100 categories and 700 syscalls. */
		char path[512];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, cat_pattern, event_pattern);
		return stat(path, &st) || !S_ISDIR(st.st_mode) ? 0 :
		       fn(cat_pattern, event_pattern, arg);
	}
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *c;
	int r = 0;
	while (!r && (c = readdir(d))) {
		if (c->d_name[0] == '.' || fnmatch(cat_pattern, c->d_name, 0))
			continue;
		char sub[512];
		snprintf(sub, sizeof(sub), "%s/%s", dir, c->d_name);
		DIR *e = opendir(sub);
		struct dirent *ev;
		while (e && !r && (ev = readdir(e))) {
			if (ev->d_name[0] == '.' || ev->d_type != DT_DIR || fnmatch(event_pattern, ev->d_name, 0))
				continue;
			r = fn(c->d_name, ev->d_name, arg);
		}
		if (e)
			closedir(e);
	}
	closedir(d);
	return r;
}

/* "p:kprobes/name do_sys_open" -> group "kprobes", event "name" (group and
 * event are n bytes each); a line without a group ("name u64 lat", older
 * synthetic events) leaves group "". */
static void dyn_event_name(const char *line, char *group, char *event, size_t n)
{
	size_t len = strcspn(line, " \t\n");
	const char *colon = memchr(line, ':', len), *slash;

	if (colon) {
		len -= (size_t)(colon + 1 - line);
		line = colon + 1;
	}
	slash = memchr(line, '/', len);
	*group = 0;
	if (slash && (size_t)(slash - line) < n) {
		memcpy(group, line, (size_t)(slash - line));
		group[slash - line] = 0;
		len -= (size_t)(slash + 1 - line);
		line = slash + 1;
	}
	len = len < n ? len : n - 1;
	memcpy(event, line, len);
	event[len] = 0;
}

/* The dynamic events' list, read once: dynamic_events, or on kernels
 * before it kprobe_events and uprobe_events.  "" if there is none. */
static const char *dynamic_events(void)
{
	static const char *const lists[] = { "dynamic_events", "kprobe_events", "uprobe_events" };
	static char *text;
	const char *dir = tpf_events_dir();
	size_t len = 0;
	FILE *out;

	if (text)
		return text;
	out = open_memstream(&text, &len);
	for (size_t i = 0; out && dir && i < sizeof(lists) / sizeof(lists[0]); i++) {
		char path[512], buf[4096];
		size_t n;
		FILE *f;

		snprintf(path, sizeof(path), "%.*s/%s", (int)(strlen(dir) - strlen("/events")),
			 dir, lists[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, out);
		fclose(f);
		if (i == 0)
			break;
	}
	if (out)
		fclose(out);
	return text ? text : "";
}

static bool is_dynamic_event(const char *category, const char *event)
{
	char group[256], ev[256];

	for (const char *l = dynamic_events(); *l;) {
		size_t len = strcspn(l, "\n");

		dyn_event_name(l, group, ev, sizeof(ev));
		if (!strcmp(ev, event) && (!*group || !strcmp(group, category)))
			return true;
		l += len + (l[len] == '\n');
	}
	return false;
}

bool tpf_is_tracepoint(const char *category, const char *event)
{
	static const char *const not_tp[] = { "syscalls", "ftrace", "synthetic", "user_events" };

	for (size_t i = 0; i < sizeof(not_tp) / sizeof(not_tp[0]); i++)
		if (!strcmp(category, not_tp[i]))
			return false;
	return !is_dynamic_event(category, event);
}

bool tpf_bpf_attachable(const char *category, const char *event)
{
	return strcmp(category, "ftrace") && !is_dynamic_event(category, event);
}
