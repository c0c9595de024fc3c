// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .BTF.inline reader. Every byte is validated before use (header, section
 * bounds, strings, kinds via the layout section, ids and their kinds,
 * LOC_PARAM forms, LOCSEC order, agreement with the base). libbpf 1.1 then
 * gets a synthesized standard split BTF (24-byte header, new or unknown
 * kinds replaced by same-id CONST->void placeholders) so its lookups work
 * on split FUNC/FUNC_PROTO ids. Sites are indexed by function name.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/read_priv.h"
#include "opts.h"

const struct btf_type btfi_void_type;

int btfi_read_bad(const struct btfinline *bi, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!bi->quiet)
		btfi_err(&bi->log, "%s: %s", bi->name, buf);
	return -EINVAL;
}

static int check_hdr(struct btfinline *bi, const char *what, const uint8_t *d, size_t sz,
		     struct btfi_hdr *h)
{
	uint64_t meta, lay_end;

	memset(h, 0, sizeof(*h));
	if (sz < 8)
		return btfi_read_bad(bi, "%struncated header (%zu bytes)", what, sz);
	memcpy(h, d, 8);
	if (h->magic == 0x9FeB)
		return btfi_read_bad(bi, "%sbig-endian BTF is not supported", what);
	if (h->magic != BTFI_MAGIC)
		return btfi_read_bad(bi, "%sbad magic 0x%04x (not BTF)", what, h->magic);
	if (h->version != 1)
		return btfi_read_bad(bi, "%sunsupported BTF version %u", what, h->version);
	if (h->hdr_len < 24 || h->hdr_len % 4)
		return btfi_read_bad(bi, "%shdr_len %u too small or not a multiple of 4", what, h->hdr_len);
	if (h->hdr_len > sz)
		return btfi_read_bad(bi, "%shdr_len %u past the end (%zu bytes)", what, h->hdr_len, sz);
	memcpy(h, d, h->hdr_len < sizeof(*h) ? h->hdr_len : sizeof(*h));
	/* A longer header than we know: its extra bytes must be zero. */
	for (size_t i = sizeof(*h); i < h->hdr_len; i++)
		if (d[i])
			return btfi_read_bad(bi, "%sunknown non-zero header field at byte %zu", what, i);
	meta = sz - h->hdr_len;
	if (h->type_off % 4)
		return btfi_read_bad(bi, "%stype section not 4-byte aligned (type_off %u)", what, h->type_off);
	if ((uint64_t)h->type_off + h->type_len > meta)
		return btfi_read_bad(bi, "%stype section %u+%u past the end (%llu bytes)", what, h->type_off,
			   h->type_len, (unsigned long long)meta);
	if ((uint64_t)h->str_off + h->str_len > meta)
		return btfi_read_bad(bi, "%sstring section %u+%u past the end (%llu bytes)", what, h->str_off,
			   h->str_len, (unsigned long long)meta);
	if ((uint64_t)h->type_off + h->type_len > h->str_off)
		return btfi_read_bad(bi, "%stype section %u+%u overlaps strings at %u", what, h->type_off,
			   h->type_len, h->str_off);
	if (h->str_len && d[h->hdr_len + h->str_off + h->str_len - 1])
		return btfi_read_bad(bi, "%sstring section not NUL-terminated", what);
	if (h->layout_len) {
		lay_end = (uint64_t)h->layout_off + h->layout_len;
		if (h->layout_off % 4 || h->layout_len % 4)
			return btfi_read_bad(bi, "%slayout section %u+%u not 4-byte aligned", what,
				   h->layout_off, h->layout_len);
		if (lay_end > meta)
			return btfi_read_bad(bi, "%slayout section %u+%u past the end", what, h->layout_off,
				   h->layout_len);
		/* libbpf writes and requires types | layout | strings; older
		 * writers (ours before 2026-12) put it after the strings. Any
		 * order opens as long as no two sections share a byte. */
		if ((h->type_len && h->layout_off < (uint64_t)h->type_off + h->type_len &&
		     h->type_off < lay_end) ||
		    (h->str_len && h->layout_off < (uint64_t)h->str_off + h->str_len &&
		     h->str_off < lay_end))
			return btfi_read_bad(bi, "%slayout section %u+%u overlaps types or strings", what,
				   h->layout_off, h->layout_len);
	}
	return 0;
}

