// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ELF function symbols: a sorted table from libelf, or the callers of a
 * few addresses read straight from the file (elf_syms.h says which when). */
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf_syms.h"
#include "sorted.h"

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

void btfi_elf_sym_values(Elf *elf, const char *const *names, uint64_t *vals, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(vals, 0, n * sizeof(*vals));
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t k = 0; d && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *sn;

			if (!gelf_getsym(d, k, &s) || s.st_shndx == SHN_UNDEF ||
			    !(sn = elf_strptr(elf, sh.sh_link, s.st_name)) || sn[0] != '_')
				continue;
			for (size_t j = 0; j < n; j++)
				if (!vals[j] && !strcmp(sn, names[j]))
					vals[j] = s.st_value;
		}
	}
}

/* ---- the whole table, through libelf ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct btfi_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;	/* larger first */
}

/* In a relocatable object a value is an offset in its section: 0 is the
 * first function of a section, not "no address". */
static bool want_sym(const GElf_Sym *s, bool rel)
{
	int t = GELF_ST_TYPE(s->st_info);

	return (t == STT_FUNC || t == STT_GNU_IFUNC) && (s->st_value || rel) &&
	       s->st_shndx != SHN_UNDEF && (!rel || s->st_shndx < SHN_LORESERVE);
}

uint64_t btfi_sym_addr(Elf *elf, const GElf_Sym *s, bool rel)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!rel || !(scn = elf_getscn(elf, s->st_shndx)) || !gelf_getshdr(scn, &sh))
		return s->st_value;
	return s->st_value + sh.sh_addr;
}

int btfi_syms_load(Elf *elf, struct btfi_syms *out)
{
	size_t strsz = 0, nsyms = 0;
	GElf_Ehdr eh;
	bool rel = gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;

	memset(out, 0, sizeof(*out));
	/* Two passes: count and size the names, then copy. */
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		strsz = nsyms = 0;
		while ((scn = elf_nextscn(elf, scn))) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
				GElf_Sym s;
				const char *sn;
				size_t len;

				if (!gelf_getsym(d, k, &s) || !want_sym(&s, rel))
					continue;
				sn = elf_strptr(elf, sh.sh_link, s.st_name);
				if (!sn || !*sn)
					continue;
				len = strlen(sn) + 1;
				if (pass) {
					out->v[nsyms] = (struct btfi_sym){ btfi_sym_addr(elf, &s, rel), s.st_size,
						(char *)(uintptr_t)strsz, GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC };
					memcpy(out->strs + strsz, sn, len);
				}
				strsz += len;
				nsyms++;
			}
		}
		if (!pass) {
			out->strs = malloc(strsz + 1);
			out->v = calloc(nsyms + 1, sizeof(*out->v));
			if (!out->strs || !out->v) {
				btfi_syms_free(out);
				return -ENOMEM;
			}
		}
	}
	out->n = nsyms;
	for (size_t i = 0; i < nsyms; i++)
		out->v[i].name = out->strs + (uintptr_t)out->v[i].name;
	if (nsyms)
		qsort(out->v, nsyms, sizeof(*out->v), sym_cmp);
	return 0;
}

void btfi_syms_free(struct btfi_syms *s)
{
	free(s->v);
	free(s->strs);
	memset(s, 0, sizeof(*s));
}

/* First index with addr >= a. */
static size_t lower_bound(const struct btfi_syms *s, uint64_t a)
{
	return btfi_lower_bound_u64(s->v, s->n, sizeof(*s->v), offsetof(struct btfi_sym, addr), a);
}

const struct btfi_sym *btfi_syms_at(const struct btfi_syms *s, uint64_t addr)
{
	size_t lo = addr == UINT64_MAX ? s->n : lower_bound(s, addr + 1);

	/* the last starts <= addr, walking back for one that covers it */
	for (size_t i = lo; i-- > 0 && lo - i < 64;) {
		const struct btfi_sym *y = &s->v[i];

		if (addr < y->addr + (y->size ? y->size : 1))
			return y;
	}
	return NULL;
}

bool btfi_syms_has(const struct btfi_syms *s, uint64_t addr, const char *name)
{
	if (!name)
		return false;
	for (size_t i = lower_bound(s, addr); i < s->n && s->v[i].addr == addr; i++)
		if (!strcmp(s->v[i].name, name))
			return true;
	return false;
}

bool btfi_clone_name(const char *sym, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	const char *c;

	if (!n || strncmp(sym, name, n) || sym[n] != '.')
		return false;
	/* one or more ".isra.N" / ".constprop.N", nothing else */
	for (c = sym + n; *c; ) {
		size_t k;

		if (!strncmp(c, ".isra.", 6))
			c += 6;
		else if (!strncmp(c, ".constprop.", 11))
			c += 11;
		else
			return false;
		k = strspn(c, "0123456789");
		if (!k)
			return false;
		c += k;
	}
	return true;
}

