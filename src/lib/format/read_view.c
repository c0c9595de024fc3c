// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The libbpf view of a blob (btfinline__btf()): libbpf 1.1 knows none of the
 * new kinds, so it gets a synthesized standard split BTF. */
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/read_priv.h"

static int new_split(struct btfinline *bi, const void *data, size_t sz)
{
	char path[64];
	int fd, err = 0;

	fd = memfd_create("btfinline-split", MFD_CLOEXEC);
	if (fd < 0)
		return btfi_read_bad(bi, "memfd_create: %s", strerror(errno));
	if (write(fd, data, sz) != (ssize_t)sz) {
		close(fd);
		return btfi_read_bad(bi, "memfd write failed");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	bi->btf = btf__parse_raw_split(path, bi->base);
	if (!bi->btf) {
		err = -errno;
		err = btfi_read_bad(bi, "libbpf rejects the standard types: %s", strerror(-err));
	}
	close(fd);
	return err;
}

/* Standard split BTF for libbpf: 24-byte header, same ids. */
static int synthesize(struct btfinline *bi)
{
	struct btf_header h = { .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(h) };
	const struct rbtf *r = &bi->s;
	uint64_t tlen = 0;
	uint8_t *buf, *p;
	int err;

	for (uint32_t i = 0, off = 0; i < r->n; off += rec_size(r, off), i++)
		tlen += skind(r, i) <= BTF_KIND_ENUM64 ? rec_size(r, off) : 12;
	buf = malloc(sizeof(h) + tlen + r->str_len);
	if (!buf)
		return -ENOMEM;
	p = buf + sizeof(h);
	for (uint32_t i = 0, off = 0; i < r->n; off += rec_size(r, off), i++) {
		if (skind(r, i) <= BTF_KIND_ENUM64) {
			memcpy(p, r->types + off, rec_size(r, off));
			p += rec_size(r, off);
		} else {
			uint32_t ph[3] = { 0, BTF_KIND_CONST << 24, 0 };

			memcpy(p, ph, 12);
			p += 12;
		}
	}
	h.type_len = tlen;
	h.str_off = tlen;
	h.str_len = r->str_len;
	memcpy(buf, &h, sizeof(h));
	memcpy(p, r->strs, r->str_len);
	err = new_split(bi, buf, sizeof(h) + tlen + r->str_len);
	free(buf);
	return err;
}

struct btf *btfinline__btf(const struct btfinline *cbi)
{
	/* Built on first use: `dump` never needs libbpf's view. Not
	 * thread-safe on that first call. */
	struct btfinline *bi = (struct btfinline *)cbi;

	if (bi->btf || bi->btf_failed)
		return bi->btf;
	bi->name = bi->base_path ? bi->base_path : "(memory)";
	if (!bi->base) {
		/* a flattened chain exists only in memory */
		bi->base = bi->flat_base ? btf__new(bi->bregion.data, bi->bregion.len) :
			   btf__parse(bi->base_path, NULL);
		if (!bi->base) {
			btfi_err(&bi->log, "%s: libbpf cannot load base BTF: %s", bi->base_path,
				 strerror(errno));
			bi->btf_failed = true;
			return NULL;
		}
		bi->own_base = true;
		if (btf__type_cnt(bi->base) != bi->start_id) {
			btfi_read_bad(bi, "libbpf sees %u base types, we saw %u", btf__type_cnt(bi->base),
			    bi->start_id);
			bi->btf_failed = true;
			return NULL;
		}
	}
	if (synthesize(bi))
		bi->btf_failed = true;
	bi->name = NULL;
	return bi->btf;
}
