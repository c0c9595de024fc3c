// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Control flow of one out-of-line function, for the per-call probe rule
 * (docs/DESIGN.md, "Probe address policy"). An inline instance has no call
 * instruction; its probe must be an address that runs exactly once each
 * time the inlined body runs. Compilers move code of the body out of that
 * rhythm: loop-invariant parts into the preheader of the loop the call is
 * in (they run once per loop), the body's own loops (their head runs once
 * per iteration), padding in front of a loop head, duplicated entry paths.
 *
 * The function's code is decoded with capstone into basic blocks; a
 * virtual root enters at the function's entry and at code nothing is seen
 * to jump to (padding after a jump is dead; the targets of an indirect
 * jump, jump tables, are the regions the entry does not reach; a kernel's
 * static-key jumps, exception fixups and WARN()s come from scan_kflow.c).
 * Dominators (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance
 * Algorithm"), back edges (to a block that dominates the source) and
 * natural loops follow. Per instance, a loop is *inside* it when its
 * decisions are the instance's (loop_inside()), else it is *around* the
 * call. The call runs once per iteration of the innermost loop around it
 * that holds code of the instance: the instance's instructions at that
 * depth are the ones that run per call, and the entries are the first of
 * them on each path from the root; copies of the call that loop unrolling
 * left under the same DIE are found from the line table (copy_of()) or
 * from their code (shape_copy_of()).
 * scan_cfg_entries() says the rest.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf/scan_priv.h"
#include "dwarf/scan_cfg.h"
#include "sorted.h"
#include "insn.h"

#define NONE UINT32_MAX
#define BACK 0x80000000u	/* successor flag: a back edge */

struct cfg_insn {
	uint64_t addr, target;
	const uint8_t *code;
	uint32_t blk;
	uint32_t xe;			/* first of its jumps the code does not show, NONE */
	uint32_t writes;		/* btfi_insn_writes(), once writes_known */
	uint32_t shape;			/* btfi_insn_shape(), once shape_known */
	uint8_t len, flow;
	int8_t cc;			/* btfi_insn's: a CJUMP's condition, -1 */
	uint8_t line;			/* 0 not asked, 1 line 0, 2 a line or unknown */
	bool nop, refused, leader, writes_known, shape_known;
	bool ret;			/* a return */
	bool reloc;			/* the loader fills some of its bytes (ET_REL) */
};

struct cfg_block {
	uint32_t first, n;		/* instructions */
	uint32_t succ, nsucc;		/* into succs (BACK flag) */
	uint32_t pred, npred;		/* into preds */
	uint32_t idom, rpo, loop;	/* loop: innermost natural loop, NONE */
	uint32_t pre, post;		/* dominator tree numbering */
	uint32_t seen, dstamp;		/* per query */
	uint32_t lseen;			/* leads_in(), called inside walks using seen */
	uint16_t depth;			/* loops around the call (valid at dstamp) */
	bool root;			/* entered from the virtual root */
	bool dead;			/* padding nothing reaches */
};

struct cfg_loop {
	uint32_t header, parent;
	uint32_t first, n;		/* blocks, into lblocks */
	uint32_t seen;			/* query stamp of `internal` */
	bool internal;
	bool multi;			/* irreducible: other ways in than header */
};

struct cfg_row {			/* a line-table row (row_of()) */
	const char *file;
	int line, col;
	bool starts, stmt;
};

/* DIE paths from a function down (inner_path(), off_path()): the depth
 * the walks go to. */
#define DIE_PATH_MAX	17

struct scan_cfg {
	uint64_t key;
	int state;			/* 1 built, <0 error for key, 0 nothing */
	bool relocatable;		/* ET_REL: addresses in libdwfl's layout */
	bool no_values;			/* ET_REL without its relocations as stored */
	struct btfi_insn_dec *dec;
	struct cfg_insn *insns;		uint32_t ninsns, insns_cap;
	struct cfg_block *blocks;	uint32_t nblocks, blocks_cap;	/* + virtual root */
	uint32_t *succs;		uint32_t nsuccs, succs_cap;
	uint32_t *preds;		uint32_t npreds, preds_cap;
	struct cfg_loop *loops;		uint32_t nloops, loops_cap;
	uint32_t *lblocks;		uint32_t nlblocks, lblocks_cap;
	uint32_t *order;		uint32_t order_cap;	/* blocks by rpo */
	uint32_t *work;			uint32_t work_cap;
	uint32_t *imark;		uint32_t imark_cap;	/* insn in the instance */
	/* the innermost inlined subroutine of the function at each insn
	 * (fn_innermost()), 0 until asked: one walk of the function's DIEs
	 * per instruction, not per question */
	Dwarf_Off *inner;		uint32_t inner_cap;
	struct scan_range *fr;		uint32_t fr_cap;
	struct scan_range *bd;		uint32_t bd_cap;	/* bound_ranges() */
	uint32_t stamp;
	const struct scan_xedge *xe;	uint32_t nxe;	/* the scan's, sorted */
	struct scan_priv *p;		/* the scan's: symbols and code (noreturn_at()) */
	Dwarf_Die *cu;			/* its line table, for the query; NULL */
	Dwarf_Die *inst;		/* the instance asked about; NULL */
	Dwarf_Die *fn;			/* its function; NULL */
	Dwarf_Die ipath[DIE_PATH_MAX];	int nipath;	/* fn down to inst (inst_path()); -1: not yet */
	const struct scan_range *r;	uint32_t nr;	/* its ranges */
};

int scan_cfg_new(struct scan_cfg **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void scan_cfg_free(struct scan_cfg *c)
{
	if (!c)
		return;
	btfi_insn_dec_free(c->dec);
	free(c->insns);
	free(c->blocks);
	free(c->succs);
	free(c->preds);
	free(c->loops);
	free(c->lblocks);
	free(c->order);
	free(c->work);
	free(c->imark);
	free(c->inner);
	free(c->fr);
	free(c->bd);
	free(c);
}

/* First instruction at or after addr. */
static uint32_t lower_insn(const struct scan_cfg *c, uint64_t addr)
{
	return btfi_lower_bound_u64(c->insns, c->ninsns, sizeof(*c->insns),
				    offsetof(struct cfg_insn, addr), addr);
}

/* Index of the instruction starting at addr, NONE if none does. */
static uint32_t find_insn(const struct scan_cfg *c, uint64_t addr)
{
	uint32_t lo = lower_insn(c, addr);

	return lo < c->ninsns && c->insns[lo].addr == addr ? lo : NONE;
}

bool scan_cfg_is_for(const struct scan_cfg *c, uint64_t key)
{
	return c->state && c->key == key;
}

bool scan_cfg_is_insn(struct scan_cfg *c, uint64_t addr)
{
	return c->state > 0 && find_insn(c, addr) != NONE;
}

static int cmp_range(const void *a, const void *b)
{
	const struct scan_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Functions that do not return, by name: a call of one ends the path (the
 * next bytes are another block's, often a jump target: falling into it
 * made a cycle that is not there, glibc's __libc_malloc around its
 * __libc_message call). DWARF's DW_AT_noreturn is on declarations, not on
 * the definitions a call's target names. */
static bool noreturn_name(const char *n)
{
	static const char *const names[] = {
		"abort", "exit", "_exit", "_Exit", "quick_exit", "__assert_fail",
		"__assert_perror_fail", "__stack_chk_fail", "__fortify_fail",
		"__chk_fail", "__libc_fatal", "__libc_message", "__malloc_assert",
		"longjmp", "siglongjmp", "_longjmp", "__longjmp_chk", "pthread_exit",
		"err", "errx", "verr", "verrx", "__cxa_throw", "__cxa_rethrow",
		"_Unwind_Resume", "__cxa_bad_cast", "__cxa_pure_virtual",
		/* kernel */
		"panic", "do_exit", "do_group_exit", "make_task_dead", "kthread_exit",
		"do_task_dead", "rewind_stack_and_make_dead", "usercopy_abort",
		"fortify_panic", "__ubsan_handle_builtin_unreachable",
		"cpu_startup_entry", "machine_real_restart", "stop_this_cpu",
	};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(n, names[k]))
			return true;
	return false;
}

/*
 * A module's branch whose rel32 has a relocation (to another section, a
 * symbol, the kernel): the file holds 0 there, the target is S + A + 4
 * (PC32: the field is the instruction's last 4 bytes, the CPU adds its
 * end). Outside the module: no target (0; *callee names it).
 */
static void rel_target(struct scan_priv *p, uint64_t a, const struct btfi_insn *in,
		       uint64_t *target, const char **callee)
{
	const struct btfi_rela *r;

	if ((in->flow != BTFI_FLOW_JUMP && in->flow != BTFI_FLOW_CJUMP &&
	     in->flow != BTFI_FLOW_CALL) || in->len < 5 ||
	    !(r = btfi_relas_at(&p->relas, a + in->len - 4)) ||
	    (r->type != R_X86_64_PC32 && r->type != R_X86_64_PLT32))
		return;
	*target = r->undef ? 0 : r->value + 4;
	if (r->undef)
		*callee = r->name;
}

static bool noreturn_at(struct scan_cfg *c, struct scan_priv *p, uint64_t target, int depth);

/* Does a small function at `target` (its symbol's extent, 192 bytes at
 * most) never return: every path from its entry ends in a call that does
 * not return or, in user space, an instruction nothing follows (ud2,
 * hlt; the kernel's WARN() is a ud2 that goes on), none in a `ret`, a
 * jump out of it or an indirect jump? GCC's split parts that only assert
 * (glibc's detach_arena.part.0: three argument loads and `call
 * __malloc_assert`). Unknown (undecodable, too large, no symbol, a
 * relocatable object's code whose calls the loader fills): it returns.
 * Only loop_call() asks, for the few calls it looks at (the CFG goes on
 * after such a call: the compiler may not have known, when the callee is
 * another unit's). */
static bool never_returns(struct scan_cfg *c, struct scan_priv *p, uint64_t target, int depth)
{
	const struct btfi_sym *sym = btfi_syms_at(&p->syms, target);
	uint64_t todo[32], seen[64], avail, end;
	uint32_t ntodo = 0, nseen = 0;
	const uint8_t *code;

	if (p->relocatable || !sym || sym->addr != target || !sym->size || sym->size > 192 ||
	    sym->ifunc || !(code = scan_code(p, target, &avail)) || avail < sym->size)
		return false;
	end = target + sym->size;
	todo[ntodo++] = target;
	while (ntodo) {
		uint64_t a = todo[--ntodo];
		uint32_t k;

		for (k = 0; k < nseen && seen[k] != a; k++)
			;
		if (k < nseen)
			continue;
		if (nseen == 64)
			return false;
		seen[nseen++] = a;
		for (;;) {
			struct btfi_insn in;

			if (a >= end || btfi_insn_decode(c->dec, code + (a - target), end - a, a, &in) ||
			    in.ret || in.flow == BTFI_FLOW_IJUMP)
				return false;
			if (in.flow == BTFI_FLOW_STOP) {
				if (p->kernel)
					return false;
				break;
			}
			if (in.flow == BTFI_FLOW_CALL && in.target && noreturn_at(c, p, in.target, depth + 1))
				break;
			if (in.flow == BTFI_FLOW_JUMP || in.flow == BTFI_FLOW_CJUMP) {
				if (in.target < target || in.target >= end || ntodo == 32)
					return false;	/* a tail call, or too many ways */
				todo[ntodo++] = in.target;
				if (in.flow == BTFI_FLOW_JUMP)
					break;
			}
			a += in.len;
		}
	}
	return true;
}

/* Does a call to `target` not return: by its symbol's name, or by its
 * code (never_returns(), two calls deep)? Cached per target. */
static bool noreturn_at(struct scan_cfg *c, struct scan_priv *p, uint64_t target, int depth)
{
	const struct btfi_sym *sym;
	uint32_t v;
	bool nr;

	if (u64map_get(&p->noret, target, &v))
		return v == 2;
	sym = btfi_syms_at(&p->syms, target);
	if (sym && sym->addr == target && sym->name && noreturn_name(sym->name))
		nr = true;
	else if (depth > 2)
		return false;		/* not cached: a shallower ask may decide */
	else
		nr = never_returns(c, p, target, depth);
	u64map_put(&p->noret, target, nr ? 2 : 1);	/* (no room: asked again) */
	return nr;
}

/* Does addr lie in one of the function's ranges (c->fr[0..n))? */
static bool in_fn(const struct scan_cfg *c, uint32_t n, uint64_t addr)
{
	for (uint32_t k = 0; k < n; k++)
		if (c->fr[k].lo <= addr && addr < c->fr[k].hi)
			return true;
	return false;
}

/*
 * A kernel's jump out of the function into `test; jcc yes; jmp no` that
 * comes back into it: static_cpu_has()'s `jmp 6f` into .altinstr_aux
 * (patched at boot into nops, on to the `yes` label, or a jump to `no`).
 * Followed, it is a branch of the function's own: one of its two ways is
 * the next instruction, the other the jump's target (the condition is
 * unknown: cc -1). Without it the body's code after the jump looks
 * entered from nowhere: xfeatures_mask_independent in
 * validate_independent_components had probes on the jump (0x...051a) and
 * on the `no` way (0x...0528), two events for a call that goes that way.
 */
static void aux_branch(struct scan_cfg *c, struct scan_priv *p, struct cfg_insn *ci, uint32_t n)
{
	uint64_t avail, a = ci->target, to[2], next = ci->addr + ci->len;
	const uint8_t *code;
	struct btfi_insn in;
	const char *callee = NULL;

	if (!p->kernel || ci->flow != BTFI_FLOW_JUMP || !ci->target || in_fn(c, n, ci->target) ||
	    !(code = scan_code(p, a, &avail)))
		return;
	/* the test, then the two jumps back */
	if (btfi_insn_decode(c->dec, code, avail, a, &in) || in.flow != BTFI_FLOW_NEXT || in.nop)
		return;
	for (int k = 0; k < 2; k++) {
		a += in.len;
		if (a >= ci->target + avail ||
		    btfi_insn_decode(c->dec, code + (a - ci->target), avail - (a - ci->target), a, &in) ||
		    in.flow != (k ? BTFI_FLOW_JUMP : BTFI_FLOW_CJUMP))
			return;
		to[k] = in.target;
		if (p->relocatable)
			rel_target(p, a, &in, &to[k], &callee);
		if (!in_fn(c, n, to[k]))
			return;
	}
	if (to[0] != next && to[1] != next)
		return;
	ci->flow = BTFI_FLOW_CJUMP;
	ci->target = to[0] == next ? to[1] : to[0];
	ci->cc = -1;
}

static int decode(struct scan_cfg *c, struct scan_priv *p)
{
	uint32_t n = c->nblocks;

	for (uint32_t k = 0; k < n; k++) {	/* nblocks = nranges here */
		const struct scan_range *r = &c->fr[k];
		uint64_t avail, a = r->lo;
		const uint8_t *code = scan_code(p, r->lo, &avail);

		if (!code || avail < r->hi - r->lo)
			return -ENOENT;
		while (a < r->hi) {
			struct btfi_insn in;
			struct cfg_insn *ci;

			if (GROW(c->insns, c->insns_cap, c->ninsns + 1))
				return -ENOMEM;
			ci = &c->insns[c->ninsns++];
			memset(ci, 0, sizeof(*ci));
			ci->addr = a;
			ci->xe = NONE;
			ci->code = code + (a - r->lo);
			ci->leader = a == r->lo;
			ci->reloc = p->relocatable;	/* until the decoder gives its length */
			ci->cc = -1;
			if (btfi_insn_decode(c->dec, code + (a - r->lo), r->hi - a, a, &in)) {
				ci->len = 1;	/* not code: nothing follows it */
				ci->flow = BTFI_FLOW_STOP;
			} else {
				const struct btfi_sym *sym;
				const char *callee = NULL;

				ci->len = in.len;
				ci->flow = in.flow;
				ci->cc = in.cc;
				ci->target = in.target;
				if (p->relocatable) {
					ci->reloc = btfi_relas_in(&p->relas, a, a + in.len);
					rel_target(p, a, &in, &ci->target, &callee);
				}
				if (in.flow == BTFI_FLOW_CALL && ci->target &&
				    (sym = btfi_syms_at(&p->syms, ci->target)) &&
				    sym->addr == ci->target)
					callee = sym->name;
				if (in.flow == BTFI_FLOW_CALL && callee && noreturn_name(callee))
					ci->flow = BTFI_FLOW_STOP;
				aux_branch(c, p, ci, n);
				ci->nop = in.nop;
				ci->ret = in.ret;
				/* what the binary's probes refuse: uprobes, or
				 * in a kernel kprobes (scan_kflow.c) */
				ci->refused = p->kernel ? scan_kernel_refused(p, a) : in.uprobe_refusal != NULL;
			}
			a += ci->len;
		}
	}
	return 0;
}

/* Every block's successors: its jump target and fall-through, and for an
 * indirect jump the blocks orph[0..norph). Dead blocks (padding) lead
 * nowhere. */
static int add_succs(struct scan_cfg *c, const uint32_t *orph, uint32_t norph)
{
	c->nsuccs = 0;
	for (uint32_t b = 0; b < c->nblocks; b++) {
		struct cfg_block *bl = &c->blocks[b];
		const struct cfg_insn *last = &c->insns[bl->first + bl->n - 1];
		uint32_t next = bl->first + bl->n, t;
		/* a static key's `jmp` (a jump the code does not show: the
		 * xedge) is a nop when the key flips: it falls through too
		 * (get_target_base's timers_nohz_active in
		 * hrtimer_start_range_ns, 0xffffffff81146755) */
		bool falls = last->flow == BTFI_FLOW_NEXT || last->flow == BTFI_FLOW_CALL ||
			     last->flow == BTFI_FLOW_CJUMP ||
			     (last->flow == BTFI_FLOW_JUMP && last->xe != NONE && c->xe[last->xe].label);

		if (GROW(c->succs, c->succs_cap, c->nsuccs + 2 + norph))
			return -ENOMEM;
		bl->succ = c->nsuccs;
		bl->nsucc = 0;
		if (bl->dead)
			continue;
		if ((last->flow == BTFI_FLOW_JUMP || last->flow == BTFI_FLOW_CJUMP) &&
		    (t = find_insn(c, last->target)) != NONE)
			c->succs[c->nsuccs++] = c->insns[t].blk;
		/* falls into the next instruction only if it is right there */
		if (falls && next < c->ninsns && c->insns[next].addr == last->addr + last->len) {
			t = c->insns[next].blk;
			if (c->nsuccs == bl->succ || c->succs[bl->succ] != t)
				c->succs[c->nsuccs++] = t;
		}
		if (last->flow == BTFI_FLOW_IJUMP)
			for (uint32_t k = 0; k < norph; k++)
				c->succs[c->nsuccs++] = orph[k];
		for (uint32_t k = last->xe; k != NONE && k < c->nxe && c->xe[k].from == last->addr;
		     k++) {
			uint32_t j;

			if ((t = find_insn(c, c->xe[k].to)) == NONE)
				continue;
			for (j = bl->succ; j < c->nsuccs && c->succs[j] != c->insns[t].blk; j++)
				;
			if (j < c->nsuccs)
				continue;
			if (GROW(c->succs, c->succs_cap, c->nsuccs + 1))
				return -ENOMEM;
			c->succs[c->nsuccs++] = c->insns[t].blk;
		}
		bl->nsucc = c->nsuccs - bl->succ;
	}
	return 0;
}

/* Leaders, blocks, edges (successors first, predecessors from them). */
static int make_blocks(struct scan_cfg *c, uint64_t entry)
{
	uint32_t i, b, e, *cnt, nij = 0, norph = 0;
	int err = 0;

	for (i = 0; i < c->ninsns; i++) {
		struct cfg_insn *in = &c->insns[i];

		if (in->flow == BTFI_FLOW_JUMP || in->flow == BTFI_FLOW_CJUMP) {
			uint32_t t = find_insn(c, in->target);

			if (t != NONE)
				c->insns[t].leader = true;
		}
		if (in->flow >= BTFI_FLOW_JUMP && i + 1 < c->ninsns) {
			uint32_t j = i + 1;

			c->insns[j].leader = true;
			/* padding after a jump is a block of its own: what
			 * follows may be entered from elsewhere */
			if (in->flow != BTFI_FLOW_CJUMP) {
				while (j < c->ninsns && c->insns[j].nop &&
				       (j == i + 1 || !c->insns[j].leader))
					j++;
				if (j < c->ninsns && j > i + 1)
					c->insns[j].leader = true;
			}
		}
	}
	/* static-key jumps, exception fixups: the source ends a block */
	for (i = 0, b = 0; i < c->ninsns && c->nxe; i++) {
		uint64_t a = c->insns[i].addr;

		while (b < c->nxe && c->xe[b].from < a)
			b++;
		if (b == c->nxe)
			break;
		if (c->xe[b].from != a)
			continue;
		c->insns[i].xe = b;
		if (i + 1 < c->ninsns)
			c->insns[i + 1].leader = true;
		for (uint32_t k = b; k < c->nxe && c->xe[k].from == a; k++) {
			uint32_t t = find_insn(c, c->xe[k].to);

			if (t != NONE)
				c->insns[t].leader = true;
		}
	}
	if ((e = find_insn(c, entry)) != NONE)
		c->insns[e].leader = true;
	c->nblocks = 0;
	for (i = 0; i < c->ninsns; i++) {
		if (i == 0 || c->insns[i].leader) {
			if (GROW(c->blocks, c->blocks_cap, c->nblocks + 2))
				return -ENOMEM;
			memset(&c->blocks[c->nblocks], 0, sizeof(c->blocks[0]));
			c->blocks[c->nblocks].first = i;
			c->blocks[c->nblocks].loop = NONE;
			c->nblocks++;
		}
		c->blocks[c->nblocks - 1].n++;
		c->insns[i].blk = c->nblocks - 1;
	}
	/* successors; blocks nothing is seen to jump to: padding (dead), else
	 * the targets of the function's indirect jumps if it has any (jump
	 * tables), else roots (static-key jumps patched at run time) */
	if ((err = add_succs(c, NULL, 0)))
		return err;
	cnt = calloc(c->nblocks + 1, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < c->nsuccs; i++)
		cnt[c->succs[i]]++;
	for (b = 0; b < c->nblocks; b++) {
		struct cfg_block *bl = &c->blocks[b];

		nij += c->insns[bl->first + bl->n - 1].flow == BTFI_FLOW_IJUMP;
		if (cnt[b] || (e != NONE && b == c->insns[e].blk))
			continue;
		bl->dead = true;
		for (i = bl->first; i < bl->first + bl->n && bl->dead; i++)
			bl->dead = c->insns[i].nop;
	}
	if (nij && e != NONE) {
		/* Jump-table targets: what the entry does not reach through
		 * known jumps, region by region: a block nothing jumps to
		 * first, else the lowest one left (a cycle). */
		uint32_t sp = 0, *stack = malloc((c->nblocks + 1) * sizeof(*stack)), from;

		if (!stack) {
			free(cnt);
			return -ENOMEM;
		}
		for (b = 0; b < c->nblocks; b++)
			c->blocks[b].seen = 0;
		from = c->insns[e].blk;
		for (;;) {
			stack[sp++] = from;
			c->blocks[from].seen = 1;
			while (sp) {
				const struct cfg_block *bl = &c->blocks[stack[--sp]];

				for (i = 0; i < bl->nsucc; i++) {
					uint32_t t = c->succs[bl->succ + i];

					if (!c->blocks[t].seen) {
						c->blocks[t].seen = 1;
						stack[sp++] = t;
					}
				}
			}
			from = NONE;
			for (b = 0; b < c->nblocks && from == NONE; b++)
				if (!c->blocks[b].seen && !c->blocks[b].dead && !cnt[b])
					from = b;
			for (b = 0; b < c->nblocks && from == NONE; b++)
				if (!c->blocks[b].seen && !c->blocks[b].dead)
					from = b;
			if (from == NONE)
				break;
			stack[c->nblocks - norph++] = from;	/* top of stack: targets */
		}
		for (i = 0; i < norph; i++)
			cnt[i] = stack[c->nblocks - i];
		free(stack);
		if ((uint64_t)nij * norph > 65536)
			norph = 0;
	}
	err = add_succs(c, cnt, norph);		/* without the padding's edges */
	free(cnt);
	if (err)
		return err;
	/* predecessors */
	cnt = calloc(c->nblocks + 1, sizeof(*cnt));
	if (!cnt || GROW(c->preds, c->preds_cap, c->nsuccs + 1)) {
		free(cnt);
		return -ENOMEM;
	}
	for (i = 0; i < c->nsuccs; i++)
		c->blocks[c->succs[i]].npred++;
	for (b = 0, i = 0; b < c->nblocks; b++) {
		c->blocks[b].pred = i;
		i += c->blocks[b].npred;
	}
	for (b = 0; b < c->nblocks; b++)
		for (i = 0; i < c->blocks[b].nsucc; i++) {
			uint32_t s = c->succs[c->blocks[b].succ + i];

			c->preds[c->blocks[s].pred + cnt[s]++] = b;
		}
	c->npreds = c->nsuccs;
	free(cnt);
	/* the virtual root's successors: entry and blocks nothing jumps to */
	for (b = 0; b < c->nblocks; b++)
		c->blocks[b].root = !c->blocks[b].npred || (e != NONE && b == c->insns[e].blk);
	return 0;
}

/* Reverse postorder from the virtual root (index nblocks); blocks still
 * unreached (a cycle only an unknown jump enters) become roots too. */
static int order_blocks(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, V = n, nord = 0, sp, b;
	uint32_t *stack, *it;
	int err = 0;

	if (GROW(c->order, c->order_cap, n + 1) || GROW(c->work, c->work_cap, 2 * (n + 1)))
		return -ENOMEM;
	stack = c->work;
	it = c->work + n + 1;
	for (b = 0; b <= n; b++)
		c->blocks[b].rpo = NONE;
	memset(&c->blocks[V], 0, sizeof(c->blocks[V]));
	c->blocks[V].rpo = NONE;
	c->blocks[V].loop = NONE;
	/* postorder into order[] from the end */
	for (;;) {
		uint32_t start = NONE;

		for (b = 0; b < n && start == NONE; b++)
			if (c->blocks[b].root && c->blocks[b].rpo == NONE)
				start = b;
		if (start == NONE) {
			for (b = 0; b < n && start == NONE; b++)
				if (c->blocks[b].rpo == NONE)
					start = b;
			if (start == NONE)
				break;
			c->blocks[start].root = true;
		}
		sp = 0;
		stack[sp] = start;
		it[sp++] = 0;
		c->blocks[start].rpo = 0;	/* visited */
		while (sp) {
			uint32_t x = stack[sp - 1];
			struct cfg_block *bx = &c->blocks[x];

			if (it[sp - 1] < bx->nsucc) {
				uint32_t y = c->succs[bx->succ + it[sp - 1]++] & ~BACK;

				if (c->blocks[y].rpo == NONE) {
					c->blocks[y].rpo = 0;
					stack[sp] = y;
					it[sp++] = 0;
				}
				continue;
			}
			c->order[n - 1 - nord++] = x;	/* reversed below */
			sp--;
		}
	}
	/* order[0 .. n-1] is reverse postorder of all blocks (nord == n) */
	memmove(c->order + 1, c->order, n * sizeof(*c->order));
	c->order[0] = V;
	for (b = 0; b <= n; b++)
		c->blocks[c->order[b]].rpo = b;
	return err;
}

static uint32_t intersect(const struct scan_cfg *c, uint32_t a, uint32_t b)
{
	while (a != b) {
		while (c->blocks[a].rpo > c->blocks[b].rpo)
			a = c->blocks[a].idom;
		while (c->blocks[b].rpo > c->blocks[a].rpo)
			b = c->blocks[b].idom;
	}
	return a;
}

static void dominators(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, V = n, i, k;
	bool changed = true;

	for (i = 0; i < n; i++)
		c->blocks[i].idom = NONE;
	c->blocks[V].idom = V;
	while (changed) {
		changed = false;
		for (i = 1; i <= n; i++) {
			uint32_t b = c->order[i], nd = c->blocks[b].root ? V : NONE;
			struct cfg_block *bl = &c->blocks[b];

			for (k = 0; k < bl->npred; k++) {
				uint32_t q = c->preds[bl->pred + k];

				if (c->blocks[q].idom == NONE)
					continue;
				nd = nd == NONE ? q : intersect(c, q, nd);
			}
			if (nd != bl->idom) {
				bl->idom = nd;
				changed = true;
			}
		}
	}
}

/* Pre/post numbers of the dominator tree: a dominates b iff
 * pre[a] <= pre[b] && post[b] <= post[a]. Children in rpo order. */
static int number_domtree(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, V = n, i, *first, *next, *stack, sp = 0, clock = 0;

	first = malloc((n + 1) * sizeof(*first));
	next = malloc((n + 1) * sizeof(*next));
	if (!first || !next) {
		free(first);
		free(next);
		return -ENOMEM;
	}
	for (i = 0; i <= n; i++)
		first[i] = next[i] = NONE;
	for (i = n; i >= 1; i--) {	/* reverse, so lists come out in rpo */
		uint32_t b = c->order[i], d = c->blocks[b].idom;

		next[b] = first[d];
		first[d] = b;
	}
	stack = c->work;	/* n + 1 entries: the tree's depth at most */
	stack[sp++] = V;
	c->blocks[V].pre = clock++;
	while (sp) {
		uint32_t x = stack[sp - 1];

		if (first[x] != NONE) {
			uint32_t y = first[x];

			first[x] = next[y];
			c->blocks[y].pre = clock++;
			stack[sp++] = y;
		} else {
			c->blocks[x].post = clock++;
			sp--;
		}
	}
	free(first);
	free(next);
	return 0;
}

static bool dominates(const struct scan_cfg *c, uint32_t a, uint32_t b)
{
	return c->blocks[a].pre <= c->blocks[b].pre && c->blocks[b].post <= c->blocks[a].post;
}

static int cmp_size_desc(const void *a, const void *b, void *arg)
{
	const struct scan_cfg *c = arg;
	uint32_t x = c->loops[*(const uint32_t *)a].n, y = c->loops[*(const uint32_t *)b].n;

	return x > y ? -1 : x < y;
}

/*
 * Strongly connected sets of blocks once back edges are cut (Tarjan),
 * scc[b] their number for sets of two or more blocks, else NONE.
 * Returns how many such sets.
 */
static uint32_t cycles(struct scan_cfg *c, uint32_t *scc, uint32_t *t)
{
	uint32_t n = c->nblocks, *idx = t, *low = t + n, *st = t + 2 * n,
		 *cs = t + 3 * n, *it = t + 4 * n, ns = 0, ncs = 0, next = 1, nscc = 0;

	memset(idx, 0, n * sizeof(*idx));
	for (uint32_t b = 0; b < n; b++)
		scc[b] = NONE;
	for (uint32_t r = 0; r < n; r++) {
		if (idx[r])
			continue;
		cs[ncs] = r, it[ncs++] = 0;
		idx[r] = low[r] = next++;
		st[ns++] = r;
		while (ncs) {
			uint32_t v = cs[ncs - 1];
			const struct cfg_block *bv = &c->blocks[v];

			if (it[ncs - 1] < bv->nsucc) {
				uint32_t w = c->succs[bv->succ + it[ncs - 1]++];

				if (w & BACK)
					continue;
				if (!idx[w]) {
					idx[w] = low[w] = next++;
					st[ns++] = w;
					cs[ncs] = w, it[ncs++] = 0;
				} else if (low[w] && idx[w] < low[v]) {
					low[v] = idx[w];	/* w still on the stack */
				}
				continue;
			}
			ncs--;
			if (ncs && low[v] < low[cs[ncs - 1]])
				low[cs[ncs - 1]] = low[v];
			if (low[v] != idx[v])
				continue;
			/* v roots a set: off the stack (low 0 marks "done") */
			{
				uint32_t w, id = st[ns - 1] == v ? NONE : nscc++;

				do {
					w = st[--ns];
					low[w] = 0;
					scc[w] = id;
				} while (w != v);
			}
		}
	}
	return nscc;
}

/*
 * Cycles with several ways in (GCC threads the jumps of a retry loop so
 * that its second pass enters in the middle): no block dominates them, so
 * they have no natural loop and their edges no back edge, and "can b run
 * after a in one call" would walk around them into the next call. Each
 * such cycle becomes a loop: its ways in are its headers, the edges into
 * them from inside are back edges; natural loops headed inside belong to
 * it. Repeated for cycles left inside.
 */
static int find_irreducible(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, *scc, *tmp, nscc, round;
	int err = 0;

	scc = malloc(n * sizeof(*scc));
	tmp = malloc(5 * (size_t)n * sizeof(*tmp));
	if (!scc || !tmp) {
		err = -ENOMEM;
		goto out;
	}
	for (round = 0; round < 16 && (nscc = cycles(c, scc, tmp)); round++) {
		for (uint32_t s = 0; s < nscc; s++) {
			uint32_t l, head = NONE, stamp = ++c->stamp, nent = 0, b, k;

			if (GROW(c->loops, c->loops_cap, c->nloops + 1) ||
			    GROW(c->lblocks, c->lblocks_cap, c->nlblocks + n)) {
				err = -ENOMEM;
				goto out;
			}
			/* ways in: from outside the set, or from the root */
			for (b = 0; b < n; b++) {
				const struct cfg_block *bl = &c->blocks[b];
				bool in = bl->root;

				if (scc[b] != s)
					continue;
				for (k = 0; k < bl->npred && !in; k++) {
					uint32_t q = c->preds[bl->pred + k];

					in = q >= n || scc[q] != s;
				}
				if (!in)
					continue;
				tmp[nent++] = b;
				if (head == NONE || bl->rpo < c->blocks[head].rpo)
					head = b;
			}
			if (head == NONE)
				continue;
			l = c->nloops++;
			c->loops[l] = (struct cfg_loop){ .header = head, .parent = NONE,
							 .first = c->nlblocks, .multi = nent > 1 };
			for (b = 0; b < n; b++)
				if (scc[b] == s) {
					c->blocks[b].seen = stamp;
					c->lblocks[c->nlblocks++] = b;
				}
			for (k = 0; k < l; k++) {
				const struct cfg_loop *L = &c->loops[k];

				if (scc[L->header] != s)
					continue;
				for (uint32_t j = 0; j < L->n; j++) {
					b = c->lblocks[L->first + j];
					if (c->blocks[b].seen != stamp) {
						c->blocks[b].seen = stamp;
						c->lblocks[c->nlblocks++] = b;
					}
				}
			}
			c->loops[l].n = c->nlblocks - c->loops[l].first;
			/* edges from inside into a way in: the next pass */
			for (uint32_t j = 0; j < c->loops[l].n; j++) {
				const struct cfg_block *bl = &c->blocks[c->lblocks[c->loops[l].first + j]];

				for (k = 0; k < bl->nsucc; k++) {
					uint32_t *sp = &c->succs[bl->succ + k];

					for (uint32_t e = 0; e < nent && !(*sp & BACK); e++)
						if (*sp == tmp[e])
							*sp |= BACK;
				}
			}
		}
	}
out:
	free(scc);
	free(tmp);
	return err;
}

static uint32_t push_succs(struct scan_cfg *c, const struct cfg_block *bl, uint32_t mark,
			   uint32_t skip, bool nested, uint32_t sp);

/* Mark with `mark` the blocks reachable from b over edges not BACK;
 * true if `stop` is one of them. */
static bool fwd_reach(struct scan_cfg *c, uint32_t b, uint32_t mark, uint32_t stop)
{
	uint32_t sp = 0;

	if (c->blocks[b].seen == mark)
		return b == stop;
	c->blocks[b].seen = mark;
	c->work[sp++] = b;
	while (sp) {
		uint32_t x = c->work[--sp];

		sp = push_succs(c, &c->blocks[x], mark, NONE, false, sp);
		if (stop != NONE && c->blocks[stop].seen == mark)
			return true;
	}
	return false;
}

/*
 * Every block must stay reachable from a root over the edges not BACK
 * (one pass of the function). find_irreducible()'s later rounds can cut
 * a region off: an inner cycle's way in whose other preds lie after it
 * (the kernel's ksm_scan_thread: 66 of its 554 blocks reached, its
 * for_each_vma loop head entered only over BACK edges; 74 vmlinux
 * functions, 25 in SQLite and glibc). Unmark a BACK edge from a reached
 * block into one not reached, where the target does not reach the
 * source (no cycle comes of it), until all are reached. Where no such
 * edge is left (every one would close a cycle whose back edge was
 * marked elsewhere), the back edges are the depth-first walk's retreating
 * ones, to a block not after the source in reverse postorder: every
 * block reached, no cycle left, the natural loops' back edges as before.
 */
static void reach_all(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, reached = ++c->stamp, b, k;
	bool again;

	for (b = 0; b < n; b++)
		if (c->blocks[b].root)
			fwd_reach(c, b, reached, NONE);
	do {
		again = false;
		for (b = 0; b < n && !again; b++) {
			const struct cfg_block *bl = &c->blocks[b];

			if (bl->seen != reached)
				continue;
			for (k = 0; k < bl->nsucc && !again; k++) {
				uint32_t *s = &c->succs[bl->succ + k], t = *s & ~BACK;

				if (!(*s & BACK) || c->blocks[t].seen == reached ||
				    fwd_reach(c, t, ++c->stamp, b))
					continue;
				*s = t;
				/* (the probe walk's marks are gone: mark anew) */
				reached = ++c->stamp;
				for (uint32_t r = 0; r < n; r++)
					if (c->blocks[r].root)
						fwd_reach(c, r, reached, NONE);
				again = true;
			}
		}
	} while (again);
	for (b = 0; b < n && (c->blocks[b].seen == reached || c->blocks[b].dead); b++)
		;
	if (b == n)
		return;
	for (b = 0; b < n; b++)
		for (k = 0; k < c->blocks[b].nsucc; k++) {
			uint32_t *s = &c->succs[c->blocks[b].succ + k], t = *s & ~BACK;

			*s = c->blocks[t].rpo <= c->blocks[b].rpo ? t | BACK : t;
		}
}

/* Back edges and the natural loop of every header, nested by size. */
static int find_loops(struct scan_cfg *c)
{
	uint32_t n = c->nblocks, b, k, *idx;
	int err;

	c->nloops = c->nlblocks = 0;
	for (b = 0; b < n; b++) {
		struct cfg_block *bl = &c->blocks[b];
		uint32_t sp = 0, stamp, l;
		bool header = false;

		for (k = 0; k < bl->npred; k++) {
			uint32_t q = c->preds[bl->pred + k];

			if (dominates(c, b, q))
				header = true;
		}
		if (!header)
			continue;
		if (GROW(c->loops, c->loops_cap, c->nloops + 1) ||
		    GROW(c->lblocks, c->lblocks_cap, c->nlblocks + n))
			return -ENOMEM;
		l = c->nloops++;
		c->loops[l] = (struct cfg_loop){ .header = b, .parent = NONE, .first = c->nlblocks };
		stamp = ++c->stamp;
		bl->seen = stamp;
		c->lblocks[c->nlblocks++] = b;
		for (k = 0; k < bl->npred; k++) {
			uint32_t q = c->preds[bl->pred + k];

			if (dominates(c, b, q) && c->blocks[q].seen != stamp) {
				c->blocks[q].seen = stamp;
				c->work[sp++] = q;
			}
		}
		while (sp) {
			uint32_t x = c->work[--sp];
			struct cfg_block *bx = &c->blocks[x];

			c->lblocks[c->nlblocks++] = x;
			for (k = 0; k < bx->npred; k++) {
				uint32_t q = c->preds[bx->pred + k];

				if (c->blocks[q].seen != stamp && dominates(c, b, q)) {
					c->blocks[q].seen = stamp;
					c->work[sp++] = q;
				}
			}
		}
		c->loops[l].n = c->nlblocks - c->loops[l].first;
	}
	/* mark back edges */
	for (b = 0; b < n; b++)
		for (k = 0; k < c->blocks[b].nsucc; k++) {
			uint32_t *s = &c->succs[c->blocks[b].succ + k];

			if (dominates(c, *s & ~BACK, b))
				*s |= BACK;
		}
	err = find_irreducible(c);
	if (err)
		return err;
	reach_all(c);
	if (!c->nloops)
		return 0;
	idx = malloc(c->nloops * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (k = 0; k < c->nloops; k++)
		idx[k] = k;
	qsort_r(idx, c->nloops, sizeof(*idx), cmp_size_desc, c);
	for (k = 0; k < c->nloops; k++) {
		struct cfg_loop *L = &c->loops[idx[k]];

		L->parent = c->blocks[L->header].loop;
		for (uint32_t j = 0; j < L->n; j++)
			c->blocks[c->lblocks[L->first + j]].loop = idx[k];
	}
	free(idx);
	return 0;
}

int scan_cfg_build(struct scan_cfg *c, struct scan_priv *p, uint64_t key,
		   const struct scan_range *r, uint32_t nr, uint64_t entry)
{
	uint32_t i, k;
	int err;

	if (c->key == key && c->state)
		return c->state > 0 ? 0 : c->state;
	c->key = key;
	c->state = -ENOENT;
	c->ninsns = c->nblocks = c->nsuccs = c->nloops = 0;
	c->xe = p->xedges;
	c->p = p;
	c->nxe = p->nxedges;
	c->relocatable = p->relocatable;
	c->no_values = p->relocatable && !p->relas_all;
	if (!nr)
		return c->state;
	if (!c->dec && (err = btfi_insn_dec_new(&c->dec)))
		return c->state = err == -ENOMEM ? -ENOMEM : -ENOENT;
	if (GROW(c->fr, c->fr_cap, nr))
		return c->state = -ENOMEM;
	memcpy(c->fr, r, nr * sizeof(*r));
	qsort(c->fr, nr, sizeof(*r), cmp_range);
	for (i = 1, k = 0; i < nr; i++) {	/* merge overlaps */
		if (c->fr[i].lo < c->fr[k].hi) {
			if (c->fr[i].hi > c->fr[k].hi)
				c->fr[k].hi = c->fr[i].hi;
		} else {
			c->fr[++k] = c->fr[i];
		}
	}
	c->nblocks = k + 1;	/* decode() reads the range count from here */
	if ((err = decode(c, p)) || !c->ninsns ||
	    (err = make_blocks(c, entry)) || (err = order_blocks(c)))
		return c->state = err == -ENOMEM ? -ENOMEM : -ENOENT;
	dominators(c);
	if ((err = number_domtree(c)) || (err = find_loops(c)) ||
	    GROW(c->imark, c->imark_cap, c->ninsns) || GROW(c->inner, c->inner_cap, c->ninsns))
		return c->state = -ENOMEM;
	memset(c->imark, 0, c->ninsns * sizeof(*c->imark));
	memset(c->inner, 0, c->ninsns * sizeof(*c->inner));
	for (i = 0; i <= c->nblocks; i++)
		c->blocks[i].seen = c->blocks[i].dstamp = 0;
	for (i = 0; i < c->nloops; i++)
		c->loops[i].seen = 0;
	c->stamp = 0;
	c->state = 1;
	return 0;
}

/* ---- paths ---- */

static uint32_t insn_writes(struct scan_cfg *c, uint32_t i)
{
	struct cfg_insn *in = &c->insns[i];
	struct btfi_insn d;

	if (!in->writes_known) {
		in->writes_known = true;
		in->writes = btfi_insn_decode(c->dec, in->code, in->len, in->addr, &d) ?
			     0xffff | BTFI_INSN_W_MEM : btfi_insn_writes(c->dec);
	}
	return in->writes;
}

uint32_t scan_cfg_path(struct scan_cfg *c, uint64_t addr, bool forward, uint32_t max,
		       struct scan_cfg_step *st)
{
	uint32_t i, n = 0, mark;

	if (c->state <= 0 || (i = find_insn(c, addr)) == NONE || !max)
		return 0;
	if (!forward) {
		while (n < max) {
			const struct cfg_block *bl = &c->blocks[c->insns[i].blk];

			if (i > bl->first) {
				i--;
			} else if (bl->npred == 1 && !bl->root) {
				const struct cfg_block *pb = &c->blocks[c->preds[bl->pred]];

				i = pb->first + pb->n - 1;
			} else {
				break;
			}
			if (c->insns[i].addr == addr)
				break;		/* around a loop */
			st[n] = (struct scan_cfg_step){ c->insns[i].addr, n ? n - 1 : UINT32_MAX };
			n++;
		}
		return n;
	}
	/* forward: breadth first, both ways at a branch, no back edge */
	mark = ++c->stamp;
	st[n++] = (struct scan_cfg_step){ addr, UINT32_MAX };
	c->blocks[c->insns[i].blk].seen = mark;
	for (uint32_t q = 0; q < n && n < max; q++) {
		uint32_t x = find_insn(c, st[q].addr), nx[2], nn = 0;
		const struct cfg_block *bl = &c->blocks[c->insns[x].blk];
		const struct cfg_insn *in = &c->insns[x];

		if (x + 1 < bl->first + bl->n) {
			nx[nn++] = x + 1;
		} else if (in->flow != BTFI_FLOW_IJUMP && in->flow != BTFI_FLOW_STOP) {
			for (uint32_t k = 0; k < bl->nsucc && nn < 2; k++) {
				uint32_t sb = c->succs[bl->succ + k];

				if (sb & BACK || c->blocks[sb].seen == mark)
					continue;
				c->blocks[sb].seen = mark;
				nx[nn++] = c->blocks[sb].first;
			}
		}
		for (uint32_t k = 0; k < nn && n < max; k++)
			st[n++] = (struct scan_cfg_step){ c->insns[nx[k]].addr, q };
	}
	return n;
}

uint32_t scan_cfg_writes(struct scan_cfg *c, uint64_t addr)
{
	uint32_t i = c->state > 0 ? find_insn(c, addr) : NONE;

	return i == NONE ? 0xffff | BTFI_INSN_W_MEM : insn_writes(c, i);
}

bool scan_cfg_is_join(struct scan_cfg *c, uint64_t addr)
{
	uint32_t i;
	const struct cfg_block *bl;

	if (c->state <= 0 || (i = find_insn(c, addr)) == NONE)
		return false;
	bl = &c->blocks[c->insns[i].blk];
	return bl->first == i && bl->npred + bl->root >= 2;
}

uint32_t scan_cfg_preds(struct scan_cfg *c, uint64_t addr, uint64_t *from, uint32_t max)
{
	uint32_t i, n = 0;
	const struct cfg_block *bl;

	if (c->state <= 0 || (i = find_insn(c, addr)) == NONE)
		return 0;
	bl = &c->blocks[c->insns[i].blk];
	if (bl->first != i || bl->root || bl->npred > max)
		return 0;
	for (uint32_t k = 0; k < bl->npred; k++) {
		const struct cfg_block *pb = &c->blocks[c->preds[bl->pred + k]];

		from[n++] = c->insns[pb->first + pb->n - 1].addr;
	}
	return n;
}

uint32_t scan_cfg_only_after(struct scan_cfg *c, uint64_t addr, const struct scan_range *r,
			     uint32_t nr, struct scan_range *out, uint32_t max)
{
	uint32_t st[8], sp = 0, n = 0, nb = 0, i = c->state > 0 ? find_insn(c, addr) : NONE;

	if (i == NONE)
		return 0;
	for (; nb < 8; nb++) {
		const struct cfg_block *bl = &c->blocks[c->insns[i].blk];
		uint32_t j = i, end = bl->first + bl->n;

		while (j < end && scan_ranges_hold(r, nr, c->insns[j].addr))
			j++;
		if (j > i && n < max) {
			out[n].lo = c->insns[i].addr;
			out[n++].hi = c->insns[j - 1].addr + c->insns[j - 1].len;
		}
		/* on into the blocks only this one enters */
		for (uint32_t k = 0; j == end && k < bl->nsucc && sp < 8; k++) {
			uint32_t s = c->succs[bl->succ + k];
			const struct cfg_block *t = &c->blocks[s & ~BACK];

			if (!(s & BACK) && t->npred == 1 && !t->root && !t->dead)
				st[sp++] = t->first;
		}
		if (!sp || n == max)
			break;
		i = st[--sp];
	}
	return n;
}

/* Can instruction b run after instruction a in one pass of the function
 * (no loop's back edge), at any depth? */
static bool runs_after(struct scan_cfg *c, uint32_t a, uint32_t b)
{
	uint32_t ba = c->insns[a].blk, bb = c->insns[b].blk;

	return ba == bb ? a <= b : fwd_reach(c, ba, ++c->stamp, bb);
}

/* GCC's inline-entry row of an instance: a statement at the callee's
 * declaration (file, line and column). */
struct entry_key {
	const char *file;
	int line, col;
};

static bool entry_key_of(Dwarf_Die *inst, Dwarf_Die *cu, struct entry_key *k)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	Dwarf_Die acu;
	size_t nf;

	if (dwarf_decl_line(inst, &k->line) || dwarf_decl_column(inst, &k->col))
		return false;
	if (dwarf_cu_getdwarf(cu->cu) == dwarf_cu_getdwarf(inst->cu))
		return (k->file = dwarf_decl_file(inst)) != NULL;
	/* cu is the unit from a handle of its own (a kernel's, scan.c
	 * rows_cu()): the name from its file table, where
	 * dwarf_decl_file() would decode the walk's handle's line table */
	if (!dwarf_attr_integrate(inst, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) ||
	    !dwarf_cu_die(a.cu, &acu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    dwarf_dieoffset(&acu) != dwarf_dieoffset(cu) || dwarf_getsrcfiles(cu, &files, &nf) ||
	    idx >= nf)
		return false;
	return (k->file = dwarf_filesrc(files, idx, NULL, NULL)) != NULL;
}

static bool entry_row(Dwarf_Line *l, const struct entry_key *k)
{
	const char *f;
	int ln, col;
	bool stmt;

	return !dwarf_lineno(l, &ln) && ln == k->line && !dwarf_linecol(l, &col) && col == k->col &&
	       !dwarf_linebeginstatement(l, &stmt) && stmt &&
	       (f = dwarf_linesrc(l, NULL, NULL)) && !strcmp(f, k->file);
}

/* The first of lines[0..n) at addr or above (libdw's rows are sorted by
 * address). */
static size_t first_row(Dwarf_Lines *lines, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	Dwarf_Addr a;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) || a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t scan_cfg_entry_rows(struct scan_cfg *c, Dwarf_Die *cu, Dwarf_Die *inst,
			     const struct scan_range *r, uint32_t nr, const uint64_t *probes,
			     uint32_t np, uint64_t *unprobed, uint32_t *nunprobed)
{
	uint32_t row[16], n = 0, keep = 0, max = *nunprobed;
	struct entry_key ek;
	Dwarf_Lines *lines;
	size_t nl;

	*nunprobed = 0;
	if (c->state <= 0 || !cu || !entry_key_of(inst, cu, &ek) ||
	    dwarf_getsrclines(cu, &lines, &nl))
		return 0;
	for (uint32_t k = 0; k < nr; k++)
		for (size_t lo = first_row(lines, nl, r[k].lo); lo < nl && n < 16; lo++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, lo);
			Dwarf_Addr a;
			uint32_t i, j;

			if (!l || dwarf_lineaddr(l, &a) || a >= r[k].hi)
				break;
			if (!entry_row(l, &ek) || (i = find_insn(c, a)) == NONE)
				continue;
			for (j = 0; j < n && row[j] != i; j++)
				;
			if (j == n)
				row[n++] = i;
		}
	/* the first row on each path: GCC's copies of the entry */
	for (uint32_t x = 0; x < n; x++) {
		uint32_t y;

		for (y = 0; y < n && (y == x || !runs_after(c, row[y], row[x])); y++)
			;
		if (y == n)
			row[keep++] = row[x];
	}
	if (keep < 2)
		return keep;
	for (uint32_t x = 0; x < keep && *nunprobed < max; x++) {
		const struct cfg_insn *in = &c->insns[row[x]];
		uint32_t j, q;

		/* a trap (BUG()'s ud2): the way ends there, no call goes on */
		if (in->flow == BTFI_FLOW_STOP && !in->ret)
			continue;
		for (j = 0; j < np; j++)
			if ((q = find_insn(c, probes[j])) != NONE &&
			    (runs_after(c, q, row[x]) || runs_after(c, row[x], q)))
				break;
		if (j == np)
			unprobed[(*nunprobed)++] = c->insns[row[x]].addr;
	}
	return keep;
}

static bool row_of(struct scan_cfg *c, uint32_t i, struct cfg_row *r);

bool scan_cfg_branch_on(struct scan_cfg *c, Dwarf_Die *cu, uint64_t addr, uint64_t *jcc,
			uint64_t *other)
{
	uint32_t i = c->state > 0 && cu ? find_insn(c, addr) : NONE, q, lq;
	const struct cfg_block *bl, *qb;
	struct cfg_row rj, ri;

	if (i == NONE)
		return false;
	bl = &c->blocks[c->insns[i].blk];
	if (bl->first != i || bl->root || bl->npred != 1)
		return false;
	q = c->preds[bl->pred];
	qb = &c->blocks[q];
	lq = qb->first + qb->n - 1;
	if (q == c->insns[i].blk || c->insns[lq].flow != BTFI_FLOW_CJUMP || qb->nsucc != 2)
		return false;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t s = c->succs[qb->succ + k];

		if (s & BACK)
			return false;
		if (s != c->insns[i].blk)
			*other = c->insns[c->blocks[s].first].addr;
	}
	/* on down one body: a later line of the same file (a call that
	 * starts again would go back to the body's first line) */
	c->cu = cu;
	if (!row_of(c, lq, &rj) || !row_of(c, i, &ri) || !rj.line || ri.line <= rj.line ||
	    !rj.file || !ri.file || strcmp(rj.file, ri.file))
		return false;
	*jcc = c->insns[lq].addr;
	return true;
}

/* The last instruction of block b that is not a jump on: what the way
 * out of b did last (NONE if b is only a jump). */
static uint32_t last_work(const struct scan_cfg *c, uint32_t b)
{
	const struct cfg_block *bl = &c->blocks[b];
	uint32_t i = bl->first + bl->n - 1;

	if (c->insns[i].flow == BTFI_FLOW_JUMP)
		return i > bl->first ? i - 1 : NONE;
	return i;
}

bool scan_cfg_cross_jump(struct scan_cfg *c, Dwarf_Die *cu, uint64_t addr,
			 const struct scan_range *r, uint32_t nr)
{
	uint32_t i = c->state > 0 && cu ? find_insn(c, addr) : NONE, b, t, lj, li;
	const struct cfg_block *bl, *tb;
	struct cfg_row rj, ri;

	if (i == NONE)
		return false;
	b = c->insns[i].blk;
	bl = &c->blocks[b];
	if (i != bl->first + bl->n - 1 || bl->nsucc != 1 || (c->succs[bl->succ] & BACK))
		return false;
	t = c->succs[bl->succ];
	tb = &c->blocks[t];
	c->cu = cu;
	if (!scan_ranges_hold(r, nr, c->insns[tb->first].addr) || (lj = last_work(c, b)) == NONE ||
	    !row_of(c, lj, &rj) || !rj.line)
		return false;
	for (uint32_t k = 0; k < tb->npred; k++) {
		uint32_t q = c->preds[tb->pred + k];

		if (q == b || (li = last_work(c, q)) == NONE ||
		    !scan_ranges_hold(r, nr, c->insns[li].addr) || !row_of(c, li, &ri))
			continue;
		if (ri.line == rj.line && ri.col == rj.col && !strcmp(ri.file, rj.file) &&
		    insn_writes(c, li) == insn_writes(c, lj) && insn_writes(c, lj))
			return true;
	}
	return false;
}

static uint32_t shape_of(struct scan_cfg *c, uint32_t i);

bool scan_cfg_cross_branch(struct scan_cfg *c, uint64_t addr, uint64_t to,
			   const struct scan_range *r, uint32_t nr)
{
	uint32_t i = c->state > 0 ? find_insn(c, addr) : NONE, t;
	const struct cfg_block *tb;

	if (i == NONE || !i || (t = find_insn(c, to)) == NONE ||
	    c->insns[i].flow != BTFI_FLOW_CJUMP || c->insns[i - 1].blk != c->insns[i].blk)
		return false;
	tb = &c->blocks[c->insns[t].blk];
	if (tb->first != t)
		return false;
	for (uint32_t k = 0; k < tb->npred; k++) {
		const struct cfg_block *qb = &c->blocks[c->preds[tb->pred + k]];
		uint32_t lq = qb->first + qb->n - 1;

		/* the same condition into `to`: `jg` falling in is `jle` jumping */
		if (lq == i || qb->n < 2 || c->insns[lq].flow != BTFI_FLOW_CJUMP ||
		    c->insns[lq].cc < 0 || c->insns[i].cc < 0 ||
		    !scan_ranges_hold(r, nr, c->insns[lq].addr) ||
		    (c->insns[lq].cc ^ (c->insns[lq].target != to)) !=
		    (c->insns[i].cc ^ (c->insns[i].target != to)))
			continue;
		if (shape_of(c, lq - 1) == shape_of(c, i - 1))
			return true;
	}
	return false;
}

/* The instruction at addr decoded again, for btfi_insn_*()'s questions
 * about "the instruction last decoded"; false if there is none. */
static bool decode_at(struct scan_cfg *c, uint64_t addr)
{
	uint32_t i = c->state > 0 ? find_insn(c, addr) : NONE;
	struct btfi_insn d;

	return i != NONE && !btfi_insn_decode(c->dec, c->insns[i].code, c->insns[i].len, addr, &d);
}

/* decode_at() for what an instruction computes: not of one whose bytes
 * the loader fills (a module's `mov $sym, %rdi` holds 0 in the file, its
 * `lea sym(%rip)` an offset from a layout that is not the kernel's); of
 * none where the stored relocations are not known (a .ko.xz). */
static bool decode_value_at(struct scan_cfg *c, uint64_t addr)
{
	uint32_t i = c->state > 0 ? find_insn(c, addr) : NONE;

	return i != NONE && !c->insns[i].reloc && !c->no_values && decode_at(c, addr);
}

bool scan_cfg_const(struct scan_cfg *c, uint64_t addr, uint32_t reg, uint64_t *val, bool *pcrel)
{
	int r;

	return decode_value_at(c, addr) && btfi_insn_const(c->dec, &r, val, pcrel) &&
	       (uint32_t)r == reg && !(*pcrel && c->relocatable);
}

bool scan_cfg_load(struct scan_cfg *c, uint64_t addr, uint32_t reg, uint32_t *base,
		   int64_t *disp, uint32_t *bytes, bool *sgn)
{
	int r, b;

	if (!decode_value_at(c, addr) || !btfi_insn_load(c->dec, &r, &b, disp, bytes, sgn) ||
	    (uint32_t)r != reg)
		return false;
	*base = b;
	return true;
}

bool scan_cfg_affine(struct scan_cfg *c, uint64_t addr, uint32_t reg,
		     struct btfi_insn_affine *out)
{
	return decode_value_at(c, addr) && btfi_insn_affine(c->dec, out) && (uint32_t)out->dst == reg;
}

void scan_cfg_step_facts(struct scan_cfg *c, uint64_t addr, struct btfi_insn_step *out)
{
	uint32_t i = c->state > 0 ? find_insn(c, addr) : NONE;
	uint32_t bytes;
	int dst, src;

	*out = (struct btfi_insn_step){ .writes = 0xffff | BTFI_INSN_W_MEM, .copy_dst = -1,
					.copy_src = -1, .call = true };
	if (i == NONE)
		return;
	out->writes = insn_writes(c, i);
	out->call = c->insns[i].flow == BTFI_FLOW_CALL;
	if (decode_at(c, addr) && btfi_insn_copy(c->dec, &dst, &src, &bytes)) {
		out->copy_dst = dst;
		out->copy_src = src;
		out->copy_bytes = bytes;
	}
}

/* ---- per instance ---- */

/* Is block b in loop l (or a loop inside it)? */
static bool in_loop(const struct scan_cfg *c, uint32_t b, uint32_t l)
{
	for (uint32_t x = c->blocks[b].loop; x != NONE; x = c->loops[x].parent)
		if (x == l)
			return true;
	return false;
}

/*
 * Is loop L the instance's own (marked with stamp)? Its decisions are:
 * every conditional jump that ends one of its blocks is the instance's,
 * and so is most of its code. Not all of it: compilers leave an
 * instruction or two of the caller's in a loop of the body (a constant
 * rematerialized, the jump back at line 0). A loop around the call exits
 * on a decision of the caller's, or, if it never exits (`for (;;) f();`),
 * holds all of the instance: so a loop whose jump back is not the
 * instance's is its own only if some of the instance's code is outside.
 */
static bool loop_inside(const struct scan_cfg *c, uint32_t l, uint32_t stamp)
{
	const struct cfg_loop *L = &c->loops[l];
	uint32_t in = 0, all = 0;
	bool foreign_jump = false;

	for (uint32_t j = 0; j < L->n; j++) {
		const struct cfg_block *bl = &c->blocks[c->lblocks[L->first + j]];
		uint32_t last = bl->first + bl->n - 1;

		if (c->insns[last].flow >= BTFI_FLOW_JUMP && c->imark[last] != stamp) {
			if (c->insns[last].flow != BTFI_FLOW_JUMP)
				return false;
			foreign_jump = true;
		}
		for (uint32_t i = bl->first; i <= last; i++)
			in += c->imark[i] == stamp;
		all += bl->n;
	}
	if (2 * in < all)
		return false;
	if (!foreign_jump)
		return true;
	for (uint32_t i = 0; i < c->ninsns; i++)
		if (c->imark[i] == stamp && !in_loop(c, c->insns[i].blk, l))
			return true;
	return false;
}

static bool loop_internal(struct scan_cfg *c, uint32_t l, uint32_t stamp)
{
	struct cfg_loop *L = &c->loops[l];

	if (L->seen != stamp) {
		L->seen = stamp;
		L->internal = loop_inside(c, l, stamp);
	}
	return L->internal;
}

/* Loops around the call that hold block b. */
static uint16_t ext_depth(struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	struct cfg_block *bl = &c->blocks[b];
	uint16_t d = 0;

	if (bl->dstamp == stamp)
		return bl->depth;
	for (uint32_t l = bl->loop; l != NONE; l = c->loops[l].parent)
		d += !loop_internal(c, l, stamp);
	bl->dstamp = stamp;
	bl->depth = d;
	return d;
}

/* Queue bl's forward successors not yet seen at depth D or deeper on
 * c->work[sp...) (the walks "within one call"); returns the new end. */
static uint32_t push_fwd(struct scan_cfg *c, const struct cfg_block *bl, uint32_t mark,
			 uint32_t stamp, uint16_t D, uint32_t sp)
{
	for (uint32_t k = 0; k < bl->nsucc; k++) {
		uint32_t s = c->succs[bl->succ + k];

		if (s & BACK || c->blocks[s].seen == mark || ext_depth(c, s, stamp) < D)
			continue;
		c->blocks[s].seen = mark;
		c->work[sp++] = s;
	}
	return sp;
}

/* Queue bl's forward successors not yet marked `mark` and not in loop
 * `skip` (NONE: anywhere) on c->work[sp...), marking them (in lseen if
 * `nested`: a walk inside another's, which keeps seen); the new end. */
static uint32_t push_succs(struct scan_cfg *c, const struct cfg_block *bl, uint32_t mark,
			   uint32_t skip, bool nested, uint32_t sp)
{
	for (uint32_t k = 0; k < bl->nsucc; k++) {
		uint32_t s = c->succs[bl->succ + k];
		uint32_t *m = nested ? &c->blocks[s & ~BACK].lseen : &c->blocks[s & ~BACK].seen;

		if (s & BACK || *m == mark || (skip != NONE && in_loop(c, s, skip)))
			continue;
		*m = mark;
		c->work[sp++] = s;
	}
	return sp;
}

/* Outermost loop inside the instance that holds block b, NONE if none. */
static uint32_t inner_loop(struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	uint32_t found = NONE;

	for (uint32_t l = c->blocks[b].loop; l != NONE; l = c->loops[l].parent)
		if (loop_internal(c, l, stamp))
			found = l;
	return found;
}

static bool in_c(struct scan_cfg *c, uint32_t i, uint32_t stamp, uint16_t D)
{
	return c->imark[i] == stamp && ext_depth(c, c->insns[i].blk, stamp) == D;
}

/* Can instruction b run after instruction a within one pass (no back
 * edge), staying at depth >= D? */
static bool reaches(struct scan_cfg *c, uint32_t a, uint32_t b, uint32_t stamp, uint16_t D)
{
	uint32_t ba = c->insns[a].blk, bb = c->insns[b].blk, sp = 0, mark = ++c->stamp;

	if (ba == bb && a < b)
		return true;
	c->work[sp++] = ba;
	c->blocks[ba].seen = mark;
	while (sp) {
		struct cfg_block *bl = &c->blocks[c->work[--sp]];

		for (uint32_t k = 0; k < bl->nsucc; k++) {
			uint32_t s = c->succs[bl->succ + k];

			if (s & BACK)
				continue;
			if (s == bb)
				return true;
			if (c->blocks[s].seen == mark || ext_depth(c, s, stamp) < D)
				continue;
			c->blocks[s].seen = mark;
			c->work[sp++] = s;
		}
	}
	(void)stamp;
	return false;
}

/* The last instruction of block b that a uprobe takes, NONE if none: a
 * probe there runs exactly when the block's way out is taken. */
static uint32_t last_taken(const struct scan_cfg *c, uint32_t b)
{
	const struct cfg_block *bl = &c->blocks[b];

	for (uint32_t i = bl->first + bl->n; i-- > bl->first;)
		if (!c->insns[i].refused)
			return i;
	return NONE;
}

/* The one block outside loop l that leads into its header, NONE if
 * several (or none). */
static uint32_t loop_way_in(struct scan_cfg *c, uint32_t l)
{
	const struct cfg_block *h = &c->blocks[c->loops[l].header];
	uint32_t from = NONE;

	for (uint32_t k = 0; k < h->npred; k++) {
		uint32_t q = c->preds[h->pred + k];
		bool in_loop = false;

		for (uint32_t x = c->blocks[q].loop; x != NONE && !in_loop; x = c->loops[x].parent)
			in_loop = x == l;
		if (in_loop)
			continue;
		if (from != NONE)
			return NONE;
		from = q;
	}
	return h->root || c->loops[l].multi ? NONE : from;
}

/* Before the loop inside the instance that entry e heads: the last
 * instruction of its only way in, if that block leads nowhere else. */
static uint32_t before_loop(struct scan_cfg *c, uint32_t l)
{
	uint32_t from = loop_way_in(c, l);

	if (from == NONE || c->blocks[from].nsucc != 1)
		return NONE;
	return last_taken(c, from);
}

/* Is block q's way to block b an edge: q ends in a jump on EFLAGS (one a
 * uprobe takes) whose one way goes to b, the other elsewhere, and not
 * back? Then 1 + the condition under which it goes to b, else 0. A
 * probe on that jump, counting only when the condition holds, runs once
 * for each time control takes the edge. */
static uint8_t edge_cond(const struct scan_cfg *c, uint32_t q, uint32_t b)
{
	const struct cfg_block *qb = &c->blocks[q];
	const struct cfg_insn *j = &c->insns[qb->first + qb->n - 1];
	uint64_t to = c->insns[c->blocks[b].first].addr;
	bool taken = j->target == to, fall = j->addr + j->len == to;

	if (j->flow != BTFI_FLOW_CJUMP || j->cc < 0 || j->refused || qb->nsucc != 2 ||
	    taken == fall)
		return 0;
	for (uint32_t k = 0; k < qb->nsucc; k++)
		if ((c->succs[qb->succ + k] & ~BACK) == b && (c->succs[qb->succ + k] & BACK))
			return 0;
	return 1 + (taken ? j->cc : j->cc ^ 1);
}

/* As before_loop(), when the only way in is an edge (a branch that also
 * goes elsewhere: clang's moveToLeftmost, whose body is its `while(
 * !pPage->leaf )`, entered by sqlite3BtreeFirst's `rc` test, which also
 * leads to the error exit): the branch, *cond the way into the loop. */
static uint32_t edge_before_loop(struct scan_cfg *c, uint32_t l, uint32_t stamp, uint8_t *cond)
{
	uint32_t from = loop_way_in(c, l), h = c->loops[l].header;
	const struct cfg_block *fb;

	if (from == NONE || !(*cond = edge_cond(c, from, h)))
		return NONE;
	/* the other way leaves the body: calls that skip the loop are no
	 * calls of an instance whose code is the loop */
	fb = &c->blocks[from];
	for (uint32_t k = 0; k < fb->nsucc; k++) {
		uint32_t o = c->succs[fb->succ + k] & ~BACK;

		if (o != h && c->imark[c->blocks[o].first] == stamp)
			return NONE;
	}
	return c->blocks[from].first + c->blocks[from].n - 1;
}

/* Does one of e[0..n) run before instruction x on every path to it? */
static bool dominated(const struct scan_cfg *c, uint32_t x, const uint32_t *e, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = c->insns[e[k]].blk, b = c->insns[x].blk;

		if (a == b ? e[k] <= x : dominates(c, a, b))
			return true;
	}
	return false;
}

