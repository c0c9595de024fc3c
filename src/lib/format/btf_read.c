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
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/btf_format.h"
#include "log.h"
#include "elf_file.h"

#define MAX_SECS 1024
#define CP_SHIFT 2
#define CP_MASK ((1u << CP_SHIFT) - 1)
#define KV_UNKNOWN 31

struct rsec {
	uint32_t name_off;
	const char *name;	/* without "inline" */
	uint64_t addr;		/* sh_addr of the ELF section, if known */
	bool has_addr;
};

/* A type section indexed by us (the blob's split part, or a mapped base). */
struct rbtf {
	const uint8_t *types;	uint32_t type_len;
	const char *strs;	uint32_t str_len;
	/* Sparse index: type i is (i & CP_MASK) records after the one at
	 * types + cp[i >> CP_SHIFT]. A fresh page costs 5-10 us on a VM (more
	 * than walking its records): 4 bytes per type would be 4x the pages
	 * (the previous dense index was 7 bytes per type). */
	uint32_t *cp;
	/* Per type: kind (bits 0-4, KV_UNKNOWN: skipped via layout) and
	 * min(n, 7) (bits 5-7), n = vlen, or the parameter count for
	 * FUNC_PROTO and (split) FUNC, set once the FUNC is checked: kind
	 * checks and the per-site checks read this small table, not records. */
	uint8_t *kv;
	uint8_t isz[128], esz[128];	/* record size per kind: 12 + isz + vlen * esz */
	uint32_t n;
	void *mem;		size_t mem_len;	/* cp, kv */
	/* Bytes and records per kind, sites in LOCSECs (split part only). */
	uint64_t kbytes[128];	uint32_t kcnt[128];
	uint64_t nent;
};

/* A read-only file region: mmap'ed (pages shared with the page cache, no
 * copy) or, for files that cannot be mapped (sysfs), read into memory. */
struct region {
	const uint8_t *data;	size_t len;
	void *map;		size_t map_len;
	void *buf;
};

/* Sites handed out by func_sites(); valid until btfinline__free(). */
struct chunk {
	struct chunk *next;
	struct btfinline_site s[];
};

struct btfinline {
	const char *name;	/* for messages */
	struct btfi_log log;
	struct region blob;
	const uint8_t *raw;	size_t raw_sz;

	/* Base: a libbpf BTF (given to open_mem, or loaded on demand for
	 * btfinline__btf()), and/or our own index of a mapped .BTF. */
	struct btf *base;	bool own_base;
	char *base_path;
	struct region bregion;
	struct rbtf b;		bool have_rb;
	struct btf *btf;	bool btf_failed;	/* libbpf view, on demand */

	struct rbtf s;		/* the split part */
	uint32_t start_id, base_str_len;

	struct btfinline_site *sites;	size_t nsites;	/* all, on demand */
	uint32_t *by_addr;		/* on demand: site indexes by (secno, offset) */
	uint32_t naddr_queries;		/* sites_at() calls answered by a scan */
	struct rsec *secs;		uint32_t nsecs;
	uint32_t *locsecs;		uint32_t nlocsecs;	/* offset of each LOCSEC in s.types */
	uint32_t *locsec_ids;					/* and its type id */
	struct chunk *chunks;
	uint32_t *funcs, nfuncs;		/* split FUNCs, base FUNCs named by LOCSECs */
	uint32_t *fname;			/* their name offsets (lookup by name) */
	uint8_t *fbits;				/* bitmap over base ids: in funcs[] */
	void *fmem;		size_t fmem_len;	/* funcs and fbits */
	struct btfinline_sizes sizes;
	/* Split records are checked as they are walked, quietly: one that
	 * fails (or refers ahead) clears fast_check and a second pass over
	 * all of them says which is bad, naming the first. */
	bool fast_check, quiet;
	char *name_buf;			/* bi->name when it is not the path */
};

