/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Relocations of a relocatable object (a kernel module) resolved in the
 * layout its section headers give: libdwfl's image, whose allocated
 * sections have addresses of their own (debuginfo.h). A module's code
 * stores 0 in every field the loader fills in, so a branch to another
 * section (a .cold part), to another function by symbol or to the kernel
 * (__x86_return_thunk) decodes as a jump to the next instruction until
 * its relocation says where it goes; the kernel's relative tables
 * (__jump_table, __ex_table, __bug_table) are the same.
 *
 * libdwfl's image is no pristine copy: it applies the absolute relocations
 * to symbols the object defines (R_X86_64_64, 32, 32S: `mov $sym, %rdi`
 * then holds sym's address in its layout) and drops them from the RELA
 * sections; PC-relative ones and those to undefined symbols stay.
 */
#ifndef BTFI_ELF_RELA_H
#define BTFI_ELF_RELA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct btfi_rela {
	uint64_t at;		/* the field's address: sh_addr + r_offset */
	uint64_t value;		/* S + A (0 when the symbol is undefined) */
	const char *name;	/* the symbol's name (in the Elf), NULL if none */
	uint32_t type;		/* R_X86_64_* */
	bool undef;		/* S is outside the object (the kernel's) */
};

struct btfi_relas {
	struct btfi_rela *v;	size_t n, cap;	/* sorted by at */
};

/* Append the SHT_RELA relocations that apply to section shndx of a
 * relocatable object elf (none for another file type), resolved with the
 * section addresses of layout (the same object laid out: libdwfl's image;
 * it may be elf itself); sorts the whole set. 0 or -ENOMEM. */
int btfi_relas_add(Elf *elf, Elf *layout, size_t shndx, struct btfi_relas *r);
/* Is there a relocation of a field starting in [lo, hi)? */
bool btfi_relas_in(const struct btfi_relas *r, uint64_t lo, uint64_t hi);
/* The relocation of the field at address at, NULL if none. */
const struct btfi_rela *btfi_relas_at(const struct btfi_relas *r, uint64_t at);
void btfi_relas_free(struct btfi_relas *r);

#endif
