// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF scan: one pass over every CU's DIE tree, recording each inline
 * instance (DW_TAG_inlined_subroutine) and out-of-line function, and each
 * instance parameter's location at the probe address.
 *
 * Speed: the walk only descends into scopes that can hold code (subprogram,
 * lexical block, inlined subroutine); abstract origins, types and functions
 * are resolved once per DIE offset through hash tables; strings are libdw's
 * own (they stay valid while the Dwarf is open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <gelf.h>
#include "dwarf/scan.h"
#include "dwarf/scan_priv.h"
#include "dwarf/dwexpr.h"
#include "dwarf/locviews.h"
#include "dwarf/debuginfo.h"
#include "elf_syms.h"
#include "insn.h"
#include "log.h"
#include "opts.h"

#define NO_IDX UINT32_MAX

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- ELF side: file checks, symbols, sections ---- */

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	return false;
}

/* A stripped file's full symbol table is in its debug file (same addresses). */
static Elf *sym_elf(struct btfi_scan *s)
{
	Elf *d = s->di->dwarf_elf;

	return d != s->elf && !has_symtab(s->elf) && has_symtab(d) ? d : s->elf;
}

/* A relocatable object's relocations as stored (debuginfo.h): libdwfl's
 * image has applied some (elf_rela.h). Without them (a --debug-file laid
 * out instead: other sections), the image's are all there is (relas_all
 * false). */
static void stored_relas(struct btfi_scan *s, struct scan_priv *p)
{
	Elf *e = s->di->stored;
	size_t n1, n2;

	if (e && elf_kind(e) == ELF_K_ELF && !elf_getshdrnum(e, &n1) &&
	    !elf_getshdrnum(s->elf, &n2) && n1 == n2) {
		p->rel_elf = e;
		p->relas_all = true;
	}
}

static int load_elf_tables(struct btfi_scan *s, struct scan_priv *p)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (gelf_getehdr(s->elf, &eh) && eh.e_type == ET_REL) {
		p->relocatable = true;
		stored_relas(s, p);
	}
	if (elf_getshdrstrndx(s->elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(s->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		/* a kernel or module: kprobes, which take what uprobes refuse */
		if (shstrndx && (name = elf_strptr(s->elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(name, "__ksymtab_strings") || !strcmp(name, ".modinfo")))
			p->kernel = true;
		/* a kernel image's (vmlinux: the upper half; not .data..percpu) */
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size && sh.sh_addr >= (1ull << 63) &&
		    !p->relocatable) {
			if (!p->img_hi || sh.sh_addr < p->img_lo)
				p->img_lo = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > p->img_hi)
				p->img_hi = sh.sh_addr + sh.sh_size;
		}
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
		    sh.sh_size) {
			int err;

			if (GROW(p->secs, p->secs_cap, p->nsecs + 1))
				return -ENOMEM;
			p->secs[p->nsecs++] = (struct scan_sec){ .lo = sh.sh_addr,
								 .hi = sh.sh_addr + sh.sh_size,
								 .idx = elf_ndxscn(scn) };
			/* a module's branches to other sections and symbols */
			if (p->relocatable && (err = btfi_relas_add(p->rel_elf ? p->rel_elf : s->elf,
								    s->elf, elf_ndxscn(scn), &p->relas)))
				return err;
		}
	}
	if (!p->kernel)
		p->img_lo = p->img_hi = 0;
	if (p->kernel) {
		int err = scan_kernel_flow(p, sym_elf(s));

		if (err)
			return err;
	}
	return btfi_syms_load(sym_elf(s), &p->syms);
}

static uint16_t addr_shndx(struct scan_priv *p, uint64_t addr)
{
	uint32_t i;

	if (p->last_sec < p->nsecs && addr >= p->secs[p->last_sec].lo &&
	    addr < p->secs[p->last_sec].hi)
		return p->secs[p->last_sec].idx;
	for (i = 0; i < p->nsecs; i++) {
		if (addr >= p->secs[i].lo && addr < p->secs[i].hi) {
			p->last_sec = i;
			return p->secs[i].idx;
		}
	}
	return 0;
}

const uint8_t *scan_code(struct scan_priv *p, uint64_t addr, uint64_t *avail)
{
	for (uint32_t i = 0; i < p->nsecs; i++) {
		struct scan_sec *sec = &p->secs[i];

		if (addr < sec->lo || addr >= sec->hi)
			continue;
		if (!sec->code_tried) {
			Elf_Scn *scn = elf_getscn(p->elf, sec->idx);
			GElf_Shdr sh;
			Elf_Data *d;

			sec->code_tried = true;
			if (scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			    (d = elf_getdata(scn, NULL)) && d->d_buf && d->d_size >= sec->hi - sec->lo)
				sec->code = d->d_buf;
		}
		if (!sec->code)
			return NULL;
		*avail = sec->hi - addr;
		return sec->code + (addr - sec->lo);
	}
	return NULL;
}

/* Raw location-list sections, for GCC's view lists (libdw skips them);
 * libdw has decompressed them, .zdebug_X (gcc -gz=zlib-gnu) included. */
static void find_loc_sections(struct btfi_scan *s, struct scan_priv *p)
{
	Elf *elf = s->di->dwarf_elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	p->map = s->di->map;
	p->map_size = s->di->map_size;
	/* (a relocatable module's DWARF is libdwfl's relocated image; a
	 * compressed file's is libelf's copy: no mapping of our own) */
	p->rows_walk = s->di->relocatable;
	if (p->map && !s->di->relocatable)
		p->rows_path = s->dwarf_path;
	p->info_off = s->di->info_off;
	p->info_size = s->di->info_size;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strncmp(name, ".zdebug_", 8))
			name += 2;	/* "debug_..." */
		else if (strncmp(name, ".debug_", 7))
			continue;
		else
			name += 1;
		if (!strcmp(name, "debug_loclists"))
			p->loclists = elf_getdata(scn, NULL);
		else if (!strcmp(name, "debug_loc"))
			p->loc = elf_getdata(scn, NULL);
		else if (!strcmp(name, "debug_line"))
			p->line = elf_getdata(scn, NULL);
		else if (!strcmp(name, "debug_line_str"))
			p->line_str = elf_getdata(scn, NULL);
		else if (!strcmp(name, "debug_str"))
			p->str = elf_getdata(scn, NULL);
	}
}

/* ---- types and functions ---- */

/* Byte size and signedness of a type, and whether the SysV ABI passes it
 * in one general register when it fits (integer, pointer, enum:
 * *int_cls, may be NULL); cached by DIE offset. */
static void type_info(struct scan_priv *p, Dwarf_Die *type, uint32_t *size, bool *is_signed,
		      bool *int_cls)
{
	Dwarf_Off off = die_key(p, type);
	Dwarf_Die peeled, ut;
	Dwarf_Word sz = 0, enc = 0;
	Dwarf_Attribute a;
	uint32_t v;
	bool sgn = false, ic;
	int tag;

	if (u64map_get(&p->types, off, &v)) {
		*size = v & 0x3fffffff;
		*is_signed = v >> 31;
		if (int_cls)
			*int_cls = v >> 30 & 1;
		return;
	}
	if (dwarf_peel_type(type, &peeled))
		peeled = *type;
	tag = dwarf_tag(&peeled);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_ptr_to_member_type) {
		sz = p->addr_size;
	} else if (dwarf_aggregate_size(&peeled, &sz)) {
		sz = 0;
	}
	if (tag == DW_TAG_enumeration_type &&
	    dwarf_formref_die(dwarf_attr(&peeled, DW_AT_type, &a), &ut) &&
	    !dwarf_peel_type(&ut, &ut))
		peeled = ut;
	ic = tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	     tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_enumeration_type;
	if (dwarf_tag(&peeled) == DW_TAG_base_type &&
	    !dwarf_formudata(dwarf_attr(&peeled, DW_AT_encoding, &a), &enc)) {
		sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		ic |= enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_unsigned ||
		      enc == DW_ATE_unsigned_char || enc == DW_ATE_boolean;
	}
	*size = sz > 0x3fffffff ? 0 : (uint32_t)sz;
	*is_signed = sgn;
	if (int_cls)
		*int_cls = ic;
	u64map_put(&p->types, off, *size | (uint32_t)ic << 30 | (uint32_t)sgn << 31);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static bool funcs_equal(const struct btfi_scan *s, const struct btfi_func *f,
			const char *name, const struct scan_tmp_param *tp, uint32_t n)
{
	uint32_t i;

	if (f->nparams != n)
		return false;
	if (f->name != name && (!f->name || !name || strcmp(f->name, name)))
		return false;
	for (i = 0; i < n; i++) {
		const char *a = s->params[f->first_param + i].name, *b = tp[i].name;

		if (a != b && (!a || !b || strcmp(a, b)))
			return false;
	}
	return true;
}

static int funcmap_insert(struct scan_priv *p, uint64_t h, uint32_t idx)
{
	uint32_t i, mask;

	if ((p->nfslots + 1) * 2 > p->fcap) {
		uint32_t ncap = p->fcap ? p->fcap * 2 : 4096, j;
		uint32_t *nidx = malloc(ncap * sizeof(*nidx));
		uint64_t *nh = malloc(ncap * sizeof(*nh));

		if (!nidx || !nh) {
			free(nidx);
			free(nh);
			return -ENOMEM;
		}
		memset(nidx, 0xff, ncap * sizeof(*nidx));
		for (j = 0; j < p->fcap; j++) {
			if (p->fidx[j] == NO_IDX)
				continue;
			for (i = p->fhash[j] & (ncap - 1); nidx[i] != NO_IDX; i = (i + 1) & (ncap - 1))
				;
			nidx[i] = p->fidx[j];
			nh[i] = p->fhash[j];
		}
		free(p->fidx);
		free(p->fhash);
		p->fidx = nidx;
		p->fhash = nh;
		p->fcap = ncap;
	}
	mask = p->fcap - 1;
	for (i = h & mask; p->fidx[i] != NO_IDX; i = (i + 1) & mask)
		;
	p->fidx[i] = idx;
	p->fhash[i] = h;
	p->nfslots++;
	return 0;
}

/*
 * The function a subprogram DIE (abstract or concrete root) stands for.
 * Functions are keyed by (name, parameter names); `origin` records, per
 * root DIE, the offsets of its formal parameters in order, so that an
 * instance's concrete parameters map to indices through their
 * abstract_origin.
 */
static int resolve_origin(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *root,
			  uint32_t *origin_idx)
{
	Dwarf_Off off = die_key(p, root);
	Dwarf_Die die = *root, child, ref, tdie;
	Dwarf_Attribute a;
	const char *name;
	struct scan_origin *o;
	struct btfi_func *f;
	uint32_t n = 0, i, fi = NO_IDX, mask;
	uint64_t h;
	bool ext = false;
	int err, hops;

	if (u64map_get(&p->origin_map, off, origin_idx))
		return 0;

	name = die_name(&die);
	/* Parameters hang off the DIE that has them: follow origin/spec. */
	for (hops = 0; hops < 8; hops++) {
		n = 0;
		if (dwarf_child(&die, &child) == 0) {
			do {
				if (dwarf_tag(&child) != DW_TAG_formal_parameter)
					continue;
				if (GROW(p->tmp, p->tmp_cap, n + 1))
					return -ENOMEM;
				p->tmp[n].name = die_name(&child);
				p->tmp[n].off = die_key(p, &child);
				p->tmp[n].type_off = 0;
				if (dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &a), &tdie))
					p->tmp[n].type_off = die_key(p, &tdie);
				p->tmp[n].die = child;
				n++;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (n)
			break;
		if (!dwarf_formref_die(dwarf_attr(&die, DW_AT_abstract_origin, &a), &ref) &&
		    !dwarf_formref_die(dwarf_attr(&die, DW_AT_specification, &a), &ref))
			break;
		die = ref;
	}

	h = hash_str(0xcbf29ce484222325ULL, name);
	for (i = 0; i < n; i++)
		h = hash_str(h, p->tmp[i].name);
	mask = p->fcap - 1;
	if (p->fcap) {
		for (i = h & mask; p->fidx[i] != NO_IDX; i = (i + 1) & mask) {
			if (p->fhash[i] == h &&
			    funcs_equal(s, &s->funcs[p->fidx[i]], name, p->tmp, n)) {
				fi = p->fidx[i];
				break;
			}
		}
	}
	if (fi == NO_IDX) {
		if (GROW(s->funcs, p->funcs_cap, s->nfuncs + 1) ||
		    GROW(s->params, p->params_cap, s->nparams + n))
			return -ENOMEM;
		fi = s->nfuncs++;
		f = &s->funcs[fi];
		memset(f, 0, sizeof(*f));
		f->name = name;
		f->die_off = off;
		f->first_param = s->nparams;
		f->nparams = n;
		if (dwarf_formref_die(dwarf_attr_integrate(root, DW_AT_type, &a), &tdie)) {
			uint32_t size;
			bool sgn, ic;

			f->ret_type_off = die_key(p, &tdie);
			type_info(p, &tdie, &size, &sgn, &ic);
			/* returned in memory: the caller passes where in rdi */
			f->ret_in_mem = !ic && size > 16;
		}
		if (!dwarf_formflag(dwarf_attr_integrate(root, DW_AT_external, &a), &ext))
			f->is_external = ext;
		for (i = 0; i < n; i++) {
			struct btfi_param *prm = &s->params[s->nparams++];
			uint32_t size = 0;
			bool sgn = false, ic = false;

			if (p->tmp[i].type_off &&
			    dwarf_formref_die(dwarf_attr_integrate(&p->tmp[i].die, DW_AT_type, &a),
					      &tdie))
				type_info(p, &tdie, &size, &sgn, &ic);
			prm->name = p->tmp[i].name;
			prm->type_off = p->tmp[i].type_off;
			prm->size = size;
			prm->is_signed = sgn;
			prm->int_cls = ic;
		}
		err = funcmap_insert(p, h, fi);
		if (err)
			return err;
	}

	if (GROW(p->origins, p->origins_cap, p->norigins + 1) ||
	    GROW(p->poffs, p->poffs_cap, p->npoffs + n))
		return -ENOMEM;
	o = &p->origins[p->norigins];
	o->func = fi;
	o->first_poff = p->npoffs;
	o->nparams = n;
	for (i = 0; i < n; i++)
		p->poffs[p->npoffs++] = p->tmp[i].off;
	*origin_idx = p->norigins++;
	return u64map_put(&p->origin_map, off, *origin_idx);
}

