// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Base identity: raw bytes compared, and what differs for the message. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/base.h"

static void describe(const void *raw, size_t sz, uint32_t *ntypes, uint32_t *str_len)
{
	struct btf_header h = { 0 };	/* an ELF section's bytes may be unaligned */
	struct btf *b;

	if (sz >= sizeof(h))
		memcpy(&h, raw, sizeof(h));
	*str_len = h.magic == BTF_MAGIC ? h.str_len : 0;
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

/* Types and strings of a raw BTF, header checked. */
static int parts(const void *raw, size_t sz, const uint8_t **types, uint32_t *tlen,
		 const uint8_t **strs, uint32_t *slen)
{
	struct btf_header h;	/* an ELF section's bytes may be unaligned */

	if (sz < sizeof(h))
		return -EINVAL;
	memcpy(&h, raw, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) ||
	    h.hdr_len > sz || (uint64_t)h.type_off + h.type_len > sz - h.hdr_len ||
	    (uint64_t)h.str_off + h.str_len > sz - h.hdr_len)
		return -EINVAL;
	*types = (const uint8_t *)raw + h.hdr_len + h.type_off;
	*tlen = h.type_len;
	*strs = (const uint8_t *)raw + h.hdr_len + h.str_off;
	*slen = h.str_len;
	return 0;
}

int btfi_base_flatten(const void *vmlinux, size_t vsz, const void *mod, size_t msz,
		      void **out, size_t *outsz, const char **why)
{
	const uint8_t *vt, *vs, *mt, *ms;
	uint32_t vtl, vsl, mtl, msl;
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h) };
	uint8_t *p;

	*out = NULL;
	if (parts(vmlinux, vsz, &vt, &vtl, &vs, &vsl)) {
		*why = "vmlinux BTF: bad header";
		return -EINVAL;
	}
	if (parts(mod, msz, &mt, &mtl, &ms, &msl)) {
		*why = "module BTF: bad header";
		return -EINVAL;
	}
	if (!vsl || vs[0]) {
		*why = "vmlinux BTF: string section does not start with \"\"";
		return -EINVAL;
	}
	if ((uint64_t)vtl + mtl > UINT32_MAX - 4 || (uint64_t)vsl + msl > UINT32_MAX) {
		*why = "too large";
		return -EINVAL;
	}
	h.type_len = vtl + mtl;
	h.str_off = h.type_len;
	h.str_len = vsl + msl;
	*outsz = sizeof(h) + h.type_len + h.str_len;
	p = malloc(*outsz);
	if (!p) {
		*why = "out of memory";
		return -ENOMEM;
	}
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), vt, vtl);
	memcpy(p + sizeof(h) + vtl, mt, mtl);
	memcpy(p + sizeof(h) + h.type_len, vs, vsl);
	memcpy(p + sizeof(h) + h.type_len + vsl, ms, msl);
	*out = p;
	return 0;
}

struct btf *btfi_base_flatten_btf(const struct btf *vmlinux, const void *mod, size_t msz,
				  const char **why)
{
	uint32_t vsz;
	const void *v = btf__raw_data(vmlinux, &vsz);
	size_t sz;
	void *flat;
	struct btf *b;
	int err;

	if (!v) {
		*why = "out of memory";
		errno = ENOMEM;
		return NULL;
	}
	err = btfi_base_flatten(v, vsz, mod, msz, &flat, &sz, why);
	if (err) {
		errno = -err;
		return NULL;
	}
	b = btf__new(flat, sz);	/* copies */
	err = errno;
	free(flat);
	if (!b) {
		*why = "module BTF does not fit this vmlinux BTF (ids or string offsets out of range)";
		errno = err;
	}
	return b;
}