static bool in_set(const uint32_t *set, uint32_t n, uint32_t x)
{
	for (uint32_t k = 0; k < n; k++)
		if (set[k] == x)
			return true;
	return false;
}

/* Does block q go on to one block, but for an exception fixup its last
 * instruction has (__switch_to's loadsegment(ss, ...): `mov %eax,%ss`)?
 * The fault is the exception; it goes on. */
static bool fixup_only(const struct scan_cfg *c, uint32_t q)
{
	const struct cfg_block *qb = &c->blocks[q];
	const struct cfg_insn *l = &c->insns[qb->first + qb->n - 1];

	return qb->nsucc == 2 && l->flow == BTFI_FLOW_NEXT && l->xe != NONE && !c->xe[l->xe].label &&
	       (l->xe + 1 == c->nxe || c->xe[l->xe + 1].from != l->addr);
}

/*
 * The ways into the block that instruction e begins, from outside loop l
 * (NONE: from anywhere): the last instruction of each block that only
 * leads there (w[k], wc[k] = 0), or the branch that also goes elsewhere
 * (wc[k] = 1 + the condition under which it goes there). Each runs once
 * each time its way is taken. How many, 0 if a way is neither (or more
 * than max).
 */
static uint32_t ways_into(struct scan_cfg *c, uint32_t e, uint32_t l, uint32_t *w, uint8_t *wc,
			  uint32_t max)
{
	uint32_t b = c->insns[e].blk, n = 0, x;
	const struct cfg_block *bl = &c->blocks[b];

	if (bl->root || bl->first != e)
		return 0;
	for (uint32_t k = 0; k < bl->npred; k++) {
		uint32_t q = c->preds[bl->pred + k];
		const struct cfg_block *qb = &c->blocks[q];
		const struct cfg_insn *ql = &c->insns[qb->first + qb->n - 1];
		bool fx = fixup_only(c, q);

		if (l != NONE && in_loop(c, q, l))
			continue;
		/* only a fault goes from q to b: no call's way (the fault is
		 * the exception; native_read_msr_safe's `rdmsr` goes on to
		 * the `xor` before the tracepoint key its fixup lands on) */
		if (fx && c->insns[bl->first].addr != ql->addr + ql->len)
			continue;
		if (n == max)
			return 0;
		if ((qb->nsucc == 1 || fx) && (x = last_taken(c, q)) != NONE) {
			w[n] = x;
			wc[n++] = 0;
		} else if ((wc[n] = edge_cond(c, q, b))) {
			w[n++] = qb->first + qb->n - 1;
		} else {
			return 0;
		}
	}
	return n;
}

