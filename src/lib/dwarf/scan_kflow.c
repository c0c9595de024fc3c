// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Control transfers of a kernel image that its code does not show, for
 * the scan's control-flow graphs (scan_cfg.c): static-key jumps (asm goto;
 * __jump_table: a nop or jump patched at run time), exception fixups
 * (__ex_table: a faulting instruction continues at its fixup) and WARN()s
 * (__bug_table: the ud2 of a warning returns to the next instruction).
 * Without them their targets look like code nothing reaches, and an
 * inline instance there would look entered from nowhere. A module has the
 * same tables as sections whose fields its relocations fill.
 *
 * x86-64 layouts (since Linux 5.x), offsets relative to the field:
 *   struct jump_entry { s32 code, target; long key; }           16 bytes
 *   struct exception_table_entry { int insn, fixup, data; }     12 bytes
 *   struct bug_entry { int bug_addr, file; u16 line, flags; }   12 bytes
 *     (CONFIG_DEBUG_BUGVERBOSE; flags & 1: a warning)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <gelf.h>
#include "dwarf/scan_priv.h"
#include "elf_file.h"
#include "elf_syms.h"

/* The bytes at [lo, hi) of the allocated section that holds them. */
static const uint8_t *bytes_at(Elf *elf, uint64_t lo, uint64_t hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    lo < sh.sh_addr || hi > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		return (const uint8_t *)d->d_buf + (lo - sh.sh_addr);
	}
	return NULL;
}

/* to_off: where the target's offset is; 0: a bug entry, to the next
 * instruction if it is a warning */
static int add_table(struct scan_priv *p, Elf *elf, uint64_t lo, uint64_t hi, uint32_t esz,
		     uint32_t to_off)
{
	const uint8_t *b;

	if (!lo || hi <= lo || (hi - lo) % esz || !(b = bytes_at(elf, lo, hi)))
		return 0;
	for (uint64_t a = lo; a < hi; a += esz, b += esz) {
		int32_t from, to;
		uint16_t flags;

		memcpy(&from, b, 4);
		if (to_off) {
			memcpy(&to, b + to_off, 4);
		} else {
			memcpy(&flags, b + 10, 2);
			if (!(flags & 1))
				continue;
			to = from + 2;		/* after the 2-byte ud2 */
		}
		if (GROW(p->xedges, p->xedges_cap, p->nxedges + 1))
			return -ENOMEM;
		p->xedges[p->nxedges++] = (struct scan_xedge){ a + from, a + to_off + to };
	}
	return 0;
}

static int cmp_xedge(const void *a, const void *b)
{
	const struct scan_xedge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * A module's table: the section `name`, each entry's fields filled by
 * PC32 relocations (a field holds S + A - its address, so S + A is what
 * it points at). to_off as add_table's.
 */
static int add_rel_table(struct scan_priv *p, Elf *elf, const char *name, uint32_t esz,
			 uint32_t to_off)
{
	struct btfi_relas r = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn = btfi_elf_scn(elf, name, &sh);
	int err = 0;

	if (!scn || sh.sh_type != SHT_PROGBITS ||
	    (err = btfi_relas_add(p->rel_elf ? p->rel_elf : elf, elf, elf_ndxscn(scn), &r)))
		goto out;
	for (size_t k = 0; k < r.n; k++) {
		const struct btfi_rela *from = &r.v[k], *to;
		uint64_t off = from->at - sh.sh_addr, target;

		if (off % esz || from->undef || from->type != R_X86_64_PC32)
			continue;
		if (to_off) {
			to = btfi_relas_at(&r, from->at + to_off);
			if (!to || to->undef || to->type != R_X86_64_PC32)
				continue;
			target = to->value;
		} else {
			const uint8_t *b = bytes_at(elf, from->at, from->at + esz);
			uint16_t flags;

			if (!b)
				continue;
			memcpy(&flags, b + 10, 2);
			if (!(flags & 1))
				continue;
			target = from->value + 2;	/* after the 2-byte ud2 */
		}
		if (GROW(p->xedges, p->xedges_cap, p->nxedges + 1)) {
			err = -ENOMEM;
			goto out;
		}
		p->xedges[p->nxedges++] = (struct scan_xedge){ from->value, target };
	}
out:
	btfi_relas_free(&r);
	return err;
}

int scan_kernel_flow(struct scan_priv *p, Elf *elf)
{
	static const char *const names[] = {
		"__start___jump_table", "__stop___jump_table",
		"__start___ex_table", "__stop___ex_table",
		"__start___bug_table", "__stop___bug_table",
	};
	uint64_t v[6];
	int err;

	if (p->relocatable) {
		if ((err = add_rel_table(p, elf, "__jump_table", 16, 4)) ||
		    (err = add_rel_table(p, elf, "__ex_table", 12, 4)) ||
		    (err = add_rel_table(p, elf, "__bug_table", 12, 0)))
			return err;
	} else {
		btfi_elf_sym_values(elf, names, v, 6);
		if ((err = add_table(p, elf, v[0], v[1], 16, 4)) ||
		    (err = add_table(p, elf, v[2], v[3], 12, 4)) ||
		    (err = add_table(p, elf, v[4], v[5], 12, 0)))
			return err;
	}
	if (p->nxedges)
		qsort(p->xedges, p->nxedges, sizeof(*p->xedges), cmp_xedge);
	return 0;
}
