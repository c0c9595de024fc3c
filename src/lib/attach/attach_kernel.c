// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kprobe attach at the inline sites of a kernel function: sites rebased
 * with /proc/kallsyms (KASLR), probe-able sites only (kblacklist.c), one
 * kprobe per site. The inline info comes from source/source.c, the
 * public call is in attach_api.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach/attach_kernel.h"
#include "attach/attach_kprobe.h"
#include "log.h"

/* ---- sites ---- */

static void klabel(const struct btfi_ksyms *ks, const struct btfi_kmod *mod, uint64_t addr,
		   char *buf, size_t len)
{
	const struct btfi_ksym *s = mod ? btfi_ksyms_mod_by_addr(ks, mod->name, addr) :
				    btfi_ksyms_by_addr(ks, addr);

	if (s)
		snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

/* A module's own FUNC `name` (below `end`, the blob's first id): its types
 * follow vmlinux's in the base, so the last match is the module's when
 * both have one (a static function name used twice). */
static int last_func(const struct btf *btf, const char *name, uint32_t end)
{
	for (uint32_t id = end - 1; id > 0; id--) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (t && btf_is_func(t) && !strcmp(btf__name_by_offset(btf, t->name_off) ?: "", name))
			return id;
	}
	return -ENOENT;
}

int btfi_collect_ksites(struct btfinline *bi, const struct btfi_ksyms *ks,
			const struct btfi_kmod *mod, const struct btfi_kblacklist *bl,
			const char *func, bool no_entry,
			btfinline_site_filter_fn filter, void *filter_ctx,
			const struct btfi_log *log, struct btfi_site_list *out,
			struct btfi_kskips *skips)
{
	const struct btf *btf = btfinline__btf(bi);
	const struct btfinline_site *first;
	struct btfi_log quiet = BTFI_LOG_NONE;
	size_t n, before = out->cnt, nskip0 = skips->n;
	bool known = false;

	if (!btf) {
		btfi_err(log, "kernel: %s: cannot build the BTF view", func);
		return -EINVAL;
	}
	bool want_entry = !no_entry && (!filter || filter(filter_ctx, NULL));

	n = btfinline__func_sites(bi, func, &first);
	for (size_t i = 0; i < n; i++) {
		const struct btfinline_site *s = &first[i];
		const char *sec = btfinline__sec_name(bi, s->secno);
		struct btfi_attach_site *as;
		char label[96];
		uint64_t base, addr;
		uint32_t proto;
		int cnt, err;

		known = true;
		if (filter && !filter(filter_ctx, s))
			continue;
		if (!sec || (mod ? btfi_kmod_sec_base(mod, sec, &base) :
			     btfi_ksyms_sec_base(ks, sec, &base, &quiet))) {
			snprintf(label, sizeof(label), "%s+0x%x", sec ? sec : "?", s->offset);
			btfi_kskips_add(skips, label, sec && strstr(sec, "init") ?
					(mod ? "init text, freed after load" : "init text, freed after boot") :
					"section not resident", false);
			continue;
		}
		addr = base + s->offset;
		klabel(ks, mod, addr, label, sizeof(label));
		/* an entry with locations of its own (a branch never is one) */
		if (!want_entry && !btfinline__sec_cond(bi, s->secno) &&
		    btfi_label_is_entry(label, func))
			continue;
		if (mod ? !btfi_ksyms_mod_by_addr(ks, mod->name, addr) : !btfi_ksyms_by_addr(ks, addr)) {
			btfi_kskips_add(skips, label, mod ? "outside module text" : "outside kernel text",
					false);
			continue;
		}
		if (btfi_kblacklist_has(bl, addr)) {
			btfi_kskips_add(skips, label, "kprobe blacklist", true);
			continue;
		}

		as = btfi_site_list_add(out);
		if (!as)
			goto nomem;
		as->func = func;
		as->func_id = s->func_id;
		as->cond = btfinline__sec_cond(bi, s->secno);
		as->vaddr = addr;
		memcpy(as->label, label, sizeof(as->label));
		cnt = btfinline__site_locs(bi, s, NULL, 0);
		if (cnt < 0) {
			btfi_err(log, "kernel: %s: bad site %s", func, label);
			return cnt;
		}
		err = btfi_func_params(btf, s->func_id, &proto, &as->arg_names, &as->nargs, out);
		if (err == -ENOMEM)
			goto nomem;
		if (err) {	/* no FUNC_PROTO: count from LOC_PROTO, no names */
			as->nargs = cnt;
			as->arg_names = NULL;
		}
		as->locs = btfi_site_list_alloc(out, ((uint32_t)cnt > as->nargs ? (uint32_t)cnt : as->nargs) *
						sizeof(*as->locs) + 1);
		if (!as->locs)
			goto nomem;
		btfinline__site_locs(bi, s, as->locs, cnt);
	}
	if (want_entry) {
		int nsym = 0;
		int fid = mod ? last_func(btf, func, btfinline__start_id(bi)) :
			  btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);