/* Does block b leave the function (a return, a jump out of it)? A call
 * in a loop that does so never reaches the loop's exits. */
static bool leaves(struct scan_cfg *c, uint32_t b)
{
	const struct cfg_block *bl = &c->blocks[b];
	const struct cfg_insn *last = &c->insns[bl->first + bl->n - 1];

	if (last->ret || last->flow == BTFI_FLOW_IJUMP)
		return !bl->nsucc;
	return last->flow == BTFI_FLOW_JUMP && find_insn(c, last->target) == NONE;
}

/*
 * After the loop inside the instance that an entry heads, where nothing
 * before it leads there alone (before_loop() found no way in): its exits,
 * the first instruction of each block a loop block leaves to, into
 * out[0..max). A call enters its own loop once and leaves it once, so
 * they run once per call together if only the loop leads to each and no
 * block of the loop leaves the function. The values are read where the
 * loop is entered: *kill gets what the loop may change (GCC's
 * findRightmost walks p itself: `while( p->pNext ) p = p->pNext`). 0 if
 * not so (or more than max).
 */
static uint32_t after_loop(struct scan_cfg *c, uint32_t l, uint32_t *out, uint32_t max,
			   uint32_t *kill)
{
	const struct cfg_loop *L = &c->loops[l];
	uint32_t n = 0, j, k, q;

	*kill = 0;
	if (L->multi)
		return 0;
	for (j = 0; j < L->n; j++) {
		uint32_t b = c->lblocks[L->first + j];
		const struct cfg_block *bl = &c->blocks[b];

		if (leaves(c, b))
			return 0;
		for (k = bl->first; k < bl->first + bl->n; k++)
			*kill |= insn_writes(c, k);
		for (k = 0; k < bl->nsucc; k++) {
			uint32_t s = c->succs[bl->succ + k] & ~BACK;
			const struct cfg_block *sb = &c->blocks[s];

			if (in_loop(c, s, l))
				continue;
			for (q = 0; q < n && c->insns[out[q]].blk != s; q++)
				;
			if (q < n)
				continue;
			if (sb->root || n == max)
				return 0;
			for (q = 0; q < sb->npred; q++)
				if (!in_loop(c, c->preds[sb->pred + q], l))
					return 0;
			out[n++] = sb->first;
		}
	}
	return n;
}

/*
 * A jump label i that ends its block, as label_join() and label_exits()
 * take it: *f the block its fall-through goes to, in the label's loop and
 * entered only by what the label leads to, *o the block of its other way
 * (the key's code, out of line). False if not so.
 */
static bool label_ways(const struct scan_cfg *c, uint32_t i, uint32_t *f, uint32_t *o)
{
	uint32_t b = c->insns[i].blk;
	const struct cfg_block *bl = &c->blocks[b];

	*f = *o = NONE;
	if (bl->nsucc != 2 || i != bl->first + bl->n - 1)
		return false;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t s = c->succs[bl->succ + k];

		if (s & BACK)
			return false;
		if (c->insns[c->blocks[s].first].addr == c->insns[i].addr + c->insns[i].len)
			*f = s;
		else
			*o = s;
	}
	if (*f == NONE || *o == NONE || c->blocks[*f].loop != bl->loop)
		return false;
	for (uint32_t k = 0; k < c->blocks[*f].npred; k++) {
		uint32_t q = c->preds[c->blocks[*f].pred + k];

		if (q != b && !dominates(c, b, q))
			return false;
	}
	return true;
}

/*
 * The join after a refused jump label that ends its block with nothing
 * before it: where its fall-through goes, if the other way (the key's
 * code, out of line) always comes back there and nothing else leads
 * there. It then runs once each time the label does: mmap_read_unlock's
 * tracepoint key (__mmap_lock_trace_released) right after a branch of
 * do_user_addr_fault's. NONE if not so.
 */
static uint32_t label_join(struct scan_cfg *c, uint32_t i)
{
	uint32_t f, o, sp = 0, mark, n = 0;

	if (!label_ways(c, i, &f, &o))
		return NONE;
	mark = ++c->stamp;
	c->blocks[o].seen = mark;
	c->work[sp++] = o;
	while (sp) {
		const struct cfg_block *x = &c->blocks[c->work[--sp]];

		if (!x->nsucc || ++n > 64)
			return NONE;
		for (uint32_t k = 0; k < x->nsucc; k++) {
			uint32_t s = c->succs[x->succ + k];

			if (s & BACK)
				return NONE;
			if (s == f || c->blocks[s].seen == mark)
				continue;
			c->blocks[s].seen = mark;
			c->work[sp++] = s;
		}
	}
	return c->insns[c->blocks[f].first].refused ? NONE : c->blocks[f].first;
}

/* Is the way to block s, from the out-of-line code of label block b, a
 * way out of it: not to F (f), but to what F leads to (lseen == fmark)
 * or out of what b leads to? */
static bool way_out(const struct scan_cfg *c, uint32_t s, uint32_t f, uint32_t b, uint32_t fmark)
{
	return s != f && (c->blocks[s].lseen == fmark || !dominates(c, b, s));
}

/*
 * Where a refused jump label's two ways go on, for a key alone in its
 * block with neither an instruction to move to nor probe-able ways in:
 * the first instruction of its fall-through's block F, if only what the
 * label leads to leads there, and each way out of the key's out-of-line
 * code that does not come back to F (a branch or jump to code F's way
 * reaches too, or out of what the label leads to; a return): one of them
 * runs each time the label does. put_devmap_managed_page after
 * page_fixed_fake_head's key in put_page(): F is folio_put_testzero's
 * `lock decl`, the other way the `jne` past it when
 * __put_devmap_managed_page_refs() took the page. Into w[], wc[] (0: an
 * instruction, else 1 + a branch's condition) and wt[] (where a branch
 * goes); how many, 0 if not so.
 */
static uint32_t label_exits(struct scan_cfg *c, uint32_t i, uint32_t *w, uint8_t *wc, uint32_t *wt,
			    uint32_t max)
{
	uint32_t b = c->insns[i].blk, f, o, sp = 0, mark, fmark, n = 0, seen = 0;

	if (max < 2 || !label_ways(c, i, &f, &o) || c->insns[c->blocks[f].first].refused)
		return 0;
	/* what F leads to (lseen) */
	fmark = ++c->stamp;
	c->blocks[f].lseen = fmark;
	c->work[sp++] = f;
	while (sp) {
		const struct cfg_block *x = &c->blocks[c->work[--sp]];

		if (++seen > 256)
			return 0;
		for (uint32_t k = 0; k < x->nsucc; k++) {
			uint32_t s = c->succs[x->succ + k];

			if (!(s & BACK) && c->blocks[s].lseen != fmark) {
				c->blocks[s].lseen = fmark;
				c->work[sp++] = s;
			}
		}
	}
	w[n] = c->blocks[f].first;
	wc[n] = 0;
	wt[n++] = NONE;
	/* the out-of-line way's code, up to F or what F leads to */
	mark = ++c->stamp;
	c->blocks[o].seen = mark;
	c->work[sp++] = o;
	seen = 0;
	while (sp) {
		uint32_t x = c->work[--sp], last;
		const struct cfg_block *xb = &c->blocks[x];

		if (++seen > 64 || c->blocks[x].lseen == fmark)
			return 0;
		last = xb->first + xb->n - 1;
		if (!xb->nsucc) {	/* a return, a call that does not */
			if (n == max || (w[n] = last_taken(c, x)) == NONE)
				return 0;
			wc[n] = 0;
			wt[n++] = NONE;
			continue;
		}
		uint32_t nout = 0;

		for (uint32_t k = 0; k < xb->nsucc; k++)
			nout += way_out(c, c->succs[xb->succ + k] & ~BACK, f, b, fmark);
		for (uint32_t k = 0; k < xb->nsucc; k++) {
			uint32_t s = c->succs[xb->succ + k];

			if (s & BACK)
				return 0;
			if (s == f)
				continue;
			if (way_out(c, s, f, b, fmark)) {
				if (n == max)
					return 0;
				/* every way on is out: the block's last instruction */
				if (nout == xb->nsucc) {
					if ((w[n] = last_taken(c, x)) == NONE)
						return 0;
					wc[n] = 0;
					wt[n++] = NONE;
					break;
				}
				if (xb->nsucc == 1 && (w[n] = last_taken(c, x)) != NONE) {
					wc[n] = 0;
				} else if ((wc[n] = edge_cond(c, x, s))) {
					w[n] = last;
				} else {
					return 0;
				}
				wt[n++] = c->blocks[s].first;
				continue;
			}
			if (c->blocks[s].seen != mark) {
				c->blocks[s].seen = mark;
				c->work[sp++] = s;
			}
		}
	}
	return n;
}

/*
 * The block that decides for refused instruction t's block b when one way
 * into b is a branch with no condition to count by (a kernel's
 * static_cpu_has() jump, aux_branch()): b's immediate dominator q, when
 * every path from q reaches b (none leaves, none goes round a loop) and
 * b's other ways in are on those paths. q's last instruction then runs
 * once for each time b does. __switch_to's resctrl_sched_in key
 * (0x...f417) is entered from loadsegment(ss)'s `je` and `mov %eax,%ss`
 * on X86_BUG_SYSRET_SS_ATTRS's way and straight from the jump on the
 * other: the jump (0x...f402) is its one way. NONE if there is none.
 */
static uint32_t dom_way(struct scan_cfg *c, uint32_t t)
{
	uint32_t b = c->insns[t].blk, q = c->blocks[b].idom, sp = 0, seen = 0, mark = ++c->stamp, j;
	const struct cfg_block *bl = &c->blocks[b], *qb;

	if (q == NONE || q >= c->nblocks || q == b || bl->first != t)
		return NONE;
	qb = &c->blocks[q];
	j = qb->first + qb->n - 1;
	if (c->insns[j].refused || c->insns[j].flow != BTFI_FLOW_CJUMP || c->insns[j].cc >= 0)
		return NONE;
	for (uint32_t k = 0; k < qb->nsucc; k++) {
		uint32_t s = c->succs[qb->succ + k];

		if (s & BACK)
			return NONE;
		if (s != b && c->blocks[s].seen != mark) {
			c->blocks[s].seen = mark;
			c->work[sp++] = s;
		}
	}
	while (sp) {
		uint32_t xi = c->work[--sp];
		const struct cfg_block *x = &c->blocks[xi];
		const struct cfg_insn *xl = &c->insns[x->first + x->n - 1];
		bool fx = fixup_only(c, xi);	/* the fault's way is no path of the call's */

		if (++seen > 32 || !x->nsucc)
			return NONE;
		for (uint32_t k = 0; k < x->nsucc; k++) {
			uint32_t s = c->succs[x->succ + k];

			if (fx && c->insns[c->blocks[s & ~BACK].first].addr != xl->addr + xl->len)
				continue;
			if (s & BACK)
				return NONE;
			if (s != b && c->blocks[s].seen != mark) {
				c->blocks[s].seen = mark;
				c->work[sp++] = s;
			}
		}
	}
	for (uint32_t k = 0; k < bl->npred; k++) {
		uint32_t p = c->preds[bl->pred + k];

		if (p != q && c->blocks[p].seen != mark)
			return NONE;
	}
	return j;
}

/*
 * The ways round refused instruction t: into its block (ways_into()),
 * else on from it (label_exits()). w[k], wc[k] as theirs; wt[k] where a
 * branch's parameters are read, and for an instruction the one whose
 * parameters it reads where it has none (moved_from(): t for a way into
 * t, itself for a way on). How many, 0 if none.
 */
static uint32_t dom_way(struct scan_cfg *c, uint32_t t);

static uint32_t ways_round(struct scan_cfg *c, uint32_t t, uint32_t *w, uint8_t *wc, uint32_t *wt)
{
	uint32_t n = ways_into(c, t, NONE, w, wc, SCAN_CFG_MAX_ENTRIES);

	if (n) {
		for (uint32_t k = 0; k < n; k++)
			wt[k] = t;
		return n;
	}
	n = label_exits(c, t, w, wc, wt, SCAN_CFG_MAX_ENTRIES);
	for (uint32_t k = 0; k < n; k++)
		if (!wc[k])
			wt[k] = w[k];
	/* the decision before t's block: parameters read there (the code
	 * between may change what t would read) */
	if (!n && (w[0] = dom_way(c, t)) != NONE) {
		wc[0] = 0;
		wt[0] = w[0];
		n = 1;
	}
	return n;
}

/* Off padding, and off instructions the probes refuse (uprobes: a lock
 * prefix; kprobes: a jump label, a WARN's ud2, a static call), within the
 * block: all of a block runs as often as any of it. A jump label ends its
 * block, so it moves back: mmap_read_unlock's tracepoint key is its first
 * instruction. */
static uint32_t settle(struct scan_cfg *c, uint32_t i, struct scan_cfg_choice *out)
{
	const struct cfg_block *bl = &c->blocks[c->insns[i].blk];
	uint32_t end = bl->first + bl->n, j;

	if (c->insns[i].nop) {
		for (j = i; j < end && c->insns[j].nop; j++)
			;
		if (j < end) {
			out->nop_skipped = true;
			i = j;
		}
	}
	if (!c->insns[i].refused)
		return i;
	for (j = i + 1; j < end; j++)
		if (!c->insns[j].refused && !c->insns[j].nop)
			goto moved;
	for (j = i + 1; j < end; j++)
		if (!c->insns[j].refused)
			goto moved;
	for (j = i; j-- > bl->first;)
		if (!c->insns[j].refused)
			goto moved;
	if ((j = label_join(c, i)) != NONE)
		goto moved;
	return i;
moved:
	out->refused_moved = true;
	return j;
}

/* Probe x, moved back from instruction `from` (refused) in its block or
 * from the end of a block that leads only to it: out's at[k] and kill[k]
 * (scan_cfg.h). */
static void moved_from(struct scan_cfg *c, uint32_t x, uint32_t from, struct scan_cfg_choice *out,
		       uint32_t k)
{
	bool same = from != NONE && c->insns[x].blk == c->insns[from].blk;

	if (from == NONE || x == from || !c->insns[from].refused || (same && x > from))
		return;
	out->at[k] = c->insns[from].addr;
	out->kill[k] = 0;
	for (uint32_t j = x; j == x || (same && j < from); j++)
		out->kill[k] |= insn_writes(c, j);
}

bool scan_cfg_refused(struct scan_cfg *c, uint64_t addr)
{
	uint32_t i;

	return c->state > 0 && (i = find_insn(c, addr)) != NONE && c->insns[i].refused;
}

uint32_t scan_cfg_settle(struct scan_cfg *c, uint64_t addr, struct scan_cfg_choice *out)
{
	uint32_t i, j, w[SCAN_CFG_MAX_ENTRIES], wt[SCAN_CFG_MAX_ENTRIES], nw, k;
	uint8_t wc[SCAN_CFG_MAX_ENTRIES];

	if (c->state <= 0 || (i = find_insn(c, addr)) == NONE)
		return 0;
	j = settle(c, i, out);
	nw = c->insns[j].refused ? ways_round(c, j, w, wc, wt) : 0;
	if (!nw) {
		if (j == i)
			return 0;
		out->addr[0] = c->insns[j].addr;
		moved_from(c, j, i, out, 0);
		return out->n = 1;
	}
	/* the ways into its block (or on from it), as for an entry
	 * (scan_cfg_entries()) */
	out->n = out->edges = 0;
	for (k = 0; k < nw; k++)
		if (!wc[k]) {
			moved_from(c, w[k], wt[k], out, out->n);
			out->addr[out->n++] = c->insns[w[k]].addr;
		}
	for (k = 0; k < nw; k++)
		if (wc[k]) {
			out->addr[out->n] = c->insns[w[k]].addr;
			out->cond[out->n] = wc[k];
			out->at[out->n++] = c->insns[wt[k]].addr;
			out->edges++;
		}
	out->refused_moved = true;
	return out->n;
}

/* Are instructions a and b the same bytes (neither with a relocation)? */
static bool same_bytes(const struct cfg_insn *a, const struct cfg_insn *b)
{
	return a->code && b->code && a->len == b->len && !a->reloc && !b->reloc &&
	       !memcmp(a->code, b->code, a->len);
}

