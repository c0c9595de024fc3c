// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder: a scan model -> .BTF.inline. FUNC + FUNC_PROTO for functions
 * with inline sites and no usable FUNC in the base, LOC_PARAM / LOC_PROTO /
 * LOCSEC per site through the writer (format/btf_write.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "dwarf/scan.h"
#include "encode/encode.h"
#include "format/btf_write.h"
#include "log.h"
#include "opts.h"

/* FUNC id for every function with an addressable site: a FUNC (base, or
 * split from an earlier function) whose prototype has the same name and
 * parameter names, else a new split FUNC + FUNC_PROTO. */
static int encode_funcs(const struct btfi_scan *s, struct btfi_types *ty, const bool *used,
			uint32_t base_cnt, uint32_t *fid, struct btfi_encode_stats *st)
{
	const char **names = NULL;
	uint64_t *types = NULL;
	uint32_t *sizes = NULL, cap = 0;
	int err = 0;

	for (uint32_t f = 0; f < s->nfuncs && !err; f++) {
		const struct btfi_func *fn = &s->funcs[f];
		int id;

		/* No name (corrupt DWARF): nothing could look its sites up. */
		if (!used[f] || !fn->name || !fn->name[0])
			continue;
		if (fn->nparams + 1 > cap) {
			cap = fn->nparams + 16;
			free(names); free(types); free(sizes);
			names = calloc(cap, sizeof(*names));
			types = calloc(cap, sizeof(*types));
			sizes = calloc(cap, sizeof(*sizes));
			if (!names || !types || !sizes) {
				err = -ENOMEM;
				break;
			}
		}
		for (uint32_t i = 0; i < fn->nparams; i++) {
			const struct btfi_param *p = &s->params[fn->first_param + i];

			names[i] = p->name;
			types[i] = p->type_off;
			sizes[i] = p->size;
		}
		id = btfi_types_find_func(ty, fn->name, names, fn->nparams);
		if (id > 0 && (uint32_t)id < base_cnt) {
			st->nfuncs_base++;
		} else if (!id) {
			id = btfi_types_add_func(ty, fn->name, fn->is_external, fn->ret_type_off,
						 names, types, sizes, fn->nparams);
			if (id < 0)
				err = id;
			else
				st->nfuncs_split++;
		}
		fid[f] = id > 0 ? id : 0;
	}
	free(names);
	free(types);
	free(sizes);
	return err;
}

/* btf__dedup() may renumber split types: find each split FUNC again. */
static int remap_funcs(const struct btfi_scan *s, struct btfi_types *ty, uint32_t base_cnt,
		       uint32_t *fid)
{
	const char *stackn[64], **names = stackn;
	int err = btfi_types_reindex(ty);

	for (uint32_t f = 0; !err && f < s->nfuncs; f++) {
		const struct btfi_func *fn = &s->funcs[f];
		int id;

		if (fid[f] < base_cnt)
			continue;
		if (fn->nparams > 64 && !(names = malloc(fn->nparams * sizeof(*names))))
			return -ENOMEM;
		for (uint32_t i = 0; i < fn->nparams; i++)
			names[i] = s->params[fn->first_param + i].name;
		id = btfi_types_find_func(ty, fn->name, names, fn->nparams);
		if (names != stackn)
			free(names), names = stackn;
		fid[f] = id > 0 ? id : 0;
	}
	return err;
}

struct esec {
	const char *name;
	uint64_t addr, size;
	bool ok;
};

int btfi_encode(const struct btfi_scan *s, struct btf *base, const struct btfi_encode_opts *o,
		void **blob, size_t *sz, struct btfi_encode_stats *st)
{
	const struct btfi_log *log = OPTS_HAS(o, log) ? &o->log : NULL;
	bool no_narrow = OPTS_GET(o, no_narrow, false);
	struct btfi_writer *w = NULL;
	struct btfi_types *ty = NULL;
	struct esec *secs = NULL;
	struct btfi_encode_stats dummy;
	uint32_t *fid = NULL, base_cnt = btf__type_cnt(base), cnt0;
	size_t shnum = 0, shstrndx = 0;
	int *hs = NULL, err;
	bool *used = NULL;

	if (!OPTS_VALID(o, btfi_encode_opts, log))
		return -EINVAL;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	err = btfi_types_check_base(base, s->path, log);
	if (err)
		return err;
	err = btfi_writer_new(base, log, &w);
	if (err)
		return err;
	err = btfi_types_new(btfi_writer_btf(w), s->dwarfs, s->ndwarfs, s->path, log, &ty);
	if (err)
		goto out;
	err = -ENOMEM;
	if (elf_getshdrnum(s->elf, &shnum) || elf_getshdrstrndx(s->elf, &shstrndx)) {
		btfi_err(log, "%s: cannot read ELF section headers", s->path);
		err = -EINVAL;
		goto out;
	}
	fid = calloc(s->nfuncs + 1, sizeof(*fid));
	used = calloc(s->nfuncs + 1, sizeof(*used));
	secs = calloc(shnum + 1, sizeof(*secs));
	hs = calloc(s->nlocs + 1, sizeof(*hs));
	if (!fid || !used || !secs || !hs)
		goto out;
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(s->elf, i);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR)) {
			secs[i].name = elf_strptr(s->elf, shstrndx, sh.sh_name);
			secs[i].addr = sh.sh_addr;
			secs[i].size = sh.sh_size;
			secs[i].ok = secs[i].name != NULL;
		}
	}
	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];

		if (site->addr && site->shndx < shnum && secs[site->shndx].ok &&
		    site->func < s->nfuncs && !(site->flags & (BTFI_SITE_SPLIT | BTFI_SITE_SHARED)))
			used[site->func] = true;
	}
	err = encode_funcs(s, ty, used, base_cnt, fid, st);
	if (err)
		goto out;
	/* Dedup the standard split part (strings, identical prototypes). */
	cnt0 = btf__type_cnt(btfi_writer_btf(w));
	if (cnt0 > base_cnt) {
		err = btf__dedup(btfi_writer_btf(w), NULL);
		if (err) {
			btfi_err(log, "%s: btf__dedup failed: %s", s->path, strerror(-err));
			goto out;
		}
		if (btf__type_cnt(btfi_writer_btf(w)) != cnt0 && (err = remap_funcs(s, ty, base_cnt, fid)))
			goto out;
	}
	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];
		const struct esec *sec;
		int proto;

		/* the enclosing call's event; the other call's */
		if (site->flags & (BTFI_SITE_SPLIT | BTFI_SITE_SHARED))
			continue;
		if (!site->addr || site->shndx >= shnum || !secs[site->shndx].ok ||
		    site->func >= s->nfuncs || !fid[site->func] ||
		    site->first_loc + (uint64_t)site->nlocs > s->nlocs) {
			st->nsites_skipped++;
			continue;
		}
		sec = &secs[site->shndx];
		if (site->addr < sec->addr || site->addr - sec->addr >= sec->size ||
		    site->addr - sec->addr > UINT32_MAX) {
			st->nsites_skipped++;
			continue;
		}
		for (uint32_t k = 0; k < site->nlocs; k++) {
			const struct btfi_loc *l = &s->locs[site->first_loc + k];
			const struct btfi_func *f = &s->funcs[site->func];

			if (l->kind == BTFI_LOC_NONE || !btfi_loc_encodable(l) ||
			    (no_narrow && k < f->nparams &&
			     btfi_loc_narrowed(l, s->params[f->first_param + k].size))) {
				hs[k] = -1;
				continue;
			}
			hs[k] = btfi_writer_loc_param(w, l);
			if (hs[k] < -1) {
				err = hs[k];
				goto out;
			}
		}
		proto = btfi_writer_loc_proto(w, hs, site->nlocs);
		if (proto < 0) {
			err = proto;
			goto out;
		}
		/* A site on a branch goes to its own LOCSEC, "inline.text:ne". */
		err = btfi_writer_cond_site(w, sec->name, site->cond, fid[site->func], proto,
					    (uint32_t)(site->addr - sec->addr));
		if (err)
			goto out;
		st->nsites++;
	}
	err = btfi_writer_finish(w, blob, sz);
	if (!err) {
		struct btfi_writer_counts c;

		btfi_writer_counts(w, &c);
		st->nloc_param = c.nloc_param;
		st->nloc_proto = c.nloc_proto;
		st->ndup_same = c.ndup_same;
		st->ndup_other = c.ndup_other;
		st->nsites -= c.ndup_same + c.ndup_other;
	}
out:
	if (err == -ENOMEM)
		btfi_err(log, "%s: out of memory while encoding", s->path);
	btfi_types_free(ty);
	btfi_writer_free(w);
	free(fid);
	free(used);
	free(secs);
	free(hs);
	return err;
}