/* ---- addresses ---- */

struct ranges_info {
	uint64_t lowest, first, entry;
	bool has_entry, any;
};

static int die_ranges(struct scan_priv *p, Dwarf_Die *die, struct ranges_info *ri)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	memset(ri, 0, sizeof(*ri));
	p->nranges = p->nvpts = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start) {
			/* GCC's view-only piece: the call, no code, at start */
			if (end == start && start) {
				if (GROW(p->vpts, p->vpts_cap, p->nvpts + 1))
					return -ENOMEM;
				p->vpts[p->nvpts++] = start;
			}
			continue;
		}
		if (GROW(p->ranges, p->ranges_cap, p->nranges + 1))
			return -ENOMEM;
		p->ranges[p->nranges].lo = start;
		p->ranges[p->nranges++].hi = end;
		if (!ri->any) {
			ri->first = ri->lowest = start;
			ri->any = true;
		} else if (start < ri->lowest) {
			ri->lowest = start;
		}
	}
	return 0;
}

static void die_entry_pc(Dwarf_Die *die, struct ranges_info *ri)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;
	Dwarf_Word w;

	if (!dwarf_attr(die, DW_AT_entry_pc, &a))
		return;
	switch (dwarf_whatform(&a)) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4:
	case DW_FORM_data8: case DW_FORM_udata: case DW_FORM_sdata:
		/* DWARF 5: an offset from the entity's base address. */
		if (dwarf_formudata(&a, &w) || !ri->any)
			return;
		if (dwarf_lowpc(die, &addr))
			addr = ri->first;
		ri->entry = addr + w;
		ri->has_entry = true;
		return;
	default:
		if (!dwarf_formaddr(&a, &addr)) {
			ri->entry = addr;
			ri->has_entry = true;
		}
	}
}

static bool in_ranges(const struct scan_priv *p, uint64_t addr)
{
	return scan_ranges_hold(p->ranges, p->nranges, addr);
}

static bool at_range_end(const struct scan_priv *p, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < p->nranges; i++)
		if (addr == p->ranges[i].hi)
			return true;
	return false;
}

static uint64_t probe_addr(const struct scan_priv *p, const struct ranges_info *ri)
{
	if (!ri->any)
		return ri->has_entry ? ri->entry : 0;
	switch (p->policy) {
	case BTFI_PROBE_ENTRY_PC:
		return ri->has_entry ? ri->entry : ri->lowest;
	case BTFI_PROBE_LOWEST:
		return ri->lowest;
	case BTFI_PROBE_FIRST_RANGE:
		return ri->first;
	case BTFI_PROBE_ENTRY_IN_RANGE:
		return ri->has_entry && in_ranges(p, ri->entry) ? ri->entry : ri->lowest;
	case BTFI_PROBE_PER_CALL:	/* the fallback; do_inline asks the CFG */
	default:
		return ri->has_entry ? ri->entry : ri->lowest;
	}
}

/* Entry of an out-of-line function: entry_pc, low_pc, else the first
 * listed range (GCC lists the hot part first; its symbol is there). */
static uint64_t func_entry(struct scan_priv *p, Dwarf_Die *die, bool *has_code)
{
	struct ranges_info ri;
	Dwarf_Addr lo;

	*has_code = false;
	if (dwarf_lowpc(die, &lo) == 0) {
		*has_code = true;
		die_ranges(p, die, &ri);
		die_entry_pc(die, &ri);
		return ri.has_entry ? ri.entry : lo;
	}
	if (die_ranges(p, die, &ri) || !ri.any)
		return 0;
	*has_code = true;
	die_entry_pc(die, &ri);
	return ri.has_entry ? ri.entry : ri.first;
}

/* ---- locations ---- */

/* Frame base of the enclosing function at addr, as a value reg + off. */
static int frame_base(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *fn,
		      uint64_t addr, uint32_t *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops, *cops;
	Dwarf_Frame *frame;
	size_t nops, ncops;
	int ret = -ENOENT;

	if (!fn || !dwarf_attr_integrate(fn, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) != 1)
		return -ENOENT;
	if (btfi_dwexpr_regoff(ops, nops, reg, off) == 0)
		return 0;
	if (nops != 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return -ENOENT;
	if (!p->cfi_tried) {
		p->cfi_tried = true;
		p->cfi_dw = dwarf_getcfi(s->dw);
		p->cfi_eh = dwarf_getcfi_elf(s->elf);
	}
	for (int i = 0; i < 2 && ret; i++) {
		Dwarf_CFI *cfi = i ? p->cfi_eh : p->cfi_dw;

		if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame))
			continue;
		if (dwarf_frame_cfa(frame, &cops, &ncops) == 0 &&
		    btfi_dwexpr_regoff(cops, ncops, reg, off) == 0)
			ret = 0;
		free(frame);
	}
	return ret;
}


static int bad_op(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *pdie,
		  Dwarf_Attribute *a)
{
	int op = scan_raw_bad_op(p, a);

	if (op <= 0)
		return 0;
	btfi_err(p->log, "%s: DIE 0x%llx: DWARF expression has unknown opcode 0x%02x",
		 s->path, (unsigned long long)dwarf_dieoffset(pdie), op);
	return -EINVAL;
}

/* One more expression of this shape the format cannot carry. */
static int count_shape(struct btfi_scan *s, struct scan_priv *p, const Dwarf_Op *ops, size_t nops)
{
	char text[sizeof(s->shapes[0].text)];
	uint32_t i;

	btfi_dwexpr_shape(ops, nops, text, sizeof(text));
	for (i = 0; i < s->nshapes; i++)
		if (!strcmp(s->shapes[i].text, text)) {
			s->shapes[i].count++;
			return 0;
		}
	if (GROW(s->shapes, p->shapes_cap, s->nshapes + 1))
		return -ENOMEM;
	memcpy(s->shapes[s->nshapes].text, text, sizeof(text));
	s->shapes[s->nshapes++].count = 1;
	return 0;
}

static int cmp_shape(const void *a, const void *b)
{
	const struct btfi_shape *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* The base types of the expression's DW_OP_converts, for dwexpr (a type
 * libdw cannot find is left out: dwexpr then refuses the convert). */
static int resolve_converts(struct scan_priv *p, Dwarf_Attribute *a, Dwarf_Op *ops,
			    size_t nops, struct btfi_dwexpr_in *in)
{
	size_t i, n = 0;
	Dwarf_Die t;

	for (i = 0; i < nops; i++) {
		if (ops[i].atom != DW_OP_convert && ops[i].atom != DW_OP_GNU_convert)
			continue;
		if (GROW(p->convs, p->convs_cap, n + 1))
			return -ENOMEM;
		p->convs[n].op_offset = ops[i].offset;
		p->convs[n].size = 0;
		p->convs[n].is_signed = false;
		if (ops[i].number) {	/* 0: the generic type */
			if (dwarf_getlocation_die(a, &ops[i], &t) ||
			    dwarf_tag(&t) != DW_TAG_base_type)
				continue;
			type_info(p, &t, &p->convs[n].size, &p->convs[n].is_signed, NULL);
			if (!p->convs[n].size)
				continue;
		}
		n++;
	}
	in->conv = p->convs;
	in->nconv = n;
	return 0;
}

/* One location description `ops` of pdie's DW_AT_location `a`, valid at
 * addr, into *loc (kind NONE with the reason if the format cannot carry
 * it; its shape counted if `count`). */
static int ops_loc(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		   Dwarf_Die *pdie, Dwarf_Attribute *a, const struct btfi_param *prm,
		   uint64_t addr, Dwarf_Op *ops, size_t nops, bool count, struct btfi_loc *loc)
{
	struct btfi_dwexpr_in in = { .size = prm->size, .is_signed = prm->is_signed,
				     .log = p->log, .what = p->what };
	Dwarf_Block blk;
	uint32_t reg;
	int64_t off;
	size_t i;
	int err;

	for (i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_implicit_value &&
		    dwarf_getlocation_implicit_value(a, &ops[i], &blk) == 0) {
			in.ival = blk.data;
			in.ival_len = blk.length;
			break;
		}
	}
	if ((err = resolve_converts(p, a, ops, nops, &in)))
		return err;
	for (i = 0; i < nops; i++) {
		/* Name the DIE only when dwexpr will complain. */
		if (!btfi_dwexpr_known_op(ops[i].atom)) {
			snprintf(p->what, sizeof(p->what), "%s: DIE 0x%llx", s->path,
				 (unsigned long long)dwarf_dieoffset(pdie));
			break;
		}
	}
	err = btfi_dwexpr_loc(ops, nops, &in, loc);
	if (err)
		return err;
	/* An address in a relocatable object (a module's static data)
	 * is section + offset; its sections load apart, and ADDR has
	 * one base for the whole file: no form for it. */
	if (loc->kind == BTFI_LOC_KADDR && s->di->relocatable) {
		loc->kind = BTFI_LOC_NONE;
		loc->reason = BTFI_R_UNSUPPORTED;
	}
	if (count && loc->kind == BTFI_LOC_NONE && loc->reason == BTFI_R_UNSUPPORTED &&
	    (err = count_shape(s, p, ops, nops)))
		return err;
	if (loc->kind != BTFI_LOC_NONE && loc->reg == BTFI_REG_FBREG) {
		Dwarf_Die fn = ctx->fn;

		if (frame_base(s, p, ctx->fn_valid ? &fn : NULL, addr, &reg, &off)) {
			loc->kind = BTFI_LOC_NONE;
			loc->reason = BTFI_R_NO_CFA;
		} else {
			btfi_dwexpr_rebase(loc, reg, off);
		}
	}
	return 0;
}

static int param_loc(struct btfi_scan *s, struct scan_priv *p, struct walk_ctx *ctx,
		     Dwarf_Die *pdie, const struct btfi_param *prm, uint64_t addr,
		     struct btfi_loc *loc)
{
	struct btfi_dwexpr_in in = { .size = prm->size, .is_signed = prm->is_signed,
				     .log = p->log, .what = p->what };
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	Dwarf_Block blk;
	Dwarf_Word w;
	size_t nops;
	int n, err;

	p->loc_by_view = false;
	if (dwarf_attr(pdie, DW_AT_location, &a)) {
		n = -1;
		if (ctx->has_view && dwarf_whatform(&a) != DW_FORM_exprloc) {
			struct btfi_locview_secs lvs = { p->loclists, p->loc, p->cu_version,
							 p->offset_size };

			n = btfi_loc_at_view(&lvs, pdie, &a, addr, ctx->view, &ops, &nops,
					     &p->loc_by_view);
		}
		/* An undefined opcode is corrupt input. A defined one libdw
		 * cannot decode (GCC's DW_OP_GNU_uninit) only makes this
		 * parameter unsupported, and only if it is the entry we need. */
		if (n == -2 && (err = bad_op(s, p, pdie, &a)))
			return err;
		if (n < 0)
			n = dwarf_getlocation_addr(&a, addr, &ops, &nops, 1);
		if (n < 0) {
			if ((err = bad_op(s, p, pdie, &a)))
				return err;
			loc->kind = BTFI_LOC_NONE;
			loc->reason = BTFI_R_UNSUPPORTED;
			p->nbad_exprs++;
			return 0;
		}
		if (n == 0) {
			loc->kind = BTFI_LOC_NONE;
			loc->reason = BTFI_R_NOT_AT_ADDR;
			return 0;
		}
		return ops_loc(s, p, ctx, pdie, &a, prm, addr, ops, nops, true, loc);
	}
	if (dwarf_attr(pdie, DW_AT_const_value, &a)) {
		switch (dwarf_whatform(&a)) {
		case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2:
		case DW_FORM_block4: case DW_FORM_exprloc:
			if (dwarf_formblock(&a, &blk) == 0)
				btfi_dwexpr_const_block(blk.data, blk.length, &in, loc);
			else
				loc->reason = BTFI_R_UNSUPPORTED;
			return 0;
		case DW_FORM_sdata: case DW_FORM_implicit_const:
			if (dwarf_formsdata(&a, (Dwarf_Sword *)&w) == 0) {
				btfi_dwexpr_const(w, &in, loc);
				return 0;
			}
			break;
		default:
			if (dwarf_formudata(&a, &w) == 0) {
				/* dataN: sign-extend per the parameter's type */
				if (prm->is_signed && prm->size && prm->size < 8 &&
				    (w >> (prm->size * 8 - 1)) & 1)
					w |= ~0ULL << (prm->size * 8);
				btfi_dwexpr_const(w, &in, loc);
				return 0;
			}
		}
		loc->kind = BTFI_LOC_NONE;
		loc->reason = BTFI_R_UNSUPPORTED;
		return 0;
	}
	loc->kind = BTFI_LOC_NONE;
	loc->reason = BTFI_R_NO_LOCATION;
	return 0;
}

