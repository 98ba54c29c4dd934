// SPDX-License-Identifier: GPL-2.0-only
/*
 * usdt.c - read SystemTap SDT notes with libelf.
 *
 * Each note holds three addresses (probe pc, the link-time address of
 * .stapsdt.base, the semaphore) then provider, name and the argument spec,
 * all NUL-terminated.  A prelinked or relocated binary moves
 * .stapsdt.base; the pc moves with it.
 */
#define _GNU_SOURCE
#include "usdt.h"
#include "lib/elfsym.h"
#include "lib/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add_note(Elf *elf, const char *desc, size_t len, uint64_t base_actual, bool have_base,
		    struct usdt_note **out, int *n)
{
	uint64_t a[3];
	if (len < sizeof(a) + 3)
		return 0;
	memcpy(a, desc, sizeof(a));
	const char *prov = desc + sizeof(a), *end = desc + len;
	const char *name = prov + strnlen(prov, (size_t)(end - prov)) + 1;
	if (name >= end)
		return 0;
	const char *args = name + strnlen(name, (size_t)(end - name)) + 1;
	if (args > end)
		return 0;
	struct usdt_note *p = realloc(*out, sizeof(*p) * (size_t)(*n + 1));
	if (!p)
		return -1;
	*out = p;
	p = &p[(*n)++];
	memset(p, 0, sizeof(*p));
	p->addr = a[0] + (have_base ? base_actual - a[1] : 0);
	p->provider = strdup(prov);
	p->name = strdup(name);
	p->args = strndup(args, (size_t)(end - args));
	if (elfsym_addr_offset(elf, p->addr, &p->offset))
		p->offset = p->addr;
	if (a[2] && elfsym_addr_offset(elf, a[2], &p->sem_offset))
		p->sem_offset = 0;
	return 0;
}

int usdt_notes(const char *path, struct usdt_note **out)
{
	struct stat st;
	/* a file a traced process maps or another user owns: never a FIFO
	 * or a device (docs/SECURITY.md) */
	int fd = sf_open_regular(path, &st), n = 0;
	*out = NULL;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = elf ? elfsym_section(elf, ".note.stapsdt", &sh) : NULL;
	bool have_base = elf && elfsym_section(elf, ".stapsdt.base", &bsh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != 3 || strcmp((const char *)data->d_buf + name_off, "stapsdt"))
			continue;
		if (add_note(elf, (const char *)data->d_buf + desc_off, nh.n_descsz,
			     have_base ? bsh.sh_addr : 0, have_base, out, &n)) {
			n = -1;
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (!elf) {
		errno = ENOEXEC;
		return -1;
	}
	return n;
}

void usdt_notes_free(struct usdt_note *n, int cnt)
{
	for (int i = 0; i < cnt; i++) {
		free(n[i].provider);
		free(n[i].name);
		free(n[i].args);
	}
	free(n);
}

struct reg_name {
	const char *names[4];
	int off;
};

/* x86-64 register names of every width → offset in struct pt_regs. */
static const struct reg_name regs[] = {
	{{"rax", "eax", "ax", "al"}, 80}, {{"rbx", "ebx", "bx", "bl"}, 40},
	{{"rcx", "ecx", "cx", "cl"}, 88}, {{"rdx", "edx", "dx", "dl"}, 96},
	{{"rsi", "esi", "si", "sil"}, 104}, {{"rdi", "edi", "di", "dil"}, 112},
	{{"rbp", "ebp", "bp", "bpl"}, 32}, {{"rsp", "esp", "sp", "spl"}, 152},
	{{"r8", "r8d", "r8w", "r8b"}, 72}, {{"r9", "r9d", "r9w", "r9b"}, 64},
	{{"r10", "r10d", "r10w", "r10b"}, 56}, {{"r11", "r11d", "r11w", "r11b"}, 48},
	{{"r12", "r12d", "r12w", "r12b"}, 24}, {{"r13", "r13d", "r13w", "r13b"}, 16},
	{{"r14", "r14d", "r14w", "r14b"}, 8}, {{"r15", "r15d", "r15w", "r15b"}, 0},
	{{"rip", "eip", NULL, NULL}, 128},
};

static int reg_offset(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int k = 0; k < 4 && regs[i].names[k]; k++)
			if (strlen(regs[i].names[k]) == len && !strncmp(regs[i].names[k], s, len))
				return regs[i].off;
	return -1;
}