		if (!mod)
			nsym = btfi_ksyms_by_name(ks, func, NULL);
		while (mod && btfi_ksyms_mod_by_name_nth(ks, mod->name, func, nsym))
			nsym++;
		/* Every symbol of that name, by address: a kprobe at "sym+0"
		 * would take the first one only. */
		for (int k = 0; k < nsym; k++) {
			const struct btfi_ksym *sym = mod ? btfi_ksyms_mod_by_name_nth(ks, mod->name, func, k) :
						     btfi_ksyms_by_name_nth(ks, func, k);

			struct btfi_attach_site *as;
			char label[sizeof(as->label)];
			uint32_t proto;

			known = true;
			if (!sym || (sym->type != 't' && sym->type != 'T' &&
				     sym->type != 'w' && sym->type != 'W'))
				continue;
			if (btfi_kblacklist_has(bl, sym->addr)) {
				btfi_kskips_add(skips, "entry", "kprobe blacklist", true);
				continue;
			}
			if (nsym > 1)
				snprintf(label, sizeof(label), "entry@0x%llx", (unsigned long long)sym->addr);
			else
				snprintf(label, sizeof(label), "%s (entry)", func);
			if (btfi_site_list_entry(out, before, sym->addr, label))
				continue;
			as = btfi_site_list_add(out);
			if (!as)
				goto nomem;
			as->func = func;
			as->entry = true;
			as->vaddr = sym->addr;
			memcpy(as->label, label, sizeof(as->label));
			if (fid <= 0 || btfi_func_params(btf, fid, &proto, &as->arg_names, &as->nargs, out)) {
				as->nargs = 0;	/* no prototype: hits without arguments */
				continue;
			}
			as->func_id = fid;
			as->locs = btfi_site_list_alloc(out, as->nargs * sizeof(*as->locs) + 1);
			if (!as->locs)
				goto nomem;
			btfi_entry_locs(btf, proto, as->locs, as->nargs);
		}
	}
	if (out->cnt == before) {
		if (!known && mod)
			return -ESRCH;
		if (!known)
			btfi_err(log, "kernel: %s: no inline site and no kernel symbol of that name", func);
		else
			btfi_err(log, "kernel: %s%s%s: no probe-able site (%zu skipped: %s)",
				 mod ? mod->name : "", mod ? ": " : "", func, skips->n - nskip0, skips->text);
		return -ENOENT;
	}
	return 0;
nomem:
	btfi_err(log, "kernel: %s: out of memory", func);
	return -ENOMEM;
}

/* ---- attach ---- */

static void fill_spec(const struct btfi_attach_site *s, uint64_t vaddr, struct btfi_site_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->nargs = s->nargs > BTFI_MAX_ARGS ? BTFI_MAX_ARGS : s->nargs;
	spec->flags = btfi_spec_flags(s, true);
	spec->vaddr = vaddr;
	spec->user = s->tag;
	for (uint32_t k = 0; k < spec->nargs; k++) {
		struct btfi_arg_spec *a = &spec->args[k];
		const char *why;

		if (btfi_loc_to_spec(&s->locs[k], a, &why))
			a->kind = BTFI_ARG_NONE;	/* the policy already decided */
		if (s->extra) {
			a->nsteps = s->extra[k].nsteps;
			a->str = s->extra[k].str;
			memcpy(a->steps, s->extra[k].steps, sizeof(a->steps));
		}
	}
}

/* "caller+0x1a" -> is caller traceable by ftrace? (entry labels: func) */
static bool site_traceable(const struct btfi_kblacklist *bl, const struct btfi_attach_site *s)
{
	char fn[96];
	size_t n = strcspn(s->label, "+");

	if (s->entry || n >= sizeof(fn))
		return btfi_kfunc_traceable(bl, s->func);
	memcpy(fn, s->label, n);
	fn[n] = 0;
	return btfi_kfunc_traceable(bl, fn);
}