__attribute__((format(printf, 2, 3), cold, noinline))
static int bad(const struct btfinline *bi, const char *fmt, ...)
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

static const char *const kind_names[] = {
	"UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
	"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC",
	"FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64", "LOC_PARAM", "LOC_PROTO", "LOCSEC",
};

static const char *kname(unsigned k)
{
	return k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "UNKNOWN";
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const struct btf_type void_type;

/* Size of the (validated) record at offset off. */
static uint32_t rec_size(const struct rbtf *r, uint32_t off)
{
	uint32_t info = rd32(r->types + off + 4), k = BTFI_INFO_KIND(info);

	return 12 + r->isz[k] + BTFI_INFO_VLEN(info) * r->esz[k];
}

/* Offset of type i (< r->n): from its checkpoint, a few records on. */
static uint32_t rec_off(const struct rbtf *r, uint32_t i)
{
	uint32_t off = r->cp[i >> CP_SHIFT];

	for (uint32_t k = i & CP_MASK; k; k--)
		off += rec_size(r, off);
	return off;
}

/* Kind of split type i; 0xff: unknown kind (skipped via layout). */
static int skind(const struct rbtf *r, uint32_t i)
{
	uint32_t k = r->kv[i] & 31;

	return k == KV_UNKNOWN ? 0xff : (int)k;
}

/* Any type id (base or split) -> record; NULL when out of range. Works
 * without libbpf: base ids come from our index of the mapped .BTF. */
static const struct btf_type *ty(const struct btfinline *bi, uint32_t id)
{
	if (id >= bi->start_id) {
		if (id - bi->start_id >= bi->s.n)
			return NULL;
		return (const struct btf_type *)(bi->s.types + rec_off(&bi->s, id - bi->start_id));
	}
	if (!id)
		return &void_type;
	if (bi->have_rb)
		return (const struct btf_type *)(bi->b.types + rec_off(&bi->b, id - 1));
	return btf__type_by_id(bi->base, id);
}

/* kv[] byte of any id (see struct rbtf); -1 for void, out of range, or a
 * base libbpf holds (open_mem). */
static int kv_of(const struct btfinline *bi, uint32_t id)
{
	if (id >= bi->start_id)
		return id - bi->start_id < bi->s.n ? bi->s.kv[id - bi->start_id] : -1;
	return id && bi->have_rb ? bi->b.kv[id - 1] : -1;
}

/* Is id a split record of kind k? (kv[] only: the common case of checks) */
static inline bool split_is(const struct btfinline *bi, uint32_t id, int k)
{
	return id - bi->start_id < bi->s.n && (bi->s.kv[id - bi->start_id] & 31) == k;
}

static int kind_of(const struct btfinline *bi, uint32_t id)
{
	if (id >= bi->start_id) {
		if (id - bi->start_id >= bi->s.n)
			return -1;
		return skind(&bi->s, id - bi->start_id);
	}
	if (!id)
		return BTF_KIND_UNKN;
	if (bi->have_rb)
		return bi->b.kv[id - 1] & 31;
	return btf_kind(ty(bi, id));
}

static bool str_ok(const struct btfinline *bi, uint32_t off)
{
	if (off < bi->base_str_len)
		return true;
	return off - bi->base_str_len < bi->s.str_len;
}

/* String at offset; NULL when out of range. */
static const char *str_at(const struct btfinline *bi, uint32_t off)
{
	if (off >= bi->base_str_len)
		return off - bi->base_str_len < bi->s.str_len ? bi->s.strs + (off - bi->base_str_len) : NULL;
	if (bi->have_rb)
		return bi->b.strs + off;
	return btf__str_by_offset(bi->base, off);
}

/* The ELF section a LOCSEC name stands for: "inline.text" (the UAPI
 * header's comment, bpftool's selftest, our writer) or ".text" (the
 * kernel's btf_inline selftest); NULL for anything else. */
static const char *locsec_sec(const char *nm)
{
	if (!strncmp(nm, "inline", 6) && nm[6])
		return nm + 6;
	return nm[0] == '.' && nm[1] ? nm : NULL;
}

static const char *name_of(const struct btfinline *bi, uint32_t id)
{
	const struct btf_type *t = ty(bi, id);
	const char *n = t ? str_at(bi, t->name_off) : NULL;

	return n ? n : "";
}

static uint32_t base_strs_len(const struct btf *b)
{
	uint32_t total = 0, sz;

	for (; b; b = btf__base_btf(b)) {
		const struct btf_header *h = btf__raw_data(b, &sz);

		if (!h)
			return 0;
		total += h->str_len;
	}
	return total;
}

static bool id_ok(const struct btfinline *bi, uint32_t id)
{
	return id < bi->start_id + bi->s.n;
}

/* Parameters of (valid) FUNC_PROTO p: a trailing vararg slot (name 0,
 * type 0) is not one. */
static int proto_nparams(const struct btf_type *p)
{
	const struct btf_param *pp = btf_params(p);
	int n = BTFI_INFO_VLEN(p->info);

	return n && !pp[n - 1].name_off && !pp[n - 1].type ? n - 1 : n;
}

/* Parameter count of FUNC `id` via its FUNC_PROTO; -2 if id is not a FUNC,
 * -1 if its type is not a FUNC_PROTO. */
static int func_nparams(const struct btfinline *bi, uint32_t id, uint32_t *name_off)
{
	const struct btf_type *f = ty(bi, id), *p;
	int kv;

	/* One lookup per record (the kind is in it: 7 bits, new-format wide). */
	if (!f || BTFI_INFO_KIND(f->info) != BTF_KIND_FUNC)
		return -2;
	*name_off = f->name_off;
	/* kv[] has the prototype's kind and count, unless 7 or more. */
	kv = kv_of(bi, f->type);
	if (kv >= 0 && (kv & 31) != BTF_KIND_FUNC_PROTO)
		return -1;
	if (kv >= 0 && kv >> 5 < 7)
		return kv >> 5;
	p = ty(bi, f->type);
	if (!p || BTFI_INFO_KIND(p->info) != BTF_KIND_FUNC_PROTO)
		return -1;
	return proto_nparams(p);
}

static int check_hdr(struct btfinline *bi, const char *what, const uint8_t *d, size_t sz,
		     struct btfi_hdr *h)
{
	uint64_t meta, lay_end;

	memset(h, 0, sizeof(*h));
	if (sz < 8)
		return bad(bi, "%struncated header (%zu bytes)", what, sz);
	memcpy(h, d, 8);
	if (h->magic == 0x9FeB)
		return bad(bi, "%sbig-endian BTF is not supported", what);
	if (h->magic != BTFI_MAGIC)
		return bad(bi, "%sbad magic 0x%04x (not BTF)", what, h->magic);
	if (h->version != 1)
		return bad(bi, "%sunsupported BTF version %u", what, h->version);
	if (h->hdr_len < 24 || h->hdr_len % 4)
		return bad(bi, "%shdr_len %u too small or not a multiple of 4", what, h->hdr_len);
	if (h->hdr_len > sz)
		return bad(bi, "%shdr_len %u past the end (%zu bytes)", what, h->hdr_len, sz);
	memcpy(h, d, h->hdr_len < sizeof(*h) ? h->hdr_len : sizeof(*h));
	/* A longer header than we know: its extra bytes must be zero. */
	for (size_t i = sizeof(*h); i < h->hdr_len; i++)
		if (d[i])
			return bad(bi, "%sunknown non-zero header field at byte %zu", what, i);
	meta = sz - h->hdr_len;
	if (h->type_off % 4)
		return bad(bi, "%stype section not 4-byte aligned (type_off %u)", what, h->type_off);
	if ((uint64_t)h->type_off + h->type_len > meta)
		return bad(bi, "%stype section %u+%u past the end (%llu bytes)", what, h->type_off,
			   h->type_len, (unsigned long long)meta);
	if ((uint64_t)h->str_off + h->str_len > meta)
		return bad(bi, "%sstring section %u+%u past the end (%llu bytes)", what, h->str_off,
			   h->str_len, (unsigned long long)meta);
	if ((uint64_t)h->type_off + h->type_len > h->str_off)
		return bad(bi, "%stype section %u+%u overlaps strings at %u", what, h->type_off,
			   h->type_len, h->str_off);
	if (h->str_len && d[h->hdr_len + h->str_off + h->str_len - 1])
		return bad(bi, "%sstring section not NUL-terminated", what);
	if (h->layout_len) {
		lay_end = (uint64_t)h->layout_off + h->layout_len;
		if (h->layout_off % 4 || h->layout_len % 4)
			return bad(bi, "%slayout section %u+%u not 4-byte aligned", what,
				   h->layout_off, h->layout_len);
		if (lay_end > meta)
			return bad(bi, "%slayout section %u+%u past the end", what, h->layout_off,
				   h->layout_len);
		/* libbpf writes and requires types | layout | strings; older
		 * writers (ours before 2026-12) put it after the strings. Any
		 * order opens as long as no two sections share a byte. */
		if ((h->type_len && h->layout_off < (uint64_t)h->type_off + h->type_len &&
		     h->type_off < lay_end) ||
		    (h->str_len && h->layout_off < (uint64_t)h->str_off + h->str_len &&
		     h->str_off < lay_end))
			return bad(bi, "%slayout section %u+%u overlaps types or strings", what,
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
				return bad(bi, "%slayout for kind %u (%s) is {%u,%u}, expected {%u,%u}",
					   what, k, kname(k), l[0], l[1], isz[k], esz[k]);
			if (l[0] % 4 || l[1] % 4 || l[0] == 0xff)
				isz[k] = 0xfe;	/* record size not a multiple of 4 */
			else
				isz[k] = l[0], esz[k] = l[1];
		}
	}
	if ((uint64_t)first_id + cap >= 0x7fffffff)
		return bad(bi, "%stoo many types", what);
	while (off < r->type_len) {
		uint32_t info, kind, vlen;
		uint64_t rsz;

		if (r->type_len - off < 12)
			return bad(bi, "%stype [%u] at offset %u: truncated record", what,
				   first_id + n, off);
		info = rd32(t + off + 4);
		kind = BTFI_INFO_KIND(info);
		vlen = BTFI_INFO_VLEN(info);
		if (isz[kind] >= 0xfe) {
			if (isz[kind] == 0xfe)
				return bad(bi, "%stype [%u]: layout of kind %u gives a size not a multiple of 4",
					   what, first_id + n, kind);
			return bad(bi, "%stype [%u]: unknown kind %u without layout", what,
				   first_id + n, kind);
		}
		rsz = 12 + isz[kind] + (uint64_t)vlen * esz[kind];
		if (rsz > r->type_len - off)
			return bad(bi, "%stype [%u] %s: vlen %u runs past the type section", what,
				   first_id + n, kname(kind), vlen);
		if (kind > max_kind)
			return bad(bi, "%stype [%u] has kind %u", what, first_id + n, kind);
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
		return bad(bi, "type [%u] %s: name offset %u out of range", id, kname(kind), name_off);
	if (vlen > 0xffff)
		return bad(bi, "type [%u] %s: vlen %u too large", id, kname(kind), vlen);
	switch (kind) {
	case BTF_KIND_UNKN:
		return bad(bi, "type [%u]: kind 0 (UNKN) is not a type", id);
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		if (!id_ok(bi, ref))
			return bad(bi, "type [%u] %s: type id %u out of range", id, kname(kind), ref);
		break;
	case BTF_KIND_FUNC:
		if (!split_is(bi, ref, BTF_KIND_FUNC_PROTO) &&
		    (!id_ok(bi, ref) || kind_of(bi, ref) != BTF_KIND_FUNC_PROTO))
			return bad(bi, "type [%u] FUNC: type id %u is not a FUNC_PROTO (base mismatch?)",
				   id, ref);
		if (!name_off)
			return bad(bi, "type [%u] FUNC: no name", id);
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
			return bad(bi, "type [%u] ARRAY: type id out of range", id);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (uint32_t i = 0; i < vlen; i++, e += 12)
			if (!str_ok(bi, rd32(e)) || !id_ok(bi, rd32(e + 4)))
				return bad(bi, "type [%u] %s: member %u bad name or type", id,
					   kname(kind), i);
		break;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		for (uint32_t i = 0; i < vlen; i++, e += btfi_layouts[kind].elem_sz)
			if (!str_ok(bi, rd32(e)))
				return bad(bi, "type [%u] %s: value %u name out of range", id,
					   kname(kind), i);
		break;
	case BTF_KIND_FUNC_PROTO:
		if (!id_ok(bi, ref))
			return bad(bi, "type [%u] FUNC_PROTO: return type %u out of range", id, ref);
		for (uint32_t i = 0; i < vlen; i++, e += 8)
			if (!str_ok(bi, rd32(e)) || !id_ok(bi, rd32(e + 4)))
				return bad(bi, "type [%u] FUNC_PROTO: param %u bad name or type", id, i);
		break;
	case BTF_KIND_DATASEC:
		for (uint32_t i = 0; i < vlen; i++, e += 12)
			if (!id_ok(bi, rd32(e)))
				return bad(bi, "type [%u] DATASEC: var %u id out of range", id, i);
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
		return bad(bi, "type [%u] %s: name offset %u out of range", id, kname(kind), name_off);
	if (kind == BTFI_KIND_LOC_PARAM) {
		uint32_t flags = rd32(e);

		if (!loc_form_ok(flags, vlen))
			return bad(bi, "type [%u] LOC_PARAM: illegal flags 0x%x with vlen %u", id,
				   flags, vlen);
	} else if (kind == BTFI_KIND_LOC_PROTO) {
		for (uint32_t i = 0; i < vlen; i++, e += 4) {
			uint32_t pid = rd32(e);

			if (pid && !split_is(bi, pid, BTFI_KIND_LOC_PARAM))
				return bad(bi, "type [%u] LOC_PROTO: slot %u names type %u, not a LOC_PARAM",
					   id, i, pid);
		}
	} else if (kind == BTFI_KIND_LOCSEC) {
		const char *nm = str_at(bi, name_off);

		if (!locsec_sec(nm))
			return bad(bi, "type [%u] LOCSEC: name '%.64s' is not \"inline<section>\"%s", id,
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
			return bad(bi, "type [%u] LOCSEC %s: site %u out of (func, offset) order",
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
					return bad(bi, "type [%u] LOCSEC %s: site %u: base type %u is %s, not a FUNC (base mismatch?)",
						   id, nm, i, func, kname(fk));
				return bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a FUNC",
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
				return bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a LOC_PROTO",
					   id, nm, i, proto);
			if (np < 0 || (uint32_t)np != vlen_of(bi, proto))
				return bad(bi, "type [%u] LOCSEC %s: site %u: FUNC %u has %d params, LOC_PROTO %u has %u%s",
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
static int new_split(struct btfinline *bi, const void *data, size_t sz)
{
	char path[64];
	int fd, err = 0;

	fd = memfd_create("btfinline-split", MFD_CLOEXEC);
	if (fd < 0)
		return bad(bi, "memfd_create: %s", strerror(errno));
	if (write(fd, data, sz) != (ssize_t)sz) {
		close(fd);
		return bad(bi, "memfd write failed");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	bi->btf = btf__parse_raw_split(path, bi->base);
	if (!bi->btf) {
		err = -errno;
		err = bad(bi, "libbpf rejects the standard types: %s", strerror(-err));
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

/* ---- the full site list (sorted by name), built on first use ---- */

static int cmp_func_ids(const void *a, const void *b, void *ctx)
{
	const struct btfinline *bi = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(name_of(bi, x), name_of(bi, y));

	return c ? c : (x > y) - (x < y);
}

static uint32_t locsec_secno(const struct btfinline *bi, const uint8_t *t)
{
	const char *nm = locsec_sec(str_at(bi, rd32(t)));

	for (uint32_t s = 0; s < bi->nsecs; s++)
		if (!strcmp(bi->secs[s].name, nm))
			return s;
	return 0;
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

			if (locsec_secno(bi, t) != sno)
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

/* A (validated) LOCSEC record at offset off; its section name. */
static int index_locsec(struct btfinline *bi, uint32_t id, uint32_t off)
{
	const uint8_t *t = bi->s.types + off;
	const char *nm;
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
	}
	bi->locsec_ids[bi->nlocsecs] = id;
	bi->locsecs[bi->nlocsecs++] = off;
	nm = locsec_sec(str_at(bi, rd32(t)));
	for (s = 0; s < bi->nsecs; s++)
		if (!strcmp(bi->secs[s].name, nm))
			break;
	if (s == bi->nsecs) {
		struct rsec *ns;

		if (bi->nsecs == MAX_SECS)
			return bad(bi, "more than %d LOCSEC sections", MAX_SECS);
		ns = realloc(bi->secs, (bi->nsecs + 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		bi->secs = ns;
		bi->secs[bi->nsecs++] = (struct rsec){ .name_off = rd32(t), .name = nm };
	}
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

static int parse(struct btfinline *bi)
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
		bi->nfuncs = bi->nlocsecs = bi->nsecs = 0;
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
	err = parse(bi);
	if (err) {
		btfinline__free(bi);
		return err;
	}
	bi->name = NULL;
	*out = bi;
	return 0;
}

/* Map [off, off+len) of fd read-only; len 0: the whole file. Falls back to
 * reading (sysfs files cannot always be mapped and report no size). */
static int map_region(int fd, uint64_t off, uint64_t len, struct region *r)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t a = off & ~(uint64_t)(pg - 1);
	struct stat st;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if (!len)
			len = st.st_size - off;
		if (off + len > (uint64_t)st.st_size)
			return -EINVAL;
		r->map_len = off - a + len;
		r->map = mmap(NULL, r->map_len ? r->map_len : 1, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, a);
		if (r->map != MAP_FAILED) {
			/* Not 4-byte aligned (an odd section offset): use a copy. */
			if (!((off - a) % 4)) {
				r->data = (const uint8_t *)r->map + (off - a);
				r->len = len;
				return 0;
			}
			munmap(r->map, r->map_len);
		}
		r->map = NULL;
	}
	{
		size_t cap = len ? len : 1 << 20, n = 0;
		ssize_t got;

		r->buf = malloc(cap ? cap : 1);
		while (r->buf && (got = pread(fd, (uint8_t *)r->buf + n, cap - n, off + n)) > 0) {
			n += got;
			if (n == cap) {
				void *nb;

				if (len)
					break;
				nb = realloc(r->buf, cap *= 2);
				if (!nb)
					return -ENOMEM;
				r->buf = nb;
			}
		}
		if (!r->buf)
			return -ENOMEM;
		if (len && n != len)
			return -EIO;
		r->data = r->buf;
		r->len = n;
	}
	return 0;
}

static void unmap_region(struct region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

struct elf_sec {
	char name[64];
	uint64_t addr;
};

/* Offset and size of section `want` (0 size: absent), and the allocated
 * sections' addresses (secs may be NULL). Only headers are read. */
static int elf_find(struct btfinline *bi, int fd, const char *path, const char *want,
		    uint64_t *off, uint64_t *size, struct elf_sec **secs, uint32_t *nsecs)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*off = *size = 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		btfi_err(&bi->log, "%s: not a readable ELF file", path);
		return -EINVAL;
	}
	{
		struct stat st;
		int err;

		if (fstat(fd, &st)) {
			err = -errno;
			btfi_err(&bi->log, "%s: %s", path, strerror(-err));
		} else {
			err = btfi_elf_check(elf, path, st.st_size, &bi->log);
		}
		if (err) {
			elf_end(elf);
			return err;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (secs && (sh.sh_flags & SHF_ALLOC) && strlen(nm) < 64) {
			struct elf_sec *ns = realloc(*secs, (*nsecs + 1) * sizeof(*ns));

			if (ns) {
				*secs = ns;
				strcpy(ns[*nsecs].name, nm);
				ns[(*nsecs)++].addr = sh.sh_addr;
			}
		}
		if (!strcmp(nm, want) && sh.sh_type != SHT_NOBITS && !*size) {
			*off = sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	elf_end(elf);
	return 0;
}

/* Base BTF of a file we open: mapped and indexed by us (fast; libbpf only
 * when btfinline__btf() is asked for). */
static int open_base(struct btfinline *bi, const char *path)
{
	struct btfi_hdr h;
	uint64_t off = 0, size = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(&bi->log, "%s: cannot open base BTF %s: %s", bi->name, path, strerror(-err));
		return err;
	}
	if (btfi_file_kind_fd(fd) == BTFI_FILE_ELF) {
		err = elf_find(bi, fd, path, ".BTF", &off, &size, NULL, NULL);
		if (!err && !size) {
			btfi_err(&bi->log, "%s: %s has no .BTF section (run `pahole -J` first)", bi->name, path);
			err = -ENOENT;
		}
	} else {
		err = 0;
	}
	if (!err && (err = map_region(fd, off, size, &bi->bregion)))
		btfi_err(&bi->log, "%s: cannot read base BTF %s: %s", bi->name, path, strerror(-err));
	close(fd);
	if (err)
		return err;
	err = check_hdr(bi, "base BTF: ", bi->bregion.data, bi->bregion.len, &h);
	if (err)
		return err;
	if (h.layout_len) {
		/* A base in the new format: let libbpf decide later; we need 24-byte ones. */
		return bad(bi, "base BTF: header with a layout section is not supported");
	}
	bi->b.types = bi->bregion.data + h.hdr_len + h.type_off;
	bi->b.type_len = h.type_len;
	bi->b.strs = (const char *)bi->bregion.data + h.hdr_len + h.str_off;
	bi->b.str_len = h.str_len;
	err = walk_types(bi, "base BTF: ", &bi->b, 1, NULL, 0, BTF_KIND_ENUM64, false);
	if (err)
		return err;
	if (h.str_len && bi->b.strs[0])
		return bad(bi, "base BTF: string section does not start with \"\"");
	bi->have_rb = true;
	bi->start_id = bi->b.n + 1;
	bi->base_str_len = h.str_len;
	bi->base_path = strdup(path);
	return bi->base_path ? 0 : -ENOMEM;
}

int btfinline__open(const char *path, const struct btfinline_open_opts *opts,
		    struct btfinline **out)
{
	struct btfinline *bi;
	struct elf_sec *esecs = NULL;
	uint32_t nesecs = 0;
	const char *base_path = NULL;
	uint64_t off = 0, size = 0;
	bool elf;
	int fd, err;

	*out = NULL;
	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	bi->name = path;
	if (opts && opts->sz >= offsetof(struct btfinline_open_opts, log) + sizeof(opts->log))
		bi->log = opts->log;
	if (opts && opts->sz >= offsetof(struct btfinline_open_opts, base_path) + sizeof(char *))
		base_path = opts->base_path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(&bi->log, "%s: %s", path, strerror(-err));
		goto err;
	}
	{
		struct stat st;

		if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
			btfi_err(&bi->log, "%s: %s", path, strerror(EISDIR));
			close(fd);
			err = -EISDIR;
			goto err;
		}
	}
	elf = btfi_file_kind_fd(fd) == BTFI_FILE_ELF;
	if (elf) {
		err = elf_find(bi, fd, path, ".BTF.inline", &off, &size, &esecs, &nesecs);
		if (!err && !size) {
			btfi_err(&bi->log, "%s: no .BTF.inline section (run `btfinline encode` first)", path);
			err = -ENOENT;
		}
	} else {
		err = 0;
	}
	if (!err && (err = map_region(fd, off, size, &bi->blob)))
		btfi_err(&bi->log, "%s: cannot read: %s", path, strerror(-err));
	close(fd);
	if (err)
		goto err;
	bi->raw = bi->blob.data;
	bi->raw_sz = bi->blob.len;
	/* Neither ELF nor BTF magic (either byte order): say that, not
	 * "bad magic" of a format the user never meant to give. */
	if (!elf && (bi->raw_sz < 2 || (memcmp(bi->raw, "\x9f\xeb", 2) && memcmp(bi->raw, "\xeb\x9f", 2)))) {
		btfi_err(&bi->log, "%s: not an ELF file or a BTF blob", path);
		err = -EINVAL;
		goto err;
	}
	if (!base_path) {
		base_path = elf ? path : "/sys/kernel/btf/vmlinux";
		/* A raw blob does not name its base: say which one it was
		 * checked against when that fails. */
		if (!elf && asprintf(&bi->name_buf, "%s (base %s)", path, base_path) > 0)
			bi->name = bi->name_buf;
	}
	err = open_base(bi, base_path);
	if (err)
		goto err;
	err = parse(bi);
	if (err)
		goto err;
	for (uint32_t s = 0; s < bi->nsecs; s++)
		for (uint32_t k = 0; k < nesecs; k++)
			if (!strcmp(esecs[k].name, bi->secs[s].name)) {
				bi->secs[s].addr = esecs[k].addr;
				bi->secs[s].has_addr = true;
				break;
			}
	free(esecs);
	bi->name = NULL;
	*out = bi;
	return 0;
err:
	free(esecs);
	btfinline__free(bi);
	return err;
}

void btfinline__free(struct btfinline *bi)
{
	if (!bi)
		return;
	btf__free(bi->btf);
	if (bi->own_base)
		btf__free(bi->base);
	unmap_region(&bi->blob);
	unmap_region(&bi->bregion);
	free(bi->base_path);
	free(bi->name_buf);
	if (bi->s.mem)
		munmap(bi->s.mem, bi->s.mem_len);
	if (bi->b.mem)
		munmap(bi->b.mem, bi->b.mem_len);
	free(bi->sites);
	free(bi->by_addr);
	free(bi->secs);
	free(bi->locsecs);
	free(bi->locsec_ids);
	if (bi->fmem)
		munmap(bi->fmem, bi->fmem_len);
	while (bi->chunks) {
		struct chunk *c = bi->chunks;

		bi->chunks = c->next;
		free(c);
	}
	free(bi);
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
		bi->base = btf__parse(bi->base_path, NULL);
		if (!bi->base) {
			btfi_err(&bi->log, "%s: libbpf cannot load base BTF: %s", bi->base_path,
				 strerror(errno));
			bi->btf_failed = true;
			return NULL;
		}
		bi->own_base = true;
		if (btf__type_cnt(bi->base) != bi->start_id) {
			bad(bi, "libbpf sees %u base types, we saw %u", btf__type_cnt(bi->base),
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

				if (locsec_secno(bi, t) != sno)
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

		if (locsec_secno(bi, t) != secno)
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
