/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 1 of the pipeline: the DWARF scan. Produces the in-memory model of
 * every inline instance and out-of-line function of an ELF file, with each
 * parameter's location at the instance's probe address (see DESIGN.md for
 * the probe-address policy). Stage 2 (encoder) turns it into .BTF.inline.
 */
#ifndef BTFI_SCAN_H
#define BTFI_SCAN_H

#include <stdint.h>
#include <stdbool.h>
#include <elfutils/libdw.h>
#include "btfinline.h"

enum btfi_inline_class {
	BTFI_NEVER_INLINED = 0,	/* out-of-line only */
	BTFI_SELECTIVE,		/* inline sites + out-of-line copy with ELF symbol */
	BTFI_FULL,		/* inline sites only (no symbol) */
};

struct btfi_param {
	const char *name;	/* NULL if unnamed */
	Dwarf_Off type_off;	/* DIE key of DW_AT_type (BTFI_DIE_FILE_SHIFT), 0 if none */
	uint32_t size;		/* byte size of the type, 0 if unknown */
	bool is_signed;
	bool int_cls;		/* integer class: one general register (SysV) */
};

/* Functions are keyed by (name, parameter names): the same static inline
 * from a header in many CUs is one function; its params come from the
 * first abstract instance seen. */
struct btfi_func {
	const char *name;
	uint32_t first_param, nparams;	/* into scan->params */
	Dwarf_Off die_off;	/* key of a DW_TAG_subprogram DIE (abstract or concrete) */
	Dwarf_Off ret_type_off;	/* 0: void */
	uint32_t nsites;	/* inline instances */
	uint32_t nsites_noaddr;	/* ... of which without any code address */
	uint32_t nool;		/* out-of-line (concrete) copies */
	uint32_t nclones;	/* ... of them GCC clones probed (BTFI_SITE_CLONE) */
	uint64_t ool_addr;	/* entry of one out-of-line copy, 0 if none */
	bool has_symbol;	/* some out-of-line copy has an ELF symbol */
	bool ret_in_mem;	/* returned in memory: rdi is the hidden pointer */
	bool is_external;
	uint8_t cls;		/* enum btfi_inline_class */
};

/* btfi_site.flags */
enum {
	/* Another address of the instance before it (calls reach the body
	 * by several paths): the same call, not another instance. */
	BTFI_SITE_EXTRA = 1 << 0,
	/* GCC's partial inlining: the split-off part of f inlined back
	 * directly into f (call line = f's declaration): the call the
	 * enclosing f already sees. No site is written for it. */
	BTFI_SITE_SPLIT = 1 << 1,
	/* No code of its own: probed at its DW_AT_entry_pc, an instruction
	 * of the caller (as perf probe and gdb do). */
	BTFI_SITE_NOCODE = 1 << 2,
	/* Not an inline instance: the entry of an out-of-line copy whose ABI
	 * the compiler changed, with the parameters' locations there from
	 * its DWARF (scan.c, entry_site()). */
	BTFI_SITE_ENTRY = 1 << 3,
	/* ... of a GCC clone (f.isra.N, f.constprop.N): calls of f that f's
	 * own entry does not see. */
	BTFI_SITE_CLONE = 1 << 4,
	/* An extra address outside the instance's code and views: a jump
	 * into the body from the caller's code (scan.c drop_others_ways()). */
	BTFI_SITE_JUMP_IN = 1 << 5,
	/* Code entered only from another call of the same function, after
	 * its probe: GCC cross-jumped the two calls into one path and DWARF
	 * splits the path between them (scan.c mark_shared_tails()). Its
	 * calls are that call's events; no site is written for it. */
	BTFI_SITE_SHARED = 1 << 6,
	/* At an instruction the probes refuse (a kernel's jump label, WARN,
	 * static call; uprobes' lock prefix) that no other way round
	 * replaced: attaching there fails (stats --sites: `refused`). */
	BTFI_SITE_REFUSED = 1 << 7,
	/* A kernel's, in a function ftrace cannot trace (no __fentry__
	 * call: an `inline` function's out-of-line copy, a `notrace` one, a
	 * .cold part): the kprobe PMU refuses it unless the kernel has
	 * CONFIG_KPROBE_EVENTS_ON_NOTRACE (stats --sites: `notrace`). */
	BTFI_SITE_NOTRACE = 1 << 8,
};