/* An instruction of work: neither padding nor a jump (a branch alone
 * decides, it does not compute). */
static bool work_insn(const struct cfg_insn *in)
{
	return !in->nop && in->flow < BTFI_FLOW_JUMP;
}

/* Is instruction i at line 0 in the line table: code the compiler
 * attributes to no source line (clang's merged and shared code)? */
static bool line0(struct scan_cfg *c, uint32_t i)
{
	struct cfg_insn *in = &c->insns[i];

	if (!in->line) {
		Dwarf_Line *l = c->cu ? dwarf_getsrc_die(c->cu, in->addr) : NULL;
		Dwarf_Addr a;
		int n;

		in->line = l && !dwarf_lineaddr(l, &a) && !dwarf_lineno(l, &n) && n == 0 ? 1 : 2;
	}
	return in->line == 1;
}

/* Is instruction i reached only through a jump table (or from nowhere
 * seen)? */
static bool by_table(const struct scan_cfg *c, uint32_t i)
{
	const struct cfg_block *bl = &c->blocks[c->insns[i].blk];

	if (bl->first != i || bl->root)
		return bl->root && bl->first == i;
	for (uint32_t k = 0; k < bl->npred; k++) {
		const struct cfg_block *pb = &c->blocks[c->preds[bl->pred + k]];

		if (c->insns[pb->first + pb->n - 1].flow != BTFI_FLOW_IJUMP)
			return false;
	}
	return bl->npred > 0;
}

/* Does the way in at e run only line-0 code of the instance and then
 * leave it (followed while the way is one path)? clang puts code it
 * shares between paths inside an instance's range at line 0
 * (sqlite3Utf8Read's `mov %rdx,%rbp; jmp`, the macro's A++ on the ASCII
 * path): no call of this instance runs through it. A line-0 instruction
 * that leads into the body's lines is the body's (setGetterMethod's
 * `lea 0x110(%r15),%rax` before `lea getPageNormal`). */
static bool line0_only(struct scan_cfg *c, uint32_t e, uint32_t stamp)
{
	uint32_t i = e, steps = 0;

	while (steps++ < 64) {
		const struct cfg_block *bl = &c->blocks[c->insns[i].blk];

		for (; i < bl->first + bl->n; i++) {
			if (c->imark[i] != stamp)
				return i != e;		/* left the instance */
			if (work_insn(&c->insns[i]) && !line0(c, i))
				return false;
		}
		if (bl->nsucc != 1 || c->succs[bl->succ] & BACK)
			return false;
		i = c->blocks[c->succs[bl->succ]].first;
	}
	return false;
}

/* Does instruction i load a register from memory (the body reading a
 * field: gcc's sqlite3FindCollSeq with zColl NULL is `p = db->pDfltColl`,
 * one load), rather than set a constant (`xor %eax,%eax`, shared with the
 * caller's 0) or copy a register? */
static bool loads_from(struct scan_cfg *c, uint32_t i, int *base)
{
	int dst;
	int64_t disp;
	uint32_t bytes;
	bool sgn;

	return decode_at(c, c->insns[i].addr) &&
	       btfi_insn_load(c->dec, &dst, base, &disp, &bytes, &sgn);
}

static bool loads(struct scan_cfg *c, uint32_t i)
{
	int base;

	return loads_from(c, i, &base);
}

/* The instance's range that holds addr (that starts at addr if starts),
 * NONE if none. */
static uint32_t range_of(const struct scan_cfg *c, uint64_t addr, bool starts)
{
	for (uint32_t k = 0; k < c->nr; k++)
		if (starts ? c->r[k].lo == addr : c->r[k].lo <= addr && addr < c->r[k].hi)
			return k;
	return NONE;
}

static bool tail_call(const struct scan_cfg *c, uint32_t i);

/* Does instruction i reload a register from the stack (the caller's
 * value kept across a call)? */
static bool reload(struct scan_cfg *c, uint32_t i)
{
	int base;

	return loads_from(c, i, &base) && base == 7;	/* DWARF 7: %rsp */
}

/* The one instruction of work (a tail call counts) in the instance's
 * range k, NONE if it holds none or several; with `reloads`, a reload
 * from the stack is not counted (the caller's: fib_lookup()'s
 * rcu_read_unlock() in ip_route_output_key_hash_rcu is `call
 * __rcu_read_unlock` on the -ENETUNREACH way and `call
 * __rcu_read_unlock; mov (%rsp),%eax`, err kept across it, on the
 * other). */
static uint32_t range_one(struct scan_cfg *c, uint32_t k, bool reloads)
{
	uint32_t j, one = NONE;

	for (j = lower_insn(c, c->r[k].lo); j < c->ninsns && c->insns[j].addr < c->r[k].hi; j++)
		if ((work_insn(&c->insns[j]) && !(reloads && reload(c, j))) || tail_call(c, j)) {
			if (one != NONE)
				return NONE;
			one = j;
		}
	return one;
}

static bool reg_only(struct scan_cfg *c, uint32_t i);
static bool other_call(struct scan_cfg *c, uint32_t i);

/* Does another inlined call's code fall into instruction i? Then i is
 * that call's too, cross-jumped (gcc's yy_reduce: line 184524's
 * sqlite3ExprListDelete tests pList and falls into the `call
 * exprListDeleteNN` that line 113826's instance jumps to). */
static bool shared_call(struct scan_cfg *c, uint32_t i)
{
	const struct cfg_insn *p = i ? &c->insns[i - 1] : NULL;

	return p && p->addr + p->len == c->insns[i].addr &&
	       (p->flow == BTFI_FLOW_NEXT || p->flow == BTFI_FLOW_CJUMP) && other_call(c, i - 1);
}

/* Is the instance's range k argument setup (register moves, constants,
 * loads from the stack) and then one call or tail call of target, its
 * only other work? The body of a one-call function on a path where GCC
 * set the argument up: udp_sendmsg's ip_rt_put() is `mov
 * -0x128(%rbp),%rdi; call dst_release` on five ways out and a lone
 * `call dst_release` on the RTCF_BROADCAST one, where %rdi holds rt. */
static bool setup_then_call(struct scan_cfg *c, uint32_t k, uint64_t target)
{
	uint32_t j, call = NONE;
	int base;

	for (j = lower_insn(c, c->r[k].lo); j < c->ninsns && c->insns[j].addr < c->r[k].hi; j++) {
		if (call != NONE)
			return false;	/* nothing after the call */
		if (c->insns[j].flow == BTFI_FLOW_CALL || tail_call(c, j)) {
			if (c->insns[j].target != target)
				return false;
			call = j;
		} else if (work_insn(&c->insns[j]) && !reg_only(c, j) &&
			   !(loads_from(c, j, &base) && (base == 6 || base == 7))) /* %rbp, %rsp */
			return false;
	}
	return call != NONE;
}

/* Is instruction i a copy of a one-instruction body: it touches memory
 * or calls (`incl %gs:__preempt_count`, get_current's `mov %gs:x,%rax`,
 * atomic64_set's store, `bt r,m`, rcu_read_unlock's call), is its range's
 * only work, and another range of the instance is one instruction of
 * that shape (GCC tail-duplicated the body onto each path:
 * split_lock_warn's two get_cpu()s)? Without the copy a lone access is
 * often one GCC cross-jumped between two calls (cgroup_get_e_css's
 * `incq %gs:(%rax)`, both css_get()s' percpu add); inside a longer range
 * it is part of a body that has its own way in (__rb_insert_augmented's
 * `mov %rdi,(%r13)` in __rb_change_child). A call as a tail jump is a
 * copy of a call or tail jump to the same function, and a direct call
 * of a tail jump (sock_hash_seq_stop's rcu_read_unlock: `jmp
 * __rcu_read_unlock` on both ways of `if (!elem) sock_hash_seq_show(seq,
 * NULL)`; send_sigio_to_task's, `call` on one way, the epilogue's `jmp`
 * on the other). A reload after a call is the caller's only where the
 * callee is the same: glibc's decrement_at_index has `call free; mov
 * 0x8(%rsp),%rsi` in conf_decrement's body and `call
 * __libc_dynarray_at_failure` in a range DWARF gives it too; calls to
 * different functions match by shape alone (strncpy_from_bpfptr's
 * user and kernel arms). */
static bool reg_only(struct scan_cfg *c, uint32_t i);

static bool lone_copy(struct scan_cfg *c, uint32_t i)
{
	bool tc = tail_call(c, i), plain, calc = false;
	uint32_t k, j, mine;

	if (!tc) {
		if (!decode_at(c, c->insns[i].addr))
			return false;
		/* a computation on registers (not a copy, a constant or a
		 * register plus one: an argument's setup, or GCC's `xor
		 * %eax,%eax` shared with the caller) is a copy of the same
		 * bytes only */
		if (!btfi_insn_mem(c->dec)) {
			if (c->insns[i].flow != BTFI_FLOW_NEXT || c->insns[i].reloc || !c->insns[i].code ||
			    !btfi_insn_regs_only(c->dec) || reg_only(c, i))
				return false;
			calc = true;
		}
	}
	mine = range_of(c, c->insns[i].addr, false);
	if (mine == NONE || range_one(c, mine, true) != i)
		return false;
	plain = range_one(c, mine, false) == i;
	for (k = 0; k < c->nr; k++) {
		if (k == mine)
			continue;
		/* the same callee: a reload after the call aside, or the
		 * argument's setup before it */
		if ((tc || c->insns[i].flow == BTFI_FLOW_CALL) &&
		    (((j = range_one(c, k, true)) != NONE && j != i &&
		      c->insns[j].target == c->insns[i].target &&
		      (tail_call(c, j) || c->insns[j].flow == BTFI_FLOW_CALL)) ||
		     (!shared_call(c, i) && setup_then_call(c, k, c->insns[i].target))))
			return true;
		if (tc || !plain || (j = range_one(c, k, false)) == NONE || j == i)
			continue;
		if (calc) {
			if (same_bytes(&c->insns[j], &c->insns[i]))
				return true;
			continue;
		}
		if (shape_of(c, j) == shape_of(c, i) ||
		    (c->insns[i].flow == BTFI_FLOW_CALL && tail_call(c, j) &&
		     c->insns[j].target == c->insns[i].target))
			return true;
	}
	return false;
}

/* Is instruction i a store to memory (btfi_insn_store()) that another
 * range of the instance also stores to: the same base register,
 * displacement and width? The body's store copied onto another path,
 * written another way: the kernel's bio_set_flag is `or $0x8,%edx; mov
 * %dx,0x14(%r13)` on one of blk_update_request's ways and `orw
 * $0x8,0x14(%r13)` on the other. A per-cpu or stack access is none
 * (cgroup_get_e_css's cross-jumped `incq %gs:(%rax)`: lone_copy()). */
static bool store_twin(struct scan_cfg *c, uint32_t i)
{
	int base, b2;
	int64_t disp, d2;
	uint32_t bytes, n2, mine, k, j;

	if (!decode_at(c, c->insns[i].addr) || !btfi_insn_store(c->dec, &base, &disp, &bytes) ||
	    (mine = range_of(c, c->insns[i].addr, false)) == NONE)
		return false;
	for (k = 0; k < c->nr; k++) {
		if (k == mine)
			continue;
		for (j = lower_insn(c, c->r[k].lo); j < c->ninsns && c->insns[j].addr < c->r[k].hi; j++)
			if (!c->insns[j].reloc && decode_at(c, c->insns[j].addr) &&
			    btfi_insn_store(c->dec, &b2, &d2, &n2) && b2 == base && d2 == disp && n2 == bytes)
				return true;
	}
	return false;
}

/* Is the instance's code at way in e its own decision: a compare or a
 * test (no register or memory written, not line 0) and the instance's
 * conditional jump right after it? One instruction of work, but the
 * body's, not code the compiler shares with the caller: GCC copies the
 * body's first test onto each way a branch of the caller's threads
 * (print_graph_duration's `test %r15d` in print_graph_irq,
 * update_pick_idlest's `cmpl $4` for one group type in
 * find_idlest_group). Not in a block only the virtual root enters: the
 * kernel's static_cpu_has() jumps through .altinstr_aux back into the
 * body (userfaultfd_must_wait's pgtable_l5_enabled() test), the same call. */
static bool own_decision(struct scan_cfg *c, uint32_t e, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[c->insns[e].blk];
	uint32_t end = bl->first + bl->n, i;

	if (bl->root)
		return false;
	for (i = e; i < end && c->insns[i].nop; i++)
		;
	return i + 1 < end && c->imark[i] == stamp && c->imark[i + 1] == stamp &&
	       work_insn(&c->insns[i]) && !line0(c, i) && !insn_writes(c, i) &&
	       c->insns[i + 1].flow == BTFI_FLOW_CJUMP;
}

/* Is instruction i a call inside a loop that returns into that loop: its
 * callee returns (by name and by its code, never_returns()), the next
 * instruction is no padding and in the same innermost loop? The whole
 * work of a body copied there: the kernel's rcu_read_unlock in
 * percpu_ref_tryget_many, copied onto cgroup_sk_alloc's retry way inside
 * its loop (`call __rcu_read_unlock; pause`) and onto the two ways out. */
static bool loop_call(struct scan_cfg *c, uint32_t i)
{
	uint32_t l = c->blocks[c->insns[i].blk].loop;

	return c->insns[i].flow == BTFI_FLOW_CALL && l != NONE && i + 1 < c->ninsns &&
	       !c->insns[i + 1].nop && c->blocks[c->insns[i + 1].blk].loop == l &&
	       !(c->insns[i].target && noreturn_at(c, c->p, c->insns[i].target, 0));
}

/* Is instruction i a jump out of the function: a call as a tail jump? */
static bool tail_call(const struct scan_cfg *c, uint32_t i)
{
	return c->insns[i].flow == BTFI_FLOW_JUMP && find_insn(c, c->insns[i].target) == NONE;
}

/* Does the code the instance runs from entry e on hold some work: two
 * instructions of it that are neither jumps (but a call as a tail jump,
 * tail_call(): the kernel's spin_unlock_bh copied onto
 * addrconf_dad_start's DEAD way, `mov %rbp,%rdi; ...; jmp
 * _raw_spin_unlock_bh`), padding nor line 0? One
 * alone is code the compiler shares with the caller (GCC's `xor
 * %eax,%eax` for both the caller's 0 and the body's), and clang's line-0
 * instructions inside an instance's range are code it shares between
 * paths (a lone `movl $0,0x34(%rsp)` of sqlite3GenerateConstraintChecks,
 * the skip path of `if (..) f()`): not ways into the call. One that
 * is a load (`near` only): a body whose work on that path is reading
 * one field (gcc's tail-duplicated `return p->nOp`,
 * sqlite3VdbeCurrentAddr), or a copy of a one-instruction body
 * (lone_copy(): the kernel's `incl %gs:__preempt_count`). `near`: breadth
 * first, the code next to e first (whether a way in does work: a
 * depth-first walk went deep into the caller and stopped at the cap
 * before the body one jump away, gcc's sqlite3WalkExprList 0x6e256);
 * else depth first, as the choice between two entries on one path was
 * measured (clang's sqlite3Strlen30 at 90748 keeps its later entry only
 * because that walk ends in the caller: docs/DESIGN.md). */
static bool does_work(struct scan_cfg *c, uint32_t e, uint32_t stamp, uint16_t D, bool near)
{
	uint32_t head = 0, sp = 0, mark = ++c->stamp, work = 0, seen = 0, one = NONE;

	c->work[sp++] = c->insns[e].blk;
	c->blocks[c->insns[e].blk].seen = mark;
	while (head < sp && seen < 64) {
		uint32_t b = c->work[near ? head++ : --sp];
		const struct cfg_block *bl = &c->blocks[b];
		uint32_t i = b == c->insns[e].blk ? e : bl->first;

		seen++;
		for (; i < bl->first + bl->n; i++)
			if (c->imark[i] == stamp && (work_insn(&c->insns[i]) || tail_call(c, i)) &&
			    !line0(c, i)) {
				if (++work >= 2)
					return true;
				one = i;
			}
		sp = push_fwd(c, bl, mark, stamp, D, sp);
	}
	return near && one != NONE && (loads(c, one) || lone_copy(c, one) || store_twin(c, one));
}

/* Does instruction i only set a register from registers or a constant
 * (a copy, an extension, lea/add/sub of a constant, mov $imm, xor r,r):
 * an argument's setup, no load, store or call of the body's? */
static bool reg_only(struct scan_cfg *c, uint32_t i)
{
	struct btfi_insn_affine a;
	uint64_t v;
	uint32_t bytes;
	int dst, src;
	bool pcrel;

	return decode_at(c, c->insns[i].addr) &&
	       (btfi_insn_affine(c->dec, &a) || btfi_insn_copy(c->dec, &dst, &src, &bytes) ||
		btfi_insn_const(c->dec, &dst, &v, &pcrel));
}

/* Does some way from block b, forward, meet the instance's code (within
 * 64 blocks)? */
static bool leads_in(struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	uint32_t sp = c->nblocks, n = 0, mark = ++c->stamp;	/* c->work's top half */

	c->blocks[b].lseen = mark;
	c->work[sp++] = b;
	while (sp > c->nblocks && n++ < 64) {
		const struct cfg_block *bl = &c->blocks[c->work[--sp]];

		for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
			if (c->imark[i] == stamp)
				return true;
		sp = push_succs(c, bl, mark, NONE, true, sp);
	}
	return false;
}

/*
 * Is instruction i a load the caller shares with the call, hoisted above
 * the caller's branch: one way out of its block goes on to the call's
 * code, another reads the loaded register (before writing it, and before
 * any code of the call) and never meets the call? GCC's
 * sqlite3PcacheClearWritable in pager_end_transaction: `p =
 * pCache->pDirty` (0x1c745) above `if( MEMDB || pagerFlushOnCommit() )`
 * is also sqlite3PcacheCleanAll's loop's on the other way (424 runs for
 * 12 calls). A load that is the whole body, its register the call's
 * result on every way on, is the call (clang's sqlite3FindCollSeq: `p =
 * db->pDfltColl`). The reads are looked for through blocks with one
 * successor.
 */
static bool shared_load(struct scan_cfg *c, uint32_t i, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[c->insns[i].blk];
	bool reads = false, calls = false;
	uint32_t base, bytes;
	int64_t disp;
	bool sgn;
	int dst;

	if (!decode_at(c, c->insns[i].addr) ||
	    !btfi_insn_load(c->dec, &dst, (int *)&base, &disp, &bytes, &sgn))
		return false;
	for (uint32_t k = 0; k < bl->nsucc; k++) {
		uint32_t s = c->succs[bl->succ + k], n = 0, j;
		bool rd = false;

		if (s & BACK)
			continue;
		for (j = c->blocks[s].first; n < 16 && !rd; n++) {
			const struct cfg_block *b = &c->blocks[c->insns[j].blk];

			if (c->imark[j] == stamp || !decode_at(c, c->insns[j].addr))
				break;
			if (btfi_insn_reads(c->dec) >> dst & 1)
				rd = true;
			else if (insn_writes(c, j) >> dst & 1)
				break;
			else if (++j < b->first + b->n)
				continue;
			else if (b->nsucc != 1 || c->succs[b->succ] & BACK)
				break;
			else
				j = c->blocks[c->succs[b->succ]].first;
		}
		if (leads_in(c, s, stamp))
			calls = true;
		else
			reads |= rd;
	}
	return reads && calls;
}

/* Is x code of the instance hoisted above a decision of the caller's: its
 * block ends in a conditional jump that is not the instance's, and the
 * instance's work from x to there is one instruction that only sets a
 * register (reg_only())? It is an argument's setup, and where the call
 * is is the caller's choice past the branch: clang's cachedCellSize in
 * balance, `movslq %r9d,%rbx` (0x587ae, iNew's extension) before
 * editPage's `if( iCell>=0 && iCell<nNew )`, runs every pass of the
 * insert loop; the call enters at 0x5873d. A lone load or call is the
 * body's work (sqlite3FindCollSeq's `p = db->pDfltColl`, clang's
 * sqlite3Strlen30 at 90748 `call strlen` before the caller's test),
 * unless the caller reads the loaded register too (shared_load()). */
static bool above_branch(struct scan_cfg *c, uint32_t x, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[c->insns[x].blk];
	uint32_t last = bl->first + bl->n - 1, work = 0;

	if (c->insns[last].flow != BTFI_FLOW_CJUMP || c->imark[last] == stamp)
		return false;
	for (uint32_t i = x; i < last; i++) {
		if (c->imark[i] != stamp || !work_insn(&c->insns[i]) || line0(c, i))
			continue;
		if (++work >= 2 || !(reg_only(c, i) || shared_load(c, i, stamp)))
			return false;
	}
	return true;
}

/* Does a way from block s (through blocks with one successor, 16
 * instructions at most) read a register of regs before writing it: 1;
 * or write them all first: 0; -1 if neither is known. *at: the reader,
 * or the writer of the last of them. */
static int reads_first(struct scan_cfg *c, uint32_t s, uint32_t regs, uint32_t *at)
{
	uint32_t j = c->blocks[s].first, n = 0;

	while (n++ < 16) {
		const struct cfg_block *b = &c->blocks[c->insns[j].blk];

		if (!decode_at(c, c->insns[j].addr))
			return -1;
		*at = j;
		if (btfi_insn_reads(c->dec) & regs)
			return 1;
		regs &= ~insn_writes(c, j);
		if (!regs)
			return 0;
		if (++j < b->first + b->n)
			continue;
		if (b->nsucc != 1 || c->succs[b->succ] & BACK)
			return -1;
		j = c->blocks[c->succs[b->succ]].first;
	}
	return -1;
}

static Dwarf_Off innermost(Dwarf_Die *die, uint64_t addr);
static Dwarf_Off fn_innermost(struct scan_cfg *c, uint32_t i);

/* Is instruction i the code of another call of the instance's function
 * (its innermost inlined subroutine, *d, another instance of the same
 * abstract origin)? */
static bool sibling_call(struct scan_cfg *c, uint32_t i, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Die fn, o1, o2;
	Dwarf_Off o;

	if (!c->fn || !c->inst)
		return false;
	fn = *c->fn;
	o = fn_innermost(c, i);
	return o != dwarf_dieoffset(&fn) && o != dwarf_dieoffset(c->inst) &&
	       dwarf_offdie(dwarf_cu_getdwarf(c->inst->cu), o, d) &&
	       dwarf_formref_die(dwarf_attr(d, DW_AT_abstract_origin, &a), &o1) &&
	       dwarf_formref_die(dwarf_attr(c->inst, DW_AT_abstract_origin, &a), &o2) &&
	       dwarf_dieoffset(&o1) == dwarf_dieoffset(&o2);
}

/* Is instruction i's line-table row the call line of inlined DIE d? */
static bool at_line_of(struct scan_cfg *c, uint32_t i, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word cl;
	struct cfg_row r;

	return c->cu && !dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &cl) &&
	       row_of(c, i, &r) && r.line > 0 && (Dwarf_Word)r.line == cl;
}

/*
 * Is all of the instance's code at x a register's setup (one reg_only()
 * instruction) hoisted above a decision of the caller's (above_branch()),
 * the register read on one way of that branch by code DWARF gives to
 * another call of the same function, and written first on the other by
 * code at that call's line (its own argument's setup)? Then the two calls
 * share that body, this one on the way that reads the register: the
 * branch, counted where it goes that way, is the call's one site. Returns
 * the jcc's index, *cd its condition (edge_cond()), *to the way's block;
 * NONE if not. GCC's sqlite3VdbeSetChanges(db, 0) in sqlite3VdbeHalt
 * (line 91235): its `xor %edx,%edx` runs above the `cmp $2; je` between
 * it and line 91233's call, whose `mov p->nChange,%rdx` overwrites it;
 * the je goes to the `db->nChange = nChange` store both calls share
 * (3,201 events of line 91233's calls before). A reader of the caller's
 * own would not say so: GCC's sqlite3VdbeGetLastOp in
 * sqlite3TableAffinity, whose `lea dummy` is the mallocFailed way's
 * result, the other way's computed by the sqlite3VdbeAppendP4 code it
 * shares, and the call on both.
 */
static uint32_t setup_edge(struct scan_cfg *c, uint32_t x, uint32_t stamp, uint8_t *cd, uint32_t *to)
{
	const struct cfg_block *bl = &c->blocks[c->insns[x].blk];
	uint32_t last = bl->first + bl->n - 1, regs = 0, live = NONE, dead = NONE, at[2];
	Dwarf_Die sib;

	if (bl->nsucc != 2 || !c->cu || !above_branch(c, x, stamp))
		return NONE;
	for (uint32_t i = 0; i < c->ninsns; i++)
		if (c->imark[i] == stamp && (i < x || i >= last) && work_insn(&c->insns[i]) && !line0(c, i))
			return NONE;	/* the instance has code elsewhere */
	for (uint32_t i = x; i < last; i++) {
		if (c->imark[i] == stamp) {
			regs |= insn_writes(c, i);
			continue;
		}
		/* the caller's code before its branch leaves the register be */
		if (!decode_at(c, c->insns[i].addr) || (btfi_insn_reads(c->dec) & regs) ||
		    (insn_writes(c, i) & regs))
			return NONE;
	}
	regs &= 0xffff;
	if (!regs)
		return NONE;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t sb = c->succs[bl->succ + k];
		int r = sb & BACK ? -1 : reads_first(c, sb, regs, &at[k]);
		Dwarf_Die d;

		if (r == 1 && sibling_call(c, at[k], &d)) {
			live = k;
			sib = d;
		} else if (r == 0) {
			dead = k;
		}
	}
	/* the other way's writer is the sibling call's argument setup (its
	 * call line): that way is the other call, this one is not on it */
	if (live == NONE || dead == NONE || !at_line_of(c, at[dead], &sib) ||
	    !(*cd = edge_cond(c, c->insns[x].blk, c->succs[bl->succ + live])))
		return NONE;
	*to = c->succs[bl->succ + live];
	return last;
}

/* Is way in x a copy of the marker m the compiler duplicated with the
 * path before it: the same bytes, or the same instruction on other
 * registers (shape_of()), each after the same conditional jump
 * (condition and target)? A one-instruction body on registers alone
 * does no work by does_work()'s count, but here it is the call's: the
 * kernel's key_ref_to_ptr (`and $~1,%rbx`) after each of keyctl_chown_key's
 * two lookup_user_key calls, both `ja` to one error path;
 * skb_get_rx_queue's `lea -0x1(%rdx),%ecx` and `lea -0x1(%r14),%edx` on
 * netdev_pick_tx's two ways into skb_tx_hash, each after `je` to its
 * no-queue path. GCC's shared `xor %eax,%eax` has no such twin before it.
 * Or the compiler duplicated it with the path after it: the same bytes,
 * then the same instruction and a conditional jump that decides the same
 * way (the same, or the inverse one with the two ways swapped): a rotated
 * `for` loop's step, copied to the end of the body (the kernel's
 * resctrl_inc, `add $0xb0,%rcx; cmp $..,%rcx; ja` at the `continue`s'
 * target and `jbe` back after rdt_staged_configs_clear's inner loop). */
static uint32_t shape_of(struct scan_cfg *c, uint32_t i);

static bool dup_after(const struct scan_cfg *c, uint32_t x, uint32_t m)
{
	const struct cfg_insn *a = &c->insns[x], *b = &c->insns[m];

	if (x + 2 >= c->ninsns || m + 2 >= c->ninsns || !same_bytes(a, b) || !same_bytes(&a[1], &b[1]) ||
	    a[1].nop || a[1].flow != BTFI_FLOW_NEXT ||
	    a[2].flow != BTFI_FLOW_CJUMP || b[2].flow != BTFI_FLOW_CJUMP)
		return false;
	for (int k = 0; k < 2; k++)		/* one straight run each */
		if (a[k].addr + a[k].len != a[k + 1].addr || b[k].addr + b[k].len != b[k + 1].addr)
			return false;
	return (a[2].cc == b[2].cc && a[2].target == b[2].target) ||
	       ((a[2].cc ^ 1) == b[2].cc && a[2].target == b[2].addr + b[2].len &&
		b[2].target == a[2].addr + a[2].len);
}

static bool dup_of(struct scan_cfg *c, uint32_t x, uint32_t m)
{
	const struct cfg_insn *a = &c->insns[x], *b = &c->insns[m];

	if (x != m && dup_after(c, x, m))
		return true;
	return x != m && x && m && a->code && b->code &&
	       (same_bytes(a, b) || shape_of(c, x) == shape_of(c, m)) && !a->reloc && !b->reloc &&
	       a[-1].flow == BTFI_FLOW_CJUMP && b[-1].flow == BTFI_FLOW_CJUMP &&
	       a[-1].cc == b[-1].cc && a[-1].target == b[-1].target &&
	       a[-1].addr + a[-1].len == a->addr && b[-1].addr + b[-1].len == b->addr;
}

/* Is the instance's code at e one unconditional jump out of it, none of
 * the instance's code before it? The compiler gives the call that jump:
 * its body on that path folded to nothing but going on (gcc's
 * sqlite3ValueFree(0) with db->pErr NULL in
 * sqlite3LeaveMutexAndCloseZombie, [0x7b6cb, 0x7b6cd) `jmp 0x7b66e`).
 * What follows the jump does not matter, nothing falls into it: the
 * kernel's pcibios_err_to_errno(0) in pci_user_read_config_byte is a
 * `jmp` whose range goes on with the body's table lookup. */
