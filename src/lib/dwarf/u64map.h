/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The scan's small containers: growable arrays and an open-addressing
 * DIE offset -> u32 map. Header-only: they sit on the per-DIE hot path.
 */
#ifndef BTFI_U64MAP_H
#define BTFI_U64MAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct u64map {			/* open addressing, key 0 = empty */
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, cnt;
};

static inline int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return h * 31 + 7;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h * 31 + 1;
}

/* Offset -> u32 map; key 0 is "empty" (no DIE lives at offset 0). */
static inline uint32_t *u64map_slot(struct u64map *m, uint64_t key, bool *found)
{
	size_t mask = m->cap - 1, i = hash64(key) & mask;

	while (m->keys[i]) {
		if (m->keys[i] == key) {
			*found = true;
			return &m->vals[i];
		}
		i = (i + 1) & mask;
	}
	*found = false;
	return &m->vals[i];
}

static inline bool u64map_get(struct u64map *m, uint64_t key, uint32_t *val)
{
	bool found;
	uint32_t *v;

	if (!m->cap)
		return false;
	v = u64map_slot(m, key, &found);
	if (found)
		*val = *v;
	return found;
}

static inline int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	bool found;
	uint32_t *v;

	if ((m->cnt + 1) * 2 > m->cap) {
		struct u64map n = { .cap = m->cap ? m->cap * 2 : 1024 };
		size_t i;

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			v = u64map_slot(&n, m->keys[i], &found);
			*v = m->vals[i];
			n.keys[v - n.vals] = m->keys[i];
		}
		n.cnt = m->cnt;
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	v = u64map_slot(m, key, &found);
	*v = val;
	if (!found) {
		m->keys[v - m->vals] = key;
		m->cnt++;
	}
	return 0;
}

static inline void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

#endif
