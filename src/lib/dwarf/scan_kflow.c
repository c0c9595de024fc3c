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
 * The same tables, with the static call sites, name the instructions
 * kprobes refuse (-EINVAL: check_kprobe_address_safe()'s
 * jump_label_text_reserved(), find_bug(), static_call_text_reserved()):
 * a site must not be there.
 *
 * x86-64 layouts (since Linux 5.x), offsets relative to the field:
 *   struct jump_entry { s32 code, target; long key; }           16 bytes
 *   struct exception_table_entry { int insn, fixup, data; }     12 bytes
 *   struct bug_entry { int bug_addr, file; u16 line, flags; }   12 bytes
 *     (CONFIG_DEBUG_BUGVERBOSE; flags & 1: a warning)
 *   struct static_call_site { s32 addr, key; }                   8 bytes
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <gelf.h>
#include "dwarf/scan_priv.h"
#include "elf_file.h"
#include "elf_syms.h"
#include "sorted.h"

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

/* The tables, and what each entry adds. */
enum kf_kind {
	KF_JUMP,	/* jump label: an edge to the target; kprobes refuse it */
	KF_FIXUP,	/* exception fixup: an edge to the fixup */
	KF_BUG,		/* BUG/WARN ud2: kprobes refuse it; a WARN goes on */
	KF_SCALL,	/* static call site: kprobes refuse it */
};

static const struct kf_table {
	const char *start, *stop, *scn;
	uint32_t esz, to_off;	/* entry size; the target field's offset, 0: none */
} kf_tables[] = {
	[KF_JUMP] = { "__start___jump_table", "__stop___jump_table", "__jump_table", 16, 4 },
	[KF_FIXUP] = { "__start___ex_table", "__stop___ex_table", "__ex_table", 12, 4 },
	[KF_BUG] = { "__start___bug_table", "__stop___bug_table", "__bug_table", 12, 0 },
	[KF_SCALL] = { "__start_static_call_sites", "__stop_static_call_sites",
		       ".static_call_sites", 8, 0 },
};

/* One entry: the instruction at `from`, its target `to` (0: none), a bug
 * entry's flags at `b`. */
static int add_entry(struct scan_priv *p, enum kf_kind kind, uint64_t from, uint64_t to,
		     const uint8_t *b)
{
	uint16_t flags;

	if (kind != KF_FIXUP) {
		if (GROW(p->krefused, p->krefused_cap, p->nkrefused + 1))
			return -ENOMEM;
		p->krefused[p->nkrefused++] = from;
	}
	if (kind == KF_BUG) {
		memcpy(&flags, b + 10, 2);
		if (!(flags & 1))
			return 0;
		to = from + 2;		/* a warning: after the 2-byte ud2 */
	}
	if (!to)
		return 0;
	if (GROW(p->xedges, p->xedges_cap, p->nxedges + 1))
		return -ENOMEM;
	p->xedges[p->nxedges++] = (struct scan_xedge){ from, to, kind == KF_JUMP };
	return 0;
}

