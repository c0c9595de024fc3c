// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gzip, bzip2 and xz undone in memory (unpack.h says what for). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include "unpack.h"

struct outbuf {
	unsigned char *p;
	size_t len, cap;
};

/* Room for at least one more byte; doubles. */
static int grow(struct outbuf *o)
{
	size_t cap = o->cap ? o->cap * 2 : 1 << 20;
	unsigned char *p;

	if (o->len >= BTFI_UNPACK_MAX)
		return -EFBIG;
	if (cap > BTFI_UNPACK_MAX)
		cap = BTFI_UNPACK_MAX;
	if (!(p = realloc(o->p, cap)))
		return -ENOMEM;
	o->p = p;
	o->cap = cap;
	return 0;
}

static int gunzip(const unsigned char *in, size_t n, struct outbuf *o)
{
	z_stream z = { .next_in = (unsigned char *)in, .avail_in = n };
	int r = Z_OK, err = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	while (r != Z_STREAM_END) {
		if (o->len == o->cap && (err = grow(o)))
			break;
		z.next_out = o->p + o->len;
		z.avail_out = o->cap - o->len;
		r = inflate(&z, Z_NO_FLUSH);
		o->len = o->cap - z.avail_out;
		if (r != Z_OK && r != Z_STREAM_END && !(r == Z_BUF_ERROR && z.avail_in)) {
			err = r == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
	}
	inflateEnd(&z);
	return err;
}

static int bunzip2(const unsigned char *in, size_t n, struct outbuf *o)
{
	bz_stream b = { .next_in = (char *)in, .avail_in = n };
	int r = BZ_OK, err = 0;

	if (n > UINT32_MAX || BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
		return -ENOMEM;
	while (r != BZ_STREAM_END) {
		if (o->len == o->cap && (err = grow(o)))
			break;
		b.next_out = (char *)o->p + o->len;
		b.avail_out = o->cap - o->len;
		r = BZ2_bzDecompress(&b);
		o->len = o->cap - b.avail_out;
		if (r != BZ_OK && r != BZ_STREAM_END) {
			err = r == BZ_MEM_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
		if (r == BZ_OK && !b.avail_in && b.avail_out) {	/* cut short */
			err = -EINVAL;
			break;
		}
	}
	BZ2_bzDecompressEnd(&b);
	return err;
}

static int unxz(const unsigned char *in, size_t n, struct outbuf *o)
{
	lzma_stream x = LZMA_STREAM_INIT;
	lzma_ret r = LZMA_OK;
	int err = 0;

	if (lzma_stream_decoder(&x, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	x.next_in = in;
	x.avail_in = n;
	while (r != LZMA_STREAM_END) {
		if (o->len == o->cap && (err = grow(o)))
			break;
		x.next_out = o->p + o->len;
		x.avail_out = o->cap - o->len;
		r = lzma_code(&x, LZMA_FINISH);
		o->len = o->cap - x.avail_out;
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			err = r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
	}
	lzma_end(&x);
	return err;
}

int btfi_unpack_file(const char *path, void **out, size_t *size)
{
	struct outbuf o = { 0 };
	unsigned char *in = NULL;
	struct stat st;
	size_t n = 0;
	int fd, err;

	*out = NULL;
	*size = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 6 ||
	    (uint64_t)st.st_size > BTFI_UNPACK_MAX) {
		err = -EINVAL;
		goto out;
	}
	if (!(in = malloc(st.st_size))) {
		err = -ENOMEM;
		goto out;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, in + n, st.st_size - n);

		if (r <= 0) {
			err = r < 0 ? -errno : -EINVAL;
			goto out;
		}
		n += r;
	}
	if (in[0] == 0x1f && in[1] == 0x8b)
		err = gunzip(in, n, &o);
	else if (!memcmp(in, "BZh", 3))
		err = bunzip2(in, n, &o);
	else if (!memcmp(in, "\xfd" "7zXZ\0", 6))
		err = unxz(in, n, &o);
	else
		err = -EINVAL;
out:
	close(fd);
	free(in);
	if (err) {
		free(o.p);
		return err;
	}
	*out = o.p;
	*size = o.len;
	return 0;
}