struct btfi_site {
	uint32_t func;		/* index into scan->funcs */
	uint32_t caller;	/* enclosing out-of-line function, UINT32_MAX if unknown */
	uint64_t addr;		/* probe address (ELF vaddr); 0 if no address */
	uint64_t caller_addr;	/* entry (low_pc) of the enclosing out-of-line copy */
	uint32_t first_loc;	/* into scan->locs, one per parameter of func */
	uint32_t nlocs;		/* == funcs[func].nparams */
	const char *call_file;	/* may be NULL */
	uint32_t call_line;
	uint16_t depth;		/* 1 = directly in an out-of-line function
				 * (0: a clone's entry) */
	uint16_t shndx;		/* ELF section holding addr, 0 if none */
	uint16_t flags;		/* BTFI_SITE_* */
	uint8_t how;		/* enum btfi_probe_how (per-call policy) */
	uint8_t cond;		/* 0; else 1 + the x86 condition code (0 o, 1 no, 2 b, 3 ae, 4 e, 5 ne, 6 be, 7 a, 8 s, 9 ns, 10 p, 11 np, 12 l, 13 ge, 14 le, 15 g): addr is a branch of the caller's, a hit is a call only when that condition holds (it then goes into the body) */
};

/* Which address of an inline instance to probe (see DESIGN.md). */
enum btfi_probe_policy {
	BTFI_PROBE_DEFAULT = 0,		/* the documented choice (PER_CALL) */
	BTFI_PROBE_ENTRY_PC,		/* DW_AT_entry_pc, else lowest range start */
	BTFI_PROBE_LOWEST,		/* lowest range start */
	BTFI_PROBE_ENTRY_IN_RANGE,	/* entry_pc if inside the ranges, else lowest */
	BTFI_PROBE_FIRST_RANGE,		/* start of the first listed range */
	BTFI_PROBE_PER_CALL,		/* where calls enter the body, from the
					 * function's control flow (DESIGN.md) */
	BTFI_PROBE__MAX
};

/* How the per-call policy placed an instance's probe (stats counts them). */
enum btfi_probe_how {
	BTFI_PROBE_HOW_NO_CFG = 0,	/* no control flow (no code bytes): entry-pc's address */
	BTFI_PROBE_HOW_KEPT,		/* entry_pc (else lowest) runs once per call: kept */
	BTFI_PROBE_HOW_DEEPER,		/* it ran once per loop around the call (preheader,
					 * hoisted code): moved into that loop */
	BTFI_PROBE_HOW_FIRST,		/* it was not where calls enter the instance: moved */
	BTFI_PROBE_HOW_PRELOOP,		/* the entry heads a loop inside the instance:
					 * moved before the loop */
	BTFI_PROBE_HOW_POSTLOOP,	/* the entry heads a loop inside the instance
					 * with no way in of its own: at its exits */
	BTFI_PROBE_HOW_MULTI,		/* calls enter at several places: one address each */
	BTFI_PROBE_HOW_AMBIGUOUS,	/* entries reach one another: entry-pc's address */
	BTFI_PROBE_HOW__MAX
};

struct btfi_scan_opts {
	size_t sz;
	struct btfi_log log;
	bool no_locations;	/* only sites and functions (faster) */
	int probe_policy;	/* enum btfi_probe_policy */
	const char *debug_file;	/* DWARF from this file (build-id checked) */
	const char *debug_dirs;	/* debug roots instead of /usr/lib/debug, ':'-separated */
	/* Only the compile units whose code holds one of these ELF vaddrs
	 * (sorted ascending): a caller after a few sites' facts (trace's
	 * call lines) skips the rest. NULL: every unit. */
	const uint64_t *unit_addrs;
	size_t nunit_addrs;
	/* path's DWARF, already open (debug_file/dirs then unused): borrowed,
	 * not closed by btfi_scan_free; a caller that has it saves opening
	 * (and inflating) it again. */
	struct btfi_debuginfo *debuginfo;
	bool ceiling;		/* fill scan->reach (stats --ceiling) */
	/* count GCC's copies of inline entries (scan->entry_rows; stats
	 * --entry-rows): reads every unit's line table, a kernel's too */
	bool entry_rows;
};

