/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Running-kernel symbols from /proc/kallsyms: KASLR base and address <->
 * symbol lookups for kprobe attach. The core kernel's (btfi_ksyms_by_*)
 * and, apart, each loaded module's (the lines with "[module]":
 * btfi_ksyms_mod_*).
 */
#ifndef BTFI_KALLSYMS_H
#define BTFI_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include "btfinline.h"

/* Link-time address of _text in an x86-64 vmlinux (CONFIG_PHYSICAL_START
 * 16 MiB above __START_KERNEL_map); read it from the vmlinux when possible. */
#define BTFI_X86_64_LINK_TEXT	0xffffffff81000000ULL

struct btfi_ksyms;

struct btfi_ksym {
	uint64_t addr;
	const char *name;
	char type;		/* nm letter: 't', 'T', 'd', ... */
	const char *mod;	/* module name; NULL: core kernel */
};

struct btfi_ksyms_opts {
	size_t sz;
	const char *path;	/* default /proc/kallsyms */
	struct btfi_log log;
};

/* Fails with -EPERM when every address reads as 0 (kptr_restrict, not
 * CAP_SYSLOG) and -ENOENT when _text is missing. */
int btfi_ksyms_load(const struct btfi_ksyms_opts *opts, struct btfi_ksyms **out);
void btfi_ksyms_free(struct btfi_ksyms *ks);

/* Runtime address of _text (start of the kernel's .text). */
uint64_t btfi_ksyms_text(const struct btfi_ksyms *ks);
/* KASLR slide: runtime _text minus the link-time _text. */
int64_t btfi_ksyms_kaslr_delta(const struct btfi_ksyms *ks, uint64_t link_text);

/* Symbol by name. Returns the number of symbols with that name (0: none;
 * >1: the kernel's symbol+offset kprobe would pick the first, so callers
 * should attach by address), *sym set to the first one. */
int btfi_ksyms_by_name(const struct btfi_ksyms *ks, const char *name,
		       const struct btfi_ksym **sym);
/* The k-th (0-based, in name order) symbol named `name`, NULL if none. */
const struct btfi_ksym *btfi_ksyms_by_name_nth(const struct btfi_ksyms *ks, const char *name,
					       int k);
/* Text symbol containing addr (greatest text symbol start <= addr, below
 * _etext or inside init text). NULL if none. */
const struct btfi_ksym *btfi_ksyms_by_addr(const struct btfi_ksyms *ks, uint64_t addr);

/* Runtime start of a vmlinux ELF section named in a LOCSEC (".text", or
 * "inline.text"). -ENOENT for sections not known to be resident (e.g.
 * .init.text, freed after boot). */
int btfi_ksyms_sec_base(const struct btfi_ksyms *ks, const char *sec, uint64_t *addr,
			const struct btfi_log *log);

/* Symbols of loaded module `mod` (0: not loaded, or addresses hidden). */
size_t btfi_ksyms_mod_cnt(const struct btfi_ksyms *ks, const char *mod);
/* The k-th symbol named `name` in module `mod` (by address), NULL if none. */
const struct btfi_ksym *btfi_ksyms_mod_by_name_nth(const struct btfi_ksyms *ks, const char *mod,
						   const char *name, int k);
/* Text symbol of any loaded module with the greatest address <= addr
 * (NULL: none), for an address known to be in some module's code. */
const struct btfi_ksym *btfi_ksyms_any_mod_by_addr(const struct btfi_ksyms *ks, uint64_t addr);
/* The loaded modules (at most max) with a text symbol named `name`;
 * returns how many (pointers into ks). */
size_t btfi_ksyms_mods_with(const struct btfi_ksyms *ks, const char *name, const char **mods,
			    size_t max);
/* Text symbol of module `mod` with the greatest address <= addr (NULL:
 * none; the caller checks addr is in the module's code). */
const struct btfi_ksym *btfi_ksyms_mod_by_addr(const struct btfi_ksyms *ks, const char *mod,
					       uint64_t addr);

#endif
