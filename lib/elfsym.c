// SPDX-License-Identifier: GPL-2.0-only
/*
 * elfsym.c - function symbols and file offsets of ELF files through libelf,
 * and the dynamic loader's search for a library named in an attach point.
 *
 * Only the symbol tables and program headers are read: this is the fast
 * path for `uprobe:BIN:func`, which needs no DWARF.
 */
#define _GNU_SOURCE
#include "lib/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/demangle.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static int ef_open(const char *path, struct elf_file *ef)
{
	elf_version(EV_CURRENT);
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return -1;
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		if (ef->elf)
			elf_end(ef->elf);
		close(ef->fd);
		errno = ENOEXEC;
		return -1;
	}
	return 0;
}

static void ef_close(struct elf_file *ef)
{
	elf_end(ef->elf);
	close(ef->fd);
}

int elfsym_addr_offset(Elf *elf, uint64_t addr, uint64_t *offset)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

int elfsym_offset(const char *path, uint64_t addr, uint64_t *offset)
{
	struct elf_file ef;
	if (ef_open(path, &ef))
		return -1;
	int r = elfsym_addr_offset(ef.elf, addr, offset);
	ef_close(&ef);
	return r;
}

/* path's ELF header into *eh; false if it is no ELF file. */
static bool read_ehdr(const char *path, GElf_Ehdr *eh)
{
	struct elf_file ef;
	if (ef_open(path, &ef))
		return false;
	bool r = gelf_getehdr(ef.elf, eh) != NULL;
	ef_close(&ef);
	return r;
}

static bool is_machine(const char *path, int machine)
{
	GElf_Ehdr eh;
	return read_ehdr(path, &eh) && eh.e_machine == machine;
}

bool elfsym_is_x86_64(const char *path)
{
	return is_machine(path, EM_X86_64);
}

bool elfsym_is_i386(const char *path)
{
	return is_machine(path, EM_386);
}

bool elfsym_is_exec(const char *path)
{
	GElf_Ehdr eh;
	return read_ehdr(path, &eh) && eh.e_type == ET_EXEC;
}