/* Fault in [p, p+len) clipped to the mapping [m, m+mlen) in one call;
 * harmless if the kernel does not know MADV_POPULATE_WRITE (5.14). */
static void prefault(void *p, size_t len, void *m, size_t mlen)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pg - 1), end = (uintptr_t)p + len;

	if (end > (uintptr_t)m + mlen)
		end = (uintptr_t)m + mlen;
	if (end > a)
		madvise((void *)a, end - a, 23 /* MADV_POPULATE_WRITE */);
}

static inline int check_rec(struct btfinline *bi, uint32_t id, uint32_t off, int k);

/* Walk a type section: offsets and kinds of every record, bytes per kind,
 * the LOC_PROTO table (split), and (split, fast_check) each record's
 * checks while it is in the cache. One pass: reading the sections from
 * memory is most of open's cost. first_id names records in messages; max_kind:
 * kinds a base may hold (19), or 0x7f for the split part. */
static int walk_types(struct btfinline *bi, const char *what, struct rbtf *r, uint32_t first_id,
		      const uint8_t *lay, uint32_t nlay, uint32_t max_kind, bool split)
{
	const uint8_t *t = r->types;
	uint32_t off = 0, n = 0, cap = r->type_len / 12 + 1, ncp = (cap >> CP_SHIFT) + 1, lim = 0;
	uint8_t *isz = r->isz, *esz = r->esz;

	/* A record is at least 12 bytes: size the index for that, but fault
	 * in only what the walk fills, in chunks (one fault per page costs
	 * twice a chunked prefault here). */
	r->mem_len = (size_t)ncp * 4 + cap;
	r->mem = mmap(NULL, r->mem_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return -ENOMEM;
	}
	r->cp = r->mem;
	r->kv = (uint8_t *)r->mem + (size_t)ncp * 4;

	/* Per-kind sizes once (layout entries checked against ours here), so
	 * the loop over every record is a table lookup. 0xff: no size known. */
	for (uint32_t k = 0; k < 128; k++) {
		isz[k] = esz[k] = 0xff;
		if (k <= BTFI_KIND_MAX_KNOWN) {
			isz[k] = btfi_layouts[k].info_sz;
			esz[k] = btfi_layouts[k].elem_sz;
		}
		if (k < nlay) {
			const uint8_t *l = lay + 4 * k;

			if (k <= BTFI_KIND_MAX_KNOWN && (l[0] != isz[k] || l[1] != esz[k]))
				return btfi_read_bad(bi, "%slayout for kind %u (%s) is {%u,%u}, expected {%u,%u}",
					   what, k, kname(k), l[0], l[1], isz[k], esz[k]);
			if (l[0] % 4 || l[1] % 4 || l[0] == 0xff)
				isz[k] = 0xfe;	/* record size not a multiple of 4 */
			else
				isz[k] = l[0], esz[k] = l[1];
		}
	}
	if ((uint64_t)first_id + cap >= 0x7fffffff)
		return btfi_read_bad(bi, "%stoo many types", what);
	while (off < r->type_len) {
		uint32_t info, kind, vlen;
		uint64_t rsz;

		if (r->type_len - off < 12)
			return btfi_read_bad(bi, "%stype [%u] at offset %u: truncated record", what,
				   first_id + n, off);
		info = rd32(t + off + 4);
		kind = BTFI_INFO_KIND(info);
		vlen = BTFI_INFO_VLEN(info);
		if (isz[kind] >= 0xfe) {
			if (isz[kind] == 0xfe)
				return btfi_read_bad(bi, "%stype [%u]: layout of kind %u gives a size not a multiple of 4",
					   what, first_id + n, kind);
			return btfi_read_bad(bi, "%stype [%u]: unknown kind %u without layout", what,
				   first_id + n, kind);
		}
		rsz = 12 + isz[kind] + (uint64_t)vlen * esz[kind];
		if (rsz > r->type_len - off)
			return btfi_read_bad(bi, "%stype [%u] %s: vlen %u runs past the type section", what,
				   first_id + n, kname(kind), vlen);
		if (kind > max_kind)
			return btfi_read_bad(bi, "%stype [%u] has kind %u", what, first_id + n, kind);
		if (n == lim) {
			lim += 32768;
			prefault(r->cp + (n >> CP_SHIFT), (lim - n) >> CP_SHIFT << 2, r->mem, r->mem_len);
			prefault(r->kv + n, lim - n, r->mem, r->mem_len);
		}
		if (!(n & CP_MASK))
			r->cp[n >> CP_SHIFT] = off;
		{
			uint32_t kvl = vlen;

			/* FUNC_PROTO: its parameter count (a trailing vararg
			 * slot is not one), read while the record is cached. */
			if (kind == BTF_KIND_FUNC_PROTO && vlen && !rd32(t + off + 12 + 8 * (vlen - 1)) &&
			    !rd32(t + off + 16 + 8 * (vlen - 1)))
				kvl--;
			r->kv[n] = (kind <= BTFI_KIND_MAX_KNOWN ? kind : KV_UNKNOWN) |
				   (kvl < 7 ? kvl : 7) << 5;
		}
		if (split) {
			r->kbytes[kind] += rsz;
			r->kcnt[kind]++;
			if (kind == BTFI_KIND_LOCSEC)
				r->nent += vlen;
			if (bi->fast_check) {
				int err;

				r->n = n + 1;	/* ids so far are known */
				bi->quiet = true;
				err = check_rec(bi, first_id + n, off, skind(r, n));
				bi->quiet = false;
				if (err == -ENOMEM)
					return err;
				if (err)
					bi->fast_check = false;
			}
		}
		off += rsz;
		n++;
	}
	r->n = n;
	return 0;
}

