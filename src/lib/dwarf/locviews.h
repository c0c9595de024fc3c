/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BTFI_LOCVIEWS_H
#define BTFI_LOCVIEWS_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

/* Where the CU's location lists live: .debug_loclists (DWARF 5) or
 * .debug_loc, and the CU's offset size (4 or 8) for raw sec_offsets. */
struct btfi_locview_secs {
	const Elf_Data *loclists, *loc;
	int cu_version, offset_size;
};

/*
 * Location at (addr, view): GCC's location views (DW_AT_GNU_locviews: one
 * uleb pair per list entry, just before the list) give each entry a view
 * range, so zero-length entries [A, A) describe the state at A between
 * views. A probe at the instance's entry sees the state of the entry
 * view. Returns 1 and the ops, 0 if no entry covers it, -1 if the views
 * cannot be used (the caller then ignores views), -2 if libdw cannot
 * decode the list. *by_view (may be NULL): the entry's addresses alone do
 * not hold addr (an empty range, or one ending at addr).
 */
int btfi_loc_at_view(const struct btfi_locview_secs *secs, Dwarf_Die *pdie,
		     Dwarf_Attribute *loc, uint64_t addr, uint64_t view,
		     Dwarf_Op **ops, size_t *nops, bool *by_view);

/*
 * The state at addr another view shows: no instruction runs between two
 * views of one address, so an entry that starts at addr after the probe's
 * view reads the same registers and memory; the earliest such view.
 * Without the probe's view (!has_view: where libdw's address-only lookup
 * found nothing), an entry [A, addr) whose end view keeps it at addr's
 * first views, else the earliest empty one [addr, addr). Returns 1 and
 * its ops, 0 if none, -1 without usable views, -2 as above.
 */
int btfi_loc_next_view(const struct btfi_locview_secs *secs, Dwarf_Die *pdie,
		       Dwarf_Attribute *loc, uint64_t addr, bool has_view, uint64_t view,
		       Dwarf_Op **ops, size_t *nops);

#endif
