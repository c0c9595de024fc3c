// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* GCC's location views (docs/DESIGN.md, "Location views"). */
#include <string.h>
#include <dwarf.h>
#include "dwarf/locviews.h"

static bool read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *pp;
	unsigned shift = 0;

	*v = 0;
	while (q < end && shift < 64) {
		*v |= (uint64_t)(*q & 0x7f) << shift;
		shift += 7;
		if (!(*q++ & 0x80)) {
			*pp = q;
			return true;
		}
	}
	return false;
}

/*
 * DW_FORM_loclistx (GCC's split units): index *off -> the list's offset
 * through the unit's offsets table (DW_AT_loclists_base; a split unit has
 * none: the table after the section's first header, 12 bytes in 32-bit
 * DWARF). GCC writes DW_AT_GNU_locviews there relative to the same table:
 * *lvoff is made absolute too.
 */
static int loclistx(const Elf_Data *sec, int offset_size, Dwarf_Die *die, Dwarf_Word *off,
		    Dwarf_Word *lvoff)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_Word base;
	uint32_t v;

	if (offset_size != 4 || !dwarf_diecu(die, &cu, NULL, NULL))
		return -1;
	if (dwarf_formudata(dwarf_attr(&cu, DW_AT_loclists_base, &a), &base))
		base = 12;
	if (base > sec->d_size || *off > (sec->d_size - base) / 4 || base + *off * 4 + 4 > sec->d_size)
		return -1;
	memcpy(&v, (const char *)sec->d_buf + base + *off * 4, 4);
	*off = base + v;
	*lvoff += base;
	return 0;
}

/* (addr, view) a <= b */
static bool pv_le(uint64_t a, uint64_t av, uint64_t b, uint64_t bv)
{
	return a < b || (a == b && av <= bv);
}

/* The view pairs of pdie's list `loc`: *v .. *vend, and its section. */
static int view_pairs(const struct btfi_locview_secs *secs, Dwarf_Die *pdie,
		      Dwarf_Attribute *loc, const uint8_t **v, const uint8_t **vend)
{
	Dwarf_Attribute a;
	Dwarf_Word lvoff, listoff;
	const Elf_Data *sec;

	if (!dwarf_attr(pdie, DW_AT_GNU_locviews, &a))
		return -1;
	sec = secs->cu_version >= 5 ? secs->loclists : secs->loc;
	if (!sec || !sec->d_buf)
		return -1;
	if (dwarf_formudata(&a, &lvoff)) {
		/* libdw may not know this sec_offset: read it raw. */
		if (dwarf_whatform(&a) != DW_FORM_sec_offset || !a.valp)
			return -1;
		if (secs->offset_size == 8) {
			uint64_t v8;

			memcpy(&v8, a.valp, 8);	/* unaligned in .debug_info */
			lvoff = v8;
		} else {
			uint32_t v4;

			memcpy(&v4, a.valp, 4);
			lvoff = v4;
		}
	}
	/* GCC puts the view pairs right before the list: they must end
	 * exactly where it starts, else they do not belong to it. */
	if (dwarf_formudata(loc, &listoff) ||
	    (dwarf_whatform(loc) == DW_FORM_loclistx &&
	     loclistx(sec, secs->offset_size, pdie, &listoff, &lvoff)) ||
	    lvoff >= listoff || listoff > sec->d_size)
		return -1;
	*v = (const uint8_t *)sec->d_buf + lvoff;
	*vend = (const uint8_t *)sec->d_buf + listoff;
	return 0;
}

int btfi_loc_at_view(const struct btfi_locview_secs *secs, Dwarf_Die *pdie,
		     Dwarf_Attribute *loc, uint64_t addr, uint64_t view,
		     Dwarf_Op **ops, size_t *nops, bool *by_view)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *eops;
	size_t neops;
	const uint8_t *v, *vend;
	ptrdiff_t off = 0;
	uint64_t b, e;
	int found = 0;

	if (view_pairs(secs, pdie, loc, &v, &vend))
		return -1;
	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &eops, &neops)) > 0) {
		if (!read_uleb(&v, vend, &b) || !read_uleb(&v, vend, &e))
			return -1;
		if (!found && pv_le(start, b, addr, view) && !pv_le(end, e, addr, view)) {
			*ops = eops;	/* libdw caches it: stays valid */
			*nops = neops;
			found = 1;
			if (by_view)
				*by_view = !(start <= addr && addr < end);
		}
	}
	if (off < 0)
		return -2;
	return v == vend ? found : -1;
}

int btfi_loc_next_view(const struct btfi_locview_secs *secs, Dwarf_Die *pdie,
		       Dwarf_Attribute *loc, uint64_t addr, bool has_view, uint64_t view,
		       Dwarf_Op **ops, size_t *nops)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *eops;
	size_t neops;
	const uint8_t *v, *vend;
	ptrdiff_t off = 0;
	uint64_t b, e, key, best = 0;
	int found = 0;

	if (view_pairs(secs, pdie, loc, &v, &vend))
		return -1;
	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &eops, &neops)) > 0) {
		if (!read_uleb(&v, vend, &b) || !read_uleb(&v, vend, &e))
			return -1;
		if (has_view) {
			/* starts at addr, after the probe's view */
			if (start != addr || b <= view || (end == start && e <= b))
				continue;
			key = b;
		} else if (start < addr && end == addr && e > 0) {
			/* libdw's view-less lookup took every entry whose
			 * addresses hold addr; this one ends there but holds
			 * its first views: the state at (addr, 0) */
			key = 0;
		} else if (start == addr && end == addr && b < e) {
			key = b;	/* [addr, addr) between two views */
		} else {
			continue;
		}
		if (found && key >= best)
			continue;
		*ops = eops;
		*nops = neops;
		best = key;
		found = 1;
	}
	if (off < 0)
		return -2;
	return v == vend ? found : -1;
}
