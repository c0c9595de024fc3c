// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .BTF.inline front end of the attach core: the sites of a function from
 * the reader, its out-of-line entry from the ELF symbol + FUNC_PROTO.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach/attach.h"
#include "log.h"
#include "opts.h"

int btfi_func_params(const struct btf *btf, uint32_t func_id, uint32_t *proto_id,
		     const char ***names, uint32_t *n, struct btfi_site_list *l)
{
	const struct btf_type *f = btf__type_by_id(btf, func_id), *p;
	const struct btf_param *pp;

	if (!f || !btf_is_func(f))
		return -EINVAL;
	p = btf__type_by_id(btf, f->type);
	if (!p || !btf_is_func_proto(p))
		return -EINVAL;
	*proto_id = f->type;
	*n = btf_vlen(p);
	pp = btf_params(p);
	if (*n && !pp[*n - 1].type)
		(*n)--;
	*names = btfi_site_list_alloc(l, (*n + 1) * sizeof(char *));
	if (!*names)
		return -ENOMEM;
	for (uint32_t i = 0; i < *n; i++)
		(*names)[i] = btf__name_by_offset(btf, pp[i].name_off);
	return 0;
}

int btfi_collect_sites(struct btfinline *bi, const char *binary, const char *syms_file,
		       const char *func,
		       bool no_entry, btfinline_site_filter_fn filter, void *filter_ctx,
		       const struct btfi_log *log, struct btfi_site_list *out)
{
	const struct btfinline_site *first;
	const struct btf *btf = btfinline__btf(bi);
	struct btfi_elf_info ei;
	size_t n, before = out->cnt;
	bool want_entry;
	int err;

	err = btfi_elf_info_load(binary, &ei, log);
	if (err)
		return err;
	if (syms_file && (err = btfi_elf_info_debug_syms(&ei, syms_file, log)))
		goto out;
	want_entry = !no_entry && (!filter || filter(filter_ctx, NULL));
	n = btfinline__func_sites(bi, func, &first);
	for (size_t i = 0; i < n; i++) {
		const struct btfinline_site *s = &first[i];
		struct btfi_attach_site *as;
		const char *secname = btfinline__sec_name(bi, s->secno);
		uint64_t base;
		uint32_t proto;
		int cnt;

		if (filter && !filter(filter_ctx, s))
			continue;
		if (!secname || btfi_elf_sec_addr(&ei, secname, &base)) {
			btfi_err(log, "%s: %s: site section '%s' not in the ELF", binary, func,
				 secname ? secname : "?");
			err = -ENOENT;
			goto out;
		}
		as = btfi_site_list_add(out);
		if (!as)
			goto nomem;
		as->func = func;
		as->func_id = s->func_id;
		as->cond = btfinline__sec_cond(bi, s->secno);
		as->vaddr = base + s->offset;
		btfi_elf_label(&ei, as->vaddr, as->label, sizeof(as->label));
		/* an entry with locations of its own (a branch never is one) */
		if (!want_entry && !as->cond && btfi_label_is_entry(as->label, func)) {
			out->cnt--;
			continue;
		}
		err = btfi_func_params(btf, s->func_id, &proto, &as->arg_names, &as->nargs, out);
		if (err == -ENOMEM)
			goto nomem;
		cnt = btfinline__site_locs(bi, s, NULL, 0);
		if (cnt < 0) {
			err = cnt;
			btfi_err(log, "%s: %s: bad site %s", binary, func, as->label);
			goto out;
		}
		if (err) {	/* no FUNC_PROTO: names unknown, count from LOC_PROTO */
			as->nargs = cnt;
			as->arg_names = NULL;
		}
		as->locs = btfi_site_list_alloc(out, (as->nargs > (uint32_t)cnt ? as->nargs : (uint32_t)cnt) * sizeof(*as->locs));
		if (!as->locs)
			goto nomem;
		btfinline__site_locs(bi, s, as->locs, cnt);
		err = 0;
	}
	if (want_entry) {
		int fid = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);

		const struct btfi_sym *sy = ei.syms.v;

		for (size_t i = 0; i < ei.syms.n; i++) {
			struct btfi_attach_site *as;
			uint32_t proto;
			char label[sizeof(as->label)];

			if (strcmp(sy[i].name, func) || sy[i].ifunc ||	/* resolver, not func */
			    (i && sy[i - 1].addr == sy[i].addr &&
			     !strcmp(sy[i - 1].name, func)))	/* symtab + dynsym */
				continue;
			snprintf(label, sizeof(label), "%s (entry)", func);
			if (btfi_site_list_entry(out, before, sy[i].addr, label))
				continue;
			as = btfi_site_list_add(out);
			if (!as)
				goto nomem;
			as->func = func;
			as->entry = true;
			as->vaddr = sy[i].addr;
			snprintf(as->label, sizeof(as->label), "%s (entry)", func);
			if (fid <= 0 || btfi_func_params(btf, fid, &proto, &as->arg_names, &as->nargs, out)) {
				as->nargs = 0;	/* no prototype: attach without arguments */
				continue;
			}
			as->func_id = fid;
			as->locs = btfi_site_list_alloc(out, as->nargs * sizeof(*as->locs));
			if (!as->locs)
				goto nomem;
			btfi_entry_locs(btf, proto, as->locs, as->nargs);
		}
	}
	if (out->cnt == before) {
		btfi_err(log, "%s: %s: no inline site or function symbol", binary, func);
		err = -ENOENT;
	}
	goto out;
nomem:
	btfi_err(log, "%s: out of memory", binary);
	err = -ENOMEM;
out:
	btfi_elf_info_free(&ei);
	return err;
}