static bool lone_jump(struct scan_cfg *c, uint32_t e, uint32_t stamp)
{
	const struct cfg_insn *in = &c->insns[e];
	uint32_t t;

	if (in->flow != BTFI_FLOW_JUMP || (e && c->imark[e - 1] == stamp))
		return false;
	t = find_insn(c, in->target);
	return t != NONE && c->imark[t] != stamp;
}

/* Does the instance's code from x on, before e, do any work (an
 * instruction of it that is neither a jump, padding nor line 0)? A way in
 * that only branches before it meets e decides nothing of the call's that
 * e does not: clang's sqlite3DbStrNDup in vdbeChangeP4Full, whose `z ==
 * 0` jne (0x60a0d; its test is line 0) is the n > 0 path's and the n == 0
 * path enters at 0x60a7c, which both reach. */
static bool work_before(struct scan_cfg *c, uint32_t x, uint32_t e, uint32_t stamp, uint16_t D)
{
	uint32_t head = 0, sp = 0, mark = ++c->stamp, eb = c->insns[e].blk;

	c->work[sp++] = c->insns[x].blk;
	c->blocks[c->insns[x].blk].seen = mark;
	while (head < sp && head < 64) {
		uint32_t b = c->work[head++];
		const struct cfg_block *bl = &c->blocks[b];
		uint32_t i = b == c->insns[x].blk ? x : bl->first;
		uint32_t end = b == eb && e >= i ? e : bl->first + bl->n;

		for (; i < end; i++)
			if (c->imark[i] == stamp && work_insn(&c->insns[i]) && !line0(c, i))
				return true;
		if (end == bl->first + bl->n)	/* else met e */
			sp = push_fwd(c, bl, mark, stamp, D, sp);
	}
	return false;
}

/* Does every path from instruction a run instruction b before the call
 * ends (an exit, or the back edge of a loop around it)? */
static bool must_reach(struct scan_cfg *c, uint32_t a, uint32_t b, uint32_t stamp, uint16_t D)
{
	uint32_t ba = c->insns[a].blk, bb = c->insns[b].blk, sp = 0, mark = ++c->stamp;

	if (ba == bb)
		return a < b;
	c->work[sp++] = ba;
	c->blocks[ba].seen = mark;
	while (sp) {
		struct cfg_block *bl = &c->blocks[c->work[--sp]];

		if (!bl->nsucc)
			return false;
		for (uint32_t k = 0; k < bl->nsucc; k++) {
			uint32_t s = c->succs[bl->succ + k], t = s & ~BACK;

			if (s & BACK) {
				if (!loop_internal(c, c->blocks[t].loop, stamp))
					return false;	/* next iteration */
				continue;
			}
			if (t == bb || c->blocks[t].seen == mark)
				continue;
			if (ext_depth(c, t, stamp) < D)
				return false;		/* out of the loop */
			c->blocks[t].seen = mark;
			c->work[sp++] = t;
		}
	}
	return true;
}

static bool at_call_line(struct scan_cfg *c, uint32_t i);

/* innermost() of the instance's function at instruction i, cached: the
 * function is the CFG's (c->fn), the same for every instance of it. */
static Dwarf_Off fn_innermost(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Die fn;

	if (!c->inner[i]) {
		fn = *c->fn;
		c->inner[i] = innermost(&fn, c->insns[i].addr);
	}
	return c->inner[i];
}

/* Is instruction i the code of another inlined call, one that does not
 * hold the instance asked about? A branch there into the body is that
 * call's tail, which the compiler shares with this body (cross-jumping
 * between two functions: the kernel's f_setown `if (!pid) goto out` in
 * do_fcntl jumps to the `rcu_read_unlock()` DWARF gives to
 * f_setown_ex), not a way of this call's. A module (ET_REL) too: libdwfl
 * relocates its DWARF into the layout its code is read in. */
static bool other_call(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Die a, sib, fn;
	Dwarf_Off o, d, end;

	if (!c->fn || !c->inst)
		return false;
	fn = *c->fn;
	o = fn_innermost(c, i);
	d = dwarf_dieoffset(c->inst);
	if (o == dwarf_dieoffset(&fn) || !dwarf_offdie(dwarf_cu_getdwarf(c->inst->cu), o, &a))
		return false;
	/* a DIE's subtree lies between it and its next sibling (a last
	 * child's: up to the function's end, which keeps more) */
	end = dwarf_siblingof(&a, &sib) == 0 ? dwarf_dieoffset(&sib) :
	      dwarf_siblingof(&fn, &sib) == 0 ? dwarf_dieoffset(&sib) : (Dwarf_Off)-1;
	return !(o < d && d < end);
}

/* Does q's other way (not to b) go on to instruction m (the marker)
 * within the call's depth? */
static bool other_way_reaches(struct scan_cfg *c, uint32_t q, uint32_t b, uint32_t m, uint32_t stamp)
{
	const struct cfg_block *qb = &c->blocks[q];

	for (uint32_t k = 0; k < qb->nsucc; k++) {
		uint32_t o = c->succs[qb->succ + k];

		if (!(o & BACK) && o != b)
			return reaches(c, c->blocks[o].first, m, stamp, ext_depth(c, c->insns[m].blk, stamp));
	}
	return false;
}

/* The last call line before line l (file f) among the inlined calls that
 * are children of parent: the statement before (0 if none). */
static Dwarf_Word prev_line(Dwarf_Die *parent, Dwarf_Word f, Dwarf_Word l)
{
	Dwarf_Attribute a;
	Dwarf_Word best = 0, cl, cf;
	Dwarf_Die ch;

	if (dwarf_child(parent, &ch))
		return 0;
	do {
		if (dwarf_tag(&ch) == DW_TAG_inlined_subroutine &&
		    !dwarf_formudata(dwarf_attr(&ch, DW_AT_call_line, &a), &cl) &&
		    !dwarf_formudata(dwarf_attr(&ch, DW_AT_call_file, &a), &cf) && cf == f &&
		    cl < l && cl > best)
			best = cl;
	} while (!dwarf_siblingof(&ch, &ch));
	return best;
}

/* The DIEs from die down to the innermost inlined subroutine whose
 * ranges hold addr (lexical blocks on the way included), after path[0..n):
 * the new length (innermost() is its last). */
static int inner_path(Dwarf_Die *die, uint64_t addr, Dwarf_Die *path, int n, int max)
{
	Dwarf_Die ch;

	path[n++] = *die;
	if (n < max && !dwarf_child(die, &ch))
		do {
			int t = dwarf_tag(&ch), k;

			if ((t == DW_TAG_inlined_subroutine && dwarf_haspc(&ch, addr) == 1) ||
			    t == DW_TAG_lexical_block) {
				k = inner_path(&ch, addr, path, n, max);
				if (t == DW_TAG_inlined_subroutine || k > n + 1)
					return k;
			}
		} while (!dwarf_siblingof(&ch, &ch));
	return n;
}

/* The DIEs from fn down to the DIE at offset off (a DIE's subtree lies
 * between it and its next sibling); 0 if it is not under fn. */
static int off_path(Dwarf_Die *fn, Dwarf_Off off, Dwarf_Die *path, int max)
{
	Dwarf_Die d = *fn, ch, sib;
	int n = 0;

	path[n++] = d;
	while (dwarf_dieoffset(&d) != off) {
		if (n == max || dwarf_child(&d, &ch))
			return 0;
		for (;;) {
			bool last = dwarf_siblingof(&ch, &sib) != 0;

			if (dwarf_dieoffset(&ch) <= off && (last || off < dwarf_dieoffset(&sib)))
				break;
			if (last)
				return 0;
			ch = sib;
		}
		d = ch;
		path[n++] = d;
	}
	return n;
}

/* The DIEs from the function down to the instance (c->ipath), once per
 * instance: their number, 0 if there is none. */
static int inst_path(struct scan_cfg *c)
{
	if (c->nipath < 0)
		c->nipath = c->fn && c->inst ?
			    off_path(c->fn, dwarf_dieoffset(c->inst), c->ipath, DIE_PATH_MAX) : 0;
	return c->nipath;
}

/* Is instruction i the code of the call just before this one: an inlined
 * call with the same parent as the instance (or as an inlined call the
 * instance is in), at the last line before its own among their siblings
 * (the statement before this call's; an earlier line alone may be the
 * other arm of an `if`: glibc's write_string, whose line-226
 * __putc_unlocked shares its buffer store with line 232's)? Its early
 * return is a jump to what follows it, this call, which may enter the
 * body past code the compiler ran before (GCC's jsonAppendSeparator in
 * jsonObjectFunc: its `if( c=='{' ) return` jumps past
 * sqlite3_value_text's `pVal` test, hoisted above it, for each object's
 * first label). Paths from the function's DIE, not dwarf_getscopes(),
 * which walks the whole unit (SQLite's is one). */
static bool prev_call(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Attribute a;
	Dwarf_Word l1, f1, l2, f2;
	Dwarf_Die ip[DIE_PATH_MAX];
	int n, d, k;

	if (!c->cu || !inst_path(c))
		return false;
	n = inner_path(c->fn, c->insns[i].addr, ip, 0, DIE_PATH_MAX);
	/* where the two paths part: the jump's call S and the instance (or
	 * the call X around it) are children of one DIE */
	for (d = 1; d < n && d < c->nipath && dwarf_dieoffset(&ip[d]) == dwarf_dieoffset(&c->ipath[d]); d++)
		;
	if (d >= n || d >= c->nipath || dwarf_tag(&ip[d]) != DW_TAG_inlined_subroutine)
		return false;
	for (k = d; k < c->nipath; k++)		/* X and what is under it down to inst: calls */
		if (dwarf_tag(&c->ipath[k]) != DW_TAG_inlined_subroutine)
			return false;
	return !dwarf_formudata(dwarf_attr(&c->ipath[d], DW_AT_call_line, &a), &l1) &&
	       !dwarf_formudata(dwarf_attr(&c->ipath[d], DW_AT_call_file, &a), &f1) &&
	       !dwarf_formudata(dwarf_attr(&ip[d], DW_AT_call_line, &a), &l2) && l2 < l1 &&
	       !dwarf_formudata(dwarf_attr(&ip[d], DW_AT_call_file, &a), &f2) && f2 == f1 &&
	       prev_line(&c->ipath[d - 1], f1, l1) == l2;
}

/* Is P (or a lexical block in it) the parent of an inlined call of
 * origin o at line l of file f, other than the DIEs at offsets not[2]? */
static bool has_call_at(Dwarf_Die *p, Dwarf_Off o, Dwarf_Word f, Dwarf_Word l,
			const Dwarf_Off *not, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Word cl, cf;
	Dwarf_Die ch, org;

	if (depth > 8 || dwarf_child(p, &ch))
		return false;
	do {
		int t = dwarf_tag(&ch);

		if (t == DW_TAG_lexical_block && has_call_at(&ch, o, f, l, not, depth + 1))
			return true;
		if (t == DW_TAG_inlined_subroutine && dwarf_dieoffset(&ch) != not[0] &&
		    dwarf_dieoffset(&ch) != not[1] &&
		    !dwarf_formudata(dwarf_attr(&ch, DW_AT_call_line, &a), &cl) && cl == l &&
		    !dwarf_formudata(dwarf_attr(&ch, DW_AT_call_file, &a), &cf) && cf == f &&
		    dwarf_formref_die(dwarf_attr(&ch, DW_AT_abstract_origin, &a), &org) &&
		    dwarf_dieoffset(&org) == o)
			return true;
	} while (!dwarf_siblingof(&ch, &ch));
	return false;
}

/*
 * Is instruction i, where a way into the instance's code at instruction
 * e starts, another statement's argument code for a call of a function
 * whose inlined body e is in? i is in call S at line l (where the paths
 * to i and e part), e in an inlined g that the parent also calls at l:
 * GCC cross-jumped that call's g into e's, and the way is l's call of g,
 * no way of this instance's. GCC's isDate: setRawDateNumber(p,
 * sqlite3_value_double(argv[0])) at 26574 ends its argument code in
 * `jmp 0x6f659`, the setRawDateNumber body DWARF gives to
 * parseDateOrTime's (26577): 20 events for no call of parseDateOrTime.
 */
static bool cross_jumped_arg(struct scan_cfg *c, uint32_t i, uint32_t e)
{
	Dwarf_Die ip[DIE_PATH_MAX], ep[DIE_PATH_MAX], org;
	Dwarf_Attribute a;
	Dwarf_Word l, f;
	int ni, ne, d;

	if (!c->cu || !c->fn)
		return false;
	/* the caller's own code is no other call's argument: no need for
	 * e's path (most ways in) */
	if ((ni = inner_path(c->fn, c->insns[i].addr, ip, 0, DIE_PATH_MAX)) < 2)
		return false;
	ne = inner_path(c->fn, c->insns[e].addr, ep, 0, DIE_PATH_MAX);
	for (d = 1; d < ni && d < ne && dwarf_dieoffset(&ip[d]) == dwarf_dieoffset(&ep[d]); d++)
		;
	if (d >= ni || d >= ne || dwarf_tag(&ip[d]) != DW_TAG_inlined_subroutine ||
	    dwarf_formudata(dwarf_attr(&ip[d], DW_AT_call_line, &a), &l) ||
	    dwarf_formudata(dwarf_attr(&ip[d], DW_AT_call_file, &a), &f))
		return false;
	for (int k = d; k < ne; k++) {
		Dwarf_Off not[2] = { dwarf_dieoffset(&ip[d]), dwarf_dieoffset(&ep[k]) };

		if (dwarf_tag(&ep[k]) == DW_TAG_inlined_subroutine &&
		    dwarf_formref_die(dwarf_attr(&ep[k], DW_AT_abstract_origin, &a), &org) &&
		    has_call_at(&ip[d - 1], dwarf_dieoffset(&org), f, l, not, 0))
			return true;
	}
	return false;
}

/* Does the instance's code from i to the end of its block do the body's
 * work (a call, a load, a store: not only set registers, which may be
 * the caller's value too)? For an edge (`edge`), only memory or a call
 * counts (btfi_insn_mem(): `or $-1,%rax` is the `return -EPERM` the
 * kernel's setfl shares with fcntl_rw_hint), and a branch of the body's
 * too (GCC's sqlite3_value_text in jsonObjectFunc: the first label's way
 * in is the flags test `and $0x202; cmp; je`). */
static bool block_work(struct scan_cfg *c, uint32_t i, uint32_t stamp, bool edge)
{
	const struct cfg_block *bl = &c->blocks[c->insns[i].blk];
	uint32_t last = bl->first + bl->n - 1;

	if (edge && c->imark[last] == stamp && c->insns[last].flow == BTFI_FLOW_CJUMP)
		return true;
	for (; i < bl->first + bl->n; i++) {
		if (c->imark[i] != stamp || !work_insn(&c->insns[i]))
			continue;
		if (edge ? decode_at(c, c->insns[i].addr) && btfi_insn_mem(c->dec) : !reg_only(c, i))
			return true;
	}
	return false;
}

/* Does block b run straight to the function's return (no call, no
 * branch on the way)? */
static bool ends_in_return(struct scan_cfg *c, uint32_t b)
{
	const struct cfg_block *bl = &c->blocks[b];

	for (int hops = 0; hops < 4; hops++) {
		uint32_t last = bl->first + bl->n - 1;

		for (uint32_t i = bl->first; i <= last; i++)
			if (c->insns[i].flow == BTFI_FLOW_CALL || c->insns[i].flow == BTFI_FLOW_CJUMP ||
			    c->insns[i].flow == BTFI_FLOW_IJUMP)
				return false;
		if (c->insns[last].flow == BTFI_FLOW_STOP)
			return true;
		if (bl->nsucc != 1 || (c->succs[bl->succ] & BACK))
			return false;
		bl = &c->blocks[c->succs[bl->succ] & ~BACK];
	}
	return false;
}

/* Is instruction i the function's own code (no inlined call's)? */
static bool own_code(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Die fn;

	if (!c->fn)
		return false;
	fn = *c->fn;
	return fn_innermost(c, i) == dwarf_dieoffset(&fn);
}

/* Is the instance a call of the function's own body (no inlined call
 * around it, lexical blocks aside)? */
static bool own_call(struct scan_cfg *c)
{
	int n = inst_path(c);

	for (int k = 1; k < n - 1; k++)
		if (dwarf_tag(&c->ipath[k]) != DW_TAG_lexical_block)
			return false;
	return n > 1;
}

/* Is instruction i at a line after the call's, in its file, in the same
 * body (a statement that comes after the call)? */
static bool after_call_line(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Attribute a;
	Dwarf_Word cl, cf;
	Dwarf_Files *files;
	struct cfg_row r;
	const char *name;
	size_t nf;

	if (!c->cu || !c->inst ||
	    dwarf_formudata(dwarf_attr(c->inst, DW_AT_call_line, &a), &cl) ||
	    dwarf_formudata(dwarf_attr(c->inst, DW_AT_call_file, &a), &cf) ||
	    dwarf_getsrcfiles(c->cu, &files, &nf) || cf >= nf ||
	    !(name = dwarf_filesrc(files, cf, NULL, NULL)) || !row_of(c, i, &r) || r.line <= 0)
		return false;
	return (Dwarf_Word)r.line > cl && !strcmp(r.file, name) && own_call(c);
}

/* Is block q's edge to block b (edge_cond()) a way into the call, from
 * outside: q's other way leaves the instance's code (both going in, it
 * is the body's own test that DWARF gives to the caller: GCC's
 * jsonParseFree `nJPRef > 1`, the `cmp; ja` before its marker), and q
 * does not decide for every call reaching the marker m (NONE: no marker)
 * whether it runs (then it is the caller's choice
 * whether to call: putVarint32's `v < 0x80` falls into the store that
 * sqlite3PutVarint's body shares, as marker_exit() knows); b does the
 * body's work or q's jump is the call's argument code; q is no other
 * inlined call's code (other_call()) unless the previous statement's
 * (prev_call()), nor the caller's own return shared with the body's, nor
 * a statement after the call. */
static bool way_in(struct scan_cfg *c, uint32_t q, uint32_t b, uint32_t m, uint32_t stamp)
{
	const struct cfg_block *qb = &c->blocks[q];
	uint32_t j = qb->first + qb->n - 1;

	/* into GCC's marker itself: the call's start, not its body's middle
	 * (no work needed there, and the caller's branch may decide whether
	 * the marker runs: it is the call's own way in); user space only: in
	 * the kernel an alternative's thunk (`jmp` out to
	 * .altinstr_aux and back) hides the flow from a marker to the code
	 * after it, and the edge would count calls twice */
	bool to_marker = c->cu && m != NONE && c->blocks[b].first == m;

	/* as cut_at_join(): the call's own argument code, or b does work */
	if (!to_marker && !block_work(c, c->blocks[b].first, stamp, true) && !at_call_line(c, j))
		return false;
	for (uint32_t k = 0; k < qb->nsucc; k++) {
		uint32_t o = c->succs[qb->succ + k] & ~BACK;

		if (o != b && c->imark[c->blocks[o].first] == stamp)
			return false;
	}
	/* the caller's own code, not the call's line, into a join that runs
	 * straight to the return: the caller's own return statement that GCC
	 * cross-jumped into the body's last one (sqlite3_value_blob's `return
	 * p->n ? p->z : 0` falls into the `mov 0x8(%rbx),%rax; pop; ret`
	 * DWARF gives to its inlined sqlite3_value_text: 2,256 events for no
	 * call) */
	if (!to_marker && ends_in_return(c, b) && !at_call_line(c, j) && own_code(c, j))
		return false;
	/* the caller's own statement after the call's (not around a loop):
	 * it runs after the call, so the join is code the body shares with
	 * what follows the call (GCC's sqlite3CopySortOrder in sqlite3Select:
	 * line 157072's `if( sSort.pOrderBy )` jumps to the body's `p1->nExpr`
	 * load, which the KeyInfo code after it reuses: 14 events for no
	 * call) */
	if (!to_marker && after_call_line(c, j) && own_code(c, j)) {
		for (uint32_t k = 0; k < qb->nsucc; k++)
			if (c->succs[qb->succ + k] == b)	/* not a back edge */
				return false;
	}
	/* another inlined call's code, or a branch deciding for every call
	 * whether the marker runs: no way in, unless it is the previous
	 * statement's call and its other way goes on to the marker (its early
	 * return, into this call past code hoisted above it; GCC's marker:
	 * the check needs it). prev_call() reads scopes: asked last. */
	if (other_call(c, j) ||
	    (m != NONE && !to_marker && dominates(c, q, c->insns[m].blk)))
		return m != NONE && other_way_reaches(c, q, b, m, stamp) && prev_call(c, j);
	return true;
}

/* The ways into e's block that x does not reach, when each is a block
 * whose only successor is e's (not a back edge): their last instructions
 * in out[], their number; 0 if there is none, e does not start its block
 * (`mid`: or the instance's code does not begin it), or x's block
 * ends in a branch of the caller's (x is code hoisted above it, not the
 * call's own decision). A way that is an edge (a branch, no address of
 * its own) is its jump with cond[] its way to e (edge_cond()) if cond is
 * given and e starts its block, else there is none; cond[] is 0 for the
 * others. A join both reach is no way in of either: GCC's
 * tail duplication (sqlite3VdbeSerialTypeLen's integer path reloads
 * serial_type and falls into the table lookup the entry's `>= 128` test
 * also jumps to) and a shared result (sqlite3_column_text's `return 0`). */
static uint32_t bypass_preds(struct scan_cfg *c, uint32_t x, uint32_t e, uint32_t stamp,
			     uint16_t D, bool mid, uint32_t m, uint32_t *out, uint8_t *cond, uint32_t max)
{
	const struct cfg_block *eb = &c->blocks[c->insns[e].blk];
	const struct cfg_block *xb = &c->blocks[c->insns[x].blk];
	uint32_t lx = xb->first + xb->n - 1, n = 0;

	if (c->insns[lx].flow == BTFI_FLOW_CJUMP && c->imark[lx] != stamp)
		return 0;
	/* e starts its block, or, without a marker, only the caller's code
	 * runs before it there (the call's argument setup at a join: clang's
	 * sqlite3ViewGetColumnNames in selectExpander, `mov 0x8(%rsp),%rdi`
	 * at 0xa174f before the instance's 0xa1754; GCC's marker elsewhere:
	 * get_lbr_cycles in intel_pmu_store_lbr then took code of the loop's
	 * preheader and of another instance) */
	if (eb->first != e && !mid)
		return 0;
	for (uint32_t i = eb->first; i < e; i++)
		if (c->imark[i] == stamp)
			return 0;
	for (uint32_t k = 0; k < eb->npred; k++) {
		uint32_t q = c->preds[eb->pred + k], lq;
		const struct cfg_block *qb = &c->blocks[q];
		uint8_t cd;

		if (qb->dead)
			continue;
		lq = qb->first + qb->n - 1;
		if (q == c->insns[x].blk || reaches(c, x, lq, stamp, D) || cross_jumped_arg(c, lq, e))
			continue;
		/* deeper: a way from a loop of the caller's before the call,
		 * taken only as an edge that leaves it for the marker e
		 * (counted when it goes there: once per exit); user space,
		 * where `make truth` checks it (GCC's sqlite3CheckCollSeq:
		 * sqlite3ExprCollSeq's `while( p )` exits with pColl NULL
		 * straight to the marker) */
		if (n == max || ext_depth(c, q, stamp) < D ||
		    (ext_depth(c, q, stamp) > D && !(cond && c->cu && e == m && eb->first == e && qb->nsucc == 2)))
			return 0;
		if (cond && eb->first == e && qb->nsucc == 2 &&
		    (cd = edge_cond(c, q, c->insns[e].blk)) && way_in(c, q, c->insns[e].blk, m, stamp)) {
			cond[n] = cd;
			out[n++] = lq;
			continue;
		}
		if (qb->nsucc != 1 || (c->succs[qb->succ] & BACK))
			return 0;
		if ((out[n] = last_taken(c, q)) == NONE)
			return 0;
		if (cond)
			cond[n] = 0;
		n++;
	}
	return n;
}

/* The marker m's block ends in the instance's test, and a later entry e
 * that other ways (edges: branches of the caller's that know the test's
 * outcome) also enter heads one of its two successors: the first
 * instruction of the other successor, if only m's block leads there (a
 * probe there and at e then meets each call once: through the test, or
 * past it); NONE if not. gcc's pagerUnlockDb: the caller's path with the
 * file known closed falls into 0x1c02a past the marker's `isOpen()` test,
 * whose `je` also goes there. */
static uint32_t marker_exit(struct scan_cfg *c, uint32_t m, uint32_t e, uint32_t stamp,
			    uint16_t D, const uint32_t *ent, uint32_t nent)
{
	const struct cfg_block *mb = &c->blocks[c->insns[m].blk];
	uint32_t last = mb->first + mb->n - 1, s1, s2, f;
	Dwarf_Die sib;

	if (c->insns[last].flow != BTFI_FLOW_CJUMP || c->imark[last] != stamp ||
	    mb->nsucc != 2 || (c->succs[mb->succ] & BACK) || (c->succs[mb->succ + 1] & BACK))
		return NONE;
	s1 = c->succs[mb->succ];
	s2 = c->succs[mb->succ + 1];
	if (c->blocks[s2].first == e) {
		uint32_t t = s1;

		s1 = s2;
		s2 = t;
	}
	f = c->blocks[s2].first;
	if (c->blocks[s1].first != e || s1 == s2 || c->blocks[s2].npred != 1 ||
	    c->blocks[s2].root || c->blocks[s2].dead || ext_depth(c, s2, stamp) != D ||
	    inner_loop(c, s2, stamp) != NONE || reaches(c, f, e, stamp, D) ||
	    !does_work(c, e, stamp, D, true))
		return NONE;
	for (uint32_t k = 0; k < c->blocks[s1].npred; k++) {
		uint32_t q = c->preds[c->blocks[s1].pred + k], lq;

		if (q == c->insns[m].blk || c->blocks[q].dead)
			continue;
		/* a way that decides between e and the marker for every call
		 * reaching the marker is the caller's choice whether to call
		 * (putVarint32's `v < 0x80` store, cross-jumped with the
		 * body's): not a way into the call */
		if (dominates(c, q, c->insns[m].blk))
			return NONE;
		/* e a join that another entry's code also reaches, or another
		 * call of the function (cross-jumped: glibc's write_string, the
		 * next character's putc `jb` into this one's store; a jump from
		 * another function's inlined code is the caller's flow there,
		 * __x64_sys_io_pgetevents' signal test into
		 * restore_saved_sigmask_unless past its marker) */
		lq = c->blocks[q].first + c->blocks[q].n - 1;
		if (sibling_call(c, lq, &sib))
			return NONE;
		for (uint32_t j = 0; j < nent; j++)
			if (ent[j] != m && ent[j] != e && reaches(c, ent[j], lq, stamp, D))
				return NONE;
	}
	return f;
}

/* The instance's code at depth D that the ways from i (its block aside)
 * meet, breadth first: each block's first such instruction, at most 16,
 * into cand; how many. */
static uint32_t code_ahead(struct scan_cfg *c, uint32_t i, uint32_t stamp, uint16_t D,
			   uint32_t cand[16])
{
	uint32_t head = 0, sp = 0, mark = ++c->stamp, n = 0;

	c->work[sp++] = c->insns[i].blk;
	c->blocks[c->insns[i].blk].seen = mark;
	while (head < sp && head < 64 && n < 16) {
		const struct cfg_block *bl = &c->blocks[c->work[head++]];

		if (head > 1)
			for (uint32_t j = bl->first; j < bl->first + bl->n; j++)
				if (in_c(c, j, stamp, D)) {
					cand[n++] = j;
					break;
				}
		sp = push_fwd(c, bl, mark, stamp, D, sp);
	}
	return n;
}

/* Does every path from i meet code of the instance that e also reaches
 * (the body both ways go on to)? */
static bool rejoins(struct scan_cfg *c, uint32_t i, uint32_t e, uint32_t stamp, uint16_t D)
{
	uint32_t cand[16], n = code_ahead(c, i, stamp, D, cand);

	/* reaches() takes the walk's stamp: ask once the walk is done */
	for (uint32_t k = 0; k < n; k++)
		if (reaches(c, e, cand[k], stamp, D) && must_reach(c, i, cand[k], stamp, D))
			return true;
	return false;
}

static uint32_t to_range_end(const struct scan_cfg *c, uint32_t i, bool starts, uint32_t stop);

/* Does i's range begin the way e's does: the work of e's range from e
 * on (at most 4 instructions, jumps aside: GCC may turn the branch
 * around) is the first work of i's range from i, shape by shape? A copy
 * of the body's start that GCC put on the other way of a branch of the
 * caller's (tail duplication). */
static bool same_start(struct scan_cfg *c, uint32_t i, uint32_t e)
{
	uint32_t ne = to_range_end(c, e, false, 64), ni = to_range_end(c, i, false, 64);
	uint32_t a = e, b = i, n = 0;

	for (;; a++, b++) {
		while (a < e + ne && !work_insn(&c->insns[a]))
			a++;
		while (b < i + ni && !work_insn(&c->insns[b]))
			b++;
		if (a == e + ne || n == 4)
			return n > 0;
		if (b == i + ni || shape_of(c, a) != shape_of(c, b))
			return false;
		n++;
	}
}

