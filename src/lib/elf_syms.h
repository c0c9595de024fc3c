/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ELF function symbols, two ways for two costs:
 *  - btfi_syms_load(): every FUNC/IFUNC symbol of an open Elf (.symtab and
 *    .dynsym), sorted by address: the scan (is there a symbol for this
 *    function at its entry?) and attach (labels, entry addresses).
 *  - btfi_symtab_*(): the enclosing function of a few addresses in a big
 *    file without libelf or a sorted table (dump: vmlinux has 120k
 *    symbols; dump prints the callers of a handful of sites).
 */
#ifndef BTFI_ELF_SYMS_H
#define BTFI_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct btfi_sym {
	uint64_t addr, size;
	const char *name;
	bool ifunc;		/* STT_GNU_IFUNC: the address is the resolver's */
};

struct btfi_syms {
	struct btfi_sym *v;	size_t n;	/* by address, larger first at one address */
	char *strs;				/* owned copies of the names */
};

/* FUNC and IFUNC symbols with an address, a section and a name, from
 * .symtab and .dynsym (a stripped binary keeps only the latter). 0 or
 * -ENOMEM; *out is empty on error. */
int btfi_syms_load(Elf *elf, struct btfi_syms *out);
void btfi_syms_free(struct btfi_syms *s);
/* Address of a symbol: its value, plus its section's sh_addr in a
 * relocatable object (rel: 0 in the file, libdwfl's layout in its image). */
uint64_t btfi_sym_addr(Elf *elf, const GElf_Sym *s, bool rel);
/* Innermost symbol containing addr (a size-0 symbol covers its address
 * only), NULL if none. */
const struct btfi_sym *btfi_syms_at(const struct btfi_syms *s, uint64_t addr);
/* Is there a symbol `name` exactly at addr? */
bool btfi_syms_has(const struct btfi_syms *s, uint64_t addr, const char *name);
/* GCC's whole-function clones of `name` (IPA-SRA `.isra.N`, constant
 * propagation `.constprop.N`, and both chained): another ABI, the whole
 * body, so every call of one is a call of name. Partial-inlining parts
 * (`.part.N`) and `.cold` pieces are not: a call of name enters them
 * after name's own entry or inline instance already counted it. */
bool btfi_clone_name(const char *sym, const char *name);
/* The name of a clone of `name` with a symbol exactly at addr, or NULL. */
const char *btfi_syms_clone_at(const struct btfi_syms *s, uint64_t addr, const char *name);
/* The values of the defined symbols (any type) named names[0..n) in an
 * Elf's .symtab, one pass; vals[k] = 0 where there is none. */
void btfi_elf_sym_values(Elf *elf, const char *const *names, uint64_t *vals, size_t n);

/* Where the ELF symbol table is (read in chunks when needed, not kept:
 * vmlinux has 120k symbols, 2.9 MB, that a mapping would add to RSS);
 * its string table is mapped: only the pages of the callers' names are
 * read (one read per name was a third of a dump of 500 sites). */
struct btfi_symtab {
	int fd;
	uint64_t symoff, stroff, strsz;
	size_t nsyms;
	void *strmap;		size_t strmap_len;
	const char *strs;	/* NULL: not mapped, pread the names */
	/* A relocatable object (kernel module): symbol values are section
	 * offsets, so addresses are keys btfi_symtab_sec_key() + offset. */
	bool rel;
	char **secs;		size_t nsecs;	/* section names by index */
};


struct btfi_caller {
	uint64_t addr;		/* site address */
	char *name;		/* enclosing FUNC symbol, NULL if none */
	uint64_t off;
};

/* Find .symtab of a 64-bit little-endian ELF; anything else or malformed:
 * st->fd = -1 and no callers are found (not an error: names are extra). */
void btfi_symtab_open(struct btfi_symtab *st, const char *path);
void btfi_symtab_close(struct btfi_symtab *st);
/* Key of section `name` in a relocatable object (add a section offset to
 * get a caller's addr); UINT64_MAX if there is no such section. */
uint64_t btfi_symtab_sec_key(const struct btfi_symtab *st, const char *name);
/* Sort c[0..n) by address and name each one's enclosing function. */
void btfi_symtab_callers(const struct btfi_symtab *st, struct btfi_caller *c, size_t n);
int btfi_caller_cmp(const void *a, const void *b);

#endif