/* Add FUNC id (name name_off) to the functions lookups go through. */
static void add_func(struct btfinline *bi, uint32_t id, uint32_t name_off)
{
	if (!(bi->nfuncs & 8191))
		prefault(bi->funcs + bi->nfuncs, 8192 * 4, bi->fmem, bi->fmem_len),
		prefault(bi->fname + bi->nfuncs, 8192 * 4, bi->fmem, bi->fmem_len);
	bi->fname[bi->nfuncs] = name_off;
	bi->funcs[bi->nfuncs++] = id;
}

/* Checks of one standard-kind record (libbpf 1.1 checks little itself). */
static int check_std(struct btfinline *bi, uint32_t id, const uint8_t *p)
{
	uint32_t name_off = rd32(p), info = rd32(p + 4), ref = rd32(p + 8);
	uint32_t kind = BTFI_INFO_KIND(info), vlen = BTFI_INFO_VLEN(info);
	const uint8_t *e = p + 12;

	if (!str_ok(bi, name_off))
		return btfi_read_bad(bi, "type [%u] %s: name offset %u out of range", id, kname(kind), name_off);
	if (vlen > 0xffff)
		return btfi_read_bad(bi, "type [%u] %s: vlen %u too large", id, kname(kind), vlen);
	switch (kind) {
	case BTF_KIND_UNKN:
		return btfi_read_bad(bi, "type [%u]: kind 0 (UNKN) is not a type", id);
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		if (!id_ok(bi, ref))
			return btfi_read_bad(bi, "type [%u] %s: type id %u out of range", id, kname(kind), ref);
		break;
	case BTF_KIND_FUNC:
		if (!split_is(bi, ref, BTF_KIND_FUNC_PROTO) &&
		    (!id_ok(bi, ref) || kind_of(bi, ref) != BTF_KIND_FUNC_PROTO))
			return btfi_read_bad(bi, "type [%u] FUNC: type id %u is not a FUNC_PROTO (base mismatch?)",
				   id, ref);
		if (!name_off)
			return btfi_read_bad(bi, "type [%u] FUNC: no name", id);
		{
			/* kv[] gets its parameter count; lookups go through it. */
			int kv = kv_of(bi, ref);
			uint32_t np = kv >= 0 ? (uint32_t)kv >> 5 : (uint32_t)proto_nparams(ty(bi, ref));

			bi->s.kv[id - bi->start_id] = BTF_KIND_FUNC | (np < 7 ? np : 7) << 5;
			add_func(bi, id, name_off);
		}
		break;
	case BTF_KIND_ARRAY:
		if (!id_ok(bi, rd32(e)) || !id_ok(bi, rd32(e + 4)))
			return btfi_read_bad(bi, "type [%u] ARRAY: type id out of range", id);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (uint32_t i = 0; i < vlen; i++, e += 12)
			if (!str_ok(bi, rd32(e)) || !id_ok(bi, rd32(e + 4)))
				return btfi_read_bad(bi, "type [%u] %s: member %u bad name or type", id,
					   kname(kind), i);
		break;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		for (uint32_t i = 0; i < vlen; i++, e += btfi_layouts[kind].elem_sz)
			if (!str_ok(bi, rd32(e)))
				return btfi_read_bad(bi, "type [%u] %s: value %u name out of range", id,
					   kname(kind), i);
		break;
	case BTF_KIND_FUNC_PROTO:
		if (!id_ok(bi, ref))
			return btfi_read_bad(bi, "type [%u] FUNC_PROTO: return type %u out of range", id, ref);
		for (uint32_t i = 0; i < vlen; i++, e += 8)
			if (!str_ok(bi, rd32(e)) || !id_ok(bi, rd32(e + 4)))
				return btfi_read_bad(bi, "type [%u] FUNC_PROTO: param %u bad name or type", id, i);
		break;
	case BTF_KIND_DATASEC:
		for (uint32_t i = 0; i < vlen; i++, e += 12)
			if (!id_ok(bi, rd32(e)))
				return btfi_read_bad(bi, "type [%u] DATASEC: var %u id out of range", id, i);
		break;
	default:
		break;
	}
	return 0;
}