/*
 * A parameter without a location at the probe's (address, view): GCC's
 * list often starts it at a later view of the same address (the
 * parameter's binding after the inline entry's marker), or as an empty
 * range there. No instruction runs between views of one address: that
 * location reads the machine state at the probe.
 */
static int next_view_loc(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
			 Dwarf_Die *pdie, const struct btfi_param *prm, uint64_t addr,
			 struct btfi_loc *loc)
{
	struct btfi_locview_secs lvs = { p->loclists, p->loc, p->cu_version, p->offset_size };
	struct btfi_loc t = { .size = prm->size, .is_signed = prm->is_signed };
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	int err;

	if (!dwarf_attr(pdie, DW_AT_location, &a) || dwarf_whatform(&a) == DW_FORM_exprloc ||
	    btfi_loc_next_view(&lvs, pdie, &a, addr, ctx->has_view, ctx->view, &ops, &nops) != 1)
		return 0;
	if ((err = ops_loc(s, p, ctx, pdie, &a, prm, addr, ops, nops, false, &t)))
		return err;
	/* Not a stack slot: GCC gives sqlite3VdbeSerialTypeLen's serial_type
	 * the slot the body stores it to later, from a later view of its
	 * entry on (the truth harness read another variable's value there). */
	if (t.kind == BTFI_LOC_NONE || t.kind == BTFI_LOC_KMEM)
		return 0;
	*loc = t;
	s->next_view++;
	p->loc_by_view = true;
	return 0;
}

/* Can the instance (ranges in p->ranges, probed at addr) be probed
 * somewhere in [b, e) (an empty range: at b, between two views)? */
static bool probeable(const struct scan_priv *p, uint64_t addr, uint64_t b, uint64_t e)
{
	if (b == e ? b == addr : b <= addr && addr < e)
		return true;
	for (uint32_t i = 0; i < p->nranges; i++)
		if (b == e ? p->ranges[i].lo <= b && b < p->ranges[i].hi :
			     b < p->ranges[i].hi && p->ranges[i].lo < e)
			return true;
	return false;
}

/* stats --ceiling: what the parameter's list says anywhere the instance
 * can be probed, at any view (loc: what the probe got). */
static int reach_loc(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		     Dwarf_Die *pdie, const struct btfi_param *prm, uint64_t addr,
		     const struct btfi_loc *loc, uint8_t *reach)
{
	Dwarf_Addr base, b, e;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t off = 0;
	int err;

	if (loc->kind != BTFI_LOC_NONE) {
		*reach = BTFI_REACH_ANY | BTFI_REACH_LOC;
		return 0;
	}
	if (loc->reason != BTFI_R_NO_LOCATION && loc->reason != BTFI_R_NO_ADDR &&
	    loc->reason != BTFI_R_NOT_AT_ADDR)
		*reach = BTFI_REACH_ANY;	/* something, the format cannot carry */
	if (!dwarf_attr(pdie, DW_AT_location, &a) || dwarf_whatform(&a) == DW_FORM_exprloc)
		return 0;	/* one expression everywhere: what the probe got */
	while ((off = dwarf_getlocations(&a, off, &base, &b, &e, &ops, &nops)) > 0) {
		struct btfi_loc t = { .size = prm->size, .is_signed = prm->is_signed };

		if (!nops || !probeable(p, addr, b, e))
			continue;
		*reach |= BTFI_REACH_ANY;
		if ((err = ops_loc(s, p, ctx, pdie, &a, prm, b < addr && addr < e ? addr : b,
				   ops, nops, false, &t)))
			return err;
		if (t.kind != BTFI_LOC_NONE) {
			*reach |= BTFI_REACH_LOC;
			return 0;
		}
	}
	return 0;
}

/* ---- the walk ---- */

static int walk_children(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *parent,
			 struct walk_ctx *ctx);

static int add_ool(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *die,
		   uint64_t entry, uint32_t *func, uint32_t *origin)
{
	Dwarf_Attribute a;
	Dwarf_Die root = *die, ref;
	uint32_t oi;
	struct btfi_func *f;
	int err, hops;

	for (hops = 0; hops < 8; hops++) {
		if (!dwarf_formref_die(dwarf_attr(&root, DW_AT_abstract_origin, &a), &ref))
			break;
		root = ref;
	}
	err = resolve_origin(s, p, &root, &oi);
	if (err)
		return err;
	*func = p->origins[oi].func;
	*origin = oi;
	f = &s->funcs[*func];
	f->nool++;
	if (!f->ool_addr)
		f->ool_addr = entry;
	if (!f->has_symbol && btfi_syms_has(&p->syms, entry, f->name)) {
		f->has_symbol = true;
		f->ool_addr = entry;
	}
	return 0;
}

static int site_locs(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		     Dwarf_Die *die, const struct ranges_info *ri, const struct scan_origin *o,
		     uint32_t si);
static int new_site(struct btfi_scan *s, struct scan_priv *p, const struct btfi_func *f,
		    uint32_t from, bool any, uint32_t *out);

/*
 * The entry of an out-of-line copy is probed by the calling convention
 * (trace's entry probe), unless the compiler changed the copy's ABI:
 * - a GCC clone of f (f.isra.N, f.constprop.N) is f's whole body with
 *   parameters dropped, replaced or folded: its calls are calls of f that
 *   f's entry never sees (gdb and perf probe stop in clones too);
 * - clang changes a static function's ABI without renaming it: a
 *   parameter every caller passes as the same constant is folded into the
 *   body (DW_AT_const_value), and its register holds anything.
 * There the parameters are where the copy's DWARF says at its entry: one
 * site of f (BTFI_SITE_ENTRY; not an instance), written only where that
 * differs from the calling convention or the copy is a clone
 * (entry_site()).
 *
 * abi_differs(): does an INTEGER-class parameter's location l[k] at the
 * entry differ from the register the calling convention gives it?
 */
static bool abi_differs(const struct btfi_scan *s, const struct btfi_func *f, const struct btfi_loc *l)
{
	uint32_t k, gp = f->ret_in_mem;

	for (k = 0; k < f->nparams; k++) {
		const struct btfi_param *prm = &s->params[f->first_param + k];

		/* only integer-class arguments in registers are compared */
		if (!prm->int_cls || !prm->size || prm->size > 8 || gp >= 6)
			return false;
		if (l[k].kind != BTFI_LOC_NONE &&
		    (l[k].kind != BTFI_LOC_KREG || l[k].reg != btfi_sysv_int_regs[gp]))
			return true;
		gp++;
	}
	return false;
}

/* Site si's marks: BTFI_SITE_REFUSED if `refused` (the caller knows by
 * what), BTFI_SITE_NOTRACE if a kernel's in a function the kprobe PMU
 * refuses. (Counted once the scan is done: count_marks().) */
static void mark_site(struct btfi_scan *s, const struct scan_priv *p, uint32_t si, bool refused)
{
	struct btfi_site *x = &s->sites[si];

	if (refused)
		x->flags |= BTFI_SITE_REFUSED;
	if (p->kernel && x->addr && scan_kernel_notrace(p, x->addr))
		x->flags |= BTFI_SITE_NOTRACE;
}

/* The entry site of the out-of-line copy ctx is in (die, origin oi), if
 * it is a clone or its ABI differs; none otherwise. */
static int entry_site(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		      Dwarf_Die *die, uint32_t oi)
{
	const struct scan_origin *o = &p->origins[oi];
	struct btfi_func *f = &s->funcs[o->func];
	struct ranges_info ri = { 0 };
	struct btfi_site *site;
	uint32_t si;
	bool clone;
	int err;

	clone = btfi_syms_clone_at(&p->syms, ctx->caller_addr, f->name);
	/* Only a static function's ABI can change without a new name, and
	 * only clang does that; asking libdw for every function's entry
	 * locations would cost a kernel scan about 40 MB. */
	if (!clone && (p->no_locations || !f->nparams || f->is_external || !p->abi_in_place ||
		       !btfi_syms_has(&p->syms, ctx->caller_addr, f->name)))
		return 0;
	err = new_site(s, p, f, NO_IDX, true, &si);
	if (err)
		return err;
	site = &s->sites[si];
	site->func = o->func;
	site->caller = ctx->caller;
	site->caller_addr = site->addr = ctx->caller_addr;
	site->shndx = addr_shndx(p, site->addr);
	site->flags = BTFI_SITE_ENTRY | (clone ? BTFI_SITE_CLONE : 0);
	err = site_locs(s, p, ctx, die, &ri, o, si);
	if (err)
		return err;
	if (!clone && !abi_differs(s, f, &s->locs[s->sites[si].first_loc])) {
		s->nsites--;		/* the last one: new_site appends */
		s->nlocs -= f->nparams;
		return 0;
	}
	/* (an entry: nowhere else to go; the kernel's tables say) */
	mark_site(s, p, si, p->kernel && scan_kernel_refused(p, s->sites[si].addr));
	if (clone)
		f->nclones++;
	s->entry_sites++;
	s->clone_entries += clone;
	return 0;
}

/*
 * Per-call: a way into one call's body that is the code of another call of
 * the same function, after that call's probe on every path (its
 * scan_cfg_only_after() spans), adds a second event to the other call's
 * (cross-jumping: GCC's jsonReturnString ends line 213401's
 * sqlite3_result_text64 with `jmp` into line 213416's instance, whose
 * extra way in that jump was: 114 events for 58 calls). The call that
 * runs there already has its event. Dropped here, when the function's
 * instances are all known (either may come first). Only extra ways: an
 * instance's first address stays (a call of its own starts there). The
 * same for a site on a branch that copies the instance's own branch
 * (scan_cfg_cross_branch(): the kernel's put_task_struct).
 */
static void drop_others_ways(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
			     uint32_t first, uint32_t nspans)
{
	uint32_t i, k, inst = NO_IDX, keep = first, u = s->entry_rows.nunprobed;

	if (p->policy != BTFI_PROBE_PER_CALL || p->nspans == nspans)
		return;
	while (u > 0 && s->entry_rows.unprobed[u - 1].site >= first)	/* by site, renumbered */
		u--;
	for (i = first; i < s->nsites; i++) {
		struct btfi_site *x = &s->sites[i];
		bool drop = false;

		if (!(x->flags & BTFI_SITE_EXTRA))
			inst = i;
		else if (inst != NO_IDX && (x->flags & BTFI_SITE_JUMP_IN) &&
			 !(s->sites[inst].flags & BTFI_SITE_SPLIT) && x->caller_addr == ctx->caller_addr)
			for (k = nspans; k < p->nspans && !drop; k++)
				drop = p->spans[k].func == x->func && p->spans[k].site != inst &&
				       p->spans[k].lo < x->addr && x->addr < p->spans[k].hi;
		if (drop) {
			s->probe.extra_addrs--;
			s->probe.others_ways++;
			s->probe.edges -= x->cond != 0;
			continue;
		}
		/* (the spans and the taken map still name sites by their old
		 * index: neither is asked again for this function) */
		if (u < s->entry_rows.nunprobed && s->entry_rows.unprobed[u].site == i)
			s->entry_rows.unprobed[u++].site = keep;
		s->sites[keep++] = *x;
	}
	s->nsites = keep;
}

static Dwarf_Die *lines_cu(struct scan_priv *p);

/* Is site d inside site a's instance (after it in DIE order, deeper)? */
static bool site_below(const struct btfi_scan *s, uint32_t a, uint32_t d)
{
	if (d <= a)
		return false;
	for (uint32_t i = a + 1; i < d; i++)
		if (!(s->sites[i].flags & BTFI_SITE_EXTRA) && s->sites[i].depth <= s->sites[a].depth)
			return false;
	return s->sites[d].depth > s->sites[a].depth;
}

