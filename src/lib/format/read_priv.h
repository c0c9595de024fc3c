/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reader's state and its small helpers, shared by its files:
 * btf_read.c (validation), read_file.c (mapping files, ELF sections, base),
 * read_view.c (the libbpf view), read_index.c (lookups). Helpers are
 * static inline: the validation loop over every record uses them.
 */
#ifndef BTFI_READ_PRIV_H
#define BTFI_READ_PRIV_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "format/btf_format.h"
#include "log.h"
#include "names.h"

#define MAX_SECS 1024
#define CP_SHIFT 2
#define CP_MASK ((1u << CP_SHIFT) - 1)
#define KV_UNKNOWN 31

/* A secno: the LOCSECs of one ELF section, and of one condition (those
 * named "inline.text:ne" are sites on a branch, docs/FORMAT.md). */
struct rsec {
	uint32_t name_off;
	const char *name;	/* without "inline" and the condition suffix */
	char *own;		/* name, when it had a suffix to cut */
	uint8_t cond;		/* 0, or 1 + x86 condition code */
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
	struct region bregion;	/* a module's chain: vmlinux's + its own, flattened */
	bool flat_base;
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
	uint32_t *locsec_sno;					/* and its secno */
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

extern const struct btf_type btfi_void_type;	/* type id 0 */

/* "NAME: problem" through the reader's log (unless quiet); -EINVAL. */
__attribute__((format(printf, 2, 3), cold))
int btfi_read_bad(const struct btfinline *bi, const char *fmt, ...);

static const char *const btfi_kind_names[] = {
	"UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
	"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC",
	"FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64", "LOC_PARAM", "LOC_PROTO", "LOCSEC",
};

static inline const char *kname(unsigned k)
{
	return k < sizeof(btfi_kind_names) / sizeof(btfi_kind_names[0]) ? btfi_kind_names[k] : "UNKNOWN";
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}


/* Size of the (validated) record at offset off. */
static inline uint32_t rec_size(const struct rbtf *r, uint32_t off)
{
	uint32_t info = rd32(r->types + off + 4), k = BTFI_INFO_KIND(info);

	return 12 + r->isz[k] + BTFI_INFO_VLEN(info) * r->esz[k];
}

/* Offset of type i (< r->n): from its checkpoint, a few records on. */
static inline uint32_t rec_off(const struct rbtf *r, uint32_t i)
{
	uint32_t off = r->cp[i >> CP_SHIFT];

	for (uint32_t k = i & CP_MASK; k; k--)
		off += rec_size(r, off);
	return off;
}

/* Kind of split type i; 0xff: unknown kind (skipped via layout). */
static inline int skind(const struct rbtf *r, uint32_t i)
{
	uint32_t k = r->kv[i] & 31;

	return k == KV_UNKNOWN ? 0xff : (int)k;
}

/* Any type id (base or split) -> record; NULL when out of range. Works
 * without libbpf: base ids come from our index of the mapped .BTF. */
static inline const struct btf_type *ty(const struct btfinline *bi, uint32_t id)
{
	if (id >= bi->start_id) {
		if (id - bi->start_id >= bi->s.n)
			return NULL;
		return (const struct btf_type *)(bi->s.types + rec_off(&bi->s, id - bi->start_id));
	}
	if (!id)
		return &btfi_void_type;
	if (bi->have_rb)
		return (const struct btf_type *)(bi->b.types + rec_off(&bi->b, id - 1));
	return btf__type_by_id(bi->base, id);
}

/* kv[] byte of any id (see struct rbtf); -1 for void, out of range, or a
 * base libbpf holds (open_mem). */
static inline int kv_of(const struct btfinline *bi, uint32_t id)
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

static inline int kind_of(const struct btfinline *bi, uint32_t id)
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

static inline bool str_ok(const struct btfinline *bi, uint32_t off)
{
	if (off < bi->base_str_len)
		return true;
	return off - bi->base_str_len < bi->s.str_len;
}

/* String at offset; NULL when out of range. */
static inline const char *str_at(const struct btfinline *bi, uint32_t off)
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
static inline const char *locsec_sec(const char *nm)
{
	if (!strncmp(nm, "inline", 6) && nm[6])
		return nm + 6;
	return nm[0] == '.' && nm[1] ? nm : NULL;
}

/* Section and condition of a LOCSEC's section part (locsec_sec()): the
 * section is sec[0..*len); *cond 0, or for sites on a branch 1 + the
 * condition code (".text:ne": ".text", 1 + 5). A suffix that names no
 * condition is part of the section name. */
static inline void locsec_cond(const char *sec, size_t *len, uint8_t *cond)
{
	const char *colon = strrchr(sec, ':');
	int cc;

	*len = strlen(sec);
	*cond = 0;
	if (colon && colon > sec && (cc = btfi_cc_parse(colon + 1, strlen(colon + 1))) >= 0) {
		*len = colon - sec;
		*cond = 1 + cc;
	}
}

/* Forget the secnos (a second parse rebuilds them). */
static inline void free_secs(struct btfinline *bi)
{
	for (uint32_t s = 0; s < bi->nsecs; s++)
		free(bi->secs[s].own);
	bi->nsecs = 0;
}

static inline const char *name_of(const struct btfinline *bi, uint32_t id)
{
	const struct btf_type *t = ty(bi, id);
	const char *n = t ? str_at(bi, t->name_off) : NULL;

	return n ? n : "";
}

static inline uint32_t base_strs_len(const struct btf *b)
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

static inline bool id_ok(const struct btfinline *bi, uint32_t id)
{
	return id < bi->start_id + bi->s.n;
}

/* Parameters of (valid) FUNC_PROTO p: a trailing vararg slot (name 0,
 * type 0) is not one. */
static inline int proto_nparams(const struct btf_type *p)
{
	const struct btf_param *pp = btf_params(p);
	int n = BTFI_INFO_VLEN(p->info);

	return n && !pp[n - 1].name_off && !pp[n - 1].type ? n - 1 : n;
}

/* Parameter count of FUNC `id` via its FUNC_PROTO; -2 if id is not a FUNC,
 * -1 if its type is not a FUNC_PROTO. */
static inline int func_nparams(const struct btfinline *bi, uint32_t id, uint32_t *name_off)
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

/* Across the reader's files. */
int btfi_read_check_hdr(struct btfinline *bi, const char *what, const uint8_t *d, size_t sz,
			struct btfi_hdr *h);
int btfi_read_walk_base(struct btfinline *bi, const char *what, struct rbtf *r);
int btfi_read_parse(struct btfinline *bi);

#endif
