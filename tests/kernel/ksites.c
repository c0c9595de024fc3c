// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel test helper on the scan model (src/lib/dwarf/scan.c), host side:
 *   ksites VMLINUX FUNC...   one line per inline site of FUNC:
 *       FUNC 0xADDR CALLER+0xOFF ALL|PART|NONE name=kind ...
 *   ksites VMLINUX --summary [--top N]  docs/KERNEL.md figures: inlined
 *       functions by class and by "arguments located at every site /
 *       at some / at none"; with --top, the N functions with most sites.
 * A site counts as located for a parameter when its location kind is not
 * NONE (what `trace` can read); sites without code address are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf/scan.h"

static const char *caller_name(const struct btfi_scan *s, const struct btfi_site *st)
{
	return st->caller != UINT32_MAX ? s->funcs[st->caller].name : "?";
}

/* 2: every parameter located, 1: some, 0: none (a function without
 * parameters counts as every). */
static int site_cov(const struct btfi_scan *s, const struct btfi_site *st)
{
	uint32_t ok = 0;

	for (uint32_t k = 0; k < st->nlocs; k++)
		ok += s->locs[st->first_loc + k].kind != BTFI_LOC_NONE;
	return ok == st->nlocs ? 2 : ok ? 1 : 0;
}

static void print_sites(const struct btfi_scan *s, const char *func)
{
	int n = 0;

	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *st = &s->sites[i];
		const struct btfi_func *f = &s->funcs[st->func];
		static const char *cov[] = { "NONE", "PART", "ALL" };

		if (strcmp(f->name, func) || !st->addr)
			continue;
		printf("%s 0x%llx %s+0x%llx %s", func, (unsigned long long)st->addr,
		       caller_name(s, st), (unsigned long long)(st->addr - st->caller_addr),
		       cov[site_cov(s, st)]);
		for (uint32_t k = 0; k < st->nlocs; k++) {
			const struct btfi_param *p = &s->params[f->first_param + k];
			const struct btfi_loc *l = &s->locs[st->first_loc + k];

			printf(" %s=%s", p->name ? p->name : "?",
			       l->kind == BTFI_LOC_NONE ? btfi_reason_str(l->reason) :
			       btfi_loc_kind_str(l->kind));
			if (l->kind == BTFI_LOC_KREG || l->kind == BTFI_LOC_KMEM ||
			    l->kind == BTFI_LOC_KREG_OFF)
				printf(":%s%+lld", btfi_reg_name(l->reg) ? btfi_reg_name(l->reg) : "?",
				       (long long)l->off);
		}
		printf("\n");
		n++;
	}
	if (!n)
		printf("%s: no inline site with an address\n", func);
}

struct fcov { uint32_t sites, all, part, none; };

static int by_sites(const void *a, const void *b, void *ctx)
{
	const struct fcov *c = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return c[y].sites > c[x].sites ? 1 : c[y].sites < c[x].sites ? -1 : 0;
}

static void summary(const struct btfi_scan *s, int top)
{
	struct fcov *c = calloc(s->nfuncs, sizeof(*c));
	/* [class][every/some/none] */
	uint64_t fn[3][3] = { 0 }, sites[3] = { 0 }, sc[3] = { 0 };
	static const char *cls[] = { "never", "selective", "full" };

	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct btfi_site *st = &s->sites[i];
		int v;

		if (!st->addr)
			continue;
		v = site_cov(s, st);
		c[st->func].sites++;
		c[st->func].all += v == 2;
		c[st->func].part += v == 1;
		c[st->func].none += v == 0;
		sc[v]++;
	}
	for (uint32_t i = 0; i < s->nfuncs; i++) {
		const struct btfi_func *f = &s->funcs[i];

		if (!c[i].sites)
			continue;
		sites[f->cls] += c[i].sites;
		/* every: all args at all sites; none: no site has all args. */
		fn[f->cls][c[i].all == c[i].sites ? 0 : c[i].all ? 1 : 2]++;
	}
	printf("sites with an address: %llu (all args %llu, some %llu, none %llu)\n",
	       (unsigned long long)(sc[0] + sc[1] + sc[2]), (unsigned long long)sc[2],
	       (unsigned long long)sc[1], (unsigned long long)sc[0]);
	for (int k = 1; k < 3; k++)
		printf("%s-inlined functions: %llu with %llu sites: all args at every site %llu, "
		       "at some sites %llu, at no site %llu\n", cls[k],
		       (unsigned long long)(fn[k][0] + fn[k][1] + fn[k][2]),
		       (unsigned long long)sites[k], (unsigned long long)fn[k][0],
		       (unsigned long long)fn[k][1], (unsigned long long)fn[k][2]);
	if (top > 0) {
		uint32_t *idx = malloc(s->nfuncs * sizeof(*idx));

		for (uint32_t i = 0; i < s->nfuncs; i++)
			idx[i] = i;
		qsort_r(idx, s->nfuncs, sizeof(*idx), by_sites, c);
		for (int i = 0; i < top && (uint32_t)i < s->nfuncs; i++)
			printf("top %s %s sites=%u all=%u part=%u none=%u\n", s->funcs[idx[i]].name,
			       cls[s->funcs[idx[i]].cls], c[idx[i]].sites, c[idx[i]].all,
			       c[idx[i]].part, c[idx[i]].none);
		free(idx);
	}
	free(c);
}

int main(int argc, char **argv)
{
	BTFI_OPTS(btfi_scan_opts, o);
	struct btfi_scan *s;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s VMLINUX (FUNC... | --summary [--top N])\n", argv[0]);
		return 2;
	}
	err = btfi_scan_open(argv[1], &o, &s);
	if (err)
		return 1;
	fprintf(stderr, "ksites: scan %.1fs, %u sites, %u functions\n", s->scan_secs,
		s->nsites, s->nfuncs);
	if (!strcmp(argv[2], "--summary"))
		summary(s, argc > 4 && !strcmp(argv[3], "--top") ? atoi(argv[4]) : 0);
	else
		for (int i = 2; i < argc; i++)
			print_sites(s, argv[i]);
	btfi_scan_free(s);
	return 0;
}