/*
 * Per-call: an instance whose probe is entered only by a branch of
 * another call's of the same function, both of whose ways lie in that
 * call's code after its probe, is that call's tail. GCC cross-jumped two
 * calls into one path and DWARF split the path between them by address:
 * SQLite's jsonAppendSqlValue enters line 213351's jsonAppendRaw from
 * both lines' paths, and line 213358's instance is only the memcpy arm
 * of 213351's `jb` (246 events for 123 calls). The calls of both lines
 * run the first call's probe; the tail is no site (BTFI_SITE_SHARED).
 * The branch must go on down the body (scan_cfg_branch_on()): an `if (f(a)
 * || f(b))` also enters f(b) by one branch of f(a)'s, back at the top.
 * User space only, as every rule that reads the line table. Run before
 * drop_others_ways(), while the spans' site indexes hold.
 */
static void mark_shared_tails(struct btfi_scan *s, struct scan_priv *p, struct walk_ctx *ctx,
			      uint32_t first, uint32_t nspans)
{
	const uint8_t skip = BTFI_SITE_EXTRA | BTFI_SITE_SPLIT | BTFI_SITE_NOCODE |
			     BTFI_SITE_ENTRY | BTFI_SITE_SHARED;

	if (p->policy != BTFI_PROBE_PER_CALL || p->nspans == nspans || !p->cfg ||
	    !scan_cfg_is_for(p->cfg, die_key(p, &ctx->fn) + 1))
		return;
	for (uint32_t i = first; i < s->nsites; i++) {
		struct btfi_site *x = &s->sites[i];
		uint64_t j, o;

		if ((x->flags & skip) || x->cond || !x->addr || x->caller_addr != ctx->caller_addr ||
		    (i + 1 < s->nsites && (s->sites[i + 1].flags & BTFI_SITE_EXTRA)) ||
		    !scan_cfg_branch_on(p->cfg, lines_cu(p), x->addr, &j, &o))
			continue;
		for (uint32_t k = nspans; k < p->nspans; k++) {
			const struct scan_span *a = &p->spans[k];
			uint32_t m;

			if (a->func != x->func || a->site == i || j < a->lo || j >= a->hi ||
			    (s->sites[a->site].flags & BTFI_SITE_SHARED) || site_below(s, i, a->site))
				continue;
			for (m = nspans; m < p->nspans; m++)
				if (p->spans[m].site == a->site && p->spans[m].lo <= o && o < p->spans[m].hi)
					break;
			if (m < p->nspans) {
				x->flags |= BTFI_SITE_SHARED;
				break;
			}
		}
	}
}

static int do_subprogram(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *die)
{
	struct walk_ctx ctx = { .site = NO_IDX, .caller = NO_IDX, .scope_func = NO_IDX };
	bool has_code;
	uint64_t entry;
	uint32_t oi, first, nspans;
	int err;

	/* Declarations and abstract instance trees hold no instances. */
	if (dwarf_hasattr(die, DW_AT_declaration) || dwarf_hasattr(die, DW_AT_inline))
		return 0;
	entry = func_entry(p, die, &has_code);
	if (has_code) {
		err = add_ool(s, p, die, entry, &ctx.caller, &oi);
		if (err)
			return err;
		ctx.caller_addr = entry;
		ctx.scope_func = ctx.caller;
		ctx.fn = *die;
		ctx.fn_valid = true;
		err = entry_site(s, p, &ctx, die, oi);
		if (err)
			return err;
	}
	if (!dwarf_haschildren(die))
		return 0;
	first = s->nsites;
	nspans = p->nspans;
	err = walk_children(s, p, die, &ctx);
	if (!err && has_code) {
		mark_shared_tails(s, p, &ctx, first, nspans);
		drop_others_ways(s, p, &ctx, first, nspans);
	}
	p->nspans = nspans;
	return err;
}

static const char *call_file(struct scan_priv *p, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, off;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx))
		return NULL;
	if (!p->files_tried) {
		p->files_tried = true;
		p->nfnames = 0;
		if (dwarf_formudata(dwarf_attr(&p->cudie, DW_AT_stmt_list, &a), &off) == 0)
			scan_read_file_names(p, off);
	}
	return idx < p->nfnames ? p->fnames[idx] : NULL;
}

/* The function's own ranges, for its control flow. */
static int func_ranges(struct scan_priv *p, Dwarf_Die *fn)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	p->nfranges = 0;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (GROW(p->franges, p->franges_cap, p->nfranges + 1))
			return -ENOMEM;
		p->franges[p->nfranges].lo = start;
		p->franges[p->nfranges++].hi = end;
	}
	return 0;
}

/* The control flow of the enclosing function in p->cfg: 1 if there,
 * 0 if not (no code bytes), or -ENOMEM. A relocatable object's code is
 * followed in libdwfl's layout, its branch targets from p->relas. */
static int fn_cfg(struct scan_priv *p, struct walk_ctx *ctx)
{
	uint64_t key;
	int err;

	if (!ctx->fn_valid)
		return 0;
	if (!p->cfg && scan_cfg_new(&p->cfg))
		return -ENOMEM;
	key = die_key(p, &ctx->fn) + 1;		/* never 0 */
	if (!scan_cfg_is_for(p->cfg, key) && (err = func_ranges(p, &ctx->fn)))
		return err;
	err = scan_cfg_build(p->cfg, p, key, p->franges, p->nfranges, ctx->caller_addr);
	if (err == -ENOMEM)
		return err;
	return !err;
}

/* The unit whose line table tells the per-call rule which instructions
 * are line 0: none for a kernel, where libdw's decoded tables of every
 * unit would cost about 110 MB more (the stats goal is 400 MB) and GCC
 * puts no line-0 code inside instances. */
static Dwarf_Die *lines_cu(struct scan_priv *p)
{
	return p->kernel ? NULL : &p->cudie;
}

/* The per-call policy for the instance whose ranges are in p->ranges:
 * ch->n == 0 keeps the fallback (entry-pc's address). */
static int per_call(struct scan_priv *p, struct walk_ctx *ctx, Dwarf_Die *die,
		    const struct ranges_info *ri, uint64_t fallback, struct scan_cfg_choice *ch)
{
	int r;

	memset(ch, 0, sizeof(*ch));
	r = fn_cfg(p, ctx);
	if (r > 0) {
		scan_cfg_entries(p->cfg, p->ranges, p->nranges, p->vpts, p->nvpts, ri->entry,
				 ri->has_entry, fallback, lines_cu(p), die,
				 ctx->fn_valid ? &ctx->fn : NULL, ch);
		/* no answer: the fallback, where a probe can be */
		if (!ch->n)
			scan_cfg_settle(p->cfg, fallback, ch);
	}
	return r < 0 ? r : 0;
}

/*
 * An instance without code of its own (GCC: the body folded into the
 * caller's code, or nothing left of it but its arguments) keeps
 * DW_AT_entry_pc: where the call happens, an instruction of the caller.
 * perf probe and gdb stop there too; the parameters' location lists
 * often hold there only at the entry's view ([X, X) ranges of views).
 * Taken when it lies in the enclosing function's code and, where the
 * control flow is known, starts an instruction.
 */
static int nocode_entry(struct scan_priv *p, struct walk_ctx *ctx, const struct ranges_info *ri)
{
	int r;

	if (ri->any || !ri->has_entry || !ri->entry || !ctx->fn_valid ||
	    dwarf_haspc(&ctx->fn, ri->entry) != 1)
		return 0;
	r = fn_cfg(p, ctx);
	if (r < 0)
		return r;
	/* without control flow: the entry as DWARF gives it */
	return !r || scan_cfg_is_insn(p->cfg, ri->entry);
}

/* GCC's partial inlining: f's split-off part inlined back directly into
 * f, its call at f's own declaration (line and column). Real recursion
 * calls from inside f's body. */
static bool split_part(struct scan_priv *p, struct walk_ctx *ctx, uint32_t func,
		       Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute a;
	Dwarf_Word cl, dl, cf, df, cc, dc;

	if (ctx->scope_func != func || origin->cu != die->cu ||
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &cl) ||
	    dwarf_formudata(dwarf_attr_integrate(origin, DW_AT_decl_line, &a), &dl) || cl != dl ||
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &cf) ||
	    dwarf_formudata(dwarf_attr_integrate(origin, DW_AT_decl_file, &a), &df) || cf != df)
		return false;
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_column, &a), &cc) &&
	    !dwarf_formudata(dwarf_attr_integrate(origin, DW_AT_decl_column, &a), &dc) && cc != dc)
		return false;
	(void)p;
	return true;
}

/* Is addr already the probe of another instance of func in this
 * function, not one this instance is nested in (the same call, or
 * recursion at its first instruction: FORMAT.md)? */
static bool taken_at(const struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		     uint32_t func, uint64_t addr)
{
	const struct walk_ctx *w;
	uint32_t j;

	if (!u64map_get(&p->taken, (uint64_t)func << 32 ^ addr, &j) || j >= s->nsites ||
	    s->sites[j].func != func || s->sites[j].caller_addr != ctx->caller_addr)
		return false;
	for (w = ctx; w && w->site != j; w = w->up)
		;
	return !w;
}

/* ... one of ch's addresses? */
static bool taken_by_other(const struct btfi_scan *s, struct scan_priv *p,
			   const struct walk_ctx *ctx, uint32_t func, const struct scan_cfg_choice *ch)
{
	for (uint32_t i = 0; i < ch->n; i++)
		if (taken_at(s, p, ctx, func, ch->addr[i]))
			return true;
	return false;
}

/* A view-only piece another call of func already probes is a place where
 * both calls folded to nothing (SQLite's releasePage(pTrunk);
 * releasePage(pPrevTrunk) on allocateBtreePage's end-of-file path): one
 * probe there gives one event, the first instance's. Dropped here. */
static void drop_taken_views(const struct btfi_scan *s, struct scan_priv *p,
			     const struct walk_ctx *ctx, uint32_t func, struct scan_cfg_choice *ch)
{
	uint32_t i = ch->n - ch->views, keep = i;

	for (; i < ch->n; i++)
		if (!taken_at(s, p, ctx, func, ch->addr[i]))
			ch->addr[keep++] = ch->addr[i];
	ch->views -= ch->n - keep;
	ch->n = keep;
}

struct entry_view {		/* DW_AT_entry_pc and its DW_AT_GNU_entry_view */
	uint64_t addr, view;
	bool has;
};

/* Does nothing in `w` (btfi_insn_writes() bits) change where loc reads
 * from? A constant only holds looking back (before the body runs). */
static bool loc_unchanged(const struct btfi_loc *l, uint32_t w, bool back)
{
	switch (l->kind) {
	case BTFI_LOC_KREG_PAIR:
		if (l->reg2 > 15 || (w >> l->reg2 & 1))
			return false;
		/* fall through */
	case BTFI_LOC_KREG:
	case BTFI_LOC_KREG_OFF:
		return l->reg <= 15 && !(w >> l->reg & 1);
	case BTFI_LOC_KMEM:
		/* Not taken: GCC gives stack slots where the value is not
		 * (SQLite's sqlite3VdbeSerialTypeLen: fbreg -68 two bytes
		 * after its entry holds another variable; the truth harness
		 * read it there). */
		return false;
	case BTFI_LOC_KCONST:
	case BTFI_LOC_KADDR:
		return back;
	}
	return false;
}

/* What borrow_loc() looks at for one parameter. */
struct borrow {
	struct btfi_scan *s;
	struct scan_priv *p;
	struct walk_ctx nv;
	Dwarf_Die *pdie;
	const struct btfi_param *prm;
	const struct entry_view *ev;
	uint64_t lo[32], hi[32];	/* where its list has a location at all */
	uint32_t nr;
	const struct btfi_site *site;	/* the instance's */
};

/* Its location at addr (with the marker's view there); kind NONE if none. */
static int borrow_at(struct borrow *bc, uint64_t addr, struct btfi_loc *t)
{
	uint32_t k;

	*t = (struct btfi_loc){ .size = bc->prm->size, .is_signed = bc->prm->is_signed };
	for (k = 0; k < bc->nr && !(addr >= bc->lo[k] && addr < bc->hi[k]); k++)
		;
	if (k == bc->nr)
		return 0;
	bc->nv.has_view = bc->ev->has && addr == bc->ev->addr;
	bc->nv.view = bc->ev->view;
	return param_loc(bc->s, bc->p, &bc->nv, bc->pdie, bc->prm, addr, t);
}

/* What the steps st[0..n] may change, instruction by instruction. */
static uint32_t writes_upto(struct borrow *bc, const struct scan_cfg_step *st, uint32_t n)
{
	uint32_t w = 0;

	for (uint32_t j = 0; j <= n; j++)
		w |= scan_cfg_writes(bc->p->cfg, st[j].addr);
	return w;
}

/* Looking back from the instruction at `from` (itself included if incl):
 * the nearest location nothing between changes; the path, nearest first,
 * in st[0..*n). */
static int borrow_back(struct borrow *bc, uint64_t from, bool incl, struct btfi_loc *t,
		       struct scan_cfg_step *st, uint32_t *n, uint32_t max)
{
	uint32_t j = 0;
	int err;

