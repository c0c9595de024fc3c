/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The upstream-selftest-shaped blob, shared by test_reader and the fuzz
 * target: base = { [1] INT int, [2] FUNC_PROTO int(int a..e), [3] FUNC foo },
 * two sites of foo in ".text" using the six location forms of the selftest.
 */
#ifndef BLOB_FIXTURE_H
#define BLOB_FIXTURE_H

#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/btf_write.h"

#define FX_FBREG BTFI_REG_FBREG

/* The six selftest locations, in order. */
static const struct btfi_loc fx_locs[6] = {
	/* register 1 (rdx) */
	{ .kind = BTFI_LOC_KREG, .size = 4, .is_signed = 1, .reg = 1 },
	/* memory at reg2 + 0x10, 8 bytes */
	{ .kind = BTFI_LOC_KMEM, .size = 8, .reg = 2, .off = 0x10 },
	/* frame base - 0x10, as an address */
	{ .kind = BTFI_LOC_KREG_OFF, .size = 8, .reg = FX_FBREG, .off = -0x10 },
	/* 64-bit constant address */
	{ .kind = BTFI_LOC_KADDR, .size = 8, .cval = 0xffffffff81234560ull },
	/* 64-bit constant */
	{ .kind = BTFI_LOC_KCONST, .size = 8, .cval = 0x1234567890abcdefull },
	/* memory at frame base - 0x20 */
	{ .kind = BTFI_LOC_KMEM, .size = 4, .is_signed = 1, .reg = FX_FBREG, .off = -0x20 },
};

/* Site 1 (offset 0x10): locs 0..4. Site 2 (offset 0x20): loc 5, none,
 * loc 0, loc 0, loc 4 (exercises dedup of LOC_PARAM). */
static const int fx_site2[5] = { 5, -1, 0, 0, 4 };

static struct btf *fx_base(const char *fname)
{
	struct btf *b = btf__new_empty();
	int i, proto;

	if (!b)
		return NULL;
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);		/* [1] */
	proto = btf__add_func_proto(b, 1);			/* [2] */
	for (i = 0; i < 5; i++) {
		char n[2] = { (char)('a' + i), 0 };

		btf__add_func_param(b, n, 1);
	}
	btf__add_func(b, fname, BTF_FUNC_GLOBAL, proto);	/* [3] */
	return b;
}

static int fx_blob(struct btf *base, void **blob, size_t *sz)
{
	struct btfi_writer *w;
	int h[6], p1, p2, err, s2[5];

	err = btfi_writer_new(base, NULL, &w);
	if (err)
		return err;
	for (int i = 0; i < 6; i++)
		h[i] = btfi_writer_loc_param(w, &fx_locs[i]);
	p1 = btfi_writer_loc_proto(w, h, 5);
	for (int i = 0; i < 5; i++)
		s2[i] = fx_site2[i] < 0 ? -1 : h[fx_site2[i]];
	p2 = btfi_writer_loc_proto(w, s2, 5);
	/* added out of order on purpose: the writer sorts by (func, offset) */
	err = btfi_writer_site(w, ".text", 3, p2, 0x20);
	err = err ?: btfi_writer_site(w, ".text", 3, p1, 0x10);
	err = err ?: btfi_writer_finish(w, blob, sz);
	btfi_writer_free(w);
	return err;
}

#endif
