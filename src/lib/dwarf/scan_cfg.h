/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Control flow of one out-of-line function (scan_cfg.c), decoded with
 * capstone: basic blocks, dominators, natural loops. The scan asks it
 * which addresses of an inline instance run exactly once per call
 * (docs/DESIGN.md, "Probe address policy").
 */
#ifndef BTFI_SCAN_CFG_H
#define BTFI_SCAN_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "dwarf/scan.h"
#include "insn.h"

struct scan_priv;
struct scan_range;
struct scan_cfg;

#define SCAN_CFG_MAX_ENTRIES 16

struct scan_cfg_choice {
	uint64_t addr[SCAN_CFG_MAX_ENTRIES];
	uint32_t n;
	uint32_t copies;	/* of them: unrolled copies of the call (copy_of()) */
	uint32_t views;		/* of them: view-only pieces of the instance */
	uint8_t how;		/* enum btfi_probe_how */
	bool nop_skipped;	/* padding before the first real instruction skipped */
	bool refused_moved;	/* moved off an instruction the probes refuse */
	bool back_moved;	/* an entry one call's code reaches over a back
				 * edge replaced by its other ways in */
	bool cut;		/* a join an edge enters, and the frontier before
				 * it, instead of the ways in (cut_at_join()) */
	/* The addresses are a loop's exits (BTFI_PROBE_HOW_POSTLOOP): the
	 * parameters are where they are at locs_at, the loop's way in, if
	 * nothing in locs_kill (btfi_insn_writes() bits: what the loop and
	 * the exits' code before the probes may change) touches them. */
	uint64_t locs_at;
	uint32_t locs_kill;
	/* cond[k] != 0: addr[k] is a branch of the caller's that goes into
	 * the body only when x86 condition cond[k] - 1 holds (a call that
	 * enters by an edge has no instruction of its own); the parameters
	 * are where they are at at[k], where it goes (the jump changes
	 * nothing else). */
	uint8_t cond[SCAN_CFG_MAX_ENTRIES];
	uint64_t at[SCAN_CFG_MAX_ENTRIES];
	uint32_t edges;		/* how many of them */
	/* cond[k] == 0, at[k] != 0: addr[k] was moved back off at[k], an
	 * instruction the probes refuse; a parameter addr[k] has no location
	 * for is where it is at at[k] if nothing in kill[k] (btfi_insn_writes()
	 * bits of what runs between) touches it. */
	uint32_t kill[SCAN_CFG_MAX_ENTRIES];
};

int scan_cfg_new(struct scan_cfg **out);
void scan_cfg_free(struct scan_cfg *c);
/* The function with DIE key `key`, code in ranges r[0..nr) (any order),
 * entered at `entry`: built once, kept until another key is asked for.
 * 0; -ENOENT if its code cannot be read (no bytes: a debug file alone);
 * -ENOMEM. */
int scan_cfg_build(struct scan_cfg *c, struct scan_priv *p, uint64_t key,
		   const struct scan_range *r, uint32_t nr, uint64_t entry);
/* The addresses where calls enter the instance with code in r[0..nr)
 * (sorted, non-empty) and view-only pieces at vp[0..nvp) (GCC's [X, X)
 * ranges: the call happens at X without code of its own), given the
 * compiler's entry marker (entry_pc) if has_marker; off instructions
 * the binary's probes refuse (uprobes; a kernel's kprobes); cu (or NULL)
 * the unit whose line table
 * says which instructions are line 0 and
 * where unrolled copies of the call start, inst (or NULL) the instance's
 * DIE, whose inlined subroutines tell those copies from other calls, fn
 * (or NULL) the function's DIE, whose inlined subroutines tell a branch
 * of another call's from the caller's.
 * out->n == 0: no answer (use the fallback). */
void scan_cfg_entries(struct scan_cfg *c, const struct scan_range *r, uint32_t nr,
		      const uint64_t *vp, uint32_t nvp, uint64_t marker, bool has_marker,
		      uint64_t fallback, Dwarf_Die *cu, Dwarf_Die *inst,
		      Dwarf_Die *fn, struct scan_cfg_choice *out);
/* Where to probe instead of addr, into out (off padding, off what the
 * probes refuse: in its block, else the ways into it; nop_skipped and
 * refused_moved say why): out->n, 0 to keep addr. */
uint32_t scan_cfg_settle(struct scan_cfg *c, uint64_t addr, struct scan_cfg_choice *out);
/* Do the probes refuse the instruction at addr (of the function built)? */
bool scan_cfg_refused(struct scan_cfg *c, uint64_t addr);
/* Instructions near addr on its paths, nearest first, into st[0..max).
 * Forward: addr itself (st[0]), then what may run next, both ways at a
 * branch (not around a loop); back: what ran before it on its one path
 * (through single predecessors). from: the step before it on the way
 * (UINT32_MAX for the first). Returns how many. */
struct scan_cfg_step {
	uint64_t addr;
	uint32_t from;
};
uint32_t scan_cfg_path(struct scan_cfg *c, uint64_t addr, bool forward, uint32_t max,
		       struct scan_cfg_step *st);