	if (incl) {
		st[0] = (struct scan_cfg_step){ from, UINT32_MAX };
		j = 1;
	}
	*n = j + scan_cfg_path(bc->p->cfg, from, false, max - j, st + j);
	for (j = 0; j < *n; j++) {
		if ((err = borrow_at(bc, st[j].addr, t)))
			return err;
		if (t->kind != BTFI_LOC_NONE && loc_unchanged(t, writes_upto(bc, st, j), true)) {
			*n = j + 1;
			return 0;
		}
	}
	t->kind = BTFI_LOC_NONE;
	return 0;
}

/* Is a constant the code sets (`mov $imm, %rdi`) an address in a kernel
 * image? KASLR moves its code and data by one offset, which ADDR adds
 * (a KCONST would print the link-time address). Not the per-cpu
 * section's offsets, which start at 0 and are not moved; not a value of
 * a parameter narrower than a pointer (crc32c's polynomial). */
static bool image_addr(const struct scan_priv *p, uint64_t val, uint32_t size)
{
	return size == 8 && p->img_hi && val >= p->img_lo && val < p->img_hi;
}

/* Does the last write to DWARF register reg on the path st[0..n) (nearest
 * first) set it to the constant *want? */
static bool reg_set_to(struct borrow *bc, const struct scan_cfg_step *st, uint32_t n,
		       uint32_t reg, const struct btfi_loc *want)
{
	uint64_t val;
	bool pcrel;

	for (uint32_t j = 0; j < n; j++) {
		if (!(scan_cfg_writes(bc->p->cfg, st[j].addr) >> reg & 1))
			continue;
		if (!scan_cfg_const(bc->p->cfg, st[j].addr, reg, &val, &pcrel))
			return false;
		pcrel = pcrel || image_addr(bc->p, val, bc->prm->size);
		if (pcrel != (want->kind == BTFI_LOC_KADDR))
			return false;
		if (pcrel)
			return val == want->cval;
		/* compare as the parameter's size gives it */
		struct btfi_loc c = *want;

		btfi_dwexpr_const(val, &(struct btfi_dwexpr_in){ .size = bc->prm->size,
				  .is_signed = bc->prm->is_signed }, &c);
		return c.kind == BTFI_LOC_KCONST && c.cval == want->cval;
	}
	return false;
}

/* At a join (a loop head entered from before the loop and from its
 * latches): each way in, looking back, gives a location; the same
 * register on every way, or a constant on a way where that register was
 * just set to it (i = 0 before the loop), gives the register. */
static int borrow_join(struct borrow *bc, uint64_t addr, struct btfi_loc *loc)
{
	enum { PREDS = 8, STEPS = 16 };
	struct scan_cfg_step st[PREDS][STEPS];
	struct btfi_loc got[PREDS], *reg = NULL;
	uint64_t from[PREDS];
	uint32_t np, n[PREDS], k;
	int err;

	np = scan_cfg_preds(bc->p->cfg, addr, from, PREDS);
	if (np < 2)
		return 0;
	for (k = 0; k < np; k++) {
		if ((err = borrow_back(bc, from[k], true, &got[k], st[k], &n[k], STEPS)))
			return err;
		if (got[k].kind == BTFI_LOC_NONE)
			return 0;
		if (got[k].kind == BTFI_LOC_KREG) {
			if (reg && memcmp(reg, &got[k], sizeof(*reg)))
				return 0;
			reg = &got[k];
		} else if (got[k].kind != BTFI_LOC_KCONST && got[k].kind != BTFI_LOC_KADDR) {
			return 0;
		}
	}
	if (!reg || reg->reg > 15)
		return 0;
	for (k = 0; k < np; k++) {
		if (got[k].kind == BTFI_LOC_KREG)
			continue;
		/* the whole way back from the join, not only to the constant */
		st[k][0] = (struct scan_cfg_step){ from[k], UINT32_MAX };
		n[k] = 1 + scan_cfg_path(bc->p->cfg, from[k], false, STEPS - 1, st[k] + 1);
		if (!reg_set_to(bc, st[k], n[k], reg->reg, &got[k]))
			return 0;
	}
	*loc = *reg;
	return 1;
}

/*
 * Further on, where st[j] has the parameter in register R (or R + off),
 * and the way there wrote R: if it only copied R from R' (mov R, R'),
 * and nothing before that copy changed R' (no call on the way), the
 * value is in R' at the probe. The way, probe first: st[j]'s chain.
 */
static bool reg_copied(struct borrow *bc, const struct scan_cfg_step *st, uint32_t j,
		       struct btfi_loc *t)
{
	struct btfi_insn_step way[48];
	uint32_t n = 0, m, k;
	int src;

	if ((t->kind != BTFI_LOC_KREG && t->kind != BTFI_LOC_KREG_OFF) || t->reg > 15)
		return false;
	for (k = st[j].from; k != UINT32_MAX; k = st[k].from)
		if (n++ == sizeof(way) / sizeof(way[0]))
			return false;
	/* the chain runs back from st[j]: filled from the end, probe first */
	for (m = n, k = st[j].from; k != UINT32_MAX; k = st[k].from)
		scan_cfg_step_facts(bc->p->cfg, st[k].addr, &way[--m]);
	/* reg + off is a whole 64-bit sum: only a whole copy keeps it */
	src = btfi_insn_copy_source(way, n, (int)t->reg,
				    t->kind == BTFI_LOC_KREG ? bc->prm->size : 8);
	if (src < 0 || (uint32_t)src == t->reg)
		return false;
	t->reg = src;
	return true;
}

/*
 * Further on, the parameter is in register R (st[k] the way's last write
 * of it) and that write loads R from base + disp: clang computes an
 * argument from memory only past the inlined body's first test (SQLite's
 * sqlite3DbFree(pParse->db, p): the probe is at `test p`, db is loaded
 * after it). If nothing on the way before the load stores to memory,
 * calls or writes base, that memory holds the value at the probe.
 */
static bool reg_loaded(struct borrow *bc, const struct scan_cfg_step *st, uint32_t k,
		       struct btfi_loc *t)
{
	uint32_t base, bytes, w = 0, tsize = t->size && t->size < 8 ? t->size : 8;
	int64_t disp;
	bool sgn;

	if (t->kind != BTFI_LOC_KREG ||
	    !scan_cfg_load(bc->p->cfg, st[k].addr, t->reg, &base, &disp, &bytes, &sgn))
		return false;
	for (uint32_t m = st[k].from; m != UINT32_MAX; m = st[m].from)
		w |= scan_cfg_writes(bc->p->cfg, st[m].addr);
	if ((w & BTFI_INSN_W_MEM) || (w >> base & 1))
		return false;
	t->kind = BTFI_LOC_KMEM;
	t->reg = base;
	t->off = disp;
	if (tsize > bytes) {	/* the load extends a narrower slot */
		t->size = bytes;
		t->is_signed = sgn;
	}
	return true;
}

/*
 * Further on, the parameter is in register R and the way's last write of
 * R (st[k]) computes it from a register S: S + k (lea k(S), add or sub
 * $k, inc, dec) or S's low bytes extended (movzx, movsx, movsxd, mov r32).
 * clang computes an argument inside the inlined body, after its first
 * instruction (SQLite's sqlite3VdbeMemSetInt64(&aMem[1], ..): `lea
 * 0x70(%rbx),%rdi`). If nothing on the way before it writes S, the probe
 * reads the same value from S: REG|OFFSET or REG, narrowed to the bytes
 * the instruction keeps (docs/FORMAT.md, "Narrowed values").
 */
/*
 * Is the instruction at addr the caller's, computing an argument of the
 * call: its line-table row is the call's line, or line 0 (clang's
 * computations sunk past the body's first instruction) outside the
 * instance's ranges? A line of the body is the body changing the
 * parameter (SQLite's sqlite3BitvecTestNotNull: `i--;` is `lea -1(%r15),
 * %edx`, and from there on i is edx: r15 - 1 is not the argument). The
 * CU's line program is decoded (by libdw, once) only when this is asked.
 */
static bool arg_insn(struct borrow *bc, uint64_t addr)
{
	const struct btfi_site *site = bc->site;
	Dwarf_Line *l = dwarf_getsrc_die(&bc->p->cudie, addr);
	Dwarf_Addr la;
	const char *f, *cf = site->call_file;
	size_t nf, ncf;
	int line;

	if (!l || dwarf_lineaddr(l, &la) || dwarf_lineno(l, &line) || line < 0)
		return false;
	if (line == 0)
		return !in_ranges(bc->p, addr);
	if ((uint32_t)line != site->call_line || !cf || !(f = dwarf_linesrc(l, NULL, NULL)))
		return false;
	/* the same file, one name maybe relative: one ends the other at a '/' */
	nf = strlen(f);
	ncf = strlen(cf);
	if (nf < ncf) {
		const char *t = f;

		f = cf, cf = t;
		nf = ncf, ncf = strlen(cf);
	}
	return !strcmp(f + nf - ncf, cf) && (nf == ncf || f[nf - ncf - 1] == '/');
}

static bool reg_affine(struct borrow *bc, const struct scan_cfg_step *st, uint32_t k,
		       struct btfi_loc *t)
{
	uint32_t w = 0, size = t->size;
	struct btfi_insn_affine a;
	bool sgn = t->is_signed;

	if (t->kind != BTFI_LOC_KREG ||
	    !scan_cfg_affine(bc->p->cfg, st[k].addr, t->reg, &a) || a.src > 15)
		return false;
	for (uint32_t m = st[k].from; m != UINT32_MAX; m = st[m].from)
		w |= scan_cfg_writes(bc->p->cfg, st[m].addr);
	if ((w >> a.src & 1) || !btfi_insn_affine_read(&a, &size, &sgn) ||
	    !arg_insn(bc, st[k].addr))
		return false;
	t->kind = a.off ? BTFI_LOC_KREG_OFF : BTFI_LOC_KREG;
	t->reg = a.src;
	t->off = a.off;
	t->size = size;
	t->is_signed = sgn;
	return true;
}

/*
 * A parameter with no location at the probe: DWARF often gives one a few
 * instructions on (clang starts a location after the instruction that
 * sets it) or before. On the probe's paths, a location whose registers
 * (and memory) nothing between changes holds at the probe too; a register
 * that is set on the way to a constant (mov $imm, lea of an address) gives
 * that constant; at a loop head, the ways in are merged (borrow_join()).
 */
static int borrow_loc(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		      Dwarf_Die *pdie, const struct btfi_param *prm, uint32_t si,
		      const struct entry_view *ev, struct btfi_loc *loc)
{
	enum { STEPS = 48 };
	struct borrow bc = { .s = s, .p = p, .nv = *ctx, .pdie = pdie, .prm = prm, .ev = ev,
			     .site = &s->sites[si] };
	uint64_t addr = s->sites[si].addr;
	struct scan_cfg_step st[STEPS];
	struct btfi_loc t;
	uint64_t val, b, e, base;
	uint32_t n, j, k, w;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t off = 0;
	bool pcrel;
	int err;

	if (!dwarf_attr(pdie, DW_AT_location, &a))
		return 0;
	while ((off = dwarf_getlocations(&a, off, &base, &b, &e, &ops, &nops)) > 0) {
		/* Only a gap in the list is filled: where it does say something
		 * at the probe (another view, an expression we cannot carry),
		 * what it says further on may be a value the body computed
		 * already (GCC hoists `p = p->pRight` above the entry marker:
		 * SQLite's whereRightSubexprIsColumn, seen by the truth harness). */
		if ((b <= addr && addr < e) || (b == e && b == addr))
			return 0;
		if (bc.nr < 32 && (b < e || (ev->has && b == ev->addr))) {	/* [A, A): views at A */
			bc.lo[bc.nr] = b;
			bc.hi[bc.nr++] = b < e ? e : b + 1;
		}
	}
	if (!bc.nr)
		return 0;
	/* on: the first place each way with a location nothing changed */
	n = scan_cfg_path(p->cfg, addr, true, STEPS, st);
	for (j = 1; j < n; j++) {
		if ((err = borrow_at(&bc, st[j].addr, &t)))
			return err;
		if (t.kind == BTFI_LOC_NONE)
			continue;
		for (w = 0, k = st[j].from; k != UINT32_MAX; k = st[k].from)
			w |= scan_cfg_writes(p->cfg, st[k].addr);
		if (loc_unchanged(&t, w, false))
			goto found;
		if (reg_copied(&bc, st, j, &t)) {
			s->probe.reg_copy++;
			goto found;
		}
		/* the register's last setter on the way */
		if (t.kind != BTFI_LOC_KREG || t.reg > 15 || !(w >> t.reg & 1))
			continue;
		for (k = st[j].from;
		     k != UINT32_MAX && !(scan_cfg_writes(p->cfg, st[k].addr) >> t.reg & 1);
		     k = st[k].from)
			;
		if (k == UINT32_MAX)
			continue;
		if (reg_loaded(&bc, st, k, &t)) {
			s->probe.reg_load++;
			goto found;
		}
		if (reg_affine(&bc, st, k, &t)) {
			s->probe.reg_affine++;
			goto found;
		}
		if (!scan_cfg_const(p->cfg, st[k].addr, t.reg, &val, &pcrel))
			continue;
		if (pcrel || image_addr(p, val, prm->size)) {
			t.kind = BTFI_LOC_KADDR;
			t.cval = val;
		} else {
			btfi_dwexpr_const(val, &(struct btfi_dwexpr_in){ .size = prm->size,
					  .is_signed = prm->is_signed }, &t);
		}
		goto found;
	}
	/* back, on the one way here */
	if ((err = borrow_back(&bc, addr, false, &t, st, &n, STEPS)))
		return err;
	if (t.kind != BTFI_LOC_NONE)
		goto found;
	if ((err = borrow_join(&bc, addr, &t)) <= 0)
		return err;
found:
	*loc = t;
	s->probe.borrowed++;
	return 0;
}