/* Entry x, dropped against a later e it reaches through a branch of the
 * caller's that ends x's block (x is code hoisted above that decision):
 * the first code of the instance on the branch's other way, if that way
 * is one path (blocks of one successor), does not meet e, and goes on
 * into code of the body that e also reaches or begins as e does
 * (same_start(): unmap_page_range's p4d_none_or_clear_bad, its `test
 * %rcx,%rcx` on both sides of p4d_addr_end's `next == end`); NONE if
 * not. Else it is the caller's other path, with code the compiler
 * shares (glibc's _IO_wfile_seekoff loads fp->_wide_data's fields for
 * do_ftell_wide and for its own seek). gcc's whereRangeScanEst: `nOut = pLoop->nOut`
 * (0x652f9) before line 172141's jne to the marker's path; the other
 * side, 0x6530d, is the body's code the upper-bound-only calls run, and
 * jumps into the body at 0x64e43. */
static uint32_t hoisted_other(struct scan_cfg *c, uint32_t x, uint32_t e, uint32_t stamp,
			      uint16_t D)
{
	const struct cfg_block *xb = &c->blocks[c->insns[x].blk];
	uint32_t last = xb->first + xb->n - 1, found = NONE;

	if (c->insns[last].flow != BTFI_FLOW_CJUMP || c->imark[last] == stamp || xb->nsucc != 2)
		return NONE;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t s = c->succs[xb->succ + k], steps = 0, i = NONE;

		if (s & BACK)
			return NONE;
		while (steps++ < 16 && ext_depth(c, s, stamp) == D) {
			const struct cfg_block *bl = &c->blocks[s];

			for (uint32_t j = bl->first; j < bl->first + bl->n && i == NONE; j++)
				if (in_c(c, j, stamp, D))
					i = j;
			if (i != NONE || bl->nsucc != 1 || (c->succs[bl->succ] & BACK) ||
			    c->blocks[c->succs[bl->succ]].npred != 1)
				break;
			s = c->succs[bl->succ];
		}
		if (i == NONE || i == e || reaches(c, i, e, stamp, D) || reaches(c, e, i, stamp, D) ||
		    !(rejoins(c, i, e, stamp, D) || same_start(c, i, e)))
			continue;
		if (found != NONE)
			return NONE;
		found = i;
	}
	return found;
}

/* The instance's code that ends block b in a conditional jump of its
 * own, all of it the instance's from its first instruction there: that
 * first instruction, NONE if not (a test and its branch). */
static uint32_t own_test(const struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[b];
	uint32_t last = bl->first + bl->n - 1, i = last;

	if (c->insns[last].flow != BTFI_FLOW_CJUMP || c->imark[last] != stamp || bl->nsucc != 2)
		return NONE;
	while (i > bl->first && c->imark[i - 1] == stamp)
		i--;
	return i < last ? i : NONE;
}

/* Are two instructions of one kind: the same flow, the same length but
 * for jumps (je / jne, short or near)? */
static bool same_kind(const struct cfg_insn *x, const struct cfg_insn *y)
{
	return x->flow == y->flow && (x->flow >= BTFI_FLOW_JUMP || x->len == y->len);
}

/* Do the tests at a and b repeat each other: as many instructions, each
 * of the same kind? */
static bool same_test(const struct scan_cfg *c, uint32_t a, uint32_t b)
{
	const struct cfg_block *ba = &c->blocks[c->insns[a].blk], *bb = &c->blocks[c->insns[b].blk];

	if (ba->first + ba->n - a != bb->first + bb->n - b)
		return false;
	for (uint32_t j = 0; a + j < ba->first + ba->n; j++)
		if (!same_kind(&c->insns[a + j], &c->insns[b + j]))
			return false;
	return true;
}

/*
 * Entry e heads a loop around the call (each pass calls it once) whose
 * ways in are the instance's own first test, rotated: the loop's way in
 * from outside comes (by one path) from a block that ends in that test,
 * whose other way leaves; each back edge comes from a copy of the test
 * at the loop's end, whose other way leaves the loop. e runs only when
 * the test passes; the tests run once per call, the first call's before
 * the loop. clang's sqlite3WhereSplit: its tail recursion on pRight made
 * a loop, sqlite3ExprSkipCollateAndLikely's `pExpr == 0` test is at the
 * function's entry (0xb682c) and at the latch (0xb688e). The tests into
 * out[] (the outside one first), their number; 0 if not so.
 */
static uint32_t rotated(struct scan_cfg *c, uint32_t e, uint32_t stamp, uint32_t *out, uint32_t max)
{
	uint32_t hb = c->insns[e].blk, l = c->blocks[hb].loop, n = 1, g = NONE;
	const struct cfg_block *h = &c->blocks[hb];

	if (l == NONE || c->loops[l].header != hb || c->loops[l].multi || h->root ||
	    loop_internal(c, l, stamp) || max < 2)
		return 0;
	for (uint32_t k = 0; k < h->npred; k++) {
		uint32_t q = c->preds[h->pred + k], t, other;

		if (c->blocks[q].dead)
			continue;
		if (in_loop(c, q, l)) {
			const struct cfg_block *qb = &c->blocks[q];

			if ((t = own_test(c, q, stamp)) == NONE || n == max)
				return 0;
			other = c->succs[qb->succ] & BACK ? c->succs[qb->succ + 1] : c->succs[qb->succ];
			if ((other & BACK) || in_loop(c, other, l))
				return 0;
			out[n++] = t;
			continue;
		}
		if (g != NONE)
			return 0;
		/* one path back to the block that ends in the test */
		while (c->blocks[q].nsucc == 1 && c->blocks[q].npred == 1 && !c->blocks[q].root)
			q = c->preds[c->blocks[q].pred];
		if ((g = own_test(c, q, stamp)) == NONE)
			return 0;
		for (uint32_t j = 0; j < 2; j++) {
			other = c->succs[c->blocks[q].succ + j];
			if (!(other & BACK) && c->blocks[other].first != h->first &&
			    !reaches(c, c->blocks[other].first, e, stamp, 0))
				break;
			if (j == 1)
				return 0;	/* both ways go on to the loop */
		}
	}
	if (g == NONE || n < 2)
		return 0;
	for (uint32_t k = 1; k < n; k++)
		if (!same_test(c, g, out[k]))
			return 0;
	out[0] = g;
	return n;
}

/* Does a reach b on forward edges without entering loop l (within one
 * pass of the code around l)? */
static bool reaches_outside(struct scan_cfg *c, uint32_t a, uint32_t b, uint32_t l)
{
	uint32_t ba = c->insns[a].blk, bb = c->insns[b].blk, sp = 0, seen = 0, mark = ++c->stamp;

	if (ba == bb)
		return b > a;
	c->work[sp++] = ba;
	c->blocks[ba].seen = mark;
	while (sp && seen++ < 64) {
		const struct cfg_block *bl = &c->blocks[c->work[--sp]];

		for (uint32_t k = 0; k < bl->nsucc; k++) {
			uint32_t t = c->succs[bl->succ + k];

			if (t & BACK || c->blocks[t].seen == mark || in_loop(c, t, l))
				continue;
			if (t == bb)
				return true;
			c->blocks[t].seen = mark;
			c->work[sp++] = t;
		}
	}
	return false;
}

/* Does block b end in a test of whether to go (on) round loop l: one
 * way goes into l (by a path of single blocks), the other not? */
static bool tests_loop(struct scan_cfg *c, uint32_t b, uint32_t l)
{
	const struct cfg_block *bl = &c->blocks[b];
	uint32_t in = 0;

	if (c->insns[bl->first + bl->n - 1].flow != BTFI_FLOW_CJUMP || bl->nsucc != 2)
		return false;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t t = c->succs[bl->succ + k] & ~BACK, steps = 0;

		while (!in_loop(c, t, l) && c->blocks[t].nsucc == 1 && steps++ < 8)
			t = c->succs[c->blocks[t].succ] & ~BACK;
		in += in_loop(c, t, l);
	}
	return in == 1;
}

/*
 * GCC's rotation of the loop whose test is the call (`while
 * (atomic_read(&st) != CPU_DEAD)`, cpu_wait_death; task_rq_lock's `while
 * (task_on_rq_migrating(p))`): the first test is a copy before the loop,
 * one loop less deep than entry e, the others in it. The test runs once
 * before the loop and once per pass, each a call: the copy is a way in
 * that the depth rule took for code hoisted out of the loop. Such a copy
 * begins a range of the instance outside e's innermost loop, at depth
 * D - 1, begins as e does (same_start()), and its block, as e's, ends
 * in a test whether to go round the loop (tests_loop(): clang's
 * sqlite3ColumnsFromExprList has sqlite3DbMallocZero's `db == 0` test
 * before its loop, and copies of the body's code in it). Copies into
 * out[n..max); the new n.
 */
static uint32_t rotated_first(struct scan_cfg *c, uint32_t e, uint32_t stamp, uint16_t D,
			      uint32_t *out, uint32_t n, uint32_t max)
{
	uint32_t eb = c->insns[e].blk, l = c->blocks[eb].loop;
	const struct cfg_block *b = &c->blocks[eb];

	if (!D || l == NONE || ext_depth(c, eb, stamp) != D || !tests_loop(c, eb, l))
		return n;
	for (uint32_t k = 0; k < c->nr && n < max; k++) {
		uint32_t i = lower_insn(c, c->r[k].lo), ib, j;

		if (i >= c->ninsns || c->insns[i].addr != c->r[k].lo || c->imark[i] != stamp || i == e)
			continue;
		ib = c->insns[i].blk;
		b = &c->blocks[ib];
		if (in_loop(c, ib, l) || ext_depth(c, ib, stamp) + 1 != D || b->dead ||
		    !tests_loop(c, ib, l) || !same_start(c, i, e))
			continue;
		/* not on a path with a way in there already (the first test
		 * probed by the walk, another's code before it) */
		for (j = 0; j < n; j++)
			if (out[j] == i || (!in_loop(c, c->insns[out[j]].blk, l) &&
			    (reaches_outside(c, i, out[j], l) || reaches_outside(c, out[j], i, l))))
				break;
		if (j == n)
			out[n++] = i;
	}
	return n;
}

/* The line-table row instruction i lies in: its file, line and column,
 * whether the row starts at i and is a statement; false without one. */
static bool row_of(struct scan_cfg *c, uint32_t i, struct cfg_row *r)
{
	Dwarf_Line *l = c->cu ? dwarf_getsrc_die(c->cu, c->insns[i].addr) : NULL;
	Dwarf_Addr a;

	if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &r->line) || dwarf_linecol(l, &r->col) ||
	    dwarf_linebeginstatement(l, &r->stmt))
		return false;
	r->file = dwarf_linesrc(l, NULL, NULL);
	r->starts = a == c->insns[i].addr;
	return r->file != NULL;
}

static bool same_row(const struct cfg_row *a, const struct cfg_row *b)
{
	return a->line == b->line && a->col == b->col && a->starts == b->starts &&
	       !strcmp(a->file, b->file);
}

/* The innermost inlined subroutine under die (die itself if none) whose
 * ranges hold addr: its DIE offset (the end of inner_path()). */
static Dwarf_Off innermost(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Die path[DIE_PATH_MAX];

	return dwarf_dieoffset(&path[inner_path(die, addr, path, 0, DIE_PATH_MAX) - 1]);
}

/*
 * Does the instance's code at e start the body again, as at x: a second
 * copy of the call? LLVM keeps one DW_TAG_inlined_subroutine for all the
 * copies loop unrolling makes of a call (one inlinedAt): SQLite's
 * sqlite3_os_init runs four sqlite3_vfs_register bodies back to back in
 * one instance's range, nothing of the caller's between them. The
 * evidence: e begins a statement row, and its first instructions (two at
 * least, COPY_CMP at most) repeat x's, the same rows (file, line, column,
 * where a row starts) and the same kind of instruction, until both leave
 * the instance (one alone is no copy: clang's btreePagecount in
 * sqlite3VdbeExec, its load and later a test of it), and both lie
 * in the same inlined subroutine under it (unixOpenSharedMemory's two
 * sqlite3_malloc64 calls start alike but are two DIEs: two calls of
 * those, one of unixOpenSharedMemory). Needs the line table; GCC's copies
 * start their rows elsewhere (shape_copy_of()).
 */
#define COPY_CMP 4

static bool copy_of(struct scan_cfg *c, uint32_t x, uint32_t e, uint32_t stamp)
{
	struct cfg_row rx, re;
	uint32_t j;

	if (!row_of(c, e, &re) || !re.starts || !re.stmt || !re.line)
		return false;
	for (j = 0; j < COPY_CMP; j++) {
		bool inx, ine;

		if (x + j >= e || e + j >= c->ninsns)
			return false;
		inx = c->imark[x + j] == stamp;
		ine = c->imark[e + j] == stamp;
		if (!inx || !ine) {
			if (inx != ine || j < 2)
				return false;
			break;
		}
		if (!same_kind(&c->insns[x + j], &c->insns[e + j]) || (j && !row_of(c, e + j, &re)) ||
		    !row_of(c, x + j, &rx) || !same_row(&rx, &re))
			return false;
	}
	return innermost(c->inst, c->insns[x].addr) == innermost(c->inst, c->insns[e].addr);
}

/* btfi_insn_shape() of instruction i; one capstone cannot decode is
 * like no other (its index). */
static uint32_t shape_of(struct scan_cfg *c, uint32_t i)
{
	struct cfg_insn *in = &c->insns[i];
	struct btfi_insn d;

	if (!in->shape_known) {
		in->shape = btfi_insn_decode(c->dec, in->code, in->len, in->addr, &d) ? i :
			    btfi_insn_shape(c->dec);
		in->shape_known = true;
	}
	return in->shape;
}

/* The instructions from i to the end of the instance's range that holds
 * i (that starts at i if starts), at most stop; 0 if there is none. */
static uint32_t to_range_end(const struct scan_cfg *c, uint32_t i, bool starts, uint32_t stop)
{
	uint32_t k = range_of(c, c->insns[i].addr, starts), n;

	if (k == NONE)
		return 0;
	for (n = 0; n < stop && i + n < c->ninsns && c->insns[i + n].addr < c->r[k].hi; n++)
		;
	return n;
}

/*
 * The same question from the code alone (GCC's copies; the kernel, whose
 * line table the scan does not read). GCC's complete unrolling (`#pragma
 * GCC unroll`, small constant loops) also keeps one DIE for the copies,
 * with a range for each piece of each copy: the caller's code for the
 * next call comes between. e starts a range that does what x's range
 * does from x on: as many instructions (SHAPE_MIN at least, SHAPE_CMP
 * compared) of the same shape (btfi_insn_shape(): GCC allocates each
 * copy's registers anew and propagates its constant arguments, but a
 * compare with another constant is other code: fscrypt_valid_enc_modes_v1's
 * chain of `cmp $1`, `cmp $5` tests), in the same inlined subroutine
 * under the instance (migrate_pages: two _compound_head calls in
 * unmap_and_move_huge_page's ranges). Three instructions are not enough:
 * apic_from_smp_config's two tests (`smp_found_config && !disable_apic`)
 * are `mov; test; jne` each. A loop unrolled inside the body is one
 * range, not one per iteration.
 */
#define SHAPE_MIN 4
#define SHAPE_CMP 16

static bool shape_copy_of(struct scan_cfg *c, uint32_t x, uint32_t e)
{
	uint32_t n = to_range_end(c, x, false, SHAPE_CMP + 1), k;

	if (n < SHAPE_MIN || x + n > e || to_range_end(c, e, true, SHAPE_CMP + 1) != n)
		return false;
	for (k = 0; k < n && k < SHAPE_CMP; k++)
		if (c->insns[x + k].flow != c->insns[e + k].flow ||
		    shape_of(c, x + k) != shape_of(c, e + k))
			return false;
	return innermost(c->inst, c->insns[x].addr) == innermost(c->inst, c->insns[e].addr);
}

/* A parameter's location-list entry that is a constant (DW_OP_lit*,
 * DW_OP_const*, then DW_OP_stack_value): its value in *v. */
static bool const_entry(const Dwarf_Op *ops, size_t nops, uint64_t *v)
{
	if (nops != 2 || ops[1].atom != DW_OP_stack_value)
		return false;
	if (ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31)
		*v = ops[0].atom - DW_OP_lit0;
	else if (ops[0].atom == DW_OP_const1u || ops[0].atom == DW_OP_const2u ||
		 ops[0].atom == DW_OP_const4u || ops[0].atom == DW_OP_const8u ||
		 ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_const1s ||
		 ops[0].atom == DW_OP_const2s || ops[0].atom == DW_OP_const4s ||
		 ops[0].atom == DW_OP_const8s || ops[0].atom == DW_OP_consts)
		*v = ops[0].number;
	else
		return false;
	return true;
}

/*
 * Iterations peeled off the loop around the call (clang: one instance for
 * the loop's calls): the instance's code outside that loop (depth below
 * D) where a parameter is a constant, a different one on each of two
 * pieces that run one after the other in a pass, is one call per piece.
 * clang's sqlite3VdbeAddParseSchemaOp: `for(j<nDb) sqlite3VdbeUsesBtree(p,
 * j)` with j = 0 at 0x9c260 and j = 1 at 0x9c289 peeled, the rest
 * unrolled in the loop (whose copy per-call probes). Only without a
 * marker (GCC writes an instance per copy) and only below D: a body that
 * reassigns its parameter does so within the call, at its depth. Each
 * piece no entry at its depth shares a path with is added to pre[n..max);
 * the new n.
 */
static uint32_t peeled(struct scan_cfg *c, uint32_t stamp, uint16_t D, uint32_t *pre, uint32_t n,
		       uint32_t max)
{
	uint32_t at[8], na = 0, n0 = n, k, j;
	uint64_t val[8], v;
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die p;

	if (!D || !c->inst || dwarf_child(c->inst, &p))
		return n;
	do {
		ptrdiff_t off = 0;

		if (dwarf_tag(&p) != DW_TAG_formal_parameter || !dwarf_attr(&p, DW_AT_location, &a) ||
		    dwarf_whatform(&a) == DW_FORM_exprloc)
			continue;
		na = 0;
		while ((off = dwarf_getlocations(&a, off, &base, &lo, &hi, &ops, &nops)) > 0 && na < 8) {
			uint32_t i = lower_insn(c, lo);

			if (hi <= lo || !const_entry(ops, nops, &v) || i == NONE || i >= c->ninsns ||
			    c->insns[i].addr >= hi || c->imark[i] != stamp ||
			    ext_depth(c, c->insns[i].blk, stamp) >= D)
				continue;
			at[na] = i;
			val[na++] = v;
		}
		if (na >= 2)
			break;
		na = 0;
	} while (dwarf_siblingof(&p, &p) == 0);
	/* a different constant on a piece that runs after */
	for (k = 0; k < na; k++) {
		bool seq = false;

		for (j = 0; j < na && !seq; j++)
			seq = j != k && val[j] != val[k] &&
			      (runs_after(c, at[j], at[k]) || runs_after(c, at[k], at[j]));
		if (!seq)
			continue;
		for (j = 0; j < n0; j++)
			if (ext_depth(c, c->insns[pre[j]].blk, stamp) ==
			    ext_depth(c, c->insns[at[k]].blk, stamp) &&
			    (runs_after(c, pre[j], at[k]) || runs_after(c, at[k], pre[j])))
				break;
		if (j < n0 || n >= max)
			continue;
		pre[n++] = at[k];
	}
	return n;
}

/* The copies of the call that starts at x (copy_of(), shape_copy_of())
 * after it at depth D, outside the instance's own loops, into
 * out[n..max); the new n. */
static uint32_t copies(struct scan_cfg *c, uint32_t x, uint32_t stamp, uint16_t D,
		       uint32_t *out, uint32_t n, uint32_t max)
{
	uint32_t bx = c->insns[x].blk, sp = 0, mark = ++c->stamp;

	if (!c->inst)
		return n;
	c->work[sp++] = bx;
	c->blocks[bx].seen = mark;
	while (sp && n < max) {
		const struct cfg_block *bl = &c->blocks[c->work[--sp]];
		uint32_t b = bl - c->blocks;

		if (ext_depth(c, b, stamp) == D && inner_loop(c, b, stamp) == NONE)
			for (uint32_t i = b == bx ? x + 1 : bl->first; i < bl->first + bl->n && n < max; i++) {
				uint32_t k;

				if (c->imark[i] != stamp ||
				    !((c->cu && copy_of(c, x, i, stamp)) || shape_copy_of(c, x, i)))
					continue;
				for (k = 0; k < n && out[k] != i; k++)
					;
				if (k == n)
					out[n++] = i;
			}
		sp = push_fwd(c, bl, mark, stamp, D, sp);
	}
	return n;
}

/* The loop around the call that holds block b at depth D: the innermost
 * one that is not the instance's own; NONE if none. */
static uint32_t around_loop(struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	for (uint32_t l = c->blocks[b].loop; l != NONE; l = c->loops[l].parent)
		if (!loop_internal(c, l, stamp))
			return l;
	return NONE;
}

/* The blocks of instructions ins[0..n) onto c->work[sp..), each once,
 * marked `mark`: the new sp. */
static uint32_t push_blocks_of(struct scan_cfg *c, const uint32_t *ins, uint32_t n, uint32_t mark,
			       uint32_t sp)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = c->insns[ins[k]].blk;

		if (c->blocks[b].seen != mark) {
			c->blocks[b].seen = mark;
			c->work[sp++] = b;
		}
	}
	return sp;
}

/* Forward walk (no back edges) from the blocks marked `mark` already on
 * c->work[0..sp), not into loop `skip` (NONE: anywhere). */
static void walk_fwd(struct scan_cfg *c, uint32_t mark, uint32_t sp, uint32_t skip)
{
	while (sp) {
		uint32_t b = c->work[--sp];

		sp = push_succs(c, &c->blocks[b], mark, skip, false, sp);
	}
}

/* Is the instance's code at x, to the end of its block, the caller's: the
 * same bytes (a branch: the same target) as the end of another block,
 * none of the instance's, that goes on where x's does? GCC copies a
 * block of the caller's onto a path it threaded and may give the copy a
 * row of the call's: do_con_write's `continue` after vc_translate_unicode
 * returns -1 (0x...6f8d, 0x...694d), which no vc_sanitize_unicode call
 * runs. */
static bool callers_copy(struct scan_cfg *c, uint32_t x, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[c->insns[x].blk], *t;
	uint32_t n = bl->first + bl->n - x;

	/* a lone jump to a join is what every way there ends in: no evidence
	 * (do_faccessat's retry_estale(-EACCES, ..), a `jmp` out of its
	 * retry loop like line 489's) */
	if (bl->nsucc != 1 || (n == 1 && c->insns[x].flow == BTFI_FLOW_JUMP))
		return false;
	t = &c->blocks[c->succs[bl->succ] & ~BACK];
	for (uint32_t k = 0; k < t->npred; k++) {
		const struct cfg_block *p = &c->blocks[c->preds[t->pred + k]];
		uint32_t j;

		if (p == bl || p->nsucc != 1 || p->n < n)
			continue;
		for (j = 0; j < n; j++) {
			const struct cfg_insn *a = &c->insns[x + j], *b = &c->insns[p->first + p->n - n + j];

			if (c->imark[p->first + p->n - n + j] == stamp || a->len != b->len ||
			    a->flow != b->flow ||
			    (a->flow >= BTFI_FLOW_JUMP ? a->target != b->target :
							 memcmp(a->code, b->code, a->len)))
				break;
		}
		if (j == n)
			return true;
	}
	return false;
}

/* Does the instance's code from x on, to the first unconditional jump (at
 * most 16 instructions, the caller's between them aside), do something
 * of a body's: touch memory other than the stack or call
 * (btfi_insn_mem()), or call as a tail jump? Or does x's range begin as
 * one of the entries' (same_start()), not with a register set from
 * registers? Register moves and stack reloads the compiler gave a line
 * of the call are the caller's: tcp_write_xmit's `xor %r9d,%r9d` (a
 * flag) before a jump out of its loop carries a line of
 * tcp_set_skb_tso_segs, unpack_rlimits' loop exit restores registers
 * under aa_unpack_u64's. compat_ptr is register work only; its copy in
 * compat_exit_robust_list's error exit begins as the loop's does. */
static bool body_work(struct scan_cfg *c, uint32_t x, uint32_t stamp, const uint32_t *pre,
		      uint32_t n)
{
	uint32_t j, w;

	for (j = x; j < c->ninsns && j < x + 16; j++) {
		const struct cfg_insn *in = &c->insns[j];
		bool mine = c->imark[j] == stamp;

		if (in->flow == BTFI_FLOW_JUMP)
			if (mine && find_insn(c, in->target) == NONE)
				return true;
		if (mine && !in->nop && decode_at(c, in->addr) && btfi_insn_mem(c->dec))
			return true;
		if (in->flow == BTFI_FLOW_JUMP || in->flow > BTFI_FLOW_CJUMP)
			break;
	}
	for (w = x; w < x + to_range_end(c, x, false, 64) && !work_insn(&c->insns[w]); w++)
		;
	if (w == x + to_range_end(c, x, false, 64) || reg_only(c, w))
		return false;
	for (j = 0; j < n; j++)
		if (same_start(c, x, pre[j]))
			return true;
	return false;
}

/* Keep of cand[0..nc) those whose block walk `mark` did not reach; how
 * many are left. */
static uint32_t unreached(const struct scan_cfg *c, uint32_t *cand, uint32_t nc, uint32_t mark)
{
	uint32_t j = 0;

	for (uint32_t k = 0; k < nc; k++)
		if (c->blocks[c->insns[cand[k]].blk].seen != mark)
			cand[j++] = cand[k];
	return j;
}

/*
 * The call's copies on the ways out of the loop around it: GCC
 * tail-duplicates the body onto a branch that then leaves the loop (an
 * error return after the call: spin_unlock_irq in __refrigerator's
 * `if (!freeze) break`, compat_ptr in compat_exit_robust_list when the
 * fetch of the next entry fails), or the call folded to going on there,
 * a lone jump (lone_jump(): do_faccessat's retry_estale(-EROFS, ..),
 * `jmp` to the return). Such a copy is one loop less deep than the call,
 * so the walks at depth D never meet it. It is the call's way
 * in when: it is the first code of the instance on a way out of loop L
 * (the one around the entries), no entry or probed edge reaches it
 * within one pass (else it is the rest of a call that began in L: a store
 * GCC sank out of the loop), and every way to it from the root goes
 * through L (else it runs without a call of this one's). Code of the
 * instance in L before it that no entry runs before is no call's start:
 * an argument's setup or a load hoisted above the caller's branch
 * (isDate's sqlite3_value_bytes, whose `mov $1,%esi` comes before
 * sqlite3ValueText()'s NULL test; wait_task_inactive's task_rq_unlock,
 * whose loads come before the state test that leaves the loop). A copy
 * that another copy reaches is that call's rest: not taken, the other
 * kept (ec_guard's spin_unlock_irqrestore: the `call` another way
 * enters past the `mov` of its copy). It runs at most once per exit of
 * L, each time for the call whose iteration took that exit and met
 * nothing else of the instance. The copies into pre[n..max); the new n.
 */
static uint32_t loop_exits(struct scan_cfg *c, uint32_t stamp, uint16_t D, uint32_t *pre,
			   uint32_t n, const uint32_t *ej, uint32_t nej, uint32_t max)
{
	uint32_t L = NONE, cand[SCAN_CFG_MAX_ENTRIES], nc = 0, sp, mark, j, k, i, later = 0;

	if (!D)
		return n;
	for (k = 0; k < n; k++) {
		uint32_t b = c->insns[pre[k]].blk, l;

		if (ext_depth(c, b, stamp) != D)
			continue;
		l = around_loop(c, b, stamp);
		if (l == NONE || (L != NONE && l != L))
			return n;
		L = l;
	}
	/* an irreducible L too: the walks below skip all of it, whichever
	 * way it is entered (xfrm_get_type_offload's retry loop in
	 * __xfrm_init_state, entered by a `goto retry` and from the top) */
	if (L == NONE)
		return n;
	/* the first code of the instance on each way out */
	mark = ++c->stamp;
	sp = 0;
	for (j = 0; j < c->loops[L].n; j++) {
		const struct cfg_block *bl = &c->blocks[c->lblocks[c->loops[L].first + j]];

		sp = push_succs(c, bl, mark, L, false, sp);
	}
	while (sp) {
		uint32_t b = c->work[--sp];
		const struct cfg_block *bl = &c->blocks[b];

		for (i = bl->first; i < bl->first + bl->n && c->imark[i] != stamp; i++)
			;
		if (i == bl->first + bl->n) {
			sp = push_succs(c, bl, mark, L, false, sp);
			continue;
		}
		/* in a loop that holds L, not one of its own or another */
		if (bl->root || (bl->loop != NONE && !in_loop(c, c->loops[L].header, bl->loop)) ||
		    ext_depth(c, b, stamp) >= D ||
		    !(body_work(c, i, stamp, pre, n) || lone_jump(c, i, stamp)) || callers_copy(c, i, stamp))
			continue;
		if (nc == SCAN_CFG_MAX_ENTRIES)
			return n;
		cand[nc++] = i;
	}
	if (!nc)
		return n;
	/* every way from the root goes through L */
	mark = ++c->stamp;
	sp = 0;
	for (k = 0; k < c->nblocks; k++)
		if (c->blocks[k].root && !c->blocks[k].dead && !in_loop(c, k, L)) {
			c->blocks[k].seen = mark;
			c->work[sp++] = k;
		}
	walk_fwd(c, mark, sp, L);
	nc = unreached(c, cand, nc, mark);
	/* nothing of the call before it in one pass: the entries, the other
	 * copies */
	mark = ++c->stamp;
	sp = 0;
	sp = push_blocks_of(c, ej, nej, mark, sp);
	sp = push_blocks_of(c, pre, n, mark, sp);
	walk_fwd(c, mark, sp, NONE);
	nc = unreached(c, cand, nc, mark);
	for (k = 0; k < nc; k++) {
		mark = ++c->stamp;
		c->blocks[c->insns[cand[k]].blk].seen = mark;
		c->work[0] = c->insns[cand[k]].blk;
		walk_fwd(c, mark, 1, NONE);
		for (j = 0; j < nc; j++)
			if (j != k && c->blocks[c->insns[cand[j]].blk].seen == mark)
				later |= 1u << j;
	}
	for (k = 0; k < nc && n < max; k++)
		if (!(later & (1u << k)))
			pre[n++] = cand[k];
	return n;
}