/* An immediate in the argument's own type: compilers write an unsigned
 * char 255 as "1@$-1", which is 255, not -1. */
static int64_t usdt_narrow(int64_t v, int size, bool is_signed)
{
	if (size >= 8)
		return v;
	int shift = 64 - 8 * size;
	uint64_t u = (uint64_t)v << shift;
	return is_signed ? (int64_t)u >> shift : (int64_t)(u >> shift);
}

/* The ",%INDEX[,SCALE])" of a base+index*scale operand, from after the
 * first comma to the closing parenthesis. */
static int parse_index(const char *s, const char *close, struct usdt_arg *a)
{
	const char *comma = memchr(s, ',', (size_t)(close - s));

	if (*s != '%')
		return -1;
	a->idx_off = reg_offset(s + 1, (size_t)((comma ? comma : close) - s - 1));
	a->scale = 1;
	if (comma) {
		if (close - comma != 2 || !strchr("1248", comma[1]))
			return -1;
		a->scale = comma[1] - '0';
	}
	/* %rsp is no index register in x86's encoding, %rip no base with one */
	return a->idx_off < 0 || a->idx_off == 128 || a->idx_off == 152 ? -1 : 0;
}

static int parse_one(const char *s, size_t len, struct usdt_arg *a, char *err, size_t errlen)
{
	char buf[128], *end;
	if (len >= sizeof(buf))
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *at = strchr(buf, '@');
	if (!at)
		goto bad;
	long size = strtol(buf, &end, 10);
	if (end != at || !size)
		goto bad;
	a->is_signed = size < 0;
	a->size = (int)(size < 0 ? -size : size);
	char *op = at + 1;
	if (*op == '$') {
		a->kind = UA_CONST;
		a->value = usdt_narrow(strtoll(op + 1, &end, 0), a->size, a->is_signed);
		if (*end)
			goto bad;
		return 0;
	}
	if (*op == '%') {
		a->kind = UA_REG;
		a->reg_off = reg_offset(op + 1, strlen(op + 1));
		if (a->reg_off < 0)
			goto bad;
		return 0;
	}
	a->kind = UA_MEM;
	a->value = *op == '(' ? 0 : strtoll(op, &end, 0);
	char *paren = strchr(op, '(');
	if (!paren || (*op != '(' && end != paren) || paren[1] != '%')
		goto bad;
	char *close = strchr(paren, ')'), *comma = strchr(paren, ',');
	if (!close || close[1] || (comma && comma > close))
		goto bad;
	a->reg_off = reg_offset(paren + 2, (size_t)((comma ? comma : close) - paren - 2));
	if (a->reg_off < 0 || a->reg_off == 128 || (comma && parse_index(comma + 1, close, a)))
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "USDT argument '%.*s' has a form perf-run cannot read yet", (int)len, s);
	return -1;
}

int usdt_parse_args(const char *spec, struct usdt_arg **args, char *err, size_t errlen)
{
	int n = 0;
	*args = NULL;
	while (*spec) {
		spec += strspn(spec, " ");
		size_t len = strcspn(spec, " ");
		if (!len)
			break;
		struct usdt_arg *p = realloc(*args, sizeof(*p) * (size_t)(n + 1));
		if (!p)
			return -1;
		*args = p;
		memset(&p[n], 0, sizeof(p[n]));
		if (parse_one(spec, len, &p[n], err, errlen)) {
			free(*args);
			*args = NULL;
			return -1;
		}
		n++;
		spec += len;
	}
	return n;
}