/*
 * A parameter of an out-of-line copy with one location for the whole
 * function (DW_AT_location an expression, not a list) is described as it
 * is after the prologue: GCC gives the kernel's dmar_alloc_hwirq `id` as
 * `DW_OP_reg3 RBX`, which the prologue sets from %edi. At the entry only
 * a location in an argument register or on the caller's stack is the
 * argument's.
 */
static bool entry_unsure(Dwarf_Die *pdie, const struct btfi_loc *l)
{
	Dwarf_Attribute a;
	uint32_t r;

	if (!dwarf_attr(pdie, DW_AT_location, &a) || dwarf_whatform(&a) == DW_FORM_sec_offset ||
	    dwarf_whatform(&a) == DW_FORM_loclistx)
		return false;
	switch (l->kind) {
	case BTFI_LOC_KREG: case BTFI_LOC_KREG_OFF: case BTFI_LOC_KMEM:
		r = l->reg;
		return !(btfi_sysv_is_int_reg(r) || (r == 7 && l->kind == BTFI_LOC_KMEM));
	case BTFI_LOC_KREG_PAIR:
		return true;
	default:
		return false;
	}
}

/* Each parameter's location at site si's address. */
static int site_locs(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		     Dwarf_Die *die, const struct ranges_info *ri, const struct scan_origin *o,
		     uint32_t si)
{
	const struct btfi_func *f = &s->funcs[o->func];
	struct walk_ctx pctx = *ctx;
	Dwarf_Attribute a;
	Dwarf_Die child;
	Dwarf_Word w;
	struct btfi_loc *l;
	struct entry_view ev;
	uint32_t k, nth = 0;
	Dwarf_Die fn = ctx->fn;
	bool cfg_ok = p->policy == BTFI_PROBE_PER_CALL && p->cfg && ctx->fn_valid &&
		      scan_cfg_is_for(p->cfg, die_key(p, &fn) + 1) &&
		      scan_cfg_is_insn(p->cfg, s->sites[si].addr);
	int err;

	ev.has = ri->has_entry && dwarf_formudata(dwarf_attr(die, DW_AT_GNU_entry_view, &a), &w) == 0;
	ev.addr = ri->entry;
	ev.view = ev.has ? w : 0;
	/* A function's entry is view 0 of its first address: GCC gives the
	 * parameters' later views there too (wcswidth's n = %rsi - 1 after
	 * `n--` at the same address). */
	if (s->sites[si].flags & BTFI_SITE_ENTRY) {
		ev.has = true;
		ev.addr = s->sites[si].addr;
		ev.view = 0;
	}
	/* The entry view applies when probing at the entry pc itself. */
	pctx.has_view = ev.has && s->sites[si].addr == ev.addr;
	pctx.view = ev.view;
	if (p->no_locations || !f->nparams || dwarf_child(die, &child))
		return 0;
	do {
		Dwarf_Die ap;
		Dwarf_Off aoff;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		/* Map to the abstract list through abstract_origin; fall back
		 * to position. */
		k = nth++;
		if (dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &a), &ap)) {
			aoff = die_key(p, &ap);
			for (k = 0; k < o->nparams; k++)
				if (p->poffs[o->first_poff + k] == aoff)
					break;
		}
		if (k >= o->nparams)
			continue;
		l = &s->locs[s->sites[si].first_loc + k];
		err = param_loc(s, p, &pctx, &child, &s->params[f->first_param + k],
				s->sites[si].addr, l);
		if (!err && l->kind == BTFI_LOC_NONE && l->reason == BTFI_R_NOT_AT_ADDR &&
		    !(s->sites[si].flags & BTFI_SITE_ENTRY))
			err = next_view_loc(s, p, &pctx, &child, &s->params[f->first_param + k],
					    s->sites[si].addr, l);
		if (!err && (s->sites[si].flags & BTFI_SITE_ENTRY) && entry_unsure(&child, l)) {
			l->kind = BTFI_LOC_NONE;
			l->reason = BTFI_R_NOT_AT_ADDR;
		}
		/* Views order the states along the code as laid out: where other
		 * ways jump in, a location only views give is that of the way
		 * falling through (GCC: sqlite3_value_type's pVal = &nullMem at
		 * a join, true on the error path only; the truth harness read
		 * it on every call). */
		if (!err && (l->kind == BTFI_LOC_KCONST || l->kind == BTFI_LOC_KADDR) &&
		    p->loc_by_view && cfg_ok && scan_cfg_is_join(p->cfg, s->sites[si].addr)) {
			l->kind = BTFI_LOC_NONE;
			l->reason = BTFI_R_NOT_AT_ADDR;
			s->probe.join_view++;
		}
		/* moved back off an instruction the probes refuse: the
		 * location there, if what runs between leaves it (ip_rcv's
		 * NF_HOOK: pf and hook constants from its static key on) */
		if (!err && l->kind == BTFI_LOC_NONE && l->reason == BTFI_R_NOT_AT_ADDR &&
		    p->moved_at) {
			struct walk_ctx mctx = pctx;
			struct btfi_loc m = *l;

			mctx.has_view = ev.has && p->moved_at == ev.addr;
			err = param_loc(s, p, &mctx, &child, &s->params[f->first_param + k],
					p->moved_at, &m);
			if (!err && m.kind == BTFI_LOC_NONE && m.reason == BTFI_R_NOT_AT_ADDR)
				err = next_view_loc(s, p, &mctx, &child,
						    &s->params[f->first_param + k], p->moved_at, &m);
			if (!err && m.kind != BTFI_LOC_NONE && loc_unchanged(&m, p->moved_kill, true)) {
				*l = m;
				s->probe.moved_locs++;
			}
		}
		if (!err && l->kind == BTFI_LOC_NONE && l->reason == BTFI_R_NOT_AT_ADDR &&
		    cfg_ok)
			err = borrow_loc(s, p, &pctx, &child, &s->params[f->first_param + k],
					 si, &ev, l);
		if (!err && p->ceiling && !(s->sites[si].flags & BTFI_SITE_EXTRA))
			err = reach_loc(s, p, &pctx, &child, &s->params[f->first_param + k],
					s->sites[si].addr, l,
					&s->reach[s->sites[si].first_loc + k]);
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* A site at a loop's exits (BTFI_PROBE_HOW_POSTLOOP): the locations
 * where the loop is entered, each kept if the loop leaves it alone; the
 * loop's exit is the caller's code, and where DWARF gives the parameter
 * there it is the variable after the loop (findRightmost's p). */
static int loop_exit_locs(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
			  Dwarf_Die *die, const struct ranges_info *ri, const struct scan_origin *o,
			  uint32_t si, const struct scan_cfg_choice *ch)
{
	struct btfi_site *site = &s->sites[si];
	uint64_t addr = site->addr;
	int err;

	site->addr = ch->locs_at;
	err = site_locs(s, p, ctx, die, ri, o, si);
	site = &s->sites[si];
	site->addr = addr;
	if (err)
		return err;
	for (uint32_t k = 0; k < site->nlocs; k++) {
		struct btfi_loc *l = &s->locs[site->first_loc + k];

		if (l->kind == BTFI_LOC_NONE || loc_unchanged(l, ch->locs_kill, true))
			continue;
		l->kind = BTFI_LOC_NONE;
		l->reason = BTFI_R_NOT_AT_ADDR;
		s->probe.loop_changed++;
	}
	return 0;
}

/* A site on a branch of the caller's (ch->cond[k]): the locations where
 * it goes, ch->at[k]; the branch changes nothing else. */
static int edge_locs(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		     Dwarf_Die *die, const struct ranges_info *ri, const struct scan_origin *o,
		     uint32_t si, const struct scan_cfg_choice *ch, uint32_t k)
{
	uint64_t addr = s->sites[si].addr;
	int err;

	s->sites[si].addr = ch->at[k];
	err = site_locs(s, p, ctx, die, ri, o, si);
	s->sites[si].addr = addr;
	s->sites[si].cond = ch->cond[k];
	return err;
}

/* A site at a plain address ch->addr[k]: if it was moved back off an
 * instruction the probes refuse (ch->at[k]), a parameter without a
 * location there has the one it has at that instruction when what runs
 * between leaves it alone (site_locs()). */
static int moved_locs(struct btfi_scan *s, struct scan_priv *p, const struct walk_ctx *ctx,
		      Dwarf_Die *die, const struct ranges_info *ri, const struct scan_origin *o,
		      uint32_t si, const struct scan_cfg_choice *ch, uint32_t k)
{
	int err;

	if (k < ch->n && !ch->cond[k]) {
		p->moved_at = ch->at[k];
		p->moved_kill = ch->kill[k];
	}
	err = site_locs(s, p, ctx, die, ri, o, si);
	p->moved_at = 0;
	return err;
}

/* A new site for instance `from` (or a fresh one if from == NO_IDX), its
 * locations unset. */
static int new_site(struct btfi_scan *s, struct scan_priv *p, const struct btfi_func *f,
		    uint32_t from, bool any, uint32_t *out)
{
	uint32_t si, i;

	if (GROW(s->sites, p->sites_cap, s->nsites + 1) ||
	    GROW(s->locs, p->locs_cap, s->nlocs + f->nparams) ||
	    (p->ceiling && GROW(s->reach, p->reach_cap, s->nlocs + f->nparams)))
		return -ENOMEM;
	if (p->ceiling)
		memset(s->reach + s->nlocs, 0, f->nparams);
	si = s->nsites++;
	if (from != NO_IDX)
		s->sites[si] = s->sites[from];
	else
		memset(&s->sites[si], 0, sizeof(s->sites[si]));
	s->sites[si].first_loc = s->nlocs;
	s->sites[si].nlocs = f->nparams;
	for (i = 0; i < f->nparams; i++) {
		struct btfi_loc *l = &s->locs[s->nlocs + i];
		const struct btfi_param *prm = &s->params[f->first_param + i];

		memset(l, 0, sizeof(*l));
		l->size = prm->size;
		l->is_signed = prm->is_signed;
		l->reason = any ? BTFI_R_NO_LOCATION : BTFI_R_NO_ADDR;
	}
	s->nlocs += f->nparams;
	*out = si;
	return 0;
}

/* The function an inlined instance is of: its abstract_origin chain's
 * root (also across units); die itself if it has none. */
static void root_origin(Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute a;
	Dwarf_Die ref;

	*origin = *die;
	for (int i = 0; i < 8 && dwarf_formref_die(dwarf_attr(origin, DW_AT_abstract_origin, &a), &ref);
	     i++)
		*origin = ref;
}

/* Does an instance under scope (other than die) of the function whose
 * key is key hold addr in its ranges or begin there (entry_pc)? */
static bool claimed_by_other(struct scan_priv *p, Dwarf_Die *scope, Dwarf_Die *die, uint64_t key,
			     uint64_t addr)
{
	Dwarf_Die c, o;
	Dwarf_Addr e;
	int tag;

	if (dwarf_child(scope, &c))
		return false;
	do {
		tag = dwarf_tag(&c);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (tag == DW_TAG_inlined_subroutine && dwarf_dieoffset(&c) != dwarf_dieoffset(die) &&
		    (dwarf_haspc(&c, addr) == 1 || (!dwarf_entrypc(&c, &e) && e == addr))) {
			root_origin(&c, &o);
			if (die_key(p, &o) == key)
				return true;
		}
		if (claimed_by_other(p, &c, die, key, addr))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The unit whose line table GCC's inline-entry rows are read from: the
 * one walked (user space, a module); for a kernel image, the same unit
 * from a handle of its own, ended every ROWS_UNITS units, since libdw
 * keeps each decoded table until dwarf_end() (a vmlinux's cost 145 MB
 * more on the walk's handle, and the stats goal is 400 MB). Stored
 * uncompressed, the handle maps the file itself, and its .debug_info is
 * dropped behind the unit as trim_info() drops the walk's: finding a
 * unit reads every unit header before it, and the kernel maps the pages
 * around each (100 MB for a vmlinux); compressed, it reads the walk's Elf
 * (libelf's decompressed copy). NULL if the unit cannot be read. */
#define ROWS_UNITS 64

static void rows_end(struct scan_priv *p)
{
	if (p->rows_dw)
		dwarf_end(p->rows_dw);
	if (p->rows_elf)
		elf_end(p->rows_elf);
	if (p->rows_fd > 0)
		close(p->rows_fd);
	p->rows_dw = NULL;
	p->rows_elf = NULL;
	p->rows_fd = 0;
}

/*
 * Peak RSS: a walk touches .debug_info once, front to back, so drop the
 * pages of a mapping of the file (base, size bytes) before the current
 * CU, in 16 MB steps, *trimmed the offset dropped up to (MADV_DONTNEED on
 * a read-only file mapping only forgets them; a later cross-CU reference
 * faults them back from the page cache). Keeps a kernel scan well under
 * 400 MB.
 */
static void drop_info(const struct scan_priv *p, char *base, size_t size, uint64_t cu_off,
		      uint64_t *trimmed)
{
	uint64_t pg = sysconf(_SC_PAGESIZE), from, upto;

	if (!base || !p->info_size || cu_off > p->info_size || p->info_off + cu_off > size)
		return;
	upto = (p->info_off + cu_off) & ~(pg - 1);
	from = *trimmed ? *trimmed : p->info_off & ~(pg - 1);
	if (upto < from + (16u << 20))
		return;
	madvise(base + from, upto - from, MADV_DONTNEED);
	*trimmed = upto;
}

/* the walk's own mapping */
static void trim_info(struct scan_priv *p, uint64_t cu_off)
{
	drop_info(p, p->map, p->map_size, cu_off, &p->trimmed);
}

/* the line tables' handle's (libelf maps the file page-aligned:
 * elf_rawfile() is its start) */
static void rows_trim(struct scan_priv *p, uint64_t cu_off)
{
	size_t size = 0;
	char *base = p->rows_elf ? elf_rawfile(p->rows_elf, &size) : NULL;

	drop_info(p, base, size, cu_off, &p->rows_trimmed);
}

static Dwarf_Die *rows_cu(struct scan_priv *p)
{
	Dwarf_Off off;

	if (!p->kernel || p->rows_walk)
		return &p->cudie;
	off = dwarf_dieoffset(&p->cudie);
	if (p->rows_dw && p->rows_off == off)
		return p->rows_ok ? &p->rows_cudie : NULL;
	if (p->rows_dw && ++p->rows_units >= ROWS_UNITS)
		rows_end(p);
	if (!p->rows_dw) {
		if (p->rows_path) {
			p->rows_fd = open(p->rows_path, O_RDONLY | O_CLOEXEC);
			p->rows_elf = p->rows_fd > 0 ? elf_begin(p->rows_fd, ELF_C_READ_MMAP, NULL) : NULL;
			p->rows_dw = p->rows_elf ? dwarf_begin_elf(p->rows_elf, DWARF_C_READ, NULL) : NULL;
		} else {
			p->rows_dw = dwarf_begin_elf(dwarf_getelf(dwarf_cu_getdwarf(p->cudie.cu)),
						     DWARF_C_READ, NULL);
		}
		if (!p->rows_dw) {	/* the walk's handle, then: its memory */
			rows_end(p);
			p->rows_walk = true;
			return &p->cudie;
		}
		p->rows_units = 0;
		p->rows_trimmed = 0;
		/* (libdw reads every unit header before off: dropped as it goes) */
		for (Dwarf_Off u = 0, next; u < off; u = next) {
			Dwarf_Die d;
			size_t hsize;

			if (dwarf_nextcu(p->rows_dw, u, &next, &hsize, NULL, NULL, NULL) ||
			    !dwarf_offdie(p->rows_dw, u + hsize, &d))
				break;
			rows_trim(p, u);
		}
	}
	p->rows_off = off;
	p->rows_ok = dwarf_offdie(p->rows_dw, off, &p->rows_cudie) != NULL;
	if (p->rows_ok)
		rows_trim(p, off);
	return p->rows_ok ? &p->rows_cudie : NULL;
}

/* Where ch's addresses count a call: a branch site's target, else the
 * address; into out[]; how many. */
static uint32_t probe_points(const struct scan_cfg_choice *ch, uint64_t *out)
{
	for (uint32_t i = 0; i < ch->n; i++)
		out[i] = ch->cond[i] ? ch->at[i] : ch->addr[i];
	return ch->n;
}

/*
 * GCC's inline-entry row of the instance copied onto paths that none of
 * ch's addresses shares (tail duplication the rules of scan_cfg.c did
 * not take: zstd's BIT_reloadDStream on the end-of-buffer way,
 * __prepare_ICR folded to a constant on the NMI way): the line table
 * says a call begins there, so each is a way in of its own, unless
 * another instance of the function claims the address (DWARF giving one
 * call's code to another: sk_setsockopt's sock_valbool_flag for
 * SO_BROADCAST holds the `lea` that begins each other option's call) or
 * probes it already. Not for a loop's exits (one set of locations) nor a
 * split part.
 */
static int entry_copies(struct btfi_scan *s, struct scan_priv *p, struct walk_ctx *ctx,
			Dwarf_Die *die, Dwarf_Die *origin, uint32_t func, struct scan_cfg_choice *ch)
{
	uint64_t probes[SCAN_CFG_MAX_ENTRIES], rows[SCAN_CFG_MAX_ENTRIES], key;
	uint32_t np, nrows = SCAN_CFG_MAX_ENTRIES;
	Dwarf_Die *cu;
	int r;

	if (!ch->n || ch->locs_at || !ctx->fn_valid || split_part(p, ctx, func, die, origin))
		return 0;
	r = fn_cfg(p, ctx);	/* (built already for per-call) */
	if (r <= 0 || !(cu = rows_cu(p)))
		return r < 0 ? r : 0;
	np = probe_points(ch, probes);
	if (scan_cfg_entry_rows(p->cfg, cu, die, p->ranges, p->nranges, probes, np, rows, &nrows) < 2)
		return 0;
	key = die_key(p, origin);
	for (uint32_t k = 0; k < nrows && ch->n < SCAN_CFG_MAX_ENTRIES; k++) {
		uint32_t at = ch->n - ch->views;	/* the view-only pieces stay last */

		if (taken_at(s, p, ctx, func, rows[k]) ||
		    claimed_by_other(p, &ctx->fn, die, key, rows[k]))
			continue;
		memmove(&ch->addr[at + 1], &ch->addr[at], ch->views * sizeof(ch->addr[0]));
		memmove(&ch->cond[at + 1], &ch->cond[at], ch->views * sizeof(ch->cond[0]));
		memmove(&ch->at[at + 1], &ch->at[at], ch->views * sizeof(ch->at[0]));
		memmove(&ch->kill[at + 1], &ch->kill[at], ch->views * sizeof(ch->kill[0]));
		ch->addr[at] = rows[k];
		ch->cond[at] = 0;
		ch->at[at] = 0;
		ch->kill[at] = 0;
		ch->n++;
		s->probe.entry_copies++;
	}
	return 0;
}

/* opts.entry_rows: does the instance (site si, probed at ch) have GCC's
 * inline-entry row on alternative paths, and a probe on each one's path? */
static int count_entry_rows(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *die, uint32_t si,
			    const struct scan_cfg_choice *ch)
{
	uint64_t probes[SCAN_CFG_MAX_ENTRIES], unprobed;
	uint32_t np = probe_points(ch, probes), rows, nun = 1;
	Dwarf_Die *cu = rows_cu(p);
	bool each;

	if (!np && s->sites[si].addr)
		probes[np++] = s->sites[si].addr;
	if (!cu)
		return 0;
	rows = scan_cfg_entry_rows(p->cfg, cu, die, p->ranges, p->nranges, probes, np,
				   &unprobed, &nun);
	if (rows < 2)
		return 0;
	each = !nun;
	if (nun) {
		if (GROW(s->entry_rows.unprobed, s->entry_rows.unprobed_cap, s->entry_rows.nunprobed + 1))
			return -ENOMEM;
		s->entry_rows.unprobed[s->entry_rows.nunprobed].site = si;
		s->entry_rows.unprobed[s->entry_rows.nunprobed++].addr = unprobed;
	}
	s->entry_rows.instances++;
	s->entry_rows.each += each;
	if (np < rows) {
		s->entry_rows.fewer++;
		s->entry_rows.fewer_each += each;
	}
	return 0;
}

static int do_inline(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *die,
		     struct walk_ctx *ctx)
{
	struct walk_ctx sub = *ctx;
	struct scan_cfg_choice ch = { 0 };
	struct ranges_info ri;
	Dwarf_Attribute a;
	Dwarf_Die origin;
	Dwarf_Word w;
	struct btfi_site *site;
	struct btfi_func *f;
	const struct scan_origin *o;
	uint32_t oi, i, si, xi;
	int err, nocode;

	root_origin(die, &origin);
	err = resolve_origin(s, p, &origin, &oi);
	if (err)
		return err;
	o = &p->origins[oi];
	f = &s->funcs[o->func];

	err = die_ranges(p, die, &ri);
	if (err)
		return err;
	die_entry_pc(die, &ri);

	nocode = nocode_entry(p, ctx, &ri);
	if (nocode < 0)
		return nocode;
	err = new_site(s, p, f, NO_IDX, ri.any || nocode, &si);
	if (err)
		return err;
	site = &s->sites[si];
	site->func = o->func;
	site->caller = ctx->caller;
	site->caller_addr = ctx->caller_addr;
	site->addr = ri.any ? probe_addr(p, &ri) : nocode ? ri.entry : 0;
	if (nocode) {
		site->flags |= BTFI_SITE_NOCODE;
		s->entry_pc.nocode++;
	}
	if (ri.any && p->policy == BTFI_PROBE_PER_CALL) {
		err = per_call(p, ctx, die, &ri, site->addr, &ch);
		if (err)
			return err;
		drop_taken_views(s, p, ctx, o->func, &ch);
		/* Two calls of f, one probe: one event for both. GCC can put
		 * both markers at one address; their code is apart. */
		if (ch.n && ri.has_entry && taken_by_other(s, p, ctx, o->func, &ch)) {
			struct scan_cfg_choice alt;

			scan_cfg_entries(p->cfg, p->ranges, p->nranges, p->vpts, p->nvpts, 0, false,
					 ch.addr[0], lines_cu(p), die,
					 ctx->fn_valid ? &ctx->fn : NULL, &alt);
			drop_taken_views(s, p, ctx, o->func, &alt);
			if (alt.n && !taken_by_other(s, p, ctx, o->func, &alt)) {
				ch = alt;
				s->probe.unshared++;
			}
		}
		err = entry_copies(s, p, ctx, die, &origin, o->func, &ch);
		if (err)
			return err;
		site = &s->sites[si];
		site->how = ch.how;
		s->probe.how[ch.how]++;
		if (ch.n) {
			site->addr = ch.addr[0];
			s->probe.extra_addrs += ch.n - 1;
			s->probe.copies += ch.copies;
			s->probe.views += ch.views;
			s->probe.nop_skipped += ch.nop_skipped;
			s->probe.refused_moved += ch.refused_moved;
			s->probe.back_moved += ch.back_moved;
			s->probe.cut += ch.cut;
			s->probe.edges += ch.edges;
		}
	} else if (nocode && p->policy == BTFI_PROBE_PER_CALL && p->cfg &&
		   scan_cfg_settle(p->cfg, site->addr, &ch)) {
		/* the call's place an instruction the probes refuse: the
		 * ways to it (nocode_entry() built the function's graph) */
		site->addr = ch.addr[0];
		s->probe.refused_moved += ch.refused_moved;
		s->probe.extra_addrs += ch.n - 1;
		s->probe.edges += ch.edges;
	}

	if (ri.any && ri.has_entry) {
		s->entry_pc.with_entry_pc++;
		if (in_ranges(p, ri.entry))
			s->entry_pc.inside++;
		else if (at_range_end(p, ri.entry))
			s->entry_pc.at_range_end++;
		else
			s->entry_pc.outside++;
	}
	site->shndx = site->addr ? addr_shndx(p, site->addr) : 0;
	site->depth = ctx->depth + 1;
	site->call_file = call_file(p, die);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0)
		site->call_line = w;
	if (split_part(p, ctx, o->func, die, &origin)) {
		site->flags |= BTFI_SITE_SPLIT;
		s->split_parts++;
	}
	f->nsites++;
	if (!site->addr)
		f->nsites_noaddr++;

	err = ch.locs_at ? loop_exit_locs(s, p, ctx, die, &ri, o, si, &ch) :
	      ch.n && ch.cond[0] ? edge_locs(s, p, ctx, die, &ri, o, si, &ch, 0) :
	      site->addr ? moved_locs(s, p, ctx, die, &ri, o, si, &ch, 0) : 0;
	if (err)
		return err;
	/* The other paths into the body: the same call, one address each. */
	for (i = 1; i < ch.n; i++) {
		err = new_site(s, p, f, si, true, &xi);
		if (err)
			return err;
		s->sites[xi].flags |= BTFI_SITE_EXTRA;
		s->sites[xi].cond = 0;
		if (i < ch.n - ch.views && !in_ranges(p, ch.addr[i]) &&
		    (ch.cond[i] ? scan_cfg_cross_branch(p->cfg, ch.addr[i], ch.at[i], p->ranges, p->nranges) :
		     scan_cfg_cross_jump(p->cfg, lines_cu(p), ch.addr[i], p->ranges, p->nranges)))
			s->sites[xi].flags |= BTFI_SITE_JUMP_IN;
		s->sites[xi].addr = ch.addr[i];
		s->sites[xi].shndx = addr_shndx(p, ch.addr[i]);
		if (ch.locs_at) {	/* one loop's exits: one set of locations */
			if (!f->nparams)	/* (locs may be NULL then) */
				continue;
			memcpy(&s->locs[s->sites[xi].first_loc], &s->locs[s->sites[si].first_loc],
			       f->nparams * sizeof(*s->locs));
			if (p->ceiling)
				memcpy(&s->reach[s->sites[xi].first_loc],
				       &s->reach[s->sites[si].first_loc], f->nparams);
		} else if ((err = ch.cond[i] ? edge_locs(s, p, ctx, die, &ri, o, xi, &ch, i) :
				  moved_locs(s, p, ctx, die, &ri, o, xi, &ch, i))) {
			return err;
		}
	}
	/* what is left on an instruction the probes refuse (no way round) */
	for (xi = si; xi < s->nsites; xi++)
		mark_site(s, p, xi, p->policy == BTFI_PROBE_PER_CALL && p->cfg && s->sites[xi].addr &&
			  !s->sites[xi].cond && scan_cfg_refused(p->cfg, s->sites[xi].addr));
	if (p->entry_rows && ri.any && !(s->sites[si].flags & BTFI_SITE_SPLIT)) {
		int r = fn_cfg(p, ctx);	/* (built already for per-call) */

		if (r < 0)
			return r;
		if (r && (err = count_entry_rows(s, p, die, si, &ch)))
			return err;
	}
	if (p->policy == BTFI_PROBE_PER_CALL && s->sites[si].addr) {
		for (i = 0; i < ch.n || i == 0; i++) {
			uint64_t a = i ? ch.addr[i] : s->sites[si].addr;
			struct scan_range sp[8];
			uint32_t nsp = 0;

			if ((err = u64map_put(&p->taken, (uint64_t)o->func << 32 ^ a, si)))
				return err;
			/* (only drop_others_ways() reads them, for
			 * BTFI_SITE_JUMP_IN ways: a `jmp` needs the line
			 * table, a branch does not) */
			if (p->cfg && !(s->sites[si].flags & BTFI_SITE_SPLIT))
				nsp = scan_cfg_only_after(p->cfg, ch.n && ch.cond[i] ? ch.at[i] : a,
							  p->ranges, p->nranges, sp, 8);
			if (GROW(p->spans, p->spans_cap, p->nspans + nsp))
				return -ENOMEM;
			for (uint32_t k = 0; k < nsp; k++)
				p->spans[p->nspans++] = (struct scan_span){ sp[k].lo, sp[k].hi, o->func, si };
		}
	}
	if (!dwarf_haschildren(die))
		return 0;
	sub.depth = ctx->depth + 1;
	sub.scope_func = o->func;
	sub.up = ctx;
	sub.site = si;
	return walk_children(s, p, die, &sub);
}

static int walk_children(struct btfi_scan *s, struct scan_priv *p, Dwarf_Die *parent,
			 struct walk_ctx *ctx)
{
	Dwarf_Die d;
	int err = 0, r;

	r = dwarf_child(parent, &d);
	if (r)
		goto out;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			err = do_subprogram(s, p, &d);
			break;
		case DW_TAG_inlined_subroutine:
			err = do_inline(s, p, &d, ctx);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			if (dwarf_haschildren(&d))
				err = walk_children(s, p, &d, ctx);
			break;
		default:
			/* Types, variables, parameters: no code below. */
			break;
		}
		if (err)
			return err;
	} while ((r = dwarf_siblingof(&d, &d)) == 0);
out:
	if (r < 0) {
		btfi_err(p->log, "%s: corrupt DWARF below DIE 0x%llx: %s", s->path,
			 (unsigned long long)dwarf_dieoffset(parent), dwarf_errmsg(-1));
		return -EINVAL;
	}
	return 0;
}

/* Is the unit GCC's (DW_AT_producer "GNU C..."): GCC renames a function
 * whose ABI it changes (entry_site()). */
static bool producer_is_gcc(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *prod = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	return prod && !strncmp(prod, "GNU ", 4);
}

/* Whether a unit's code holds one of opts' unit_addrs. A unit whose
 * ranges cannot be read is walked. */
static bool unit_wanted(struct scan_priv *p, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		size_t l = 0, r = p->nunit_addrs;

		while (l < r) {		/* first address >= lo */
			size_t m = l + (r - l) / 2;

			if (p->unit_addrs[m] < lo)
				l = m + 1;
			else
				r = m;
		}
		if (l < p->nunit_addrs && p->unit_addrs[l] < hi)
			return true;
	}
	return off < 0;
}

static int scan_dwarf(struct btfi_scan *s, struct scan_priv *p)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	uint8_t unit_type, asz;
	Dwarf_Die cudie, subdie, tmp, *walk;
	struct walk_ctx ctx = { .site = NO_IDX, .caller = NO_IDX, .scope_func = NO_IDX };
	int err, r, tag;

	while ((r = dwarf_get_units(s->dw, cu, &cu, &version, &unit_type, &cudie, &subdie)) == 0) {
		walk = &cudie;
		/* partial units (dwz) hold no code but what others import */
		if (p->unit_addrs && unit_type != DW_UT_partial && !unit_wanted(p, &cudie))
			continue;
		if (unit_type == DW_UT_skeleton) {
			/* -gsplit-dwarf: the body is in a .dwo (libdw finds it) */
			err = scan_split_enter(s, p, &cudie, &subdie);
			if (err)
				return err;
			walk = &subdie;
		} else if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) {
			continue;
		}
		tag = dwarf_tag(&cudie);
		if (tag == DW_TAG_invalid) {
			btfi_err(p->log, "%s: corrupt DWARF: unit at 0x%llx has no valid DIE: %s",
				 s->path, (unsigned long long)dwarf_dieoffset(&cudie), dwarf_errmsg(-1));
			return -EINVAL;
		}
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit &&
		    tag != DW_TAG_skeleton_unit) {
			scan_split_leave(s, p);
			continue;
		}
		if (dwarf_diecu(&cudie, &tmp, &asz, NULL) && asz)
			p->addr_size = asz;
		p->cudie = cudie;
		p->abi_in_place = !producer_is_gcc(&cudie) && !producer_is_gcc(walk);
		p->cu_version = version;
		p->offset_size = 4;	/* 64-bit DWARF is not produced by gcc/clang here */
		p->files_tried = false;
		err = walk_children(s, p, walk, &ctx);
		scan_split_leave(s, p);
		if (err)
			return err;
		trim_info(p, dwarf_dieoffset(&cudie));
	}
	if (r < 0) {
		btfi_err(p->log, "%s: corrupt DWARF: %s", s->path, dwarf_errmsg(-1));
		return -EINVAL;
	}
	return 0;
}

