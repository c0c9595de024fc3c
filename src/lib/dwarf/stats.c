// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Aggregates of a scan for `btfinline stats`. */
#include <stdlib.h>
#include <string.h>
#include "dwarf/scan.h"

void btfi_stats_compute(const struct btfi_scan *s, uint32_t max_instances, struct btfi_stats *st)
{
	uint8_t *fbad = calloc(s->nfuncs + 1, 1);	/* a site with an argument lost */
	uint32_t i, j;

	memset(st, 0, sizeof(*st));
	st->secs = s->scan_secs;
	for (i = 0; i < s->nsites; i++) {
		const struct btfi_site *site = &s->sites[i];
		uint32_t ok = 0, nx;
		bool noaddr = false;

		if (site->flags & BTFI_SITE_EXTRA)	/* counted with its instance */
			continue;
		if (site->flags & BTFI_SITE_ENTRY) {	/* an entry, not an instance */
			st->entry_sites++;
			st->clone_entries += !!(site->flags & BTFI_SITE_CLONE);
			st->entry_params += site->nlocs;
			for (j = 0; j < site->nlocs; j++)
				st->entry_params_located += s->locs[site->first_loc + j].kind != BTFI_LOC_NONE;
			continue;
		}
		if (max_instances && site->func < s->nfuncs && s->funcs[site->func].nsites > max_instances)
			continue;
		st->inline_instances++;
		if (site->flags & BTFI_SITE_SPLIT) {	/* no site: the enclosing call's */
			st->split_parts++;
			continue;
		}
		if (site->flags & BTFI_SITE_SHARED) {	/* no site: the other call's */
			st->shared_tails++;
			continue;
		}
		/* the instance's other addresses follow it */
		for (nx = 0; i + 1 + nx < s->nsites && s->sites[i + 1 + nx].flags & BTFI_SITE_EXTRA; nx++)
			;

		for (j = 0; j < site->nlocs; j++) {
			const struct btfi_loc *l = &s->locs[site->first_loc + j];

			/* recoverable only if it is at every address */
			for (uint32_t x = 0; x < nx && l->kind != BTFI_LOC_NONE; x++) {
				const struct btfi_site *e = &s->sites[i + 1 + x];

				if (j < e->nlocs && s->locs[e->first_loc + j].kind == BTFI_LOC_NONE)
					l = &s->locs[e->first_loc + j];
			}
			if (l->kind != BTFI_LOC_NONE) {
				ok++;
				st->classes[l->kind < 8 ? l->kind : 0]++;
			} else {
				st->unavailable[l->reason < BTFI_R__MAX ? l->reason : BTFI_R_UNKNOWN]++;
				noaddr |= l->reason == BTFI_R_NO_ADDR;
			}
		}
		if (s->reach) {
			uint32_t nc = 0;

			for (j = 0; j < site->nlocs; j++) {
				uint8_t r = s->reach[site->first_loc + j];

				st->ceil_any += !!(r & BTFI_REACH_ANY);
				nc += !!(r & BTFI_REACH_LOC);
			}
			st->ceil_params += nc;
			st->ceil_instances += nc == site->nlocs && !noaddr && (site->addr || site->nlocs);
		}
		st->params += site->nlocs;
		st->params_recoverable += ok;
		/* An instance without parameters is fully recoverable if it can
		 * be probed at all. */
		if (ok == site->nlocs && !noaddr && (site->addr || site->nlocs))
			st->instances_all_recoverable++;
		else if (ok)
			st->instances_some_recoverable++;
		else
			st->instances_none_recoverable++;
		if ((ok != site->nlocs || noaddr) && fbad && site->func < s->nfuncs)
			fbad[site->func] = 1;
	}
	for (i = 0; i < s->nfuncs; i++) {
		const struct btfi_func *f = &s->funcs[i];

		if (max_instances && f->nsites > max_instances) {
			st->funcs_over_max++;
			st->sites_over_max += f->nsites;
			continue;
		}
		if (f->nsites) {
			st->funcs_inlined++;
			st->funcs_all_recoverable += fbad && !fbad[i];
		}

		st->instances_noaddr += f->nsites_noaddr;
		switch (f->cls) {
		case BTFI_NEVER_INLINED:
			st->funcs_never_inlined++;
			break;
		case BTFI_SELECTIVE:
			st->funcs_selectively_inlined++;
			st->sites_selectively_inlined += f->nsites;
			break;
		case BTFI_FULL:
			st->funcs_fully_inlined++;
			st->sites_fully_inlined += f->nsites;
			break;
		}
	}
	free(fbad);
}