static Elf_Scn *find_symtab(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

/*
 * Sorts by address, then name (aliases share an address).  A radix sort on
 * the address, one byte a pass, skipping the bytes every address shares:
 * qsort() of 10,000 symbols took 3-4 ms of a 10,000-uprobe start-up.
 */
static int sort_by_addr(struct elfsym *v, int n)
{
	size_t count[8][256] = { { 0 } };
	struct elfsym *tmp = malloc(sizeof(*tmp) * (size_t)n), *from = v, *to = tmp;

	if (!tmp)
		return -1;
	for (int i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			count[b][(v[i].addr >> (8 * b)) & 0xff]++;
	for (int b = 0; b < 8; b++) {
		size_t pos = 0, *c = count[b];
		if (c[(v[0].addr >> (8 * b)) & 0xff] == (size_t)n)
			continue;   /* every address has this byte */
		for (int d = 0; d < 256; d++) {
			size_t k = c[d];
			c[d] = pos;
			pos += k;
		}
		for (int i = 0; i < n; i++)   /* stable, so earlier bytes stay in order */
			to[c[(from[i].addr >> (8 * b)) & 0xff]++] = from[i];
		struct elfsym *t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, sizeof(*v) * (size_t)n);
	free(tmp);
	for (int i = 1; i < n; i++)   /* names within an address: runs of one or two */
		for (int j = i; j > 0 && v[j].addr == v[j - 1].addr &&
				strcmp(v[j].name, v[j - 1].name) < 0; j--) {
			struct elfsym t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return 0;
}

/* The names already taken, as an open-addressing hash set: a binary with
 * 10,000 functions matched by f* must not cost 10,000^2/2 strcmp()s. */
struct nameset {
	const char **slot;
	size_t mask;     /* capacity - 1, capacity a power of two */
	size_t used;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int ns_grow(struct nameset *ns)
{
	size_t cap = ns->slot ? (ns->mask + 1) * 2 : 256;
	const char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; ns->slot && i <= ns->mask; i++) {
		if (!ns->slot[i])
			continue;
		size_t j = name_hash(ns->slot[i]) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = ns->slot[i];
	}
	free(ns->slot);
	ns->slot = slot;
	ns->mask = cap - 1;
	return 0;
}

/* Adds name (not copied: it must outlive the set); 1 if it was new, 0 if
 * already there, -1 if out of memory. */
static int ns_add(struct nameset *ns, const char *name)
{
	if ((!ns->slot || (ns->used + 1) * 2 > ns->mask + 1) && ns_grow(ns))
		return -1;
	size_t j = name_hash(name) & ns->mask;
	for (; ns->slot[j]; j = (j + 1) & ns->mask)
		if (!strcmp(ns->slot[j], name))
			return 0;
	ns->slot[j] = name;
	ns->used++;
	return 1;
}

/* The PT_LOAD headers, read once per file rather than once per symbol. */
struct loads {
	GElf_Phdr *ph;
	size_t n;
};

static int loads_read(Elf *elf, struct loads *l)
{
	size_t n;

	l->ph = NULL;
	l->n = 0;
	if (elf_getphdrnum(elf, &n))
		return 0;
	l->ph = calloc(n ? n : 1, sizeof(*l->ph));
	if (!l->ph)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &l->ph[l->n]) && l->ph[l->n].p_type == PT_LOAD)
			l->n++;
	return 0;
}

static int loads_offset(const struct loads *l, uint64_t addr, uint64_t *offset)
{
	for (size_t i = 0; i < l->n; i++) {
		const GElf_Phdr *ph = &l->ph[i];

		if (addr >= ph->p_vaddr && addr < ph->p_vaddr + ph->p_memsz) {
			*offset = addr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

/* A pattern over demangled names (elfsym_match_demangled): spaces
 * removed, as from each name it is compared with. */
struct dmpat {
	char *pat;
	bool params;              /* has "(...)": compared with whole names */
	bool literal;             /* no wildcard: strcmp */
	char need[80];            /* "5total": in every mangled name that can match */
};

struct collector {
	const char *pattern;
	const struct dmpat *dm;   /* match demangled names, not names */
	bool literal;
	size_t prefix;            /* pattern's length before its first wildcard */
	bool every;               /* keep same-named symbols (statics of several units) */
	struct nameset seen;
	struct loads loads;
	struct elfsym *out;
	int n, cap;
};

static int co_add(struct collector *co, const char *name, const Elf64_Sym *sym)
{
	if (co->n == co->cap) {
		int cap = co->cap ? co->cap * 2 : 16;
		struct elfsym *p = realloc(co->out, sizeof(*p) * (size_t)cap);
		if (!p)
			return -1;
		co->out = p;
		co->cap = cap;
	}
	struct elfsym *s = &co->out[co->n];
	s->name = strdup(name);
	if (!s->name)
		return -1;
	co->n++;
	s->addr = sym->st_value;
	s->size = sym->st_size;
	if (loads_offset(&co->loads, s->addr, &s->offset))
		s->offset = s->addr;
	return 0;
}

/* Whether name matches: a literal compares, a pattern is tried only on
 * names that start with its literal prefix (fnmatch is the slow part). */
static void strip_spaces(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (*s != ' ')
			*o++ = *s;
	*o = 0;
}

static bool dm_cmp(const struct dmpat *p, const char *s)
{
	return p->literal ? !strcmp(p->pat, s) : !fnmatch(p->pat, s, 0);
}

/* The end of a template argument list that s ends with ("f<int>"), or
 * NULL: where "f" ends. */
static char *template_args(char *s)
{
	size_t n = strlen(s);
	int depth = 0;

	if (!n || s[n - 1] != '>')
		return NULL;
	for (size_t i = n; i-- > 0;) {
		depth += s[i] == '>' ? 1 : s[i] == '<' ? -1 : 0;
		if (!depth)
			return i ? s + i : NULL;
	}
	return NULL;
}

/* A pattern with parameters against a whole name d (spaces removed):
 * also without the return type a template has (sh, perf's short name, is
 * where its name starts) and without the qualifiers after the parameters
 * ("f()" is "f() const"). */
static bool dm_match_whole(const struct dmpat *p, char *d, const char *sh)
{
	const char *at = sh ? strstr(d, sh) : NULL;
	char *close = strrchr(d, ')');

	if (dm_cmp(p, d) || (at && at != d && dm_cmp(p, at)))
		return true;
	if (!close || !close[1])
		return false;
	close[1] = 0;
	return dm_cmp(p, d) || (at && at != d && dm_cmp(p, at));
}

/* A Rust v0 method of an inherent impl, "<krate::Cart>::add", as the path
 * a user writes, "krate::Cart::add" (in place); false if s is not one
 * (a trait impl "<T as Trait>::f" keeps its brackets). */
static bool rust_inherent(char *s)
{
	int depth = 0;
	size_t i = 0;

	if (s[0] != '<')
		return false;
	for (; s[i]; i++) {
		depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
		if (!depth)
			break;
	}
	if (!s[i] || strncmp(s + i + 1, "::", 2) || memmem(s, i, " as ", 4))
		return false;
	memmove(s + i, s + i + 1, strlen(s + i + 1) + 1);
	memmove(s, s + 1, strlen(s + 1) + 1);
	return true;
}

/* A mangled name against a pattern of demangled ones: perf's short name
 * without parameters in the pattern (all overloads; a template's
 * instances also by the name without their arguments: "shop::twice"),
 * else the whole name (dm_match_whole). */
static bool dm_match(const struct dmpat *p, const char *name)
{
	if (!dm_is_mangled(name) || (p->need[0] && !strstr(name, p->need)))
		return false;
	char *sh = dm_demangle(name, DM_SHORT), *d = NULL, *targs;
	bool ok = false;

	if (sh && name[1] == 'R' && !p->params && !dm_cmp(p, sh))
		rust_inherent(sh);
	if (sh)
		strip_spaces(sh);
	if (!p->params && sh) {
		ok = dm_cmp(p, sh);
		if (!ok && (targs = template_args(sh))) {
			*targs = 0;
			ok = dm_cmp(p, sh);
		}
	} else if (p->params && (d = dm_demangle(name, DM_FULL))) {
		strip_spaces(d);
		ok = dm_match_whole(p, d, sh);
	}
	free(sh);
	free(d);
	return ok;
}

static bool co_match(const struct collector *co, const char *name)
{
	if (co->dm)
		return dm_match(co->dm, name);
	if (co->literal)
		return !strcmp(name, co->pattern);
	return !strncmp(name, co->pattern, co->prefix) && !fnmatch(co->pattern, name, 0);
}

/* Adds sym if it is a defined function that matches. */
static int co_take(struct collector *co, const Elf64_Sym *sym, const Elf_Data *strs)
{
	int type = ELF64_ST_TYPE(sym->st_info);

	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_shndx == SHN_UNDEF ||
	    !sym->st_value || !sym->st_name || sym->st_name >= strs->d_size)
		return 0;
	const char *name = (const char *)strs->d_buf + sym->st_name;
	if (!*name || !memchr(name, 0, strs->d_size - sym->st_name) || !co_match(co, name))
		return 0;
	int fresh = co->every ? 1 : ns_add(&co->seen, name);
	return fresh < 0 || (fresh && co_add(co, name, sym)) ? -1 : 0;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* A literal name in .dynsym through the dynamic loader's .gnu.hash: the
 * chain of its bucket, in symbol order, instead of every symbol.  Returns
 * 1 if done, 0 if there is no usable table (then every symbol is read). */
static int collect_hashed(Elf *elf, size_t symndx, const Elf64_Sym *syms, size_t cnt,
			  const Elf_Data *strs, struct collector *co, int *rc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_HASH && sh.sh_link == symndx)
			break;
	if (!scn || !(d = elf_getdata(scn, NULL)) || d->d_size < 16)
		return 0;
	const uint32_t *w = d->d_buf;
	size_t nb = w[0], off = w[1], words = d->d_size / 4;
	size_t first_bucket = 4 + 2 * (size_t)w[2];   /* after the 64-bit bloom words */
	if (!nb || first_bucket + nb > words)
		return 0;
	uint32_t h = gnu_hash(co->pattern);
	const uint32_t *chain = w + first_bucket + nb;
	size_t nchain = words - first_bucket - nb;
	*rc = 0;
	for (size_t i = w[first_bucket + h % nb]; i >= off && i < cnt && i - off < nchain; i++) {
		uint32_t c = chain[i - off];

		if ((c | 1) == (h | 1) && (*rc = co_take(co, &syms[i], strs)))
			break;
		if (c & 1)
			break;
	}
	return 1;
}

/* Collects matching functions of one symbol table.  A 64-bit file's
 * symbols and names are read in place (libelf gives them in memory
 * layout): gelf_getsym() and elf_strptr() per symbol were most of the
 * time in a library of 100,000 symbols.  A 32-bit file's go through gelf. */
static int collect(Elf *elf, Elf_Scn *scn, struct collector *co)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL), *strs;
	/* a string table of type NOBITS has a size and no bytes (d_buf NULL) */
	if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize ||
	    !(strs = elf_getdata(elf_getscn(elf, sh.sh_link), NULL)) || !strs->d_buf)
		return 0;
	bool in_place = gelf_getclass(elf) == ELFCLASS64;
	const Elf64_Sym *syms = data->d_buf;
	size_t cnt = sh.sh_size / sh.sh_entsize;
	if (in_place && cnt > data->d_size / sizeof(*syms))
		cnt = data->d_size / sizeof(*syms);
	int rc = 0;
	if (in_place && co->literal && !co->dm && sh.sh_type == SHT_DYNSYM &&
	    collect_hashed(elf, elf_ndxscn(scn), syms, cnt, strs, co, &rc))
		return rc;
	for (size_t i = 0; i < cnt && !rc; i++) {
		GElf_Sym tmp;   /* GElf_Sym is Elf64_Sym */
		const Elf64_Sym *sym = in_place ? &syms[i] : gelf_getsym(data, (int)i, &tmp);

		rc = sym ? co_take(co, sym, strs) : 0;
	}
	return rc;
}