static void classify(struct btfi_scan *s)
{
	uint32_t i;

	for (i = 0; i < s->nfuncs; i++) {
		struct btfi_func *f = &s->funcs[i];

		if (!f->nsites)
			f->cls = BTFI_NEVER_INLINED;
		else if (f->has_symbol)
			f->cls = BTFI_SELECTIVE;
		else
			f->cls = BTFI_FULL;
	}
}

/* The sites left marked (what --sites prints). */
static void count_marks(struct btfi_scan *s)
{
	for (uint32_t i = 0; i < s->nsites; i++) {
		s->probe.refused_left += !!(s->sites[i].flags & BTFI_SITE_REFUSED);
		s->probe.notrace += !!(s->sites[i].flags & BTFI_SITE_NOTRACE);
	}
}

int btfi_scan_open(const char *path, const struct btfi_scan_opts *opts,
		   struct btfi_scan **out)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(opts, log) ? &opts->log : &no_log;
	struct btfi_scan *s;
	struct scan_priv *p;
	double t0 = now_secs();
	int err;

	*out = NULL;
	if (!OPTS_VALID(opts, btfi_scan_opts, log))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	p = calloc(1, sizeof(*p));
	if (!s || !p) {
		free(s);
		free(p);
		btfi_err(log, "%s: out of memory", path);
		return -ENOMEM;
	}
	s->priv = p;
	s->path = path;
	p->log = log;
	p->addr_size = 8;
	p->no_locations = OPTS_GET(opts, no_locations, false);
	p->ceiling = OPTS_GET(opts, ceiling, false);
	p->policy = OPTS_GET(opts, probe_policy, BTFI_PROBE_DEFAULT);
	p->unit_addrs = OPTS_GET(opts, unit_addrs, NULL);
	p->nunit_addrs = OPTS_GET(opts, nunit_addrs, 0);
	/* Where each call enters the body, from the function's control
	 * flow, entry_pc (with its location view) when that is it: see
	 * "Probe address policy" in docs/DESIGN.md for the measurements. */
	if (p->policy <= BTFI_PROBE_DEFAULT || p->policy >= BTFI_PROBE__MAX)
		p->policy = BTFI_PROBE_PER_CALL;
	s->policy = p->policy;
	s->entry_rows.on = p->entry_rows = OPTS_GET(opts, entry_rows, false);

	s->di = OPTS_GET(opts, debuginfo, NULL);
	p->di_borrowed = s->di != NULL;
	err = s->di ? 0 : btfi_debuginfo_open(path, &(struct btfi_debuginfo_opts){
		.sz = sizeof(struct btfi_debuginfo_opts), .log = *log,
		.debug_file = OPTS_GET(opts, debug_file, NULL),
		.debug_dirs = OPTS_GET(opts, debug_dirs, NULL) }, &s->di);
	if (err)
		goto fail;
	s->elf = s->di->elf;
	p->elf = s->elf;
	s->dw = s->di->dw;
	s->dwarf_path = s->di->dwarf_path;
	s->dwarfs = calloc(2, sizeof(*s->dwarfs));
	if (!s->dwarfs) {
		err = -ENOMEM;
		btfi_err(log, "%s: out of memory", path);
		goto fail;
	}
	s->dwarfs[0] = s->dw;
	s->ndwarfs = 1;
	p->dwarfs_cap = 2;
	if (s->di->alt) {	/* dwz: its DIEs keyed apart */
		p->alt = s->di->alt;
		p->alt_base = (uint64_t)s->ndwarfs << BTFI_DIE_FILE_SHIFT;
		s->dwarfs[s->ndwarfs++] = p->alt;
	}
	find_loc_sections(s, p);
	err = load_elf_tables(s, p);
	if (!err)
		err = scan_dwarf(s, p);
	if (err) {
		if (err == -ENOMEM)
			btfi_err(log, "%s: out of memory", path);
		goto fail;
	}
	classify(s);
	count_marks(s);
	if (s->nshapes)
		qsort(s->shapes, s->nshapes, sizeof(*s->shapes), cmp_shape);
	s->scan_secs = now_secs() - t0;
	*out = s;
	return 0;
