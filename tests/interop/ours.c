// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfinline's side of `make interop`'s field-by-field comparison: every
 * LOCSEC site as the public reader API decodes it (btfinline__sites(),
 * btfinline__site_locs(): struct btfi_loc), one canonical line per site,
 * the same lines tests/interop/check.c -c prints from upstream libbpf's
 * records. Built against libbtfinline.a and Debian's libbpf 1.1.
 *
 *   ours BASE BLOB > LINES
 *
 * BASE, BLOB as check's (BLOB: an ELF with .BTF.inline or a raw blob).
 * Line (fields separated by one space, unsorted; the caller sorts):
 *   SEC FUNC [FUNC_ID] 0xOFF [LOC_PROTO_ID] NAME=LOC...
 * SEC: the LOCSEC's name without its "inline" prefix (a site on a branch:
 * section:cc, as upstream sees it, docs/FORMAT.md); then one
 * NAME=LOC per LOC_PROTO slot, NAME the FUNC_PROTO's parameter name, LOC:
 *   none | reg(R)/SIZE/S | reg_pair(R,R2)/SIZE/S | reg_offset(R,OFF)/SIZE/S |
 *   mem(R,OFF)/SIZE/S | const(0xV)/SIZE/S | addr(0xV)/SIZE/S
 * R: DWARF register number in decimal (4294967295: frame base); OFF signed
 * decimal (0 for a load without offset); V the 64-bit value after
 * extension; SIZE the record's size; S s|u (the SIGNED flag).
 * Exit 0, or 1 with one message when the blob cannot be read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include "btfinline.h"

static void print_loc(const struct btfi_loc *l)
{
	char s = l->is_signed ? 's' : 'u';

	switch (l->kind) {
	case BTFI_LOC_NONE:
		printf("none");
		return;
	case BTFI_LOC_KREG:
		printf("reg(%" PRIu32 ")", l->reg);
		break;
	case BTFI_LOC_KREG_PAIR:
		printf("reg_pair(%" PRIu32 ",%" PRIu32 ")", l->reg, l->reg2);
		break;
	case BTFI_LOC_KREG_OFF:
		printf("reg_offset(%" PRIu32 ",%" PRId64 ")", l->reg, l->off);
		break;
	case BTFI_LOC_KMEM:
		printf("mem(%" PRIu32 ",%" PRId64 ")", l->reg, l->off);
		break;
	case BTFI_LOC_KCONST:
		printf("const(0x%" PRIx64 ")", l->cval);
		break;
	case BTFI_LOC_KADDR:
		printf("addr(0x%" PRIx64 ")", l->cval);
		break;
	default:
		printf("kind%u", l->kind);
		break;
	}
	printf("/%" PRIu32 "/%c", l->size, s);
}

int main(int argc, char **argv)
{
	const struct btfinline_site *sites;
	struct btfinline *bi = NULL;
	struct btfi_loc *locs = NULL;
	const struct btf *btf;
	size_t nsites;
	int maxlocs = 0, err, cond;

	if (argc != 3) {
		fprintf(stderr, "usage: ours BASE BLOB\n");
		return 2;
	}
	BTFI_OPTS(btfinline_open_opts, opts, .base_path = argv[1]);
	err = btfinline__open(argv[2], &opts, &bi);
	if (err)
		return 1;	/* the reader logged why */
	btf = btfinline__btf(bi);
	sites = btfinline__sites(bi, &nsites);
	if (!btf || (!sites && nsites)) {
		fprintf(stderr, "ours: %s: no type or site view\n", argv[2]);
		goto fail;
	}
	for (size_t i = 0; i < nsites; i++) {
		const struct btfinline_site *st = &sites[i];
		const struct btf_type *f = btf__type_by_id(btf, st->func_id), *p;
		const struct btf_param *pp;
		int n;

		p = f && btf_is_func(f) ? btf__type_by_id(btf, f->type) : NULL;
		if (!p || !btf_is_func_proto(p)) {
			fprintf(stderr, "ours: %s: site's [%u] is not a FUNC\n", argv[2], st->func_id);
			goto fail;
		}
		n = btfinline__site_locs(bi, st, locs, maxlocs);
		if (n < 0) {
			fprintf(stderr, "ours: %s: site_locs: %d\n", argv[2], n);
			goto fail;
		}
		if (n > maxlocs) {
			free(locs);
			maxlocs = n;
			locs = malloc(n * sizeof(*locs));
			if (!locs)
				goto fail;
			btfinline__site_locs(bi, st, locs, maxlocs);
		}
		cond = btfinline__sec_cond(bi, st->secno);
		printf("%s%s%s %s [%u] 0x%x [%u]", btfinline__sec_name(bi, st->secno),
		       cond > 0 ? ":" : "", cond > 0 ? btfi_cc_str(cond - 1) : "",
		       btf__name_by_offset(btf, f->name_off), st->func_id, st->offset,
		       st->loc_proto_id);
		pp = btf_params(p);
		for (int k = 0; k < n; k++) {
			printf(" %s=", k < btf_vlen(p) ? btf__name_by_offset(btf, pp[k].name_off) : "?");
			print_loc(&locs[k]);
		}
		printf("\n");
	}
	free(locs);
	btfinline__free(bi);
	return fflush(stdout) ? 1 : 0;
fail:
	free(locs);
	btfinline__free(bi);
	return 1;
}