/* scan->reach[loc index]: what the parameter's DWARF says anywhere an
 * instance can be probed (its ranges, its probe addresses), whatever the
 * probe policy: an upper bound on what any policy recovers. */
enum {
	BTFI_REACH_ANY = 1 << 0,	/* some location there, carryable or not */
	BTFI_REACH_LOC = 1 << 1,	/* one the format can carry */
};

struct btfi_debuginfo;

/* DIE keys (type_off, die_off, ...): the DIE's offset in its file; for a
 * split unit's or a dwz alternate file's DIE plus its file's index in
 * scan->dwarfs << this shift (offsets restart at 0 in every file). */
#define BTFI_DIE_FILE_SHIFT 40

struct btfi_scan {
	const char *path;
	Elf *elf;		/* of path: sections, symbols, .eh_frame */
	Dwarf *dw;		/* stays open: the encoder reads types through it */
	const char *dwarf_path;	/* where the DWARF came from: path or its debug file */
	struct btfi_debuginfo *di;
	Dwarf **dwarfs;		/* [0] = dw, then the dwz alternate file if any,
				 * then the .dwo files of split units */
	uint32_t ndwarfs;

	struct btfi_func *funcs;	uint32_t nfuncs;
	struct btfi_site *sites;	uint32_t nsites;	/* in DIE order */
	struct btfi_loc *locs;		uint32_t nlocs;
	struct btfi_param *params;	uint32_t nparams;
	uint8_t *reach;		/* per locs[] entry, BTFI_REACH_*; NULL without opts.ceiling */

	double scan_secs;	/* wall time of the scan */
	int policy;		/* the probe policy applied (never DEFAULT) */
	struct {		/* DW_AT_entry_pc vs. ranges, for the probe policy */
		uint32_t with_entry_pc;		/* instances with code and entry_pc */
		uint32_t inside;		/* entry_pc inside a range */
		uint32_t at_range_end;		/* == the end of a range, not inside */
		uint32_t outside;		/* elsewhere, not inside */
		uint32_t nocode;		/* no code, probed at entry_pc (BTFI_SITE_NOCODE) */
	} entry_pc;
	struct {		/* the per-call policy's decisions, per instance */
		uint32_t how[BTFI_PROBE_HOW__MAX];
		uint32_t extra_addrs;		/* addresses beyond the first */
		uint32_t copies;		/* ... of them: unrolled copies of the call */
		uint32_t views;			/* ... of them: view-only pieces ([X, X)
						 * ranges: the call without code there) */
		uint32_t entry_copies;		/* ... of them: GCC's inline-entry row on
						 * a path no other address shares */
		uint32_t nop_skipped;		/* padding skipped */
		uint32_t refused_moved;		/* moved off an instruction the probes refuse */
		uint32_t refused_left;		/* addresses still there: nowhere else */
		uint32_t moved_locs;		/* locations from the refused one */
		uint32_t notrace;		/* kernel addresses in notrace functions */
		uint32_t borrowed;		/* parameter locations from the probe's path */
		uint32_t reg_copy;		/* ... of them: a register copied from the one
						 * at the probe (mov R, R') */
		uint32_t reg_load;		/* ... of them: memory a register is loaded
						 * from later, nothing stored before */
		uint32_t reg_affine;		/* ... of them: a register set later from one
						 * at the probe, plus a constant or
						 * extended (lea, add $k, movzx, ...) */
		uint32_t join_view;		/* locations only views give, at a join:
						 * not taken */
		uint32_t unshared;		/* moved off another call's probe of the function */
		uint32_t back_moved;		/* an entry the call's own code reaches over a
						 * back edge: its other ways in instead */
		uint32_t cut;			/* probed at a cut further in (a join an edge
						 * enters: scan_cfg.c cut_at_join()) */
		uint32_t edges;			/* sites on a branch of the caller's, counting
						 * when it goes into the body (site->cond) */
		uint32_t others_ways;		/* extra ways dropped: another call's code after
						 * its probe (scan.c drop_others_ways()) */
		uint32_t loop_changed;		/* postloop: locations the loop may change,
						 * not taken */
	} probe;
	uint32_t split_parts;	/* instances flagged BTFI_SITE_SPLIT */
	uint32_t entry_sites;	/* sites flagged BTFI_SITE_ENTRY (not instances) */
	uint32_t clone_entries;	/* ... of them BTFI_SITE_CLONE */
	/* Parameter locations (per address) from a later view of the probe
	 * address: none at its own view (locviews.h). */
	uint32_t next_view;
	/* opts.entry_rows (per-call policy): instances whose inline-entry row
	 * GCC copied onto alternative paths (tail duplication), and of them
	 * those with a probe on each copy's path; the same for the instances
	 * with fewer probe addresses than copies; the others, by site, with
	 * the first copy no probe shares a path with (in site order) */
	struct {
		uint32_t instances, each, fewer, fewer_each;
		bool on;	/* counted (opts.entry_rows) */
		struct btfi_unprobed {
			uint32_t site;
			uint64_t addr;
		} *unprobed;
		uint32_t nunprobed, unprobed_cap;
	} entry_rows;
	/* Shapes of the expressions the format cannot carry (reason
	 * unsupported_expr), with counts, most frequent first after the scan. */
	struct btfi_shape {
		char text[96];
		uint32_t count;
	} *shapes;
	uint32_t nshapes;
	void *priv;		/* string pool, hash tables */
};