fail:
	btfi_scan_free(s);
	return err;
}

static int cmp_site_addr(const void *a, const void *b, void *ctx)
{
	const struct btfi_scan *s = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = s->sites[i].addr, y = s->sites[j].addr;

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

uint32_t *btfi_scan_sites_by_addr(const struct btfi_scan *s, uint32_t *n)
{
	uint32_t *ix = malloc((s->nsites + 1) * sizeof(*ix));

	*n = 0;
	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < s->nsites; i++)
		if (s->sites[i].addr)
			ix[(*n)++] = i;
	qsort_r(ix, *n, sizeof(*ix), cmp_site_addr, (void *)s);
	return ix;
}

uint32_t btfi_scan_sites_at(const struct btfi_scan *s, const uint32_t *by_addr, uint32_t n,
			    uint64_t addr)
{
	uint32_t l = 0, h = n;

	while (l < h) {
		uint32_t m = l + (h - l) / 2;

		if (s->sites[by_addr[m]].addr < addr)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

void btfi_scan_free(struct btfi_scan *s)
{
	struct scan_priv *p;

	if (!s)
		return;
	free(s->shapes);
	free(s->entry_rows.unprobed);
	p = s->priv;
	if (p) {
		if (p->cfi_eh)
			dwarf_cfi_end(p->cfi_eh);
		rows_end(p);
		u64map_free(&p->origin_map);
		u64map_free(&p->types);
		u64map_free(&p->taken);
		u64map_free(&p->noret);
		free(p->fidx);
		free(p->fhash);
		free(p->origins);
		free(p->poffs);
		free(p->tmp);
		free(p->ranges);
		free(p->vpts);
		free(p->spans);
		free(p->convs);
		btfi_syms_free(&p->syms);
		btfi_relas_free(&p->relas);
		free(p->secs);
		free(p->fnames);
		free(p->franges);
		free(p->xedges);
		free(p->krefused);
		free(p->mcount);
		scan_cfg_free(p->cfg);
	}
	free(s->dwarfs);
	if (!p || !p->di_borrowed)
		btfi_debuginfo_close(s->di);	/* owns elf, dw and the mapping */
	free(p);
	free(s->funcs);
	free(s->sites);
	free(s->locs);
	free(s->reach);
	free(s->params);
	free(s);
}
