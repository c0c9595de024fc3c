// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Lookups on a validated blob: sites by function name, by address, every
 * site; locations of a site; accessors. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/read_priv.h"

/* ---- the full site list (sorted by name), built on first use ---- */

static int cmp_func_ids(const void *a, const void *b, void *ctx)
{
	const struct btfinline *bi = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(name_of(bi, x), name_of(bi, y));

	return c ? c : (x > y) - (x < y);
}

static int build_sites(struct btfinline *bi)
{
	uint32_t nids = bi->start_id + bi->s.n, *rank = NULL, *funcs = NULL, nfuncs = 0;
	size_t *cnt = NULL, n = bi->sizes.nsites;
	int err = -ENOMEM;

	bi->sites = malloc((n ? n : 1) * sizeof(*bi->sites));
	rank = calloc(nids, sizeof(*rank));
	if (!bi->sites || !rank)
		goto out;
	/* Distinct functions, sorted by name: their rank orders the sites. */
	for (uint32_t l = 0; l < bi->nlocsecs; l++) {
		const uint8_t *t = bi->s.types + bi->locsecs[l];

		for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v; k++) {
			uint32_t f = rd32(t + 12 + 12 * k);

			if (!rank[f]) {
				rank[f] = 1;
				nfuncs++;
			}
		}
	}
	funcs = malloc((nfuncs ? nfuncs : 1) * sizeof(*funcs));
	cnt = calloc(nfuncs + 1, sizeof(*cnt));
	if (!funcs || !cnt)
		goto out;
	nfuncs = 0;
	for (uint32_t id = 0; id < nids; id++)
		if (rank[id])
			funcs[nfuncs++] = id;
	qsort_r(funcs, nfuncs, sizeof(*funcs), cmp_func_ids, bi);
	for (uint32_t r = 0; r < nfuncs; r++)
		rank[funcs[r]] = r;
	/* Counting sort by rank; LOCSEC order keeps (secno, offset) within a func. */
	for (uint32_t l = 0; l < bi->nlocsecs; l++) {
		const uint8_t *t = bi->s.types + bi->locsecs[l];

		for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v; k++)
			cnt[rank[rd32(t + 12 + 12 * k)] + 1]++;
	}
	for (uint32_t r = 0; r < nfuncs; r++)
		cnt[r + 1] += cnt[r];
	for (uint32_t sno = 0; sno < bi->nsecs; sno++) {
		for (uint32_t l = 0; l < bi->nlocsecs; l++) {
			const uint8_t *t = bi->s.types + bi->locsecs[l];

			if (bi->locsec_sno[l] != sno)
				continue;
			for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v; k++) {
				const uint8_t *e = t + 12 + 12 * k;
				uint32_t f = rd32(e);

				bi->sites[cnt[rank[f]]++] = (struct btfinline_site){
					.func_id = f, .loc_proto_id = rd32(e + 4),
					.offset = rd32(e + 8), .secno = sno,
				};
			}
		}
	}
	bi->nsites = n;
	err = 0;
out:
	if (err) {
		free(bi->sites);
		bi->sites = NULL;
	}
	free(rank);
	free(funcs);
	free(cnt);
	return err;
}

uint32_t btfinline__start_id(const struct btfinline *bi)
{
	return bi->start_id;
}

const struct btf_type *btfinline__type_by_id(const struct btfinline *bi, uint32_t id)
{
	return ty(bi, id);
}

const char *btfinline__name_by_offset(const struct btfinline *bi, uint32_t off)
{
	return str_at(bi, off);
}

uint32_t btfinline__nsecs(const struct btfinline *bi)
{
	return bi->nsecs;
}

const char *btfinline__sec_name(const struct btfinline *bi, uint32_t secno)
{
	return secno < bi->nsecs ? bi->secs[secno].name : NULL;
}

int btfinline__sec_cond(const struct btfinline *bi, uint32_t secno)
{
	return secno < bi->nsecs ? bi->secs[secno].cond : -ENOENT;
}

int btfinline__sec_addr(const struct btfinline *bi, uint32_t secno, uint64_t *addr)
{
	if (secno >= bi->nsecs || !bi->secs[secno].has_addr)
		return -ENOENT;
	*addr = bi->secs[secno].addr;
	return 0;
}

const struct btfinline_site *btfinline__sites(const struct btfinline *cbi, size_t *cnt)
{
	struct btfinline *bi = (struct btfinline *)cbi;

	/* Built on first use (not thread-safe on that call). */
	if (!bi->sites && build_sites(bi)) {
		*cnt = 0;
		return NULL;
	}
	*cnt = bi->nsites;
	return bi->sites;
}