static bool loc_form_ok(uint32_t flags, uint32_t vlen)
{
	switch (flags & ~BTFI_LOC_SIGNED) {
	case BTFI_LOC_CONST:
	case BTFI_LOC_CONST | BTFI_LOC_ADDR:
	case BTFI_LOC_REG:
		return vlen == 1 || vlen == 2;
	case BTFI_LOC_REG | BTFI_LOC_OFFSET:
	case BTFI_LOC_REG | BTFI_LOC_DEREF | BTFI_LOC_OFFSET:
		return vlen == 2;
	case BTFI_LOC_REG | BTFI_LOC_DEREF:
		return vlen == 1;
	default:
		return false;
	}
}

static uint32_t vlen_of(const struct btfinline *bi, uint32_t id)
{
	return BTFI_INFO_VLEN(ty(bi, id)->info);
}

static int check_new(struct btfinline *bi, uint32_t id, const uint8_t *p)
{
	uint32_t name_off = rd32(p), info = rd32(p + 4);
	uint32_t kind = BTFI_INFO_KIND(info), vlen = BTFI_INFO_VLEN(info);
	const uint8_t *e = p + 12;

	if (!str_ok(bi, name_off))
		return btfi_read_bad(bi, "type [%u] %s: name offset %u out of range", id, kname(kind), name_off);
	if (kind == BTFI_KIND_LOC_PARAM) {
		uint32_t flags = rd32(e);

		if (!loc_form_ok(flags, vlen))
			return btfi_read_bad(bi, "type [%u] LOC_PARAM: illegal flags 0x%x with vlen %u", id,
				   flags, vlen);
	} else if (kind == BTFI_KIND_LOC_PROTO) {
		for (uint32_t i = 0; i < vlen; i++, e += 4) {
			uint32_t pid = rd32(e);

			if (pid && !split_is(bi, pid, BTFI_KIND_LOC_PARAM))
				return btfi_read_bad(bi, "type [%u] LOC_PROTO: slot %u names type %u, not a LOC_PARAM",
					   id, i, pid);
		}
	} else if (kind == BTFI_KIND_LOCSEC) {
		const char *nm = str_at(bi, name_off);

		if (!locsec_sec(nm))
			return btfi_read_bad(bi, "type [%u] LOCSEC: name '%.64s' is not \"inline<section>\"%s", id,
				   nm, name_off < bi->base_str_len ? " (base mismatch?)" : "");
	}
	return 0;
}

