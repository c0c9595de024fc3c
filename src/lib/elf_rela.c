// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Relocations of a relocatable object, resolved (elf_rela.h says why). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "elf_rela.h"
#include "elf_syms.h"
#include "sorted.h"

static int rela_cmp(const void *a, const void *b)
{
	const struct btfi_rela *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* One RELA section: its symbols from sh_link, its target's address. */
static int add_one(Elf *elf, Elf *layout, const GElf_Shdr *rsh, Elf_Data *rd, uint64_t base,
		   struct btfi_relas *r)
{
	Elf_Scn *symscn = elf_getscn(elf, rsh->sh_link);
	GElf_Shdr ssh;
	Elf_Data *sd;
	size_t n = rsh->sh_size / rsh->sh_entsize;

	if (!symscn || !gelf_getshdr(symscn, &ssh) || !(sd = elf_getdata(symscn, NULL)))
		return 0;
	if (r->n + n > r->cap) {
		size_t cap = r->n + n;
		struct btfi_rela *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	for (size_t k = 0; k < n; k++) {
		struct btfi_rela *e = &r->v[r->n];
		GElf_Rela ra;
		GElf_Sym s;

		if (!gelf_getrela(rd, (int)k, &ra) || !gelf_getsym(sd, (int)GELF_R_SYM(ra.r_info), &s))
			continue;
		memset(e, 0, sizeof(*e));
		e->at = base + ra.r_offset;
		e->type = GELF_R_TYPE(ra.r_info);
		e->name = ssh.sh_entsize ? elf_strptr(elf, ssh.sh_link, s.st_name) : NULL;
		if (e->name && !*e->name)
			e->name = NULL;
		e->undef = s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_COMMON;
		if (!e->undef)
			e->value = (s.st_shndx == SHN_ABS ? s.st_value : btfi_sym_addr(layout, &s, true)) +
				   (uint64_t)ra.r_addend;
		r->n++;
	}
	return 0;
}

int btfi_relas_add(Elf *elf, Elf *layout, size_t shndx, struct btfi_relas *r)
{
	Elf_Scn *scn = NULL, *target = elf_getscn(layout, shndx);
	GElf_Shdr sh, tsh;
	GElf_Ehdr eh;
	int err;

	if (!target || !gelf_getshdr(target, &tsh) || !gelf_getehdr(elf, &eh) ||
	    eh.e_type != ET_REL)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != shndx ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)) || d->d_size < sh.sh_size)
			continue;
		if ((err = add_one(elf, layout, &sh, d, tsh.sh_addr, r)))
			return err;
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), rela_cmp);
	return 0;
}

/* The first relocation at or after at. */
static size_t lower_bound(const struct btfi_relas *r, uint64_t at)
{
	return btfi_lower_bound_u64(r->v, r->n, sizeof(*r->v), offsetof(struct btfi_rela, at), at);
}

bool btfi_relas_in(const struct btfi_relas *r, uint64_t lo, uint64_t hi)
{
	size_t k = lower_bound(r, lo);

	return k < r->n && r->v[k].at < hi;
}

const struct btfi_rela *btfi_relas_at(const struct btfi_relas *r, uint64_t at)
{
	size_t k = lower_bound(r, at);

	return k < r->n && r->v[k].at == at ? &r->v[k] : NULL;
}

void btfi_relas_free(struct btfi_relas *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