/* First entry of LOCSEC record t whose func is >= f (entries sorted by func). */
static uint32_t locsec_lower(const uint8_t *t, uint32_t f)
{
	uint32_t lo = 0, hi = BTFI_INFO_VLEN(rd32(t + 4));

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rd32(t + 12 + 12 * mid) < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Number of LOCSEC entries of FUNC id (binary search in each LOCSEC). */
static size_t func_nsites(const struct btfinline *bi, uint32_t id)
{
	size_t n = 0;

	for (uint32_t l = 0; l < bi->nlocsecs; l++) {
		const uint8_t *t = bi->s.types + bi->locsecs[l];
		uint32_t v = BTFI_INFO_VLEN(rd32(t + 4));

		for (uint32_t e = locsec_lower(t, id); e < v && rd32(t + 12 + 12 * e) == id; e++)
			n++;
	}
	return n;
}

size_t btfinline__func_sites(const struct btfinline *cbi, const char *name,
			     const struct btfinline_site **first)
{
	struct btfinline *bi = (struct btfinline *)cbi;
	uint32_t ids[256], nids = 0;
	size_t n = 0, k = 0, m;
	struct chunk *c;

	*first = NULL;
	/* Once the name-sorted list exists (btfinline__sites()), binary search it. */
	if (bi->sites) {
		size_t lo = 0, hi = bi->nsites, end;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(name_of(bi, bi->sites[mid].func_id), name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (end = lo, hi = bi->nsites; end < hi;) {
			size_t mid = end + (hi - end) / 2;

			if (strcmp(name_of(bi, bi->sites[mid].func_id), name) <= 0)
				end = mid + 1;
			else
				hi = mid;
		}
		*first = end > lo ? bi->sites + lo : NULL;
		return end - lo;
	}
	/* Else (one lookup, e.g. `dump FUNC`: sorting 30k names would cost
	 * more than the lookup): FUNC ids with this name among those LOCSECs
	 * name (listed at open),
	 * then each LOCSEC (sorted by func) is binary-searched. */
	for (uint32_t i = 0; i < bi->nfuncs && nids < 256; i++) {
		uint32_t id = bi->funcs[i];
		const char *fn = str_at(bi, bi->fname[i]);

		if (fn[0] == name[0] && !strcmp(fn, name) && (m = func_nsites(bi, id)))
			ids[nids++] = id, n += m;
	}
	/* funcs[] is in LOCSEC order; results go by ascending id. */
	for (uint32_t i = 1; i < nids; i++)
		for (uint32_t j = i; j && ids[j - 1] > ids[j]; j--) {
			uint32_t x = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	if (!n)
		return 0;
	c = malloc(sizeof(*c) + n * sizeof(c->s[0]));
	if (!c)
		return 0;
	c->next = bi->chunks;
	bi->chunks = c;
	for (uint32_t j = 0; j < nids; j++)
		for (uint32_t sno = 0; sno < bi->nsecs; sno++)
			for (uint32_t l = 0; l < bi->nlocsecs; l++) {
				const uint8_t *t = bi->s.types + bi->locsecs[l];
				uint32_t v = BTFI_INFO_VLEN(rd32(t + 4));

				if (bi->locsec_sno[l] != sno)
					continue;
				for (uint32_t e = locsec_lower(t, ids[j]); e < v && rd32(t + 12 + 12 * e) == ids[j]; e++)
					c->s[k++] = (struct btfinline_site){
						.func_id = ids[j], .loc_proto_id = rd32(t + 16 + 12 * e),
						.offset = rd32(t + 20 + 12 * e), .secno = sno,
					};
			}
	*first = c->s;
	return k;
}

static int cmp_addr(const void *a, const void *b, void *ctx)
{
	const struct btfinline_site *sites = ctx;
	const struct btfinline_site *x = sites + *(const uint32_t *)a;
	const struct btfinline_site *y = sites + *(const uint32_t *)b;

	if (x->secno != y->secno)
		return x->secno < y->secno ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x > y) - (x < y);
}

/* Sites at (secno, offset) by a pass over that section's LOCSEC entries
 * (~0.3 ms on the kernel, against ~80 ms to build the index). */
static size_t sites_at_scan(struct btfinline *bi, uint32_t secno, uint32_t offset,
			    const struct btfinline_site **out, size_t max)
{
	struct chunk *c;
	size_t n = 0;

	if (!max)
		return 0;
	c = malloc(sizeof(*c) + max * sizeof(c->s[0]));
	if (!c)
		return 0;
	for (uint32_t l = 0; l < bi->nlocsecs && n < max; l++) {
		const uint8_t *t = bi->s.types + bi->locsecs[l];

		if (bi->locsec_sno[l] != secno)
			continue;
		for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v && n < max; k++) {
			const uint8_t *e = t + 12 + 12 * k;

			if (rd32(e + 8) != offset)
				continue;
			c->s[n] = (struct btfinline_site){
				.func_id = rd32(e), .loc_proto_id = rd32(e + 4),
				.offset = offset, .secno = secno,
			};
			out[n] = &c->s[n];
			n++;
		}
	}
	if (!n) {
		free(c);
		return 0;
	}
	c->next = bi->chunks;
	bi->chunks = c;
	return n;
}

size_t btfinline__sites_at(const struct btfinline *cbi, uint32_t secno, uint32_t offset,
			   const struct btfinline_site **out, size_t max)
{
	/* The first few queries (a `dump --addr`) scan; after that, an index
	 * by address, built once (not thread-safe on that call). */
	struct btfinline *bi = (struct btfinline *)cbi;
	size_t lo = 0, hi, n = 0, cnt;

	if (!bi->by_addr && bi->naddr_queries < 8) {
		bi->naddr_queries++;
		return sites_at_scan(bi, secno, offset, out, max);
	}
	if (!btfinline__sites(bi, &cnt))
		return 0;
	hi = cnt;
	if (!bi->by_addr && cnt) {
		bi->by_addr = malloc(cnt * sizeof(*bi->by_addr));
		if (!bi->by_addr)
			return 0;
		for (size_t i = 0; i < cnt; i++)
			bi->by_addr[i] = i;
		qsort_r(bi->by_addr, cnt, sizeof(*bi->by_addr), cmp_addr, bi->sites);
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct btfinline_site *s = bi->sites + bi->by_addr[mid];

		if (s->secno < secno || (s->secno == secno && s->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < cnt; lo++) {
		const struct btfinline_site *s = bi->sites + bi->by_addr[lo];

		if (s->secno != secno || s->offset != offset)
			break;
		if (n < max)
			out[n] = s;
		n++;
	}
	return n < max ? n : max;
}

/* LOC_PARAM record -> struct btfi_loc (the record was validated at open). */
static void decode_loc(const uint8_t *p, struct btfi_loc *l)
{
	uint32_t size = rd32(p + 8), vlen = BTFI_INFO_VLEN(rd32(p + 4));
	uint32_t flags = rd32(p + 12), v0 = rd32(p + 16), v1 = vlen > 1 ? rd32(p + 20) : 0;
	bool sgn = flags & BTFI_LOC_SIGNED;

	memset(l, 0, sizeof(*l));
	l->size = size;
	l->is_signed = sgn;
	if (flags & BTFI_LOC_CONST) {
		l->kind = flags & BTFI_LOC_ADDR ? BTFI_LOC_KADDR : BTFI_LOC_KCONST;
		if (vlen == 2)
			l->cval = (uint64_t)v1 << 32 | v0;
		else
			l->cval = sgn ? (uint64_t)(int64_t)(int32_t)v0 : v0;
		return;
	}
	l->reg = v0;
	if (flags & BTFI_LOC_DEREF) {
		l->kind = BTFI_LOC_KMEM;
		l->off = vlen == 2 ? (int32_t)v1 : 0;
	} else if (flags & BTFI_LOC_OFFSET) {
		l->kind = BTFI_LOC_KREG_OFF;
		l->off = (int32_t)v1;
	} else if (vlen == 2) {
		l->kind = BTFI_LOC_KREG_PAIR;
		l->reg2 = v1;
	} else {
		l->kind = BTFI_LOC_KREG;
	}
}

int btfinline__site_locs(const struct btfinline *bi, const struct btfinline_site *site,
			 struct btfi_loc *locs, int max)
{
	const uint8_t *p;
	uint32_t id = site->loc_proto_id, n;

	if (id < bi->start_id || id - bi->start_id >= bi->s.n ||
	    skind(&bi->s, id - bi->start_id) != BTFI_KIND_LOC_PROTO)
		return -EINVAL;
	p = (const uint8_t *)ty(bi, id);
	n = BTFI_INFO_VLEN(rd32(p + 4));
	for (uint32_t i = 0; i < n && (int)i < max; i++) {
		uint32_t pid = rd32(p + 12 + 4 * i);

		if (!pid) {
			memset(&locs[i], 0, sizeof(locs[i]));
			locs[i].kind = BTFI_LOC_NONE;
			locs[i].reason = BTFI_R_UNKNOWN;
			continue;
		}
		decode_loc((const uint8_t *)ty(bi, pid), &locs[i]);
	}
	return n;
}

void btfinline__sizes(const struct btfinline *bi, struct btfinline_sizes *out)
{
	*out = bi->sizes;
}