const char *btfi_syms_clone_at(const struct btfi_syms *s, uint64_t addr, const char *name)
{
	for (size_t i = lower_bound(s, addr); i < s->n && s->v[i].addr == addr; i++)
		if (btfi_clone_name(s->v[i].name, name))
			return s->v[i].name;
	return NULL;
}

/* ---- callers of a few addresses, straight from the file ---- */

int btfi_caller_cmp(const void *a, const void *b)
{
	const struct btfi_caller *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

#define REL_SEC_SHIFT 40	/* section offsets are < 1 TB */

/* Section names of a relocatable object, for btfi_symtab_sec_key(). */
static int rel_sections(struct btfi_symtab *st, int fd, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
			size_t shnum, uint64_t fsize)
{
	size_t stri = eh->e_shstrndx == SHN_XINDEX ? sh[0].sh_link : eh->e_shstrndx;
	const Elf64_Shdr *ss;
	char *strs;

	if (stri >= shnum)
		return -1;
	ss = &sh[stri];
	if (ss->sh_offset > fsize || ss->sh_size > fsize - ss->sh_offset || !ss->sh_size)
		return -1;
	strs = malloc(ss->sh_size + 1);
	st->secs = calloc(shnum, sizeof(*st->secs));
	if (!strs || !st->secs || pread(fd, strs, ss->sh_size, ss->sh_offset) != (ssize_t)ss->sh_size) {
		free(strs);
		free(st->secs);
		st->secs = NULL;
		return -1;
	}
	strs[ss->sh_size] = 0;
	for (size_t i = 0; i < shnum; i++)
		if (sh[i].sh_name < ss->sh_size && (sh[i].sh_flags & SHF_ALLOC))
			st->secs[i] = strdup(strs + sh[i].sh_name);
	free(strs);
	st->nsecs = shnum;
	st->rel = true;
	return 0;
}

uint64_t btfi_symtab_sec_key(const struct btfi_symtab *st, const char *name)
{
	for (size_t i = 0; name && i < st->nsecs; i++)
		if (st->secs[i] && !strcmp(st->secs[i], name))
			return (uint64_t)i << REL_SEC_SHIFT;
	return UINT64_MAX;
}

/* Find .symtab and its string table from the section headers (64-bit
 * little-endian ELF; anything else or malformed: no callers). */
void btfi_symtab_open(struct btfi_symtab *st, const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh0, *sh = NULL;
	struct stat sb;
	size_t shnum;
	int fd;

	memset(st, 0, sizeof(*st));
	st->fd = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shoff)
		goto out;
	shnum = eh.e_shnum;
	if (!shnum) {	/* extended numbering: count in section 0 */
		if (pread(fd, &sh0, sizeof(sh0), eh.e_shoff) != sizeof(sh0))
			goto out;
		shnum = sh0.sh_size;
	}
	if (!shnum || shnum > (1u << 20) || eh.e_shoff > (uint64_t)sb.st_size ||
	    shnum * sizeof(*sh) > (uint64_t)sb.st_size - eh.e_shoff)
		goto out;
	sh = malloc(shnum * sizeof(*sh));
	if (!sh || pread(fd, sh, shnum * sizeof(*sh), eh.e_shoff) != (ssize_t)(shnum * sizeof(*sh)))
		goto out;
	if (eh.e_type == ET_REL && rel_sections(st, fd, &eh, sh, shnum, sb.st_size))
		goto out;
	for (size_t i = 0; i < shnum; i++) {
		const Elf64_Shdr *s = &sh[i], *ss;

		if (s->sh_type != SHT_SYMTAB || s->sh_entsize != sizeof(Elf64_Sym) ||
		    s->sh_link >= shnum)
			continue;
		ss = &sh[s->sh_link];
		if (s->sh_offset > (uint64_t)sb.st_size || s->sh_size > (uint64_t)sb.st_size - s->sh_offset ||
		    ss->sh_offset > (uint64_t)sb.st_size || ss->sh_size > (uint64_t)sb.st_size - ss->sh_offset)
			break;
		st->symoff = s->sh_offset;
		st->nsyms = s->sh_size / sizeof(Elf64_Sym);
		st->stroff = ss->sh_offset;
		st->strsz = ss->sh_size;
		st->fd = fd;
		fd = -1;
		{
			uint64_t a = st->stroff & ~(uint64_t)4095;

			st->strmap_len = st->stroff - a + st->strsz;
			st->strmap = st->strsz ? mmap(NULL, st->strmap_len, PROT_READ, MAP_PRIVATE,
						      st->fd, a) : MAP_FAILED;
			if (st->strmap == MAP_FAILED)
				st->strmap = NULL;
			else
				st->strs = (const char *)st->strmap + (st->stroff - a);
		}
		break;
	}
out:
	free(sh);
	if (fd >= 0)
		close(fd);
}

