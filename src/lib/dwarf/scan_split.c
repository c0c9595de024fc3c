// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Split DWARF (-gsplit-dwarf): a skeleton unit in the ELF, the unit's DIEs
 * in a .dwo file that libdw opens (DW_AT_comp_dir + DW_AT_dwo_name, or
 * next to the file when libdw knows its directory). The walk is the
 * normal one on the split unit; what differs is that DIE offsets restart
 * at 0 in each .dwo (keys get the file's index) and that GCC's location
 * view lists are in the .dwo's .debug_loclists.dwo / .debug_loc.dwo.
 * libdw 0.188 does not read .dwp packages (0.191 does): debuginfo.c and
 * dwp.c make them .dwo files again, found like any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>
#include "dwarf/debuginfo.h"
#include "dwarf/scan.h"
#include "dwarf/scan_priv.h"
#include "log.h"

static const char *attr_str(Dwarf_Die *die, int name, int gnu)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr(die, name, &a));

	return s ? s : gnu ? dwarf_formstring(dwarf_attr(die, gnu, &a)) : NULL;
}

static void missing_dwo(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *skel)
{
	const char *name = attr_str(skel, DW_AT_dwo_name, DW_AT_GNU_dwo_name);
	const char *dir = attr_str(skel, DW_AT_comp_dir, 0);
	uint64_t id = 0;

	if (s->di->dwp_path) {
		dwarf_cu_info(skel->cu, NULL, NULL, NULL, NULL, &id, NULL, NULL);
		btfi_err(p->log, "%s: split DWARF unit %s (dwo_id 0x%016llx) is neither a .dwo file (looked in %s and next to %s) nor in %s",
			 s->path, name ? name : "?", (unsigned long long)id,
			 dir && name && name[0] != '/' ? dir : "/", s->dwarf_path, s->di->dwp_path);
	} else {
		btfi_err(p->log, "%s: split DWARF unit %s not found (looked in %s and next to %s)",
			 s->path, name ? name : "?", dir && name && name[0] != '/' ? dir : "/",
			 s->dwarf_path);
	}
}

static Elf_Data *dwo_section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, want))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

int scan_split_enter(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *skel, Dwarf_Die *split)
{
	Dwarf *sd;
	uint32_t i;

	if (dwarf_tag(split) != DW_TAG_compile_unit || !(sd = dwarf_cu_getdwarf(split->cu))) {
		missing_dwo(s, p, skel);
		return -ENOENT;
	}
	for (i = s->ndwarfs; i-- > 1 && s->dwarfs[i] != sd;)
		;
	if (!i) {
		if (s->ndwarfs >= (1u << (64 - BTFI_DIE_FILE_SHIFT)) - 1) {
			btfi_err(p->log, "%s: too many split DWARF files", s->path);
			return -E2BIG;
		}
		if (s->ndwarfs == p->dwarfs_cap) {
			uint32_t cap = p->dwarfs_cap ? p->dwarfs_cap * 2 : 16;
			Dwarf **n = realloc(s->dwarfs, cap * sizeof(*n));

			if (!n) {
				btfi_err(p->log, "%s: out of memory", s->path);
				return -ENOMEM;
			}
			s->dwarfs = n;
			p->dwarfs_cap = cap;
		}
		i = s->ndwarfs++;
		s->dwarfs[i] = sd;
	}
	p->key_base = (uint64_t)i << BTFI_DIE_FILE_SHIFT;
	p->main_loclists = p->loclists;
	p->main_loc = p->loc;
	p->loclists = dwo_section(dwarf_getelf(sd), ".debug_loclists.dwo");
	p->loc = dwo_section(dwarf_getelf(sd), ".debug_loc.dwo");
	return 0;
}

void scan_split_leave(struct btfi_scan *s, struct scan_priv *p)
{
	if (!p->key_base)
		return;
	p->key_base = 0;
	p->loclists = p->main_loclists;
	p->loc = p->main_loc;
}