/* The sites of LOCSEC `id` at t, once every other record is checked: the
 * hot loop of open (one pass over every site), on small arrays: split
 * FUNCs' kinds and parameter counts come from kv[], not their records. */
static int check_sites(struct btfinline *bi, uint32_t id, const uint8_t *t)
{
	const char *nm = str_at(bi, rd32(t));
	const uint32_t *ent = (const uint32_t *)(t + 12);
	const uint8_t *kv = bi->s.kv;
	uint32_t vlen = BTFI_INFO_VLEN(rd32(t + 4)), pfunc = 0, poff = 0;
	uint32_t start = bi->start_id, nt = bi->s.n, want = 0, fname = 0;
	int np = -1;

	for (uint32_t i = 0; i < vlen; i++, ent += 3) {
		uint32_t func = ent[0], proto = ent[1], off = ent[2], pi = proto - start;

		if (i && (func < pfunc || (func == pfunc && off < poff)))
			return btfi_read_bad(bi, "type [%u] LOCSEC %s: site %u out of (func, offset) order",
				   id, nm, i);
		/* Sorted by func: check each function once. */
		if (!i || func != pfunc) {
			if (func >= start && func - start < nt && (kv[func - start] & 31) == BTF_KIND_FUNC) {
				np = kv[func - start] >> 5;
				if (np == 7)
					np = func_nparams(bi, func, &fname);
			} else if (func >= start || (np = func_nparams(bi, func, &fname)) == -2) {
				int fk = kind_of(bi, func);

				if (func < start && fk >= 0)
					return btfi_read_bad(bi, "type [%u] LOCSEC %s: site %u: base type %u is %s, not a FUNC (base mismatch?)",
						   id, nm, i, func, kname(fk));
				return btfi_read_bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a FUNC",
					   id, nm, i, func);
			} else if (!(bi->fbits[func / 8] & (1 << func % 8))) {
				/* A base FUNC: listed once for lookups. */
				bi->fbits[func / 8] |= 1 << func % 8;
				add_func(bi, func, fname);
			}
			/* kv[] of a LOC_PROTO with np params (7: 7 or more) */
			want = np < 0 ? 0x100 : BTFI_KIND_LOC_PROTO | (np < 7 ? np : 7) << 5;
		}
		if (proto < start || pi >= nt || kv[pi] != want || np >= 7) {
			if (proto < start || pi >= nt || (kv[pi] & 31) != BTFI_KIND_LOC_PROTO)
				return btfi_read_bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a LOC_PROTO",
					   id, nm, i, proto);
			if (np < 0 || (uint32_t)np != vlen_of(bi, proto))
				return btfi_read_bad(bi, "type [%u] LOCSEC %s: site %u: FUNC %u has %d params, LOC_PROTO %u has %u%s",
					   id, nm, i, func, np, proto, vlen_of(bi, proto),
					   func < start ? " (base mismatch?)" : "");
		}
		pfunc = func;
		poff = off;
	}
	return 0;
}

