/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal state of the DWARF scan (scan.c); not for other stages. */
#ifndef BTFI_SCAN_PRIV_H
#define BTFI_SCAN_PRIV_H

#include <elfutils/libdw.h>
#include "dwarf/scan.h"
#include "elf_syms.h"
#include "elf_rela.h"
#include "dwarf/u64map.h"
#include "dwarf/scan_cfg.h"

struct scan_origin {		/* one root subprogram DIE */
	uint32_t func;
	uint32_t first_poff;	/* into poffs: its formal_parameter offsets */
	uint32_t nparams;
};

struct scan_tmp_param {
	const char *name;
	Dwarf_Off off, type_off;
	Dwarf_Die die;
};


struct scan_sec {
	uint64_t lo, hi;
	uint32_t idx;
	const uint8_t *code;	/* its bytes, once asked for (NULL: none, e.g. NOBITS) */
	bool code_tried;
};

struct scan_range {
	uint64_t lo, hi;
};

/* Does one of r[0..n) hold a? */
static inline bool scan_ranges_hold(const struct scan_range *r, uint32_t n, uint64_t a)
{
	for (uint32_t k = 0; k < n; k++)
		if (a >= r[k].lo && a < r[k].hi)
			return true;
	return false;
}

struct scan_xedge {		/* a jump the code does not show (scan_kflow.c) */
	uint64_t from, to;
	bool label;		/* a jump label's: the code there may fall through too */
};

struct walk_ctx {
	const struct walk_ctx *up;	/* the enclosing instance's, NULL at its function */
	uint32_t site;		/* the enclosing instance's site, NO_IDX at its function */
	uint32_t caller;	/* func index of the enclosing out-of-line copy */
	uint32_t scope_func;	/* func of the innermost enclosing instance or copy */
	uint64_t caller_addr;
	uint16_t depth;
	bool fn_valid;
	bool has_view;		/* probing at the entry pc: use its view */
	uint64_t view;
	Dwarf_Die fn;		/* its DIE, for DW_AT_frame_base */
};

struct scan_priv {
	const struct btfi_log *log;
	Elf *elf;			/* the file that runs: code bytes */
	struct scan_cfg *cfg;		/* control flow of the function walked */
	struct scan_range *franges;	uint32_t nfranges, franges_cap;
	int policy;
	bool no_locations;
	bool loc_by_view;		/* param_loc()/next_view_loc(): the location
					 * holds at the probe by its views only */
	const uint64_t *unit_addrs;	/* opts: only the units holding these (sorted) */
	size_t nunit_addrs;
	bool di_borrowed;		/* opts.debuginfo: not ours to close */
	bool ceiling;			/* fill scan->reach */
	bool entry_rows;		/* count scan->entry_rows */
	uint32_t reach_cap;
	bool kernel;			/* vmlinux or a module: probed by kprobes */
	bool relocatable;		/* ET_REL: per-section addresses */
	struct scan_xedge *xedges;	uint32_t nxedges, xedges_cap;	/* sorted by from */
	/* site_locs()' probe moved back off moved_at (scan_cfg_choice's
	 * at/kill), 0 if not: set by moved_locs() for one call */
	uint64_t moved_at;	uint32_t moved_kill;
	/* instructions kprobes refuse: jump labels, BUG/WARN ud2s, static
	 * calls (check_kprobe_address_safe()); sorted */
	uint64_t *krefused;	uint32_t nkrefused, krefused_cap;
	uint64_t *mcount;	uint32_t nmcount, mcount_cap;	/* ftrace's call sites, sorted */
	uint8_t addr_size;

	uint32_t funcs_cap, params_cap, sites_cap, locs_cap, shapes_cap;
	struct u64map origin_map;	/* root DIE offset -> origins[] */
	struct scan_origin *origins;	uint32_t norigins, origins_cap;
	Dwarf_Off *poffs;		uint32_t npoffs, poffs_cap;
	struct u64map types;		/* type DIE offset -> size | signed << 31 */
	struct u64map taken;		/* func << 32 ^ probe address -> site (per-call) */
	struct u64map noret;		/* call target -> 1 returns, 2 does not (scan_cfg.c) */
	/* per-call, the function walked: where each probe of an instance
	 * is the last one of its function run (drop_others_ways()) */
	struct scan_span { uint64_t lo, hi; uint32_t func, site; } *spans;
	uint32_t nspans, spans_cap;
	uint32_t *fidx;			/* (name, param names) -> func */
	uint64_t *fhash;
	uint32_t fcap, nfslots;