static int match(const char *path, const char *symfile, const char *pattern, bool every,
		 const struct dmpat *dm, struct elfsym **out)
{
	struct collector co = { .pattern = pattern, .literal = !strpbrk(pattern, "*?["),
				.prefix = strcspn(pattern, "*?[\\"), .every = every, .dm = dm };
	struct elf_file ef, df;
	int rc = 0;

	*out = NULL;
	if (ef_open(path, &ef))
		return -1;
	if (symfile && ef_open(symfile, &df)) {
		ef_close(&ef);
		return -1;
	}
	Elf *symelf = symfile ? df.elf : ef.elf;
	Elf_Scn *scn = find_symtab(symelf, SHT_SYMTAB);
	rc = loads_read(ef.elf, &co.loads);   /* offsets are the binary's */
	if (!rc && scn)
		rc = collect(symelf, scn, &co);
	/* .symtab may be stripped, or lack what .dynsym exports (versioned aliases). */
	scn = find_symtab(ef.elf, SHT_DYNSYM);
	if (!rc && scn)
		rc = collect(ef.elf, scn, &co);
	free(co.seen.slot);   /* its names point into ef's string tables */
	free(co.loads.ph);
	if (symfile)
		ef_close(&df);
	ef_close(&ef);
	if (rc) {
		elfsym_free(co.out, co.n);
		errno = ENOMEM;
		return -1;
	}
	if (co.n > 1 && sort_by_addr(co.out, co.n)) {
		elfsym_free(co.out, co.n);
		errno = ENOMEM;
		return -1;
	}
	*out = co.out;
	return co.n;
}