/* Debian's libbpf 1.1 declares btf__new_split() but does not export it:
 * hand the bytes over through a memfd and btf__parse_raw_split(). */

static void account(struct btfinline *bi, const struct btfi_hdr *h)
{
	struct btfinline_sizes *z = &bi->sizes;

	z->total = bi->raw_sz;
	z->hdr = h->hdr_len;
	z->layout = h->layout_len;
	z->strs = h->str_len;
	/* Counted by walk_types(). */
	for (uint32_t k = 0; k < 128; k++) {
		uint64_t len = bi->s.kbytes[k];

		switch (k) {
		case BTFI_KIND_LOCSEC:
			z->locsec += len; z->nlocsec += bi->s.kcnt[k]; break;
		case BTFI_KIND_LOC_PARAM:
			z->loc_param += len; z->nloc_param += bi->s.kcnt[k]; break;
		case BTFI_KIND_LOC_PROTO:
			z->loc_proto += len; z->nloc_proto += bi->s.kcnt[k]; break;
		case BTF_KIND_FUNC:
			z->nfunc += bi->s.kcnt[k];
			/* fallthrough */
		case BTF_KIND_FUNC_PROTO:
			z->func += len; break;
		default:
			z->other_types += len; break;
		}
	}
	z->nsites = bi->s.nent;
}

/* A (validated) LOCSEC record at offset off; its secno: its section name
 * and condition. */