int btfi_scan_open(const char *path, const struct btfi_scan_opts *opts,
		   struct btfi_scan **out);
void btfi_scan_free(struct btfi_scan *s);

/* The indexes of s's sites with an address, ordered by it (equal
 * addresses in DIE order: the outer instance first), *n of them;
 * malloc'ed, NULL when out of memory. */
uint32_t *btfi_scan_sites_by_addr(const struct btfi_scan *s, uint32_t *n);
/* In by_addr[0..n): the first position whose site is at addr or above. */
uint32_t btfi_scan_sites_at(const struct btfi_scan *s, const uint32_t *by_addr, uint32_t n,
			    uint64_t addr);

/* Aggregates for `stats`; computed from a scan. */
struct btfi_stats {
	uint64_t inline_instances, instances_noaddr;
	/* of inline_instances: GCC's split parts inlined back (BTFI_SITE_SPLIT),
	 * not sites: left out of every figure below */
	uint64_t split_parts;
	/* ... and tails of another call's code (BTFI_SITE_SHARED): that call's
	 * events, not sites, also left out below */
	uint64_t shared_tails;
	uint64_t params, params_recoverable, instances_all_recoverable;
	uint64_t instances_some_recoverable, instances_none_recoverable;
	uint64_t funcs_never_inlined, funcs_selectively_inlined, funcs_fully_inlined;
	uint64_t sites_selectively_inlined, sites_fully_inlined;
	uint64_t classes[8];		/* by enum btfi_loc_kind */
	uint64_t unavailable[BTFI_R__MAX];
	/* Inlined functions (with a site) whose every site has every
	 * argument recoverable: the per-function figure of the talks. */
	uint64_t funcs_inlined, funcs_all_recoverable;
	uint64_t funcs_over_max, sites_over_max;	/* left out by max_instances */
	/* with scan->reach: parameters with a location anywhere their
	 * instance can be probed (any / carryable), instances with one for
	 * every parameter */
	uint64_t ceil_any, ceil_params, ceil_instances;
	/* entries of out-of-line copies with their own locations
	 * (BTFI_SITE_ENTRY): sites, not instances, so apart from every figure
	 * above; of them GCC clones; their parameters, located ones */
	uint64_t entry_sites, clone_entries, entry_params, entry_params_located;
	double secs;
};
/* max_instances != 0: leave out functions with more instances (Treyer's
 * sample: <= 100), as if they were not there. */
void btfi_stats_compute(const struct btfi_scan *s, uint32_t max_instances, struct btfi_stats *st);

#endif