int elfsym_match(const char *path, const char *pattern, struct elfsym **out)
{
	return match(path, NULL, pattern, false, NULL, out);
}

int elfsym_match_debug(const char *path, const char *symfile, const char *pattern,
		       struct elfsym **out)
{
	return match(path, symfile, pattern, false, NULL, out);
}

int elfsym_every(const char *path, struct elfsym **out)
{
	return match(path, NULL, "*", true, NULL, out);
}

/* The last name of a pattern's scope chain as the mangled name spells it
 * ("shop::Cart::total(int)" -> "5total"), when it is a plain identifier:
 * a cheap test before demangling.  Empty otherwise (operators,
 * destructors, wildcards). */
static void dm_need(const char *pat, char *need, size_t n)
{
	const char *end = pat + strcspn(pat, "(<"), *start = end;

	need[0] = 0;
	while (start > pat && start[-1] != ':')
		start--;
	if (end == start || (size_t)(end - start) > n - 8)
		return;
	for (const char *q = start; q < end; q++)
		if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9')))
			return;
	if (!strncmp(start, "operator", 8))
		return;
	snprintf(need, n, "%d%.*s", (int)(end - start), (int)(end - start), start);
}

static bool dmpat_init(struct dmpat *dm, const char *pattern)
{
	*dm = (struct dmpat){ .pat = strdup(pattern) };
	if (!dm->pat)
		return false;
	strip_spaces(dm->pat);
	dm->params = strchr(dm->pat, '(') != NULL;
	dm->literal = !strpbrk(dm->pat, "*?[");
	dm_need(dm->pat, dm->need, sizeof(dm->need));
	return true;
}