void btfi_symtab_close(struct btfi_symtab *st)
{
	if (st->fd >= 0)
		close(st->fd);
	if (st->strmap)
		munmap(st->strmap, st->strmap_len);
	for (size_t i = 0; i < st->nsecs; i++)
		free(st->secs[i]);
	free(st->secs);
	st->secs = NULL;
	st->nsecs = 0;
	st->fd = -1;
	st->strmap = NULL;
	st->strs = NULL;
}

/* One pass over the FUNC symbols (unsorted in the file), read in chunks;
 * symbols outside [first, last] site address are skipped with two
 * compares, those that cover no granule holding a site with a bitmap
 * lookup (a few percent of vmlinux's get past it for hundreds of sites),
 * the others binary-search the sorted sites; only the names of matching
 * symbols are read. */
void btfi_symtab_callers(const struct btfi_symtab *st, struct btfi_caller *c, size_t n)
{
	uint64_t lo_addr, hi_addr, *gbits = NULL;
	unsigned gshift = 8;	/* 256-byte granules: about one per small function */
	enum { CHUNK = 2048 };	/* symbols per read (48 KB) */
	Elf64_Sym *buf;

	if (n)
		qsort(c, n, sizeof(*c), btfi_caller_cmp);
	if (st->fd < 0 || !n)
		return;
	lo_addr = c[0].addr;
	hi_addr = c[n - 1].addr;
	/* At most 2^20 granules (128 KB of bits) whatever the span. */
	while (((hi_addr - lo_addr) >> gshift) >= (1u << 20))
		gshift++;
	gbits = calloc((((hi_addr - lo_addr) >> gshift) >> 6) + 1, sizeof(*gbits));
	/* Mapped and populated in one call: a first touch of each heap page
	 * costs ~9 us on a VM (the 12 faults were 0.1 ms of a dump). */
	buf = mmap(NULL, CHUNK * sizeof(*buf), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED)
		buf = NULL;
	if (!gbits || !buf)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint64_t g = (c[i].addr - lo_addr) >> gshift;

		gbits[g >> 6] |= 1ull << (g & 63);
	}
	for (size_t i = 0; i < st->nsyms; i += CHUNK) {
		size_t m = st->nsyms - i < CHUNK ? st->nsyms - i : CHUNK;

		if (pread(st->fd, buf, m * sizeof(*buf), st->symoff + i * sizeof(*buf)) !=
		    (ssize_t)(m * sizeof(*buf)))
			break;
		for (size_t k = 0; k < m; k++) {
			Elf64_Sym *sym = &buf[k];
			uint64_t g, glast;
			size_t lo = 0, hi = n;

			if (st->rel) {	/* section offset -> key */
				if (!sym->st_shndx || sym->st_shndx >= st->nsecs ||
				    sym->st_value >= 1ull << REL_SEC_SHIFT)
					continue;
				sym->st_value += (uint64_t)sym->st_shndx << REL_SEC_SHIFT;
			}
			if (sym->st_value > hi_addr || sym->st_value + sym->st_size <= lo_addr ||
			    ELF64_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size)
				continue;
			g = sym->st_value > lo_addr ? (sym->st_value - lo_addr) >> gshift : 0;
			glast = sym->st_value + sym->st_size - 1 < hi_addr ?
				(sym->st_value + sym->st_size - 1 - lo_addr) >> gshift :
				(hi_addr - lo_addr) >> gshift;
			while (g <= glast && !(gbits[g >> 6] & (1ull << (g & 63))))
				g++;
			if (g > glast)
				continue;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (c[mid].addr < sym->st_value)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < n && c[lo].addr - sym->st_value < sym->st_size; lo++) {
				char name[256];
				ssize_t got = -1;

				if (sym->st_name >= st->strsz)
					continue;
				if (st->strs) {
					got = strnlen(st->strs + sym->st_name,
						      MIN(sizeof(name) - 1, st->strsz - sym->st_name));
					memcpy(name, st->strs + sym->st_name, got);
				} else {
					got = pread(st->fd, name, sizeof(name) - 1, st->stroff + sym->st_name);
				}
				if (got <= 0)
					continue;
				name[got] = 0;
				free(c[lo].name);
				c[lo].name = strdup(name);
				c[lo].off = c[lo].addr - sym->st_value;
			}
		}
	}
out:
	if (buf)
		munmap(buf, CHUNK * sizeof(*buf));
	free(gbits);
}

