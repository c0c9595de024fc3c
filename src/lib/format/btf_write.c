// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .BTF.inline writer, byte layer: LOC_PARAM / LOC_PROTO / LOCSEC records,
 * their dedup, and serialization with the 32-byte header and the layout
 * section. Standard kinds come from a libbpf split BTF (libbpf 1.1 writes
 * the 24-byte header and knows none of the new kinds, so we re-frame its
 * types and strings). Byte-level description: docs/FORMAT.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/btf_write.h"
#include "log.h"


/*
 * Deduplicating record table: records are runs of u32 words, stored back
 * to back; an open-addressing hash maps identical records to one handle.
 */
struct rectab {
	uint32_t *words;	size_t nwords, capw;
	uint32_t *offs;		uint32_t n, cap;	/* record i at words[offs[i]], len words[offs[i]] */
	uint32_t *slots;	uint32_t nslots;	/* handle + 1, 0 = empty */
};

static uint32_t hash_words(const uint32_t *w, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 1099511628211ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static int rectab_grow_slots(struct rectab *t)
{
	uint32_t nslots = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		const uint32_t *r = t->words + t->offs[i];
		uint32_t j = hash_words(r + 1, r[0]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

/* Returns the handle of the record w[0..n), adding it if new. */
static int rectab_add(struct rectab *t, const uint32_t *w, uint32_t n)
{
	uint32_t h = hash_words(w, n), j;

	if ((t->n + 1) * 2 > t->nslots && rectab_grow_slots(t))
		return -ENOMEM;
	for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const uint32_t *r = t->words + t->offs[t->slots[j] - 1];

		if (r[0] == n && !memcmp(r + 1, w, n * sizeof(*w)))
			return t->slots[j] - 1;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		uint32_t *offs = realloc(t->offs, cap * sizeof(*offs));

		if (!offs)
			return -ENOMEM;
		t->offs = offs;
		t->cap = cap;
	}
	if (t->nwords + n + 1 > t->capw) {
		size_t capw = t->capw ? t->capw * 2 : 4096;
		uint32_t *words;

		while (capw < t->nwords + n + 1)
			capw *= 2;
		words = realloc(t->words, capw * sizeof(*words));
		if (!words)
			return -ENOMEM;
		t->words = words;
		t->capw = capw;
	}
	t->offs[t->n] = t->nwords;
	t->words[t->nwords++] = n;
	memcpy(t->words + t->nwords, w, n * sizeof(*w));
	t->nwords += n;
	t->slots[j] = t->n + 1;
	return t->n++;
}

static void rectab_free(struct rectab *t)
{
	free(t->words);
	free(t->offs);
	free(t->slots);
}

struct wsite {
	uint32_t sec, func, proto, offset;
	size_t seq;		/* order of btfi_writer_site() calls */
};

/* One LOCSEC to write: a section's plain sites, or those on a branch
 * with condition cond ("inline.text:ne"). */
struct wsec {
	char *name;		/* ".text" */
	uint8_t cond;		/* 0, or 1 + x86 condition code */
	uint32_t group;		/* rank of name by first use: its LOCSECs go together */
};

struct btfi_writer {
	struct btf *base;
	struct btf *btf;		/* split: standard kinds */
	struct btfi_log log;
	struct rectab params;		/* [size, flags, vlen, values...] */
	struct rectab protos;		/* [param handle or UINT32_MAX]... */
	struct wsite *sites;	size_t nsites, capsites;
	struct wsec *secs;	uint32_t nsecs, ngroups;
	uint32_t ndup_same, ndup_other;	/* dropped by finish, see btfi_writer_counts() */
};

int btfi_writer_new(struct btf *base, const struct btfi_log *log, struct btfi_writer **out)
{
	struct btfi_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	if (log)
		w->log = *log;
	w->base = base;
	w->btf = btf__new_empty_split(base);
	if (!w->btf) {
		int err = -errno;

		btfi_err(&w->log, "cannot create split BTF: %s", strerror(-err));
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

void btfi_writer_free(struct btfi_writer *w)
{
	if (!w)
		return;
	btf__free(w->btf);
	rectab_free(&w->params);
	rectab_free(&w->protos);
	free(w->sites);
	for (uint32_t i = 0; i < w->nsecs; i++)
		free(w->secs[i].name);
	free(w->secs);
	free(w);
}

struct btf *btfi_writer_btf(struct btfi_writer *w)
{
	return w->btf;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Constant words: one u32 when the value survives the 32-bit round trip
 * (zero- or sign-extended per is_signed), else {lo, hi}. */
static uint32_t const_words(const struct btfi_loc *l, uint32_t *v)
{
	v[0] = (uint32_t)l->cval;
	v[1] = (uint32_t)(l->cval >> 32);
	if (l->is_signed ? fits_s32((int64_t)l->cval) : !(l->cval >> 32))
		return 1;
	return 2;
}

/* LOC_PARAM words [flags, vlen, values...] for loc; 0 if not encodable. */
static uint32_t loc_words(const struct btfi_loc *l, uint32_t *out)
{
	uint32_t flags = l->is_signed ? BTFI_LOC_SIGNED : 0, *v = out + 2, n;

	switch (l->kind) {
	case BTFI_LOC_KREG:
		flags |= BTFI_LOC_REG;
		v[0] = l->reg;
		n = 1;
		break;
	case BTFI_LOC_KREG_PAIR:
		flags |= BTFI_LOC_REG;
		v[0] = l->reg;
		v[1] = l->reg2;
		n = 2;
		break;
	case BTFI_LOC_KREG_OFF:
		if (!fits_s32(l->off))
			return 0;
		flags |= BTFI_LOC_REG | BTFI_LOC_OFFSET;
		v[0] = l->reg;
		v[1] = (uint32_t)(int32_t)l->off;
		n = 2;
		break;
	case BTFI_LOC_KMEM:
		if (!fits_s32(l->off))
			return 0;
		flags |= BTFI_LOC_REG | BTFI_LOC_DEREF;
		v[0] = l->reg;
		n = 1;
		if (l->off) {
			flags |= BTFI_LOC_OFFSET;
			v[1] = (uint32_t)(int32_t)l->off;
			n = 2;
		}
		break;
	case BTFI_LOC_KCONST:
		flags |= BTFI_LOC_CONST;
		n = const_words(l, v);
		break;
	case BTFI_LOC_KADDR:
		flags |= BTFI_LOC_CONST | BTFI_LOC_ADDR;
		n = const_words(l, v);
		break;
	default:
		return 0;
	}
	out[0] = flags;
	out[1] = n;
	return n + 2;
}

bool btfi_loc_encodable(const struct btfi_loc *loc)
{
	uint32_t w[4];

	return loc_words(loc, w) != 0;
}

int btfi_writer_loc_param(struct btfi_writer *w, const struct btfi_loc *loc)
{
	uint32_t rec[5], n;
	int h;

	n = loc_words(loc, rec + 1);
	if (!n) {
		btfi_err(&w->log, "location kind %u has no LOC_PARAM form", loc->kind);
		return -EINVAL;
	}
	rec[0] = loc->size;
	h = rectab_add(&w->params, rec, n + 1);
	if (h < 0)
		btfi_err(&w->log, "out of memory adding LOC_PARAM");
	return h;
}

int btfi_writer_loc_proto(struct btfi_writer *w, const int *params, uint32_t n)
{
	uint32_t stackbuf[64] = { 0 }, *rec = stackbuf;
	int h;

	if (n > 64 && !(rec = malloc(n * sizeof(*rec))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (params[i] >= (int)w->params.n) {
			btfi_err(&w->log, "LOC_PROTO slot %u: bad LOC_PARAM handle %d", i, params[i]);
			h = -EINVAL;
			goto out;
		}
		rec[i] = params[i] < 0 ? UINT32_MAX : (uint32_t)params[i];
	}
	h = rectab_add(&w->protos, rec, n);
	if (h < 0)
		btfi_err(&w->log, "out of memory adding LOC_PROTO");
out:
	if (rec != stackbuf)
		free(rec);
	return h;
}

int btfi_writer_site(struct btfi_writer *w, const char *secname, uint32_t func_id,
		     int loc_proto, uint32_t offset)
{
	return btfi_writer_cond_site(w, secname, 0, func_id, loc_proto, offset);
}

int btfi_writer_cond_site(struct btfi_writer *w, const char *secname, uint8_t cond,
			  uint32_t func_id, int loc_proto, uint32_t offset)
{
	uint32_t sec, group = UINT32_MAX;

	if (loc_proto < 0 || (uint32_t)loc_proto >= w->protos.n) {
		btfi_err(&w->log, "site: bad LOC_PROTO handle %d", loc_proto);
		return -EINVAL;
	}
	if (cond > 16) {
		btfi_err(&w->log, "site: bad condition %u", cond);
		return -EINVAL;
	}
	/* Few sections: linear search is fine. */
	for (sec = 0; sec < w->nsecs; sec++) {
		if (strcmp(w->secs[sec].name, secname))
			continue;
		group = w->secs[sec].group;
		if (w->secs[sec].cond == cond)
			break;
	}
	if (sec == w->nsecs) {
		struct wsec *secs = realloc(w->secs, (w->nsecs + 1) * sizeof(*secs));

		if (!secs || !(secs[w->nsecs].name = strdup(secname))) {
			if (secs)
				w->secs = secs;
			return -ENOMEM;
		}
		secs[w->nsecs].cond = cond;
		secs[w->nsecs].group = group != UINT32_MAX ? group : w->ngroups++;
		w->secs = secs;
		w->nsecs++;
	}
	if (w->nsites == w->capsites) {
		size_t cap = w->capsites ? w->capsites * 2 : 1024;
		struct wsite *s = realloc(w->sites, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		w->sites = s;
		w->capsites = cap;
	}
	w->sites[w->nsites] = (struct wsite){ sec, func_id, (uint32_t)loc_proto, offset, w->nsites };
	w->nsites++;
	return 0;
}

/* LOCSEC order: sections by first use, each one's plain sites first, then
 * those on a branch by condition code (deterministic whatever order the
 * sites come in; without conditions, the order of first use as before). */
static int cmp_wsite(const void *a, const void *b, void *ctx)
{
	const struct wsite *x = a, *y = b;
	const struct wsec *secs = ctx, *sx = &secs[x->sec], *sy = &secs[y->sec];

	if (sx->group != sy->group)
		return sx->group < sy->group ? -1 : 1;
	if (sx->cond != sy->cond)
		return sx->cond < sy->cond ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* LOCSEC keys (func, offset) must be strictly increasing (upstream's
 * tests; a reader may binary-search them). Of several entries with one
 * key the first added stays: the scan adds instances in DWARF preorder,
 * so that is the outermost one, whose locations are the call's. */
static void dedup_sites(struct btfi_writer *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->nsites; i++) {
		const struct wsite *s = &w->sites[i], *k = n ? &w->sites[n - 1] : NULL;

		if (k && k->sec == s->sec && k->func == s->func && k->offset == s->offset) {
			if (k->proto == s->proto)
				w->ndup_same++;
			else
				w->ndup_other++;
			continue;
		}
		w->sites[n++] = *s;
	}
	w->nsites = n;
}

void btfi_writer_counts(const struct btfi_writer *w, struct btfi_writer_counts *c)
{
	*c = (struct btfi_writer_counts){
		.nloc_param = w->params.n, .nloc_proto = w->protos.n,
		.ndup_same = w->ndup_same, .ndup_other = w->ndup_other,
	};
}

static void put_type(uint8_t **p, uint32_t name_off, uint32_t info, uint32_t size)
{
	uint32_t t[3] = { name_off, info, size };

	memcpy(*p, t, sizeof(t));
	*p += sizeof(t);
}

static void put_u32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

int btfi_writer_finish(struct btfi_writer *w, void **blob, size_t *sz)
{
	const struct btf_header *std;
	uint32_t *sec_name_off = NULL, first_new, proto0, raw_sz, nsec_used = 0, run = 0;
	uint64_t type_len, str_len, layout_off, layout_len, total;
	const void *raw;
	uint8_t *buf, *p;
	struct btfi_hdr hdr;
	size_t i;
	int err = -ENOMEM;

	sec_name_off = calloc(w->nsecs + 1, sizeof(*sec_name_off));
	if (!sec_name_off)
		goto out;
	for (i = 0; i < w->nsecs; i++) {
		char name[256];
		int off;

		if (w->secs[i].cond)	/* docs/FORMAT.md, "Sites on a branch" */
			snprintf(name, sizeof(name), "inline%s:%s", w->secs[i].name,
				 btfi_cc_str(w->secs[i].cond - 1));
		else
			snprintf(name, sizeof(name), "inline%s", w->secs[i].name);
		off = btf__add_str(w->btf, name);
		if (off < 0) {
			err = off;
			btfi_err(&w->log, "cannot add string '%s'", name);
			goto out;
		}
		sec_name_off[i] = off;
	}
	raw = btf__raw_data(w->btf, &raw_sz);
	if (!raw) {
		err = -errno;
		btfi_err(&w->log, "cannot serialize split BTF: %s", strerror(-err));
		goto out;
	}
	std = raw;
	first_new = btf__type_cnt(w->btf);
	proto0 = first_new + w->params.n;

	if (w->nsites)	/* qsort(NULL, 0) is undefined */
		qsort_r(w->sites, w->nsites, sizeof(*w->sites), cmp_wsite, w->secs);
	dedup_sites(w);
	/* one LOCSEC per section; vlen is 24 bits, so split huge ones */
	for (i = 0; i < w->nsites; i++)
		if (!i || w->sites[i].sec != w->sites[i - 1].sec || ++run == BTFI_VLEN_MAX)
			nsec_used++, run = 0;

	type_len = std->type_len;
	for (i = 0; i < w->params.n; i++)
		type_len += 12 + 4 + 4 * (uint64_t)w->params.words[w->params.offs[i] + 3];
	for (i = 0; i < w->protos.n; i++)
		type_len += 12 + 4 * (uint64_t)w->protos.words[w->protos.offs[i]];
	type_len += 12 * (uint64_t)nsec_used + 12 * (uint64_t)w->nsites;
	/* libbpf's order (btf_get_raw_data, btf_parse_hdr): header | types |
	 * layout | strings, no padding: both lengths are multiples of 4. */
	str_len = std->str_len;
	layout_off = type_len;
	layout_len = sizeof(btfi_layouts);
	total = BTFI_HDR_LEN + type_len + layout_len + str_len;
	if (total > UINT32_MAX) {
		btfi_err(&w->log, "blob too large (%llu bytes)", (unsigned long long)total);
		err = -E2BIG;
		goto out;
	}
	buf = calloc(1, total);
	if (!buf)
		goto out;

	hdr = (struct btfi_hdr){
		.magic = BTFI_MAGIC, .version = 1, .flags = 0, .hdr_len = BTFI_HDR_LEN,
		.type_off = 0, .type_len = type_len,
		.str_off = layout_off + layout_len, .str_len = str_len,
		.layout_off = layout_off, .layout_len = layout_len,
	};
	memcpy(buf, &hdr, sizeof(hdr));
	p = buf + BTFI_HDR_LEN;
	memcpy(p, (const uint8_t *)raw + std->hdr_len + std->type_off, std->type_len);
	p += std->type_len;

	for (i = 0; i < w->params.n; i++) {
		const uint32_t *r = w->params.words + w->params.offs[i] + 1;	/* size, flags, vlen, v */

		put_type(&p, 0, BTFI_INFO(BTFI_KIND_LOC_PARAM, r[2]), r[0]);
		put_u32(&p, r[1]);
		for (uint32_t k = 0; k < r[2]; k++)
			put_u32(&p, r[3 + k]);
	}
	for (i = 0; i < w->protos.n; i++) {
		const uint32_t *r = w->protos.words + w->protos.offs[i];

		put_type(&p, 0, BTFI_INFO(BTFI_KIND_LOC_PROTO, r[0]), 0);
		for (uint32_t k = 0; k < r[0]; k++)
			put_u32(&p, r[1 + k] == UINT32_MAX ? 0 : first_new + r[1 + k]);
	}
	for (i = 0; i < w->nsites;) {
		size_t j = i;

		while (j < w->nsites && w->sites[j].sec == w->sites[i].sec && j - i < BTFI_VLEN_MAX)
			j++;
		put_type(&p, sec_name_off[w->sites[i].sec], BTFI_INFO(BTFI_KIND_LOCSEC, j - i), 0);
		for (; i < j; i++) {
			put_u32(&p, w->sites[i].func);
			put_u32(&p, proto0 + w->sites[i].proto);
			put_u32(&p, w->sites[i].offset);
		}
	}
	memcpy(p, btfi_layouts, layout_len);
	p += layout_len;
	memcpy(p, (const uint8_t *)raw + std->hdr_len + std->str_off, std->str_len);
	*blob = buf;
	*sz = total;
	err = 0;
out:
	free(sec_name_off);
	return err;
}
