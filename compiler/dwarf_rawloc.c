// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_rawloc.c - location list entries libdw refuses (see the header).
 *
 * Only the entry libdw failed on is read here: its position is the offset
 * the previous dwarf_getlocations call returned (or the list's start), and
 * the base address the one it left.  The walk then goes on in libdw from
 * the next entry.  Entry forms: DWARF 5 .debug_loclists (offset_pair,
 * start_end, start_length, default_location, after a GNU view pair) and
 * DWARF 2-4 .debug_loc.  The expression, without its marker, is parsed by
 * libdw from a copy that lives as long as the process: libdw caches what
 * it parsed by the bytes' address.
 */
#define _GNU_SOURCE
#include "dwarf_rawloc.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OP_GNU_UNINIT 0xf0
#define LLE_GNU_VIEW_PAIR 0x09

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned sh = 0; r->p < r->end; sh += 7) {
		uint8_t b = *r->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static uint64_t fixed(struct rd *r, unsigned size)
{
	uint64_t v = 0;
	if ((size_t)(r->end - r->p) < size || size > 8) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < size; i++)   /* little-endian: x86 */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += size;
	return v;
}

static Elf_Data *section(Dwarf *dbg, const char *name)
{
	Elf *elf = dwarf_getelf(dbg);
	size_t shstr;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		if (n && !strcmp(n, name))   /* libdw decompressed it when it opened it */
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* One entry's range and expression bytes at r; false if this is not a
 * form read here (libdw's failure then stands). */
static bool entry(struct rd *r, int version, uint8_t asize, uint64_t base, uint64_t *start,
		  uint64_t *end, uint64_t *len)
{
	if (version < 5) {
		*start = fixed(r, asize);
		*end = fixed(r, asize);
		uint64_t max = asize == 4 ? UINT32_MAX : UINT64_MAX;
		if ((*start == 0 && *end == 0) || *start == max)
			return false;   /* end of list, base selection: libdw reads them */
		*start += base;
		*end += base;
		*len = fixed(r, 2);
		return !r->bad;
	}
	uint8_t k = r->p < r->end ? *r->p++ : 0;
	if (k == LLE_GNU_VIEW_PAIR) {
		uleb(r);
		uleb(r);
		k = r->p < r->end ? *r->p++ : 0;
	}
	switch (k) {
	case DW_LLE_offset_pair:
		*start = base + uleb(r);
		*end = base + uleb(r);
		break;
	case DW_LLE_start_end:
		*start = fixed(r, asize);
		*end = fixed(r, asize);
		break;
	case DW_LLE_start_length:
		*start = fixed(r, asize);
		*end = *start + uleb(r);
		break;
	case DW_LLE_default_location:
		*start = 0;
		*end = UINT64_MAX;
		break;
	default:
		return false;   /* indexed addresses (.debug_addr), or no entry */
	}
	*len = uleb(r);
	return !r->bad;
}

struct kept {
	struct kept *next;
	uint8_t b[];
};
static struct kept *kept;   /* every copy libdw parsed, as long as it may cache it */

/* The expression without its trailing marker, parsed by libdw. */
static int parse(Dwarf_Attribute *a, const uint8_t *expr, uint64_t len, Dwarf_Op **ops,
		 size_t *n)
{
	if (len < 2 || len > 0x3fff || expr[len - 1] != OP_GNU_UNINIT)
		return -1;
	struct kept *k = malloc(sizeof(*k) + len + 2);
	if (!k)
		return -1;
	uint64_t l = len - 1;
	size_t at = 0;
	do {
		k->b[at++] = (uint8_t)((l & 0x7f) | (l > 0x7f ? 0x80 : 0));
		l >>= 7;
	} while (l);
	memcpy(k->b + at, expr, len - 1);
	k->next = kept;
	kept = k;
	Dwarf_Attribute e = { .code = a->code, .form = DW_FORM_exprloc, .valp = k->b, .cu = a->cu };
	return dwarf_getlocation(&e, ops, n);
}

ptrdiff_t dwrl_getlocations(Dwarf_Attribute *a, ptrdiff_t off, Dwarf_Addr *base,
			    Dwarf_Addr *start, Dwarf_Addr *end, Dwarf_Op **ops, size_t *n,
			    bool *uninit)
{
	Dwarf_Addr b0 = *base;
	ptrdiff_t r = dwarf_getlocations(a, off, base, start, end, ops, n);
	Dwarf_Die cu;
	Dwarf_Half version;
	uint8_t asize;
	Dwarf_Word pos;

	*uninit = false;
	if (r >= 0 || a->form == DW_FORM_exprloc ||
	    !dwarf_cu_die(a->cu, &cu, &version, NULL, &asize, NULL, NULL, NULL))
		return r;
	if (off == 0) {
		/* the list's start, and the CU's base address */
		if (dwarf_formudata(a, &pos))
			return r;
		if (dwarf_lowpc(&cu, &b0))
			b0 = 0;
	} else {
		pos = (Dwarf_Word)off;
	}
	Elf_Data *d = section(dwarf_cu_getdwarf(a->cu), version >= 5 ? ".debug_loclists" :
			      ".debug_loc");
	if (!d || pos >= d->d_size)
		return r;
	struct rd rd = { (const uint8_t *)d->d_buf + pos, (const uint8_t *)d->d_buf + d->d_size,
			 false };
	uint64_t s, e, len;
	if (!entry(&rd, version, asize, b0, &s, &e, &len) || len > (uint64_t)(rd.end - rd.p) ||
	    parse(a, rd.p, len, ops, n) != 0)
		return r;
	*base = b0;
	*start = s;
	*end = e;
	*uninit = true;
	return (ptrdiff_t)(rd.p + len - (const uint8_t *)d->d_buf);
}