int elfsym_match_demangled(const char *path, const char *symfile, const char *pattern,
			   struct elfsym **out)
{
	struct dmpat dm;

	if (!dmpat_init(&dm, pattern)) {
		*out = NULL;
		errno = ENOMEM;
		return -1;
	}
	int n = match(path, symfile, "*", false, &dm, out);
	free(dm.pat);
	return n;
}

bool elfsym_demangled_is(const char *pattern, const char *mangled)
{
	struct dmpat dm;

	if (!dmpat_init(&dm, pattern))
		return false;
	bool ok = dm_match(&dm, mangled);
	free(dm.pat);
	return ok;
}

bool elfsym_has_symtab(const char *path)
{
	struct elf_file ef;
	if (ef_open(path, &ef))
		return false;
	bool r = find_symtab(ef.elf, SHT_SYMTAB) != NULL;
	ef_close(&ef);
	return r;
}

void elfsym_free(struct elfsym *syms, int n)
{
	for (int i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
}

/* "libc" and "c" mean libc.so*, "libc.so.6" means itself. */
bool elfsym_lib_name_matches(const char *want, const char *base)
{
	char pre[256];
	if (!strcmp(want, base))
		return true;
	if (!strncmp(want, "lib", 3))
		snprintf(pre, sizeof(pre), "%s.so", want);
	else
		snprintf(pre, sizeof(pre), "lib%s.so", want);
	size_t n = strlen(pre);
	return !strncmp(base, pre, n) && (base[n] == '\0' || base[n] == '.');
}

static char *search_maps(const char *want, pid_t pid)
{
	char path[64], line[PATH_MAX + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *found = NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		const char *base = strrchr(file, '/') + 1;
		if (elfsym_lib_name_matches(want, base))
			found = strdup(file);
	}
	fclose(f);
	return found;
}

/* The development link libc.so is a linker script (text), not a library:
 * only an ELF file is what the loader would map. */
static bool is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool r = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);

	if (fd >= 0)
		close(fd);
	return r;
}

/* The first file in dir that the loader would take for want. */
static char *search_dir(const char *dir, const char *want)
{
	char pat[PATH_MAX];
	glob_t g;
	char *found = NULL;
	if (!dir || !want || strchr(want, '/'))
		return NULL;
	snprintf(pat, sizeof(pat), "%s/%s%s*", dir, strncmp(want, "lib", 3) ? "lib" : "", want);
	if (glob(pat, 0, NULL, &g))
		return NULL;
	for (size_t i = 0; i < g.gl_pathc && !found; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		if (elfsym_lib_name_matches(want, base) && is_elf_file(g.gl_pathv[i]))
			found = realpath(g.gl_pathv[i], NULL);
	}
	globfree(&g);
	return found;
}

static char *search_conf(const char *conf, const char *want, int depth)
{
	FILE *f = fopen(conf, "re");
	char line[PATH_MAX], *found = NULL;
	if (!f || depth > 3) {
		if (f)
			fclose(f);
		return NULL;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#\n")] = '\0';
		char *s = line + strspn(line, " \t");
		if (!*s)
			continue;
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			s += 8 + strspn(s + 8, " \t");
			if (!glob(s, 0, NULL, &g)) {
				for (size_t i = 0; i < g.gl_pathc && !found; i++)
					found = search_conf(g.gl_pathv[i], want, depth + 1);
				globfree(&g);
			}
			continue;
		}
		found = search_dir(s, want);
	}
	fclose(f);
	return found;
}