static int add_table(struct scan_priv *p, Elf *elf, enum kf_kind kind, uint64_t lo, uint64_t hi)
{
	const struct kf_table *t = &kf_tables[kind];
	const uint8_t *b;
	int err;

	if (!lo || hi <= lo || (hi - lo) % t->esz || !(b = bytes_at(elf, lo, hi)))
		return 0;
	for (uint64_t a = lo; a < hi; a += t->esz, b += t->esz) {
		int32_t from, to = 0;

		memcpy(&from, b, 4);
		if (t->to_off)
			memcpy(&to, b + t->to_off, 4);
		if ((err = add_entry(p, kind, a + from, t->to_off ? a + t->to_off + to : 0, b)))
			return err;
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
 * A module's table: its section, each entry's fields filled by PC32
 * relocations (a field holds S + A - its address, so S + A is what it
 * points at).
 */
static int add_rel_table(struct scan_priv *p, Elf *elf, enum kf_kind kind)
{
	const struct kf_table *t = &kf_tables[kind];
	struct btfi_relas r = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn = btfi_elf_scn(elf, t->scn, &sh);
	int err = 0;

	if (!scn || sh.sh_type != SHT_PROGBITS ||
	    (err = btfi_relas_add(p->rel_elf ? p->rel_elf : elf, elf, elf_ndxscn(scn), &r)))
		goto out;
	for (size_t k = 0; k < r.n; k++) {
		const struct btfi_rela *from = &r.v[k], *to;
		uint64_t off = from->at - sh.sh_addr, target = 0;
		const uint8_t *b = NULL;

		if (off % t->esz || from->undef || from->type != R_X86_64_PC32)
			continue;
		if (t->to_off) {
			to = btfi_relas_at(&r, from->at + t->to_off);
			if (!to || to->undef || to->type != R_X86_64_PC32)
				continue;
			target = to->value;
		} else if (kind == KF_BUG && !(b = bytes_at(elf, from->at, from->at + t->esz))) {
			continue;
		}
		if ((err = add_entry(p, kind, from->value, target, b)))
			goto out;
	}
out:
	btfi_relas_free(&r);
	return err;
}

/*
 * The ftrace call sites (__mcount_loc: each function ftrace can trace has
 * its `call __fentry__` listed, 8-byte addresses; a module's filled by
 * R_X86_64_64 relocations) into p->mcount, sorted. Without
 * CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's 6.1) the kprobe PMU refuses
 * an address in a function that has none (within_notrace_func()): the
 * out-of-line copies of `inline` functions, `notrace` ones, `.cold` parts.
 */
static int add_mcount(struct scan_priv *p, Elf *elf)
{
	static const char *const names[] = { "__start_mcount_loc", "__stop_mcount_loc" };
	struct btfi_relas r = { 0 };
	uint64_t v[2];
	const uint8_t *b;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err = 0;

	if (p->relocatable) {
		scn = btfi_elf_scn(elf, "__mcount_loc", &sh);
		if (!scn || sh.sh_type != SHT_PROGBITS ||
		    (err = btfi_relas_add(p->rel_elf ? p->rel_elf : elf, elf, elf_ndxscn(scn), &r)))
			goto out;
		for (size_t k = 0; k < r.n; k++) {
			if (r.v[k].undef || r.v[k].type != R_X86_64_64)
				continue;
			if (GROW(p->mcount, p->mcount_cap, p->nmcount + 1)) {
				err = -ENOMEM;
				goto out;
			}
			p->mcount[p->nmcount++] = r.v[k].value;
		}
	} else {
		btfi_elf_sym_values(elf, names, v, 2);
		if (!v[0] || v[1] <= v[0] || (v[1] - v[0]) % 8 || !(b = bytes_at(elf, v[0], v[1])))
			return 0;
		if (GROW(p->mcount, p->mcount_cap, (v[1] - v[0]) / 8))
			return -ENOMEM;
		for (uint64_t a = v[0]; a < v[1]; a += 8, b += 8)
			memcpy(&p->mcount[p->nmcount++], b, 8);
	}
	if (p->nmcount)
		qsort(p->mcount, p->nmcount, sizeof(*p->mcount), btfi_cmp_u64);
out:
	btfi_relas_free(&r);
	return err;
}

bool scan_kernel_refused(const struct scan_priv *p, uint64_t addr)
{
	size_t i = btfi_lower_bound_u64(p->krefused, p->nkrefused, sizeof(*p->krefused), 0, addr);

	return i < p->nkrefused && p->krefused[i] == addr;
}

bool scan_kernel_notrace(const struct scan_priv *p, uint64_t addr)
{
	const struct btfi_sym *f;
	size_t i;

	if (!p->nmcount || !(f = btfi_syms_at(&p->syms, addr)))
		return false;
	i = btfi_lower_bound_u64(p->mcount, p->nmcount, sizeof(*p->mcount), 0, f->addr);
	return i == p->nmcount || p->mcount[i] >= f->addr + (f->size ? f->size : 1);
}

int scan_kernel_flow(struct scan_priv *p, Elf *elf)
{
	int err;

	for (int k = KF_JUMP; k <= KF_SCALL; k++) {
		const struct kf_table *t = &kf_tables[k];
		const char *names[2] = { t->start, t->stop };
		uint64_t v[2];

		if (p->relocatable) {
			err = add_rel_table(p, elf, k);
		} else {
			btfi_elf_sym_values(elf, names, v, 2);
			err = add_table(p, elf, k, v[0], v[1]);
		}
		if (err)
			return err;
	}
	if (p->nxedges)
		qsort(p->xedges, p->nxedges, sizeof(*p->xedges), cmp_xedge);
	if (p->nkrefused)
		qsort(p->krefused, p->nkrefused, sizeof(*p->krefused), btfi_cmp_u64);
	return add_mcount(p, elf);
}