/* Is x one of w[0..n) or does it run before or after one in a pass? */
static bool on_a_path(struct scan_cfg *c, uint32_t x, const uint32_t *w, uint32_t n,
		      uint32_t stamp, uint16_t D)
{
	for (uint32_t j = 0; j < n; j++)
		if (w[j] == x || reaches(c, x, w[j], stamp, D) || reaches(c, w[j], x, stamp, D))
			return true;
	return false;
}

/* Is block s the way in, block in, into more of the body, or a copy of
 * it: the instance's code that begins as in does (the same bytes or
 * shape)? GCC copies a test with the body after it: dma_map_page_attrs'
 * is_swiotlb_force_bounce on the map-less DMA_MAPPING_ERROR way is `test
 * %r8,%r8; je` into its own `cmpb $0x0,0x31(%r8)`, the entry's test
 * `jne`s to the first one. */
static bool into_body(struct scan_cfg *c, uint32_t s, uint32_t in, uint32_t stamp)
{
	uint32_t a = c->blocks[s].first, b = c->blocks[in].first;

	return s == in ||
	       (c->imark[a] == stamp && work_insn(&c->insns[a]) &&
		(same_bytes(&c->insns[a], &c->insns[b]) || shape_of(c, a) == shape_of(c, b)));
}

/*
 * Copies of the body's first test that GCC put on another way of the
 * caller's (tail duplication, the caller's branch above the entry):
 * swapcache_free_entries' dec_cluster_info_page(), `if (!cluster_info)`,
 * is `test %rax,%rax` at 0xffffffff812f54d8 on lock_cluster()'s way with
 * a cluster and again at 0xffffffff812f55c5 on its way without, both
 * going on into the body at 0xffffffff812f54dd. Such a copy is the
 * instance's own test ending a block at depth D (own_test()), of the
 * same kinds of instruction as an entry's test, one of its ways the
 * entry test's one way into more of the body or a copy of it
 * (into_body()), and on no path with a way in or a probed edge (neither
 * runs after the other in a pass): it runs once for each call that takes
 * its way. Copies into pre[n..max); the new n.
 */
static uint32_t test_copies(struct scan_cfg *c, uint32_t stamp, uint16_t D, uint32_t *pre,
			    uint32_t n, const uint32_t *ej, uint32_t nej, uint32_t max)
{
	uint32_t n0 = n, k, j, r, i;

	for (k = 0; k < n0; k++) {
		uint32_t eb = c->insns[pre[k]].blk, t = own_test(c, eb, stamp), in = NONE, nin = 0;
		const struct cfg_block *bl = &c->blocks[eb];

		if (t == NONE || t < pre[k] || ext_depth(c, eb, stamp) != D)
			continue;
		/* the test's one way into more of the body */
		for (j = 0; j < bl->nsucc; j++) {
			uint32_t s = c->succs[bl->succ + j];

			if (!(s & BACK) && c->imark[c->blocks[s].first] == stamp)
				in = s, nin++;
		}
		if (nin != 1)
			continue;
		for (r = 0; r < c->nr; r++)
			for (i = lower_insn(c, c->r[r].lo);
			     i < c->ninsns && c->insns[i].addr < c->r[r].hi && n < max; i++) {
				const struct cfg_block *xb = &c->blocks[c->insns[i].blk];
				uint32_t x;

				if (i != xb->first + xb->n - 1 || c->insns[i].blk == eb || xb->dead ||
				    xb->nsucc != 2 || ext_depth(c, c->insns[i].blk, stamp) != D ||
				    (x = own_test(c, c->insns[i].blk, stamp)) == NONE || !same_test(c, x, t) ||
				    (!into_body(c, c->succs[xb->succ] & ~BACK, in, stamp) &&
				     !into_body(c, c->succs[xb->succ + 1] & ~BACK, in, stamp)))
					continue;
				if (!on_a_path(c, x, pre, n, stamp, D) && !on_a_path(c, x, ej, nej, stamp, D))
					pre[n++] = x;
			}
	}
	return n;
}

/* Does some way from i (its block aside) go on into code of the instance
 * that e also reaches: the body past its start, which the copy at i
 * jumps back into? */
static bool leads_into(struct scan_cfg *c, uint32_t i, uint32_t e, uint32_t stamp, uint16_t D)
{
	uint32_t cand[16], n = code_ahead(c, i, stamp, D, cand);

	for (uint32_t k = 0; k < n; k++)
		if (reaches(c, e, cand[k], stamp, D))
			return true;
	return false;
}

/* Does the instance's code after instruction x (within one pass, at
 * depth >= D) jump back, over a back edge, to the instance's code? A call
 * entered at x goes on there: GCC's `goto restart` copy of the body's
 * first test in __list_lru_walk_one jumps back to the arms of the test
 * that the first pass takes. The body's own loops aside. */
static bool back_into(struct scan_cfg *c, uint32_t x, uint32_t stamp, uint16_t D)
{
	uint32_t sp = 0, n = 0, mark = ++c->stamp;

	c->work[sp++] = c->insns[x].blk;
	c->blocks[c->insns[x].blk].seen = mark;
	while (sp && n++ < 64) {
		const struct cfg_block *bl = &c->blocks[c->work[--sp]];

		if (c->imark[bl->first + bl->n - 1] == stamp)
			for (uint32_t k = 0; k < bl->nsucc; k++) {
				uint32_t s = c->succs[bl->succ + k];
				const struct cfg_block *t = &c->blocks[s & ~BACK];

				if (!(s & BACK) ||
				    (t->loop != NONE && loop_internal(c, t->loop, stamp)))
					continue;	/* the body's own loop */
				for (uint32_t i = t->first; i < t->first + t->n; i++)
					if (c->imark[i] == stamp)
						return true;
			}
		sp = push_fwd(c, bl, mark, stamp, D, sp);
	}
	return n > 64;
}

/*
 * Ways into the call that code hoisted above a branch of the caller's
 * hid. first_ones() stops at the first code of the instance on each
 * path; where that is a load GCC scheduled above the caller's test, the
 * copy of the body's start on the test's other way is never looked at,
 * and the pairwise rule keeps the marker alone: __skb_cow in
 * validate_xmit_skb (the headroom load above skb_header_cloned(), the
 * marker's `cmp $3` copied on the not-cloned way), bt_tags_for_each in
 * blk_mq_all_tag_iter (the way with no reserved tags jumps past the
 * marker into the body). A block that begins with the instance's code
 * (or whose first code of the instance follows a call of the caller's:
 * dcache_dir_lseek's spin_lock copy after scan_positives(); not any
 * code of the caller's, sched_dl_overflow's load DWARF gives to line
 * 2897's __dl_overflow on line 2903's way), at depth D in the entries'
 * loop and outside the instance's own, that
 * only the caller's code enters, that no way in already chosen reaches
 * within one pass nor reaches one, is a way of its own if it does the
 * body's work (body_work()), begins as an entry does (same_start()) or
 * goes on into code of the instance an entry also reaches (leads_into()),
 * and is not a copy of a caller's block. Into pre[n..max); the new n.
 */
static uint32_t hidden_ways(struct scan_cfg *c, uint32_t stamp, uint16_t D, const uint32_t *first,
			    uint32_t nfirst, uint32_t *pre, uint32_t n, uint32_t max)
{
	uint32_t n0 = n, L = around_loop(c, c->insns[pre[0]].blk, stamp);

	for (uint32_t k = 0; k < c->nr && n < max; k++)
		for (uint32_t i = lower_insn(c, c->r[k].lo);
		     i < c->ninsns && c->insns[i].addr < c->r[k].hi && n < max; i++) {
			uint32_t b = c->insns[i].blk, j;
			const struct cfg_block *bl = &c->blocks[b];
			bool work = false;

			/* the block's first code of the instance, or the
			 * instance's code right after a call of the caller's
			 * (a call does not end a block) */
			for (j = bl->first; j < i && c->imark[j] != stamp; j++)
				;
			if (j != i || (i != bl->first && c->insns[i - 1].flow != BTFI_FLOW_CALL) ||
			    c->imark[i] != stamp || bl->root || bl->dead ||
			    !bl->npred || ext_depth(c, b, stamp) != D ||
			    inner_loop(c, b, stamp) != NONE || around_loop(c, b, stamp) != L)
				continue;
			for (j = 0; j < bl->npred; j++) {
				const struct cfg_block *q = &c->blocks[c->preds[bl->pred + j]];

				if (c->imark[q->first + q->n - 1] == stamp)
					break;
			}
			if (j < bl->npred)
				continue;
			for (j = 0; j < nfirst && first[j] != i; j++)
				;
			if (j < nfirst)
				continue;
			for (j = 0; j < n; j++)
				if (pre[j] == i || reaches(c, pre[j], i, stamp, D) ||
				    reaches(c, i, pre[j], stamp, D))
					break;
			if (j < n || back_into(c, i, stamp, D))
				continue;
			for (j = 0; j < n0 && !work; j++)
				work = same_start(c, pre[j], i) || leads_into(c, i, pre[j], stamp, D);
			if ((work || body_work(c, i, stamp, pre, n0)) && !callers_copy(c, i, stamp))
				pre[n++] = i;
		}
	return n;
}

/* The first instruction of the instance at depth D (or the marker) on
 * every path from the root, in ent[] (at most SCAN_CFG_MAX_ENTRIES: else
 * returns that + 1); `past`: not code hoisted above a branch of the
 * caller's (above_branch(); the marker is never passed, past is for
 * instances without one). */
static uint32_t first_ones(struct scan_cfg *c, uint32_t stamp, uint16_t D, uint32_t mi,
			   uint32_t *ent, bool past)
{
	uint32_t sp = 0, nent = 0, k, i, mark = ++c->stamp;

	for (k = 0; k < c->nblocks; k++)
		if (c->blocks[k].root && !c->blocks[k].dead) {
			c->blocks[k].seen = mark;
			c->work[sp++] = k;
		}
	while (sp) {
		struct cfg_block *bl = &c->blocks[c->work[--sp]];
		bool hit = false;

		for (i = bl->first; i < bl->first + bl->n && !hit; i++)
			if (i == mi || in_c(c, i, stamp, D)) {
				if (past && above_branch(c, i, stamp))
					break;	/* the walk goes on past the branch */
				if (nent == SCAN_CFG_MAX_ENTRIES)
					return nent + 1;
				ent[nent++] = i;
				hit = true;
			}
		if (!hit)
			sp = push_succs(c, bl, mark, NONE, false, sp);
	}
	return nent;
}

/* Can code of the instance run after instruction x (itself included)
 * within one pass, staying at depth >= D? Past 64 blocks: yes. */
static bool code_after(struct scan_cfg *c, uint32_t x, uint32_t stamp, uint16_t D)
{
	const struct cfg_block *bl = &c->blocks[c->insns[x].blk];
	uint32_t sp, n = 0, mark = ++c->stamp, i = x;

	c->blocks[c->insns[x].blk].seen = mark;
	for (sp = 0;; bl = &c->blocks[c->work[--sp]], i = bl->first) {
		for (; i < bl->first + bl->n; i++)
			if (c->imark[i] == stamp)
				return true;
		sp = push_fwd(c, bl, mark, stamp, D, sp);
		if (!sp)
			return false;
		if (n++ == 64)
			return true;
	}
}

/*
 * GCC's view-only pieces of the instance ([X, X) ranges, at a location
 * view): on that way the call happens at X and leaves no code (folded:
 * SQLite's sqlite3DbFree(db, 0) at 0xc97b3 after sqlite3NestedParse,
 * where zStmt is NULL). X is a way in of its own if it runs at the call's
 * depth outside the instance's loops, no way in already chosen is on its
 * paths (before or after it) and no code of the instance follows it in
 * the same pass; not at a join (the piece may end one of the ways in: a
 * call folded on one arm of an `if` that has no code, the view at the
 * next instruction the other arm also runs); not in a block only the
 * virtual root enters (its ways in are unknown: the kernel's
 * static_cpu_has() jumps through .altinstr_aux, and its true label, a
 * view-only piece, would look like a way of its own after the jump's
 * probe). Into pre[n..max); the new n.
 */
static uint32_t view_ways(struct scan_cfg *c, const uint64_t *vp, uint32_t nvp, uint32_t stamp,
			  uint16_t D, uint32_t *pre, uint32_t n, uint32_t max)
{
	for (uint32_t k = 0; k < nvp && n < max; k++) {
		uint32_t x = find_insn(c, vp[k]), b, i;

		if (x == NONE || c->imark[x] == stamp)
			continue;
		b = c->insns[x].blk;
		if (c->blocks[b].dead || c->blocks[b].root ||
		    (c->blocks[b].first == x && c->blocks[b].npred > 1) || ext_depth(c, b, stamp) != D ||
		    inner_loop(c, b, stamp) != NONE || code_after(c, x, stamp, D))
			continue;
		for (i = 0; i < n && pre[i] != x && !reaches(c, pre[i], x, stamp, D) &&
			    !reaches(c, x, pre[i], stamp, D); i++)
			;
		if (i == n)
			pre[n++] = x;
	}
	return n;
}

/* Is one of the line rows at addr GCC's inline-entry row of the instance
 * asked about (entry_row())? Where a call of it begins. Needs the unit's
 * line table. */
static bool entry_row_at(struct scan_cfg *c, uint64_t addr)
{
	struct entry_key k;
	Dwarf_Lines *lines;
	size_t n, lo;
	Dwarf_Addr a;

	if (!c->cu || !c->inst || !entry_key_of(c->inst, c->cu, &k) ||
	    dwarf_getsrclines(c->cu, &lines, &n))
		return false;
	for (lo = first_row(lines, n, addr); lo < n; lo++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, lo);

		if (!l || dwarf_lineaddr(l, &a) || a != addr)
			return false;
		if (entry_row(l, &k))
			return true;
	}
	return false;
}

/*
 * A view-only piece X of the instance that carries its inline-entry row
 * (entry_row_at()), with code of the instance after X in X's block: a
 * call begins at X, and that code is its way in. GCC threads a caller's
 * loop through the body so that it looks like the body's own:
 * sqlite3_os_init's `for(i=0; i<4; i++) sqlite3_vfs_register(&aVfs[i],
 * i==0)` enters the body at the marker 0x2235f, and for i == 1 at the
 * copy of its sqlite3_initialize() call 0x22392, after the i == 0 pass's
 * store, where DWARF has the piece [0x2238b, 0x2238b) and the entry row.
 * Every way to that code passes X; it is taken where no way in already
 * chosen lies between X and it, and none is reached from it in one pass
 * (the call would go on there). Needs the line table (user space). Into
 * pre[n..max); the new n.
 */
static uint32_t view_starts(struct scan_cfg *c, const uint64_t *vp, uint32_t nvp, uint32_t stamp,
			    uint16_t D, uint32_t *pre, uint32_t n, uint32_t max)
{
	Dwarf_Addr marker = 0;

	if (!nvp || !c->cu)
		return n;
	/* the marker's own piece is where the call it marks begins (asked
	 * also when the caller leaves the marker out: two calls' markers at
	 * one address) */
	if (c->inst && dwarf_entrypc(c->inst, &marker))
		marker = 0;
	for (uint32_t k = 0; k < nvp && n < max; k++) {
		uint32_t x = find_insn(c, vp[k]), y, end, j;

		if (x == NONE || vp[k] == marker)
			continue;
		end = c->blocks[c->insns[x].blk].first + c->blocks[c->insns[x].blk].n;
		for (y = x; y < end && c->imark[y] != stamp; y++)
			;
		if (y == end || ext_depth(c, c->insns[x].blk, stamp) != D ||
		    inner_loop(c, c->insns[x].blk, stamp) == NONE)
			continue;
		for (j = 0; j < n; j++)
			if ((pre[j] >= x && pre[j] <= y) || reaches(c, y, pre[j], stamp, D))
				break;
		if (j == n && entry_row_at(c, vp[k]))
			pre[n++] = y;
	}
	return n;
}

/*
 * Where the instance's parameters have a location: their location lists'
 * ranges into c->bd (a view-only [X, X) entry holds at X). NONE: somewhere
 * unknown or everywhere (no instance DIE, a parameter with one
 * expression or a constant value); 0: nowhere.
 */
static uint32_t bound_ranges(struct scan_cfg *c)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die k;
	uint32_t n = 0;

	if (!c->inst || dwarf_child(c->inst, &k))
		return NONE;
	do {
		ptrdiff_t off = 0;

		if (dwarf_tag(&k) != DW_TAG_formal_parameter)
			continue;
		if (dwarf_hasattr(&k, DW_AT_const_value))
			return NONE;
		if (!dwarf_attr(&k, DW_AT_location, &a))
			continue;
		if (dwarf_whatform(&a) == DW_FORM_exprloc)
			return NONE;
		while ((off = dwarf_getlocations(&a, off, &base, &lo, &hi, &ops, &nops)) > 0) {
			if (!nops)
				continue;
			if (GROW(c->bd, c->bd_cap, n + 1))
				return NONE;
			c->bd[n].lo = lo;
			c->bd[n++].hi = hi > lo ? hi : lo + 1;
		}
	} while (dwarf_siblingof(&k, &k) == 0);
	return n;
}

/* Does a parameter have a location in block b (bound_ranges()' nbd)?
 * A view-only piece counts: __skb_datagram_iter's skb_shinfo in the
 * loop's test, `lea` then skb bound at the `movzbl`'s view. */
static bool bound_block(const struct scan_cfg *c, uint32_t b, uint32_t nbd)
{
	const struct cfg_block *bl = &c->blocks[b];

	for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
		if (scan_ranges_hold(c->bd, nbd, c->insns[i].addr))
			return true;
	return false;
}

/*
 * Depth D's work all loads, and calls of the instance's at shallower
 * depths: the deepest of those, else D. The loads are the caller's loop's,
 * CSE'd with an argument of the call (free_partitions in
 * bdev_disk_changed: `state->parts` reloaded three times in the partition
 * loop is vfree(state->parts)'s; its copies, with the calls, are outside
 * that loop). A body that is loads (list_empty, skb_peek) has no call: its
 * load in the loop is the call.
 */
static uint16_t call_depth(struct scan_cfg *c, const struct scan_range *r, uint32_t nr,
			   uint16_t D, uint32_t stamp)
{
	int best = -1;

	for (uint32_t k = 0; k < nr; k++)
		for (uint32_t i = lower_insn(c, r[k].lo); i < c->ninsns && c->insns[i].addr < r[k].hi;
		     i++) {
			uint16_t di = ext_depth(c, c->insns[i].blk, stamp);

			if (di == D && work_insn(&c->insns[i]) && !loads(c, i))
				return D;
			if (di < D && c->insns[i].flow == BTFI_FLOW_CALL && di > best)
				best = di;
		}
	return best < 0 ? D : (uint16_t)best;
}

/* Is there a view-only piece of the instance (vp) other than the marker's
 * that some way from instruction `from` reaches and the marker's ways do
 * not? */
static bool view_elsewhere(struct scan_cfg *c, uint32_t from, uint32_t mi, const uint64_t *vp,
			   uint32_t nvp, uint32_t stamp, uint16_t D)
{
	for (uint32_t j = 0; j < nvp; j++) {
		uint32_t v = find_insn(c, vp[j]);

		if (v != NONE && v != mi && reaches(c, from, v, stamp, D) &&
		    !reaches(c, mi, v, stamp, D))
			return true;
	}
	return false;
}

/* Is block b all the instance's code? */
static bool all_inst(const struct scan_cfg *c, uint32_t b, uint32_t stamp)
{
	const struct cfg_block *bl = &c->blocks[b];

	for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
		if (c->imark[i] != stamp)
			return false;
	return true;
}

/* Does the instance's code from x on flow into y's block over a back
 * edge, every block on the way the instance's own (a jump inside one
 * call, not a new pass)? Marks the blocks it walks with the returned
 * stamp (0: no). */
static uint32_t back_within(struct scan_cfg *c, uint32_t x, uint32_t y, uint32_t stamp)
{
	uint32_t sp = 0, n = 0, mark = ++c->stamp, yb = c->insns[y].blk;
	bool back = false;

	if (c->blocks[yb].first != y || !all_inst(c, c->insns[x].blk, stamp))
		return 0;
	c->work[sp++] = c->insns[x].blk;
	c->blocks[c->insns[x].blk].seen = mark;
	while (sp && n++ < 16) {
		const struct cfg_block *bl = &c->blocks[c->work[--sp]];

		for (uint32_t k = 0; k < bl->nsucc; k++) {
			uint32_t s = c->succs[bl->succ + k], t = s & ~BACK;

			if (t == yb) {
				back |= !!(s & BACK);
				continue;
			}
			if (c->blocks[t].seen == mark || !all_inst(c, t, stamp))
				continue;
			c->blocks[t].seen = mark;
			c->work[sp++] = t;
		}
	}
	return back ? mark : 0;
}

/*
 * Two entries where one call's code runs from x into y over a back edge
 * (GCC's jsonParseFuncArg: `goto rebuild_from_cache` makes a loop whose
 * head is sqlite3DbMallocZero's memset part 0x5a1c1; the rebuild call
 * enters at the DbMallocRawNN call 0x5a2f5, which jumps back to the
 * memset): the walks within one pass do not see it, and each such call
 * meets both. y's other ways in are probed instead: the blocks of the
 * instance's own code that lead to y and that x's walk does not reach
 * (the first call's `db == 0` path, 0x5a1ab), at their first
 * instruction. NONE where such a way is not the instance's code alone.
 */
static uint32_t y_other_ways(struct scan_cfg *c, uint32_t y, uint32_t wmark, uint32_t stamp,
			     const uint32_t *pre, uint32_t nent, uint32_t *out, uint32_t max)
{
	const struct cfg_block *yb = &c->blocks[c->insns[y].blk];
	uint32_t n = 0, q, k, j;

	if (yb->root)
		return NONE;
	/* (the walks below use seen: wmark's marks are read first) */
	for (k = 0; k < yb->npred; k++) {
		q = c->preds[yb->pred + k];
		if (c->blocks[q].seen == wmark || c->blocks[q].dead)
			continue;
		if (!all_inst(c, q, stamp) || c->blocks[q].root || n == max ||
		    inner_loop(c, q, stamp) != NONE)
			return NONE;
		out[n++] = c->blocks[q].first;
	}
	/* each a way of its own: no other entry's pass runs it */
	for (k = 0; k < n; k++)
		for (j = 0; j < nent; j++)
			if (pre[j] == out[k] || (pre[j] != y && reaches(c, pre[j], out[k], stamp, 0)))
				return NONE;
	return n;
}

static bool back_edge(const struct scan_cfg *c, uint32_t q, uint32_t b)
{
	const struct cfg_block *qb = &c->blocks[q];

	for (uint32_t k = 0; k < qb->nsucc; k++)
		if (c->succs[qb->succ + k] == (b | BACK))
			return true;
	return false;
}

/* Does the code at addr evaluate the call's arguments: its line-table row
 * is the instance's call line, or an inlined subroutine holding addr is
 * called from that line and file (a nested call in the argument list)?
 * Needs the line table (cu) and the instance's DIE. */
static bool at_call_line(struct scan_cfg *c, uint32_t i)
{
	Dwarf_Attribute a;
	Dwarf_Word cl, cf, l, f;
	Dwarf_Die *sc = NULL;
	bool yes = false;
	int n;

	if (!c->cu || !c->inst ||
	    dwarf_formudata(dwarf_attr(c->inst, DW_AT_call_line, &a), &cl) ||
	    dwarf_formudata(dwarf_attr(c->inst, DW_AT_call_file, &a), &cf))
		return false;
	if (at_line_of(c, i, c->inst))
		return true;
	n = dwarf_getscopes(c->cu, c->insns[i].addr, &sc);
	for (int k = 0; k < n && !yes; k++)
		yes = dwarf_tag(&sc[k]) == DW_TAG_inlined_subroutine &&
		      dwarf_dieoffset(&sc[k]) != dwarf_dieoffset(c->inst) &&
		      !dwarf_formudata(dwarf_attr(&sc[k], DW_AT_call_line, &a), &l) && l == cl &&
		      !dwarf_formudata(dwarf_attr(&sc[k], DW_AT_call_file, &a), &f) && f == cf;
	free(sc);
	return yes;
}

/*
 * A join j of the body that a way from outside enters by an edge (a
 * branch of the caller's: no address of its own) while the body's code
 * before it also leads there, or past it: no way into the body runs once
 * per call, but a cut further in may. The instance's blocks that lead to
 * j ("before"), and the first blocks of the instance's code on the ways
 * from them that do not lead to j (the "frontier": entered only from
 * before-blocks or from outside): each call passes j or one frontier
 * block, once (a block that cannot reach j is never left for one that
 * can). Taken only if every way on from a before-block is the instance's
 * (no call leaves without passing the cut), the cut is outside the
 * body's own loops, and every entry found so far lies in it or before
 * it. clang's insertElement in sqlite3HashInsert: pH->ht == NULL jumps
 * (0x5cb01, the caller's test) to the `else` arm of `if( pHead )`,
 * which the empty-bucket and pHead == NULL paths also reach: the cut is
 * that arm and the `pHead` arm 0x5cb2f. clang's sqlite3Strlen30 at 162384:
 * the strlen 0x5fff4 and the `z == 0` test's other way, the lone `jmp`
 * of the folded `return 0`. Into out[0..max): j first; how many (0: no
 * cut).
 */
static uint32_t cut_at_join(struct scan_cfg *c, uint32_t j, uint32_t stamp, const uint32_t *pre,
			    uint32_t nent, uint32_t *out, uint32_t max)
{
	uint32_t jb = c->insns[j].blk, sp = 0, n = 0, nb = 0, before = ++c->stamp, front;
	bool jwork = false;

	if (c->blocks[jb].first != j || inner_loop(c, jb, stamp) != NONE || !max)
		return 0;
	c->work[sp++] = jb;
	while (sp) {
		uint32_t b = c->work[--sp];
		const struct cfg_block *bl = &c->blocks[b];

		for (uint32_t k = 0; k < bl->npred; k++) {
			uint32_t q = c->preds[bl->pred + k];
			struct cfg_block *qb = &c->blocks[q];

			if (q == jb || qb->seen == before || qb->dead ||
			    c->imark[qb->first + qb->n - 1] != stamp || back_edge(c, q, b))
				continue;	/* outside: a way in */
			if (++nb > 256)
				return 0;
			qb->seen = before;
			c->work[sp++] = q;
		}
	}
	if (!nb)
		return 0;
	/* a way from outside into j is a call's when it is the call's own
	 * argument code, or j does the body's work (a call, a load, a
	 * store): a j that only sets registers may be the caller's value
	 * too (clang's sqlite3ArrayAllocate jumps from its `(n & (n-1)) ==
	 * 0` test, line 131092, to sqlite3DbRealloc's `return p`, `mov
	 * %rbp,%rax; jmp`, which is the no-grow path's `pNew = pArray`) */
	jwork = block_work(c, j, stamp, false);
	for (uint32_t k = 0; k < c->blocks[jb].npred && !jwork; k++) {
		const struct cfg_block *qb = &c->blocks[c->preds[c->blocks[jb].pred + k]];
		uint32_t lq = qb->first + qb->n - 1;

		if (qb->seen != before && !qb->dead && c->imark[lq] != stamp && !at_call_line(c, lq))
			return 0;
	}
	front = ++c->stamp;
	out[n++] = j;
	for (uint32_t b = 0; b < c->nblocks; b++) {
		const struct cfg_block *bl = &c->blocks[b];

		if (bl->seen != before)
			continue;
		for (uint32_t k = 0; k < bl->nsucc; k++) {
			uint32_t s = c->succs[bl->succ + k];
			struct cfg_block *sb = &c->blocks[s & ~BACK];

			if (s == jb || (!(s & BACK) && sb->seen == before) || sb->lseen == front)
				continue;
			if ((s & BACK) || sb->root || sb->dead || inner_loop(c, s, stamp) != NONE ||
			    n == max)
				return 0;
			/* entered only from before-blocks, or from outside into the
			 * instance's code (a way in of its own); the caller's code
			 * after the body (clang merged its tail with the caller's)
			 * only from before-blocks */
			for (uint32_t m = 0; m < sb->npred; m++) {
				const struct cfg_block *pb = &c->blocks[c->preds[sb->pred + m]];

				if (pb->seen != before && (c->imark[sb->first] != stamp ||
							   c->imark[pb->first + pb->n - 1] == stamp))
					return 0;
			}
			sb->lseen = front;
			out[n++] = sb->first;
		}
	}
	for (uint32_t k = 0; k < nent; k++) {
		const struct cfg_block *pb = &c->blocks[c->insns[pre[k]].blk];

		if (c->insns[pre[k]].blk != jb && pb->seen != before && pb->lseen != front)
			return 0;
	}
	return n;
}