static int index_locsec(struct btfinline *bi, uint32_t id, uint32_t off)
{
	const uint8_t *t = bi->s.types + off;
	const char *nm;
	uint8_t cond;
	size_t len;
	uint32_t s;

	if (!(bi->nlocsecs & (bi->nlocsecs + 1)) || !bi->locsecs) {
		uint32_t *nl = realloc(bi->locsecs, (bi->nlocsecs * 2 + 2) * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		bi->locsecs = nl;
		nl = realloc(bi->locsec_ids, (bi->nlocsecs * 2 + 2) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		bi->locsec_ids = nl;
		nl = realloc(bi->locsec_sno, (bi->nlocsecs * 2 + 2) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		bi->locsec_sno = nl;
	}
	nm = locsec_sec(str_at(bi, rd32(t)));
	locsec_cond(nm, &len, &cond);
	for (s = 0; s < bi->nsecs; s++)
		if (bi->secs[s].cond == cond && !strncmp(bi->secs[s].name, nm, len) &&
		    !bi->secs[s].name[len])
			break;
	if (s == bi->nsecs) {
		struct rsec *ns, r = { .name_off = rd32(t), .name = nm, .cond = cond };

		if (bi->nsecs == MAX_SECS)
			return btfi_read_bad(bi, "more than %d LOCSEC sections", MAX_SECS);
		ns = realloc(bi->secs, (bi->nsecs + 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		bi->secs = ns;
		if (nm[len] && !(r.name = r.own = strndup(nm, len)))
			return -ENOMEM;
		bi->secs[bi->nsecs++] = r;
	}
	bi->locsec_ids[bi->nlocsecs] = id;
	bi->locsec_sno[bi->nlocsecs] = s;
	bi->locsecs[bi->nlocsecs++] = off;
	return 0;
}

/* Checks of split record id at off (kind k, as skind()); a LOCSEC is
 * indexed, its sites are checked once all records are (check_sites). */
static inline int check_rec(struct btfinline *bi, uint32_t id, uint32_t off, int k)
{
	int err;

	if (k == 0xff)
		return 0;
	if (k <= BTF_KIND_ENUM64)
		return check_std(bi, id, bi->s.types + off);
	if ((err = check_new(bi, id, bi->s.types + off)))
		return err;
	return k == BTFI_KIND_LOCSEC ? index_locsec(bi, id, off) : 0;
}

int btfi_read_parse(struct btfinline *bi)
{
	const uint8_t *d = bi->raw, *lay = NULL;
	struct btfi_hdr h;
	uint32_t nlay = 0;
	int err;

	err = check_hdr(bi, "", d, bi->raw_sz, &h);
	if (err)
		return err;
	bi->s.types = d + h.hdr_len + h.type_off;
	bi->s.type_len = h.type_len;
	bi->s.strs = (const char *)d + h.hdr_len + h.str_off;
	bi->s.str_len = h.str_len;
	if (h.layout_len) {
		lay = d + h.hdr_len + h.layout_off;
		nlay = h.layout_len / 4;
	}
	/* funcs[]: every split FUNC, and each base FUNC a LOCSEC names (once:
	 * the bitmap over base ids). Sized for the worst case (a record is at
	 * least 12 bytes); only touched pages are faulted in. */
	{
		size_t nf = (size_t)bi->s.type_len / 12 + 1 + bi->start_id;

		bi->fmem_len = 2 * nf * sizeof(*bi->funcs) + bi->start_id / 8 + 1;
		bi->fmem = mmap(NULL, bi->fmem_len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (bi->fmem == MAP_FAILED) {
			bi->fmem = NULL;
			return -ENOMEM;
		}
		bi->funcs = bi->fmem;
		bi->fname = bi->funcs + nf;
		bi->fbits = (uint8_t *)(bi->fname + nf);
		prefault(bi->fbits, bi->start_id / 8 + 1, bi->fmem, bi->fmem_len);
	}
	bi->fast_check = true;
	err = walk_types(bi, "", &bi->s, bi->start_id, lay, nlay, 0x7f, true);
	if (err)
		return err;
	if (!bi->fast_check) {
		/* A record failed its checks while walked, or refers to a later
		 * one: check them all again in order, naming the first bad. */
		bi->nfuncs = bi->nlocsecs = 0;
		free_secs(bi);
		for (uint32_t i = 0, off = 0; i < bi->s.n; off += rec_size(&bi->s, off), i++)
			if ((err = check_rec(bi, bi->start_id + i, off, skind(&bi->s, i))))
				return err;
	}
	/* The sites last, when every FUNC's parameter count is in kv[]. */
	for (uint32_t l = 0; l < bi->nlocsecs; l++)
		if ((err = check_sites(bi, bi->locsec_ids[l], bi->s.types + bi->locsecs[l])))
			return err;
	account(bi, &h);
	return 0;
}

int btfinline__open_mem(const void *data, size_t size, struct btf *base,
			const struct btfi_log *log, struct btfinline **out)
{
	struct btfinline *bi;
	int err;

	*out = NULL;
	if (!base) {
		btfi_err(log, "no base BTF");
		return -EINVAL;
	}
	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	bi->name = "(memory)";
	if (log)
		bi->log = *log;
	bi->base = base;
	bi->start_id = btf__type_cnt(base);
	bi->base_str_len = base_strs_len(base);
	/* A private, aligned copy: later accesses see the validated bytes. */
	bi->blob.buf = malloc(size ? size : 1);
	if (!bi->blob.buf) {
		btfinline__free(bi);
		return -ENOMEM;
	}
	memcpy(bi->blob.buf, data, size);
	bi->raw = bi->blob.buf;
	bi->raw_sz = size;
	err = btfi_read_parse(bi);
	if (err) {
		btfinline__free(bi);
		return err;
	}
	bi->name = NULL;
	*out = bi;
	return 0;
}

int btfi_read_check_hdr(struct btfinline *bi, const char *what, const uint8_t *d, size_t sz,
			struct btfi_hdr *h)
{
	return check_hdr(bi, what, d, sz, h);
}

/* A base: standard kinds only, no layout, checks as libbpf would make. */
int btfi_read_walk_base(struct btfinline *bi, const char *what, struct rbtf *r)
{
	return walk_types(bi, what, r, 1, NULL, 0, BTF_KIND_ENUM64, false);
}