	struct scan_tmp_param *tmp;	uint32_t tmp_cap;
	struct scan_range *ranges;	uint32_t nranges, ranges_cap;
	uint64_t *vpts;			uint32_t nvpts, vpts_cap;	/* its [X, X) ranges */
	struct btfi_dwexpr_conv *convs;	uint32_t convs_cap;	/* param_loc's */
	struct btfi_syms syms;		/* function symbols: has_symbol() */
	/* ET_REL: the code's relocations (branch targets, and the values the
	 * loader fills in), from the file as stored (rel_elf: di->stored),
	 * else libdwfl's image's, which lack the absolute ones it applied
	 * (relas_all false: no values from code). */
	struct btfi_relas relas;
	bool relas_all;
	/* A kernel image's addresses (its allocated sections in the upper
	 * half): constants there are ADDR, moved with KASLR; 0 if none. */
	uint64_t img_lo, img_hi;
	Elf *rel_elf;			/* the file as stored (debuginfo's), NULL if none */
	struct scan_sec *secs;		uint32_t nsecs, secs_cap, last_sec;

	Dwarf_CFI *cfi_dw, *cfi_eh;
	bool cfi_tried;

	Elf_Data *line, *line_str, *str;	/* for call_file names */
	void *map;			/* read-only mapping of the file */
	size_t map_size;
	uint64_t info_off, info_size;	/* .debug_info in the file */
	uint64_t trimmed;		/* file offset up to which pages were dropped */
	const char **fnames;		uint32_t nfnames, fnames_cap;
	Dwarf_Die cudie;
	/* A kernel's unit, from a handle of its own (on rows_path, else on
	 * the walk's Elf), for its line table (rows_cu() in scan.c);
	 * rows_walk: from the walk's handle instead */
	bool rows_walk;
	const char *rows_path;
	int rows_fd;
	Elf *rows_elf;
	uint64_t rows_trimmed;		/* its .debug_info dropped up to here */
	Dwarf *rows_dw;
	Dwarf_Die rows_cudie;
	Dwarf_Off rows_off;
	uint32_t rows_units;
	bool rows_ok;
	/* The unit's compiler may change a static function's ABI without
	 * renaming it (clang; GCC renames: .isra, .constprop): scan.c
	 * entry_site() then compares its entry with the calling convention. */
	bool abi_in_place;
	int cu_version, offset_size;
	Elf_Data *loclists, *loc;
	bool files_tried;
	uint64_t nbad_exprs;		/* locations libdw could not decode */
	char what[512];
	/* split unit being walked: its .dwo's key bit and sections */
	uint64_t key_base;		/* index in scan->dwarfs << BTFI_DIE_FILE_SHIFT */
	Dwarf *alt;			/* dwz alternate file, in scan->dwarfs at */
	uint64_t alt_base;		/* this index << BTFI_DIE_FILE_SHIFT */
	Elf_Data *main_loclists, *main_loc;
	uint32_t dwarfs_cap;
};

/* A DIE's key in the scan's tables: offsets restart at 0 in every .dwo,
 * and a dwz alternate file's DIEs (types, shared declarations) have
 * offsets of their own file. */
static inline uint64_t die_key(const struct scan_priv *p, Dwarf_Die *die)
{
	if (p->alt && dwarf_cu_getdwarf(die->cu) == p->alt)
		return dwarf_dieoffset(die) | p->alt_base;
	return dwarf_dieoffset(die) | p->key_base;
}

/* scan_split.c: enter a skeleton unit's split unit (found by libdw: its
 * .dwo registered in scan->dwarfs, keys and location lists switched to
 * it), or log the missing .dwo; leave restores the main file's. */
int scan_split_enter(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *skel, Dwarf_Die *split);
void scan_split_leave(struct btfi_scan *s, struct scan_priv *p);


void scan_read_file_names(struct scan_priv *p, uint64_t off);
/* scan_kflow.c: a kernel's (or a module's) static-key jumps, exception
 * fixups and warnings into p->xedges, and the instructions kprobes refuse
 * into p->krefused, both sorted. */
int scan_kernel_flow(struct scan_priv *p, Elf *elf);
/* Is the instruction at addr one kprobes refuse (p->krefused)? */
bool scan_kernel_refused(const struct scan_priv *p, uint64_t addr);
/* Is addr in a function ftrace cannot trace (no __mcount_loc entry in
 * its symbol; false where that is unknown)? The kprobe PMU refuses it
 * without CONFIG_KPROBE_EVENTS_ON_NOTRACE. */
bool scan_kernel_notrace(const struct scan_priv *p, uint64_t addr);
/* The code bytes at addr in an executable section, *avail of them to the
 * section's end; NULL if there are none (a debug file's NOBITS). */
const uint8_t *scan_code(struct scan_priv *p, uint64_t addr, uint64_t *avail);
/* Raw check of a location libdw could not decode: the first opcode no DWARF
 * version defines, 0 if all are defined, -1 if it cannot tell. */
int scan_raw_bad_op(struct scan_priv *p, Dwarf_Attribute *loc);

#endif