static char *search_path_list(const char *list, const char *want, bool lib)
{
	if (!list)
		return NULL;
	char *copy = strdup(list), *save = NULL, *found = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (lib) {
			found = search_dir(d, want);
		} else {
			char p[PATH_MAX];
			snprintf(p, sizeof(p), "%s/%s", d, want);
			if (!access(p, X_OK))
				found = realpath(p, NULL);
		}
	}
	free(copy);
	return found;
}

static bool looks_like_lib(const char *bin)
{
	return !strncmp(bin, "lib", 3) || strstr(bin, ".so");
}

/* realpath(), unless the file the path reaches is not the one at the
 * resolved name: /proc/PID/exe of a binary deleted or replaced since it
 * started (the kernel still opens and probes the mapped inode through it). */
static char *elfsym_realpath(const char *path)
{
	struct stat a, b;
	char *p = realpath(path, NULL);
	if (stat(path, &a))
		return p;   /* errno from stat: the file itself is missing */
	if (!p || stat(p, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		free(p);
		return strdup(path);
	}
	return p;
}

char *elfsym_pid_exe(pid_t pid, const char **why)
{
	char link[64], buf[16];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	*why = NULL;
	char *p = elfsym_realpath(link);
	if (p)
		return p;
	int e = errno;
	snprintf(buf, sizeof(buf), "/proc/%d", (int)pid);
	if (access(buf, F_OK))
		*why = "has exited";
	else if (e == ENOENT)
		*why = "has no executable (a kernel thread, or exiting)";
	else if (e == EACCES || e == EPERM)
		*why = "has an executable this user may not read";
	else
		*why = strerror(e);
	errno = e;
	return NULL;
}

char *elfsym_find_binary(const char *bin, pid_t pid)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	char *found;
	if (!*bin)
		return errno = ENOENT, NULL;   /* "" would match a PATH folder */
	if (strchr(bin, '/'))
		return elfsym_realpath(bin);
	if (pid > 0 && (found = search_maps(bin, pid)))
		return found;
	if (!looks_like_lib(bin) && (found = search_path_list(getenv("PATH"), bin, false)))
		return found;
	if ((found = search_path_list(getenv("LD_LIBRARY_PATH"), bin, true)))
		return found;
	if ((found = search_conf("/etc/ld.so.conf", bin, 0)))
		return found;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((found = search_dir(dirs[i], bin)))
			return found;
	/* A file in the current directory named without "./". */
	if (!access(bin, R_OK))
		return realpath(bin, NULL);
	return NULL;
}

char *elfsym_find_lib_i386(const char *bin)
{
	static const char *const dirs[] = {
		"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu", "/lib32", "/usr/lib32",
	};
	char *found;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((found = search_dir(dirs[i], bin))) {
			if (elfsym_is_i386(found))
				return found;
			free(found);
		}
	return NULL;
}

/* A defined data symbol (STT_OBJECT, STT_TLS excluded) of one section. */
static bool find_object(Elf *elf, Elf_Scn *scn, const char *name, uint64_t *addr,
			uint64_t *size)
{
	GElf_Shdr sh;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return false;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *n;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		n = elf_strptr(elf, sh.sh_link, s.st_name);
		if (n && !strcmp(n, name)) {
			*addr = s.st_value;
			*size = s.st_size;
			return true;
		}
	}
	return false;
}

int elfsym_object(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	struct elf_file ef;
	bool found;

	if (ef_open(path, &ef) < 0)
		return -1;
	found = find_object(ef.elf, find_symtab(ef.elf, SHT_SYMTAB), name, addr, size) ||
		find_object(ef.elf, find_symtab(ef.elf, SHT_DYNSYM), name, addr, size);
	ef_close(&ef);
	return found ? 0 : 1;
}

Elf_Scn *elfsym_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	Elf_Scn *s = NULL;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((s = elf_nextscn(elf, s))) {
		const char *n;

		if (gelf_getshdr(s, sh) && sh->sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstr, sh->sh_name)) && !strcmp(n, name))
			return s;
	}
	return NULL;
}