/* What the instruction at addr may change (btfi_insn_writes()), decoded
 * once. */
uint32_t scan_cfg_writes(struct scan_cfg *c, uint64_t addr);
/* If addr starts a block that only known jumps enter: the last instruction
 * of each block that leads to it, at most max (else 0). */
uint32_t scan_cfg_preds(struct scan_cfg *c, uint64_t addr, uint64_t *from, uint32_t max);
/* Do several ways lead to addr (a block start with two or more
 * predecessors, or a jump target the function's entry also falls into)?
 * False where the control flow is unknown. */
bool scan_cfg_is_join(struct scan_cfg *c, uint64_t addr);
/* Where the code runs only after the instruction at addr, within one
 * pass, inside ranges r[0..nr): from addr on in its block, then into the
 * blocks whose one way in is from there (no loop's back edge), each span
 * ending where the code leaves r. Spans [lo, hi) into out[0..max); how
 * many (0 where the control flow is unknown). Few blocks are followed. */
uint32_t scan_cfg_only_after(struct scan_cfg *c, uint64_t addr, const struct scan_range *r,
			     uint32_t nr, struct scan_range *out, uint32_t max);
/* The addresses in the instance's ranges r[0..nr) holding GCC's
 * inline-entry row of inst (is_stmt at the callee's decl file, line and
 * column, by cu's line table), the first on each path kept: how many (2
 * or more: GCC copied the entry onto alternative paths, tail
 * duplication). Those of them that share no path with any of
 * probes[0..np) (neither runs after the other in a pass of the function)
 * and are no trap into unprobed[0..*nunprobed), at most *nunprobed on
 * entry. */
uint32_t scan_cfg_entry_rows(struct scan_cfg *c, Dwarf_Die *cu, Dwarf_Die *inst,
			     const struct scan_range *r, uint32_t nr, const uint64_t *probes,
			     uint32_t np, uint64_t *unprobed, uint32_t *nunprobed);
/* Is the code at addr entered by one branch only, on down the same
 * body: a block whose one way in is a conditional jump (not a loop's
 * back edge) at an earlier line of the same file, by cu's line table
 * (NULL: false)? That jump's address into *jcc, its other way's first
 * instruction into *other. */
bool scan_cfg_branch_on(struct scan_cfg *c, Dwarf_Die *cu, uint64_t addr, uint64_t *jcc,
			uint64_t *other);
/* Is the way in at addr (outside the instance's ranges r[0..nr)) a tail
 * the compiler shares with another call (cross-jumping)? Its one way on
 * lands at a join of the instance's code where the instance's own way
 * there ends with an instruction of the same row (file, line, column)
 * that writes the same registers as the last one before addr: two paths
 * that set up the same statement differently, then one tail. Needs the
 * line table of cu (NULL: false). */
bool scan_cfg_cross_jump(struct scan_cfg *c, Dwarf_Die *cu, uint64_t addr,
			 const struct scan_range *r, uint32_t nr);
/* Is the branch at addr (outside the instance's ranges r[0..nr)), whose
 * way into the body goes to `to`, a copy of the instance's own branch
 * there: a way of the instance's into `to` ends with a branch that goes
 * there on the same condition, after an instruction of the same shape
 * (btfi_insn_shape()) as the one before addr? Two copies of one test
 * sharing the tail (cross-jumping: the kernel's put_task_struct at two
 * lines of futex_get_robust_list_common, whose refcount `cmp $1; je`
 * both go to one __put_task_struct call). No line table needed. */
bool scan_cfg_cross_branch(struct scan_cfg *c, uint64_t addr, uint64_t to,
			   const struct scan_range *r, uint32_t nr);
/* Does the instruction at addr set DWARF register reg to a constant?
 * (btfi_insn_const()) */
bool scan_cfg_const(struct scan_cfg *c, uint64_t addr, uint32_t reg, uint64_t *val, bool *pcrel);
/* Is the instruction at addr a load of general register reg from memory
 * at base + disp (btfi_insn_load())? */
bool scan_cfg_load(struct scan_cfg *c, uint64_t addr, uint32_t reg, uint32_t *base,
		   int64_t *disp, uint32_t *bytes, bool *sgn);
/* Does the instruction at addr set general register reg from another
 * register plus a constant, or extended (btfi_insn_affine())? */
bool scan_cfg_affine(struct scan_cfg *c, uint64_t addr, uint32_t reg,
		     struct btfi_insn_affine *out);
/* What a path walk needs of the instruction at addr (btfi_insn_copy_source()). */
void scan_cfg_step_facts(struct scan_cfg *c, uint64_t addr, struct btfi_insn_step *out);
/* Was the last build for this key? */
bool scan_cfg_is_for(const struct scan_cfg *c, uint64_t key);
/* Is this an instruction start in the function's code? */
bool scan_cfg_is_insn(struct scan_cfg *c, uint64_t addr);

#endif