/* Is way in x (ex settled) one to keep beside the others: one that does
 * some of the call's work, where the marker (settled mi) says where the
 * body begins or the way in is a jump table's; or a lone jump out that
 * is all the instance has there (lone_jump(): the call folded to going
 * on); or, beside a marker, a test of the body's own (own_decision())
 * or the marker's duplicate (dup_of())? ms: the marker's other exit. */
static bool way_kept(struct scan_cfg *c, uint32_t x, uint32_t ex, uint32_t mi, uint32_t ms,
		     uint32_t stamp, uint16_t D)
{
	return ex == mi || x == ms ||
	       (mi == NONE && ms == NONE && !by_table(c, x) && !line0_only(c, x, stamp)) ||
	       does_work(c, x, stamp, D, true) || lone_jump(c, x, stamp) ||
	       (mi != NONE && own_decision(c, x, stamp)) || (mi != NONE && dup_of(c, x, mi));
}

/*
 * The call's copies inside a loop around its entries' ways: GCC rotates a
 * `do { ...; f(); } while (!done)` so that f's body is copied onto the
 * way back (in the loop, one loop deeper than the entries) and onto each
 * way out (the entries, at depth D): sk_stream_wait_connect's
 * remove_wait_queue(sk_sleep(sk), ..), whose `mov 0x128(%rbx),%rdi` is at
 * 0x...9807 and 0x...98f5 on the ways out and at 0x...9874 on the way
 * back; bdev_disk_changed's free_partitions on the -EAGAIN way of
 * blk_add_partitions, which goes round its `rescan:` loop. Such a copy is
 * the first instruction of one of the instance's ranges, deeper than D,
 * in a loop that holds no entry, the copy of an entry by its code
 * (copy_of(), shape_copy_of(), lone_copy()), where a parameter has a
 * location (bound_ranges(): GCC's shared `p->nChar` loads in
 * sqlite3_str_vappendf's format loop are in the ranges of the
 * sqlite3_str_append after it, but none of its parameters is there), and
 * on no path with an entry within one pass: each pass of the loop runs it
 * or leaves for an entry, once. The copies into pre[n..max); the new n.
 */
static uint32_t deeper_copies(struct scan_cfg *c, uint32_t stamp, uint16_t D, uint32_t *pre,
			      uint32_t n, uint32_t max)
{
	uint32_t n0 = n, k, j, nbd = 0;
	bool have_nbd = false;

	for (k = 0; k < c->nr && n < max; k++) {
		uint32_t i = lower_insn(c, c->r[k].lo), b, L;
		bool copy = false;

		if (i >= c->ninsns || c->insns[i].addr != c->r[k].lo || c->imark[i] != stamp)
			continue;
		b = c->insns[i].blk;
		if (ext_depth(c, b, stamp) <= D || (L = around_loop(c, b, stamp)) == NONE)
			continue;
		if (!have_nbd) {	/* read once, where there is a candidate */
			nbd = bound_ranges(c);
			have_nbd = true;
		}
		if (!nbd || (nbd != NONE && !bound_block(c, b, nbd)))
			continue;
		for (j = 0; j < n; j++)
			if (pre[j] == i || in_loop(c, c->insns[pre[j]].blk, L) ||
			    runs_after(c, pre[j], i) || runs_after(c, i, pre[j]))
				break;
		if (j < n)
			continue;
		for (j = 0; j < n0 && !copy; j++)
			copy = (c->cu && (pre[j] < i ? copy_of(c, pre[j], i, stamp) : copy_of(c, i, pre[j], stamp))) ||
			       (pre[j] < i ? shape_copy_of(c, pre[j], i) : shape_copy_of(c, i, pre[j]));
		if (copy || lone_copy(c, i))
			pre[n++] = i;
	}
	return n;
}

/* The choice when only edges are left: jump ej[k] into et[k] when ec[k]
 * - 1 holds; how1 if there is one. */
static void edges_out(const struct scan_cfg *c, const uint32_t *ej, const uint32_t *et,
		      const uint8_t *ec, uint32_t nej, uint8_t how1, struct scan_cfg_choice *out)
{
	for (uint32_t k = 0; k < nej; k++) {
		out->addr[k] = c->insns[ej[k]].addr;
		out->cond[k] = ec[k];
		out->at[k] = c->insns[et[k]].addr;
	}
	out->n = out->edges = nej;
	out->how = nej > 1 ? BTFI_PROBE_HOW_MULTI : how1;
}

/*
 * Does way in x run straight on (one successor each block, no call of
 * the caller's) over a back edge into way in m, which begins its block?
 * Then a call entered at x goes on at m, whose probe counts it. GCC
 * rotates the augmented rbtree's propagate loop: `while (rb != stop) {
 * augmented = compute_max(node); ... rb = parent; }` has compute_max's
 * child loads at the loop's latch (memtype's interval_remove: 0x...b59
 * `mov 0x10(%rdx),%rcx; mov 0x8(%rdx),%rsi`) falling into its head
 * (0x...b61, the marker, where the first pass enters from each erase
 * case): two events for every call after the first. The caller's own
 * code may come between, scheduled into the call's: xfrm_output_one's
 * skb_dst loads `_skb_refdst` at 0x...e672 on the loop's later passes,
 * then `x = dst->xfrm` and read_pnet() run before its `and $~1` at
 * 0x...e684, where the first pass enters.
 */
static bool into_next_pass(struct scan_cfg *c, uint32_t x, uint32_t m, uint32_t stamp)
{
	uint32_t b = c->insns[x].blk, i = x, mb = c->insns[m].blk;

	if (x == m || c->blocks[mb].first != m)
		return false;
	for (int hops = 0; hops < 8; hops++) {
		const struct cfg_block *bl = &c->blocks[b];

		for (; i < bl->first + bl->n; i++)
			if (c->imark[i] != stamp && c->insns[i].flow != BTFI_FLOW_NEXT &&
			    c->insns[i].flow != BTFI_FLOW_JUMP)
				return false;
		if (bl->nsucc != 1)
			return false;
		if (c->succs[bl->succ] & BACK)
			return (c->succs[bl->succ] & ~BACK) == mb;
		b = c->succs[bl->succ];
		i = c->blocks[b].first;
	}
	return false;
}

void scan_cfg_entries(struct scan_cfg *c, const struct scan_range *r, uint32_t nr,
		      const uint64_t *vp, uint32_t nvp, uint64_t marker, bool has_marker,
		      uint64_t fallback, Dwarf_Die *cu, Dwarf_Die *inst,
		      Dwarf_Die *fn, struct scan_cfg_choice *out)
{
	uint32_t stamp, i, k, mi = NONE, fi, ent[SCAN_CFG_MAX_ENTRIES], pre[SCAN_CFG_MAX_ENTRIES], nent;
	uint32_t first[SCAN_CFG_MAX_ENTRIES], nfirst;	/* first_ones()' */
	uint16_t D = 0;
	bool any = false, preloop = false, again, cut = false;
	uint32_t ct[SCAN_CFG_MAX_ENTRIES];	/* cut_at_join()'s */
	uint32_t nrepl = 0, ms = NONE;	/* ms: the marker's other exit */
	uint32_t ej[SCAN_CFG_MAX_ENTRIES], et[SCAN_CFG_MAX_ENTRIES], nej = 0;	/* edges: jump, */
	uint8_t ec[SCAN_CFG_MAX_ENTRIES];		/* target, way */
	uint32_t lw[SCAN_CFG_MAX_ENTRIES], nlw = 0;	/* ways into a loop of the body */

	memset(out, 0, sizeof(*out));
	if (c->state <= 0)
		return;
	c->cu = cu;
	c->inst = inst;
	c->fn = fn;
	c->nipath = -1;
	c->r = r;
	c->nr = nr;
	stamp = ++c->stamp;
	for (k = 0; k < nr; k++)
		for (i = lower_insn(c, r[k].lo); i < c->ninsns && c->insns[i].addr < r[k].hi; i++) {
			c->imark[i] = stamp;
			any = true;
		}
	if (!any)
		return;
	/*
	 * Depth of the call: the loops around it that hold its code, where
	 * it has two instructions of work (a test and its branch count:
	 * selectExpander's cannotBeFunction is `testb; jne` in the loop). One
	 * lone instruction deeper is one clang shares with a later call's
	 * code (sqlite3FindTable's sqlite3HashFind: `test %r11b,%r11b` of the
	 * attached-db loop's lookups, 0x2384c, in the first lookup's ranges),
	 * not the call. A call that returns into its loop is work enough
	 * (loop_call()).
	 */
	{
		uint16_t top = 0, d, md = 0;
		uint32_t n = 0, nbd = 0;	/* work at depth d */

		/* GCC binds the arguments where the body begins (its marker):
		 * a deeper block of the instance where none of them has a
		 * location, while they have one at the marker, runs outside
		 * the call's binds (the caller's or another call's code) and
		 * counts for nothing here: sqlite3_str_vappendf's loads of
		 * p->nChar that GCC shares between the format loop's paths and
		 * gives to the ranges of the `%` at the end's
		 * sqlite3_str_append, whose own code is after the loop (93
		 * events for 0 calls before). A block with one location is
		 * the call's: handle_softirqs' ffs, `mov $-1,%ebx` hoisted
		 * above the loop's `shr` and the bound `bsf`. */
		if (has_marker && (i = find_insn(c, marker)) != NONE) {
			md = ext_depth(c, c->insns[i].blk, stamp);
			nbd = bound_ranges(c);
			if (nbd == NONE || !scan_ranges_hold(c->bd, nbd, marker))
				nbd = 0;
		}

		for (k = 0; k < nr; k++)
			for (i = lower_insn(c, r[k].lo); i < c->ninsns && c->insns[i].addr < r[k].hi; i++) {
				d = ext_depth(c, c->insns[i].blk, stamp);
				if (d > top)
					top = d;
			}
		for (d = top + 1; d-- > 0 && n < 2;) {
			n = 0;
			for (k = 0; k < nr; k++)
				for (i = lower_insn(c, r[k].lo);
				     i < c->ninsns && c->insns[i].addr < r[k].hi; i++)
					n += ext_depth(c, c->insns[i].blk, stamp) != d ? 0 :
					     nbd && d > md && !bound_block(c, c->insns[i].blk, nbd) ? 0 :
					     loop_call(c, i) ? 2 :
					     work_insn(&c->insns[i]) ||
					     c->insns[i].flow == BTFI_FLOW_CJUMP;
			D = d;
		}
		if (n < 2)
			D = top;
	}
	if (D)
		D = call_depth(c, r, nr, D, stamp);
	/* the compiler's entry marker counts if it runs once per call there */
	if (has_marker && (mi = find_insn(c, marker)) != NONE &&
	    (ext_depth(c, c->insns[mi].blk, stamp) != D ||
	     inner_loop(c, c->insns[mi].blk, stamp) != NONE))
		mi = NONE;
	/* without a marker, code hoisted above a branch of the caller's is
	 * no entry (above_branch()) unless no entry is left without it */
	nent = first_ones(c, stamp, D, mi, ent, !has_marker);
	if (!nent || nent > SCAN_CFG_MAX_ENTRIES)
		nent = first_ones(c, stamp, D, mi, ent, false);
	out->how = BTFI_PROBE_HOW_AMBIGUOUS;
	if (!nent || nent > SCAN_CFG_MAX_ENTRIES)
		return;
	/* the instance's whole code a setup hoisted above the caller's
	 * choice of calls: its site is that branch (setup_edge()) */
	if (nent == 1) {
		uint32_t j, to;
		uint8_t cd;

		if ((j = setup_edge(c, ent[0], stamp, &cd, &to)) != NONE) {
			out->addr[0] = c->insns[j].addr;
			out->cond[0] = cd;
			out->at[0] = c->insns[c->blocks[to].first].addr;
			out->n = out->edges = 1;
			out->how = BTFI_PROBE_HOW_FIRST;
			return;
		}
	}
	memcpy(first, ent, nent * sizeof(*ent));
	nfirst = nent;
	/* the marker after other code of the instance on its path (scheduled
	 * early): it stays in the running, the rule below keeps it if
	 * every path from that code meets it */
	for (k = 0; k < nent && mi != NONE && ent[k] != mi; k++)
		;
	if (mi != NONE && k == nent) {
		if (nent == SCAN_CFG_MAX_ENTRIES)
			return;
		ent[nent++] = mi;
	}
	/* an entry that heads a loop of the instance runs per iteration:
	 * before the loop, or else, the call's only way in, at its exits */
	for (k = 0; k < nent; k++) {
		uint32_t l = inner_loop(c, c->insns[ent[k]].blk, stamp), x, kill;
		uint8_t cd;

		if (l == NONE)
			continue;
		if ((x = before_loop(c, l)) != NONE) {
			ent[k] = x;
			preloop = true;
			continue;
		}
		/*
		 * One of several ways in: the ways into the loop there. The
		 * loop's blocks run per iteration, its ways in once per call:
		 * every case of __rb_erase_augmented goes somewhere into the
		 * augment callback's `while (rb != stop)` (a `jne` into its
		 * middle, a `jmp` from each case to its head), glibc's
		 * free_memory is entered at its rotated loop's test by a `ja`
		 * and a `jmp`. What the loop leads to is the rest of the same
		 * call, no way in.
		 */
		if (nent > 1 && nrepl < 16) {
			uint32_t w[SCAN_CFG_MAX_ENTRIES], nw, np = 0, t = ent[k];
			uint8_t wc[SCAN_CFG_MAX_ENTRIES];

			nw = ways_into(c, t, l, w, wc, SCAN_CFG_MAX_ENTRIES);
			for (i = 0; i < nw; i++)
				np += !wc[i];
			if (nw && nent - 1 + np + nej + (nw - np) <= SCAN_CFG_MAX_ENTRIES &&
			    nlw + np <= SCAN_CFG_MAX_ENTRIES) {
				for (i = 0, np = 0; i < nent; i++)
					if (i != k && (in_loop(c, c->insns[ent[i]].blk, l) ||
						       !reaches(c, t, ent[i], stamp, D)))
						ent[np++] = ent[i];
				nent = np;
				for (i = 0; i < nw; i++) {
					/* a way another way in leads to always: that
					 * one counts the call (skipn_spaces' `jne`
					 * after its marker's `test`) */
					if (in_set(ent, nent, w[i])) {	/* one already */
						lw[nlw++] = w[i];
						continue;
					}
					if (dominated(c, w[i], ent, nent))
						continue;
					if (!wc[i]) {
						ent[nent++] = lw[nlw++] = w[i];
						continue;
					}
					ej[nej] = w[i];
					et[nej] = t;
					ec[nej++] = wc[i];
				}
				nrepl++;
				k = NONE;	/* again from the first */
				if (nent)
					continue;
				/* edges alone: each a branch into the loop */
				edges_out(c, ej, et, ec, nej, BTFI_PROBE_HOW_PRELOOP, out);
				return;
			}
		}
		if (nent == 1 && (x = edge_before_loop(c, l, stamp, &cd)) != NONE) {
			out->addr[0] = c->insns[x].addr;
			out->cond[0] = cd;
			out->at[0] = c->insns[c->blocks[c->loops[l].header].first].addr;
			out->n = out->edges = 1;
			out->how = BTFI_PROBE_HOW_PRELOOP;
			return;
		}
		x = ent[k];
		if (nent > 1 || !(nent = after_loop(c, l, ent, SCAN_CFG_MAX_ENTRIES, &kill)))
			return;
		out->locs_at = c->insns[x].addr;
		for (k = 0; k < nent; k++) {
			x = settle(c, ent[k], out);
			for (i = ent[k]; i < x; i++)
				kill |= insn_writes(c, i);
			out->addr[k] = c->insns[x].addr;
		}
		out->locs_kill = kill;
		out->n = nent;
		out->how = BTFI_PROBE_HOW_POSTLOOP;
		return;
	}
	for (k = 0; k < nent; k++)
		pre[k] = ent[k], ent[k] = settle(c, ent[k], out);
	/*
	 * Each call must meet exactly one. Of two on one path: the marker
	 * stays against anything after it (the compiler said the body begins
	 * there; code of the body that other paths reach without it is the
	 * caller's: a reload the loop around the call runs every iteration, a
	 * tail merged with it) and the later one against the marker (code run
	 * ahead of it). Without a marker the later one stays if every path
	 * from the earlier meets it (other calls join there: clang's
	 * sqlite3_value_bytes) or the earlier does no work of the call (a
	 * test on one way in: clang's sqlite3Strlen30), else the earlier (the
	 * later is a join other code takes too: clang's sqlite3BtreeLast).
	 * An earlier one that runs only line-0 code of the instance and leaves
	 * it is no way into the call (line0_only(), as for the ways kept
	 * below): clang's sqlite3DbRealloc at 0x70d10 leads round the caller's
	 * loop to the real entry 0x70cce; sqlite3PagerBegin's `xor; jmp`.
	 * The pairs with the marker are decided first: code ahead of it (an
	 * argument's setup) goes before it can beat a later way in that is
	 * the call's own (device_move's put_device at 4707: the two ways
	 * through 0xffffffff816fafeb into the body past the marker).
	 */
	do {
		again = false;
		for (uint32_t pass = 0; pass < 2 && !again; pass++)
		for (k = 0; k < nent && !again; k++)
			for (i = 0; i < nent && !again; i++) {
				uint32_t drop = k, x;
				bool some;	/* only some paths from ent[k] meet ent[i] */

				if (i == k || (!pass && ent[k] != mi && ent[i] != mi) ||
				    (ent[i] != ent[k] && !reaches(c, ent[k], ent[i], stamp, D)))
					continue;
				some = ent[i] != ent[k] && !must_reach(c, ent[k], ent[i], stamp, D);
				/* a later one only some of the earlier's paths meet, also
				 * entered past the earlier: probe those other ways in */
				if (some && nrepl < 16) {
					uint32_t bp[4], nb, ne = 0, b;
					uint8_t bc[4];

					nb = bypass_preds(c, ent[k], ent[i], stamp, D, mi == NONE, mi, bp, bc, 4);
					for (b = 0; b < nb; b++)
						ne += bc[b] != 0;
					if (nb && nent - 1 + nb + nej <= SCAN_CFG_MAX_ENTRIES) {
						uint32_t tgt = ent[i];

						if (ent[i] == mi)
							mi = NONE;
						/* edges are probed on their jump, apart
						 * from the entries (no instruction of
						 * the body: nothing to compare) */
						if (ne) {
							ent[i] = ent[--nent];
							pre[i] = pre[nent];
							for (b = 0; b < nb; b++) {
								if (!bc[b]) {
									ent[nent] = pre[nent] = bp[b];
									nent++;
									continue;
								}
								ej[nej] = bp[b];
								et[nej] = tgt;
								ec[nej++] = bc[b];
							}
						} else {
							ent[i] = pre[i] = bp[0];
							for (b = 1; b < nb; b++, nent++)
								ent[nent] = pre[nent] = bp[b];
						}
						nrepl++;
						again = true;
						continue;
					}
				}
				/* the marker's test, and its other exit: each call
				 * meets one of the two ways on */
				if (some && ent[k] == mi && nrepl < 16 &&
				    (x = marker_exit(c, pre[k], pre[i], stamp, D, pre, nent)) != NONE) {
					pre[k] = ms = x;
					ent[k] = settle(c, x, out);
					mi = NONE;
					nrepl++;
					again = true;
					continue;
				}
				if (ent[i] != ent[k] && (ent[k] == mi ||
				    (ent[i] != mi && some && does_work(c, ent[k], stamp, D, false) &&
				     work_before(c, pre[k], pre[i], stamp, D) &&
				     (mi != NONE || !line0_only(c, pre[k], stamp)))))
					drop = i;
				/* a later one that the ways-in filter below drops
				 * does not stand against an earlier one it keeps:
				 * DWARF gave the later the caller's code that other
				 * paths share too (__sys_bpf's bpf_link_by_id:
				 * spin_unlock_bh's copy on the idr_find() NULL way
				 * goes on to the `mov $-ENOENT,%r9d` of the `!id`
				 * way, a line of the instance's) */
				if (drop == k && mi != NONE && ent[i] != mi && pre[i] != mi &&
				    ent[i] != ent[k] && !cut && !way_kept(c, pre[i], ent[i], mi, ms, stamp, D) &&
				    way_kept(c, pre[k], ent[k], mi, ms, stamp, D))
					drop = i;
				/* a view-only marker only some ways from the body's
				 * code meet, the others meeting another view-only
				 * piece of it: the call is on both, the code runs
				 * once for each (GCC's pwr2to10 in sqlite3Fp2Convert10:
				 * `imul; sar`, then a marker on each way of the
				 * caller's `n - 1 <= 16`) */
				if (ent[i] == mi && some && c->imark[mi] != stamp &&
				    does_work(c, ent[k], stamp, D, false) &&
				    view_elsewhere(c, ent[k], mi, vp, nvp, stamp, D)) {
					drop = i;
					mi = NONE;
				}
				if (drop == k && some && ent[k] != mi && nrepl < 16 &&
				    (x = hoisted_other(c, pre[k], pre[i], stamp, D)) != NONE) {
					pre[k] = x;
					ent[k] = settle(c, x, out);
					nrepl++;
					again = true;
					continue;
				}
				/* the later one is a join an edge also enters:
				 * a cut further in (cut_at_join()) */
				if (drop == i && some && mi == NONE && ms == NONE && !cut &&
				    (x = cut_at_join(c, pre[i], stamp, pre, nent, ct,
						     SCAN_CFG_MAX_ENTRIES))) {
					for (nent = 0; nent < x; nent++) {
						pre[nent] = ct[nent];
						ent[nent] = settle(c, ct[nent], out);
					}
					cut = out->cut = true;
					again = true;
					continue;
				}
				ent[drop] = ent[--nent];
				pre[drop] = pre[nent];
				again = true;
			}
	} while (again);
	/* ways in: only those way_kept() keeps */
	if (nent > 1 && !cut) {
		uint32_t keep = 0;

		/* once ways into a loop were taken (nlw): those, and others
		 * that do some of the call's work */
		for (k = 0; k < nent; k++)
			if (nlw ? in_set(lw, nlw, pre[k]) || does_work(c, pre[k], stamp, D, true) ||
				  lone_jump(c, pre[k], stamp) :
			    way_kept(c, pre[k], ent[k], mi, ms, stamp, D)) {
				pre[keep] = pre[k];
				ent[keep++] = ent[k];
			}
		if (keep)
			nent = keep;
	}
	/* a way in that goes straight on over a back edge into another: the
	 * same call going on there (into_next_pass()); the marker stays */
	for (k = 0; k < nent && nent > 1; k++)
		for (i = 0; i < nent; i++)
			if (i != k && ent[k] != mi && into_next_pass(c, pre[k], pre[i], stamp)) {
				pre[k] = pre[nent - 1];
				ent[k] = ent[--nent];
				k--;
				break;
			}
	/* the call's first test rotated into the loop around it: its copies */
	for (k = 0; k < nent; k++) {
		uint32_t rot[SCAN_CFG_MAX_ENTRIES], nr2;

		nr2 = rotated(c, pre[k], stamp, rot, SCAN_CFG_MAX_ENTRIES - nent + 1);
		if (!nr2)
			continue;
		pre[k] = rot[0];
		ent[k] = settle(c, rot[0], out);
		for (uint32_t j = 1; j < nr2; j++, nent++) {
			pre[nent] = rot[j];
			ent[nent] = settle(c, rot[j], out);
		}
		k = nent;	/* one such loop per instance */
	}
	/* GCC's rotated loop whose test is the call: the first test's copy */
	for (k = 0, i = nent; k < i && !preloop; k++) {
		uint32_t n0 = nent;

		nent = rotated_first(c, pre[k], stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* the other copies of an unrolled call under the same DIE */
	for (k = 0, i = nent; k < i; k++) {
		uint32_t n0 = nent;

		nent = copies(c, pre[k], stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES);
		out->copies += nent - n0;
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* the iterations peeled off the loop around it */
	if (!has_marker) {
		uint32_t n0 = nent;

		nent = peeled(c, stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* its copies on the ways out of the loop around it */
	{
		uint32_t n0 = nent;

		nent = loop_exits(c, stamp, D, pre, nent, ej, nej, SCAN_CFG_MAX_ENTRIES - nej);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* its copies on the way back of a loop its entries leave */
	{
		uint32_t n0 = nent;

		nent = deeper_copies(c, stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES - nej);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* copies of its first test on another way of the caller's */
	{
		uint32_t n0 = nent;

		nent = test_copies(c, stamp, D, pre, nent, ej, nej, SCAN_CFG_MAX_ENTRIES - nej);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* the ways in that code hoisted above the caller's branch hid */
	{
		uint32_t n0 = nent;

		nent = hidden_ways(c, stamp, D, first, nfirst, pre, nent, SCAN_CFG_MAX_ENTRIES);
		for (; n0 < nent; n0++)
			ent[n0] = settle(c, pre[n0], out);
	}
	/* calls that begin inside the body's code, by DWARF's word */
	for (k = nent, nent = view_starts(c, vp, nvp, stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES);
	     k < nent; k++)
		ent[k] = settle(c, pre[k], out);
	/* the ways where the call left no code */
	for (k = nent, nent = view_ways(c, vp, nvp, stamp, D, pre, nent, SCAN_CFG_MAX_ENTRIES);
	     k < nent; k++) {
		ent[k] = settle(c, pre[k], out);
		out->views++;
	}
	/* one call's code from one entry back into another */
	for (k = 0; k < nent; k++)
		for (i = 0; i < nent; i++) {
			uint32_t w, o[4], no;

			if (i == k || pre[i] == pre[k] ||
			    !(w = back_within(c, pre[k], pre[i], stamp)))
				continue;
			no = y_other_ways(c, pre[i], w, stamp, pre, nent, o, 4);
			if (no == NONE || nent - 1 + no > SCAN_CFG_MAX_ENTRIES)
				continue;
			out->back_moved = true;
			pre[i] = pre[--nent];
			ent[i] = ent[nent];
			for (uint32_t j = 0; j < no; j++, nent++) {
				pre[nent] = o[j];
				ent[nent] = settle(c, o[j], out);
			}
			k = nent;	/* once per instance */
			break;
		}
	/* an entry still on an instruction the probes refuse (a jump label
	 * alone in its block, its ways going on into joins): the ways into
	 * its block (vdso_fault's page_fixed_fake_head: the `jne` of
	 * compound_head's `head & 1` test; __switch_to's resctrl_sched_in:
	 * the `je` and the `mov %eax,%ss` before it) */
	for (k = 0; k < nent; k++) {
		uint32_t w[SCAN_CFG_MAX_ENTRIES], wt[SCAN_CFG_MAX_ENTRIES], nw, np = 0, t = ent[k];
		uint8_t wc[SCAN_CFG_MAX_ENTRIES];

		if (!c->insns[t].refused || !(nw = ways_round(c, t, w, wc, wt)))
			continue;
		for (i = 0; i < nw; i++)
			np += !wc[i];
		if (nent - 1 + np + nej + (nw - np) > SCAN_CFG_MAX_ENTRIES)
			continue;
		ent[k] = ent[--nent];
		pre[k] = pre[nent];
		for (i = 0; i < nw; i++) {
			if (!wc[i]) {
				/* after the others: checked in their turn;
				 * pre: where its parameters are */
				ent[nent] = w[i];
				pre[nent++] = wt[i];
				continue;
			}
			ej[nej] = w[i];
			et[nej] = wt[i];
			ec[nej++] = wc[i];
		}
		k--;
		out->refused_moved = true;
	}
	if (!nent && nej) {
		edges_out(c, ej, et, ec, nej, BTFI_PROBE_HOW_FIRST, out);
		return;
	}
	fi = find_insn(c, fallback);
	if (nent + nej > SCAN_CFG_MAX_ENTRIES)
		nej = SCAN_CFG_MAX_ENTRIES - nent;
	if (nent + nej > 1)
		out->how = BTFI_PROBE_HOW_MULTI;
	else if (pre[0] == mi || pre[0] == fi)
		out->how = BTFI_PROBE_HOW_KEPT;
	else if (preloop)
		out->how = BTFI_PROBE_HOW_PRELOOP;
	else if (fi != NONE && ext_depth(c, c->insns[fi].blk, stamp) < D)
		out->how = BTFI_PROBE_HOW_DEEPER;
	else
		out->how = BTFI_PROBE_HOW_FIRST;
	/* the entries, the edges, the view-only ways last (as they came) */
	if (out->views > nent)
		out->views = nent;
	i = 0;
	for (k = 0; k < nent - out->views; k++) {
		moved_from(c, ent[k], pre[k], out, i);
		out->addr[i++] = c->insns[ent[k]].addr;
	}
	for (k = 0; k < nej; k++, i++) {
		out->addr[i] = c->insns[ej[k]].addr;
		out->cond[i] = ec[k];
		out->at[i] = c->insns[et[k]].addr;
	}
	for (k = nent - out->views; k < nent; k++)
		out->addr[i++] = c->insns[ent[k]].addr;
	out->n = i;
	out->edges = nej;
}
