// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kcover BLOB BASE [FUNC]: how many functions of a kernel inline blob
 * `btfinline trace -k` can attach to with every argument at every site
 * (the default all-or-none policy), partly (--best-effort: some site lacks
 * an argument BPF can read), not at all (no resident site, or no argument
 * readable at any resident one). Selectively inlined = the FUNC is in the
 * base BTF (pahole emits FUNCs for out-of-line functions only); fully
 * inlined = the blob adds the FUNC. Sites in init text are not resident
 * after boot. With FUNC: that function's sites, one line each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "btfinline.h"
#include "attach/attach.h"

struct agg { size_t funcs, sites, resident, all, part, part_full, none, none_init; };

int main(int argc, char **argv)
{
	BTFI_OPTS(btfinline_open_opts, oo);
	const struct btfinline_site *s;
	struct agg a[2] = { 0 };
	struct btfinline *bi;
	struct btfi_loc locs[64];
	size_t n, i = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: kcover BLOB BASE [FUNC]\n");
		return 2;
	}
	oo.base_path = argv[2];
	if (btfinline__open(argv[1], &oo, &bi))
		return 1;
	s = btfinline__sites(bi, &n);	/* sorted by (name, func id, offset) */
	while (i < n) {
		uint32_t fid = s[i].func_id, start = btfinline__start_id(bi);
		size_t j = i, res = 0, full = 0, some = 0;
		bool sel = fid < start;
		struct agg *g = &a[sel ? 0 : 1];

		for (; j < n && s[j].func_id == fid; j++) {
			const char *sec = btfinline__sec_name(bi, s[j].secno);
			int np = btfinline__site_locs(bi, &s[j], locs, 64), ok = 0;

			if (!sec || strcmp(sec, ".text"))
				continue;	/* .init.text: freed after boot */
			res++;
			for (int k = 0; k < np && k < 64; k++) {
				struct btfi_arg_spec as;
				const char *why;

				ok += !btfi_loc_to_spec(&locs[k], &as, &why);
			}
			full += ok == np;
			some += ok > 0 || np == 0;
			if (argc > 3 && !strcmp(argv[3], btfinline__name_by_offset(bi,
			    ((const uint32_t *)btfinline__type_by_id(bi, fid))[0])))
				printf("%s+0x%x %d/%d args\n", sec, s[j].offset, ok, np);
		}
		g->funcs++;
		g->sites += j - i;
		g->resident += res;
		if (!res)
			g->none_init++, g->none++;
		else if (full == res)
			g->all++;
		else if (some)
			g->part++, g->part_full += full > 0;
		else
			g->none++;
		i = j;
	}
	for (uint32_t k = 0; k < btfinline__nsecs(bi); k++)
		printf("section inline%s\n", btfinline__sec_name(bi, k));
	for (int k = 0; k < 2; k++)
		printf("%s: %zu functions, %zu sites (%zu resident); all args at every site %zu, "
		       "partly %zu (%zu of them with all args at some site), not at all %zu "
		       "(%zu with only init-text sites)\n",
		       k ? "fully inlined" : "selectively inlined", a[k].funcs, a[k].sites,
		       a[k].resident, a[k].all, a[k].part, a[k].part_full, a[k].none, a[k].none_init);
	btfinline__free(bi);
	return 0;
}
