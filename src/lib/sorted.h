/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Binary search over arrays sorted by a 64-bit key (symbols, relocations,
 * instructions by address): one lower bound for all of them, and the
 * order to sort plain uint64_t arrays by. */
#ifndef BTFI_SORTED_H
#define BTFI_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Index of the first of n elements of stride bytes, sorted by the u64 at
 * byte offset off, whose key is >= key; n if none is. */
static inline size_t btfi_lower_bound_u64(const void *base, size_t n, size_t stride, size_t off,
					  uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)base + mid * stride + off, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* qsort() order of uint64_t values. */
static inline int btfi_cmp_u64(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

#endif
