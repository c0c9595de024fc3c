// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: any bytes given to btfinline__open_mem() (against the
 * fixed base of tests/unit/blob_fixture.h) must be rejected with an error
 * or, if accepted, be safe to walk through every reader API.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "btfinline.h"
#include "../unit/blob_fixture.h"

static void quiet(void *ctx, const char *msg) {}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct btf *base;
	static const struct btfi_log log = { .fn = quiet, .ctx = NULL };
	const struct btfinline_site *sites, *fs, *at[8];
	struct btfinline_sizes z;
	struct btfinline *bi;
	struct btfi_loc locs[16];
	size_t n;

	if (!base)
		base = fx_base("foo");
	if (btfinline__open_mem(data, size, base, &log, &bi))
		return 0;
	/* Lookups by name before the sorted list exists (the scan of the
	 * FUNCs open listed), for every FUNC among the first split ids. */
	for (uint32_t id = 1; id < btfinline__start_id(bi) + 64; id++) {
		const struct btf_type *t = btfinline__type_by_id(bi, id);
		const char *name;

		if (t && btf_kind(t) == BTF_KIND_FUNC && (name = btfinline__name_by_offset(bi, t->name_off)))
			btfinline__func_sites(bi, name, &fs);
	}
	sites = btfinline__sites(bi, &n);
	for (size_t i = 0; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btfinline__btf(bi), sites[i].func_id);
		const char *name = t ? btf__name_by_offset(btfinline__btf(bi), t->name_off) : NULL;

		if (name)
			btfinline__func_sites(bi, name, &fs);
		btfinline__site_locs(bi, &sites[i], locs, 16);
		btfinline__sites_at(bi, sites[i].secno, sites[i].offset, at, 8);
		if (!btfinline__sec_name(bi, sites[i].secno))
			abort();	/* every site's secno must be valid */
	}
	/* The libbpf view of the same types, and our own accessors. */
	{
		struct btf *btf = btfinline__btf(bi);
		uint32_t end = btfinline__start_id(bi) + 64;

		for (uint32_t id = 0; id < end; id++) {
			const struct btf_type *t = btfinline__type_by_id(bi, id);

			if (t && id)
				btfinline__name_by_offset(bi, t->name_off);
			if (btf && id < btf__type_cnt(btf))
				btf__type_by_id(btf, id);
		}
	}
	btfinline__sizes(bi, &z);
	btfinline__free(bi);
	return 0;
}