int btfi_attach_ksites(struct bpf_program *prog, const struct btfi_attach_site *sites,
		       size_t n, int64_t kaslr_delta, const struct btfi_kblacklist *bl,
		       const struct btfi_attach_core_opts *opts,
		       struct btfinline_link **out, struct btfi_kskips *skips)
{
	struct btfinline_link *l = NULL;
	__u64 cookie = 0;
	int err, map_fd, pmu;

	*out = NULL;
	if (!n) {
		btfi_err(&opts->log, "kernel: nothing to attach");
		return -ENOENT;
	}
	err = btfi_sites_policy(sites, n, "kernel", opts);
	if (err)
		return err;
	pmu = btfi_kprobe_pmu_type(&opts->log);
	if (pmu < 0)
		return pmu;
	map_fd = btfi_spec_map_fd(prog, &opts->log);
	if (map_fd < 0)
		return map_fd;
	l = btfi_link_new(map_fd, n);
	if (l && !(l->addrs = calloc(n, sizeof(*l->addrs)))) {
		btfinline_link__destroy(l);
		l = NULL;
		map_fd = -1;	/* closed with the link */
	}
	if (!l) {
		btfi_err(&opts->log, "kernel: out of memory");
		err = -ENOMEM;
		goto err;
	}
	cookie = btfi_spec_cookie_base(map_fd);

	for (size_t i = 0; i < n; i++) {
		const struct btfi_attach_site *s = &sites[i];
		struct btfi_msgbuf m = { { 0 } };
		BTFI_OPTS(btfi_kprobe_opts, ko, .pmu_type = pmu, .log = BTFI_LOG_KEEP(&m));
		struct btfi_site_spec spec;
		struct bpf_link *pl;

		/* PT_REGS_IP in a kprobe is the probe address + 1; ADDR
		 * arguments rebase by ip - vaddr, i.e. by the KASLR slide. */
		fill_spec(s, s->vaddr - kaslr_delta + 1, &spec);
		err = btfi_spec_add(map_fd, &cookie, &spec);
		if (err) {
			btfi_err(&opts->log, "kernel: %s: spec map update: %s%s", s->func,
				 strerror(-err), err == -E2BIG ? " (btfi_specs full)" : "");
			goto err;
		}
		ko.bpf_cookie = cookie;
		err = btfi_kprobe_attach(prog, NULL, s->vaddr, &ko, &pl);
		if (err == -EINVAL) {	/* notrace, jump label, ...: leave it out */
			bpf_map_delete_elem(map_fd, &cookie);
			/* without KPROBE_EVENTS_ON_NOTRACE the kprobe PMU refuses
			 * functions ftrace cannot trace: name that cause */
			btfi_kskips_add(skips, s->label, site_traceable(bl, s) ?
					"refused by the kernel" : "notrace function", true);
			continue;
		}
		if (err) {
			bpf_map_delete_elem(map_fd, &cookie);
			btfi_err(&opts->log, "kernel: %s: site %s: %s", s->func, s->label, m.s);
			goto err;
		}
		l->links[l->cnt] = pl;
		l->addrs[l->cnt] = s->vaddr;
		l->cookies[l->cnt++] = cookie;
	}
	if (!l->cnt) {
		btfi_err(&opts->log, "kernel: %s: the kernel refused every site (%s)", sites[0].func,
			 skips->text);
		err = -ENOENT;
		goto err;
	}
	/* All-or-none, as for argument locations: a site that runs but
	 * cannot be probed would lose its calls. */
	if (skips->nmissed && opts->policy != BTFI_BEST_EFFORT) {
		btfi_err(&opts->log, "kernel: %s: %zu site%s cannot be probed, calls there would be "
			 "missed, refusing (best-effort to attach the others): %s", sites[0].func,
			 skips->nmissed, skips->nmissed > 1 ? "s" : "", skips->text);
		err = -ENOTSUP;
		goto err;
	}
	*out = l;
	return 0;
err:
	if (l)
		btfinline_link__destroy(l);
	else
		close(map_fd);
	return err ? err : -EINVAL;
}

size_t btfi_link_detach_range(struct btfinline_link *l, uint64_t lo, uint64_t hi)
{
	size_t n = 0;

	for (size_t i = 0; l && l->addrs && i < l->cnt; i++) {
		if (!l->links[i] || l->addrs[i] < lo || l->addrs[i] > hi)
			continue;
		bpf_link__destroy(l->links[i]);
		l->links[i] = NULL;
		if (l->cookies[i])
			bpf_map_delete_elem(l->map_fd, &l->cookies[i]);
		l->cookies[i] = 0;
		n++;
	}
	return n;
}
