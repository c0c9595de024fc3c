// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Base identity: raw bytes compared, and what differs for the message. */
#include <errno.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/base.h"

static void describe(const void *raw, size_t sz, uint32_t *ntypes, uint32_t *str_len)
{
	const struct btf_header *h = raw;
	struct btf *b;

	*str_len = sz >= sizeof(*h) && h->magic == BTF_MAGIC ? h->str_len : 0;
	b = btf__new(raw, sz);
	*ntypes = b ? btf__type_cnt(b) - 1 : 0;
	btf__free(b);
}

int btfi_base_same_raw(const void *a, size_t asz, const void *b, size_t bsz,
		       struct btfi_base_diff *d)
{
	size_t i;

	if (asz == bsz && !memcmp(a, b, asz))
		return 0;
	for (i = 0; i < asz && i < bsz; i++)
		if (((const char *)a)[i] != ((const char *)b)[i])
			break;
	d->first_diff = i;
	d->size[0] = asz;
	d->size[1] = bsz;
	describe(a, asz, &d->ntypes[0], &d->str_len[0]);
	describe(b, bsz, &d->ntypes[1], &d->str_len[1]);
	return -ESTALE;
}

int btfi_base_same(const struct btf *a, const struct btf *b, struct btfi_base_diff *d)
{
	uint32_t asz, bsz;
	const void *x = btf__raw_data(a, &asz), *y = btf__raw_data(b, &bsz);

	if (!x || !y) {
		memset(d, 0, sizeof(*d));
		return -ENOMEM;
	}
	return btfi_base_same_raw(x, asz, y, bsz, d);
}
