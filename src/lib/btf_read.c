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
#include "btf_write.h"
#include "log.h"

#define MAX_SECS 1024

struct rsec {
	uint32_t name_off;
	const char *name;	/* without "inline" */
	uint64_t addr;		/* sh_addr of the ELF section, if known */
	bool has_addr;
};

struct btfinline {
	const char *name;	/* for messages */
	struct btfi_log log;
	uint8_t *raw;		size_t raw_sz;
	struct btf *base;	bool own_base;
	struct btf *btf;	/* libbpf view: base + synthesized split */

	uint32_t start_id, ntypes;
	uint32_t *toff;		/* split type i at types + toff[i] */
	uint8_t *kinds;		/* kind of split type i */
	const uint8_t *types;	uint32_t type_len;
	const char *strs;	uint32_t str_len, base_str_len;

	struct btfinline_site *sites;	size_t nsites;
	uint32_t *by_addr;		/* lazily: site indexes by (secno, offset) */
	struct rsec *secs;		uint32_t nsecs;
	struct btfinline_sizes sizes;
};

__attribute__((format(printf, 2, 3)))
static int bad(const struct btfinline *bi, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
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

/* Kind of any id (base or split); -1 when out of range. */
static int kind_of(const struct btfinline *bi, uint32_t id)
{
	if (id >= bi->start_id) {
		if (id - bi->start_id >= bi->ntypes)
			return -1;
		return bi->kinds[id - bi->start_id];
	}
	if (id == 0)
		return BTF_KIND_UNKN;
	return btf_kind(btf__type_by_id(bi->base, id));
}

static bool str_ok(const struct btfinline *bi, uint32_t off)
{
	if (off < bi->base_str_len)
		return true;
	return off - bi->base_str_len < bi->str_len;
}

static const char *str_at(const struct btfinline *bi, uint32_t off)
{
	if (off < bi->base_str_len)
		return btf__str_by_offset(bi->base, off);
	return bi->strs + (off - bi->base_str_len);
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
	return id < bi->start_id + bi->ntypes;
}

/* Parameter count of FUNC `id` via its FUNC_PROTO; -1 if malformed. A trailing
 * vararg slot (name 0, type 0) is not a parameter. */
static int func_nparams(const struct btfinline *bi, uint32_t id)
{
	const struct btf_type *f = btf__type_by_id(bi->btf, id), *p;
	const struct btf_param *pp;
	int n;

	if (!f || !btf_is_func(f))
		return -1;
	p = btf__type_by_id(bi->btf, f->type);
	if (!p || !btf_is_func_proto(p))
		return -1;
	n = btf_vlen(p);
	pp = btf_params(p);
	if (n && !pp[n - 1].name_off && !pp[n - 1].type)
		n--;
	return n;
}

static int check_hdr(struct btfinline *bi, const uint8_t *d, size_t sz, struct btfi_hdr *h)
{
	uint64_t meta, lay_end;

	memset(h, 0, sizeof(*h));
	if (sz < 8)
		return bad(bi, "truncated header (%zu bytes)", sz);
	memcpy(h, d, 8);
	if (h->magic == 0x9FeB)
		return bad(bi, "big-endian BTF is not supported");
	if (h->magic != BTFI_MAGIC)
		return bad(bi, "bad magic 0x%04x (not BTF)", h->magic);
	if (h->version != 1)
		return bad(bi, "unsupported BTF version %u", h->version);
	if (h->hdr_len < 24)
		return bad(bi, "hdr_len %u too small", h->hdr_len);
	if (h->hdr_len > sz)
		return bad(bi, "hdr_len %u past the end (%zu bytes)", h->hdr_len, sz);
	memcpy(h, d, h->hdr_len < sizeof(*h) ? h->hdr_len : sizeof(*h));
	/* A longer header than we know: its extra bytes must be zero. */
	for (size_t i = sizeof(*h); i < h->hdr_len; i++)
		if (d[i])
			return bad(bi, "unknown non-zero header field at byte %zu", i);
	meta = sz - h->hdr_len;
	if (h->type_off % 4)
		return bad(bi, "type section not 4-byte aligned (type_off %u)", h->type_off);
	if ((uint64_t)h->type_off + h->type_len > meta)
		return bad(bi, "type section %u+%u past the end (%llu bytes)", h->type_off,
			   h->type_len, (unsigned long long)meta);
	if ((uint64_t)h->str_off + h->str_len > meta)
		return bad(bi, "string section %u+%u past the end (%llu bytes)", h->str_off,
			   h->str_len, (unsigned long long)meta);
	if ((uint64_t)h->type_off + h->type_len > h->str_off)
		return bad(bi, "type section %u+%u overlaps strings at %u", h->type_off,
			   h->type_len, h->str_off);
	if (h->str_len && d[h->hdr_len + h->str_off + h->str_len - 1])
		return bad(bi, "string section not NUL-terminated");
	if (h->layout_len) {
		lay_end = (uint64_t)h->layout_off + h->layout_len;
		if (h->layout_off % 4 || h->layout_len % 4)
			return bad(bi, "layout section %u+%u not 4-byte aligned", h->layout_off,
				   h->layout_len);
		if (lay_end > meta)
			return bad(bi, "layout section %u+%u past the end", h->layout_off,
				   h->layout_len);
		if ((uint64_t)h->str_off + h->str_len > h->layout_off &&
		    lay_end > h->type_off)
			return bad(bi, "layout section %u+%u overlaps types or strings",
				   h->layout_off, h->layout_len);
	}
	return 0;
}

/* Walk the type section: offsets and kinds of every record. */
static int walk_types(struct btfinline *bi, const struct btfi_hdr *h, const uint8_t *lay,
		      uint32_t nlay)
{
	const uint8_t *t = bi->types;
	uint32_t off = 0, n = 0, cap = 0;

	while (off < h->type_len) {
		uint32_t info, kind, vlen;
		uint64_t rsz;

		if (h->type_len - off < 12)
			return bad(bi, "type [%u] at offset %u: truncated record",
				   bi->start_id + n, off);
		info = rd32(t + off + 4);
		kind = BTFI_INFO_KIND(info);
		vlen = BTFI_INFO_VLEN(info);
		if (kind < nlay) {
			const uint8_t *l = lay + 4 * kind;

			if (kind <= BTFI_KIND_MAX_KNOWN &&
			    (l[0] != btfi_layouts[kind].info_sz || l[1] != btfi_layouts[kind].elem_sz))
				return bad(bi, "layout for kind %u (%s) is {%u,%u}, expected {%u,%u}",
					   kind, kname(kind), l[0], l[1], btfi_layouts[kind].info_sz,
					   btfi_layouts[kind].elem_sz);
			rsz = 12 + l[0] + (uint64_t)vlen * l[1];
		} else if (kind <= BTFI_KIND_MAX_KNOWN) {
			rsz = 12 + btfi_layouts[kind].info_sz + (uint64_t)vlen * btfi_layouts[kind].elem_sz;
		} else {
			return bad(bi, "type [%u]: unknown kind %u without layout", bi->start_id + n,
				   kind);
		}
		if (rsz % 4)
			return bad(bi, "type [%u]: kind %u record size %llu not a multiple of 4",
				   bi->start_id + n, kind, (unsigned long long)rsz);
		if (rsz > h->type_len - off)
			return bad(bi, "type [%u] %s: vlen %u runs past the type section",
				   bi->start_id + n, kname(kind), vlen);
		if (n == cap) {
			uint32_t ncap = cap ? cap * 2 : 1024, *to;
			uint8_t *k;

			to = realloc(bi->toff, ncap * sizeof(*to));
			if (to)
				bi->toff = to;
			k = realloc(bi->kinds, ncap);
			if (k)
				bi->kinds = k;
			if (!to || !k)
				return -ENOMEM;
			cap = ncap;
		}
		if ((uint64_t)bi->start_id + n >= 0x7fffffff)
			return bad(bi, "too many types");
		bi->toff[n] = off;
		/* Unknown kinds (skipped via layout) are stored as 0xff. */
		bi->kinds[n] = kind <= BTFI_KIND_MAX_KNOWN ? kind : 0xff;
		off += rsz;
		n++;
	}
	bi->ntypes = n;
	return 0;
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
		if (!id_ok(bi, ref) || kind_of(bi, ref) != BTF_KIND_FUNC_PROTO)
			return bad(bi, "type [%u] FUNC: type id %u is not a FUNC_PROTO", id, ref);
		if (!name_off)
			return bad(bi, "type [%u] FUNC: no name", id);
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

			if (pid && kind_of(bi, pid) != BTFI_KIND_LOC_PARAM)
				return bad(bi, "type [%u] LOC_PROTO: slot %u names type %u, not a LOC_PARAM",
					   id, i, pid);
		}
	} else if (kind == BTFI_KIND_LOCSEC) {
		const char *nm = str_at(bi, name_off);
		uint32_t pfunc = 0, poff = 0;

		if (strncmp(nm, "inline", 6) || !nm[6])
			return bad(bi, "type [%u] LOCSEC: name '%.64s' is not \"inline<section>\"%s", id,
				   nm, name_off < bi->base_str_len ? " (base mismatch?)" : "");
		for (uint32_t i = 0; i < vlen; i++, e += 12) {
			uint32_t func = rd32(e), proto = rd32(e + 4), off = rd32(e + 8);
			int np, fk = kind_of(bi, func);

			if (fk != BTF_KIND_FUNC) {
				if (func < bi->start_id && fk >= 0)
					return bad(bi, "type [%u] LOCSEC %s: site %u: base type %u is %s, not a FUNC (base mismatch?)",
						   id, nm, i, func, kname(fk));
				return bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a FUNC", id,
					   nm, i, func);
			}
			if (kind_of(bi, proto) != BTFI_KIND_LOC_PROTO)
				return bad(bi, "type [%u] LOCSEC %s: site %u: type %u is not a LOC_PROTO",
					   id, nm, i, proto);
			if (i && (func < pfunc || (func == pfunc && off < poff)))
				return bad(bi, "type [%u] LOCSEC %s: site %u out of (func, offset) order",
					   id, nm, i);
			np = func_nparams(bi, func);
			if (np < 0 || (uint32_t)np != BTFI_INFO_VLEN(rd32(bi->types + bi->toff[proto - bi->start_id] + 4)))
				return bad(bi, "type [%u] LOCSEC %s: site %u: FUNC %u has %d params, LOC_PROTO %u has %u%s",
					   id, nm, i, func, np, proto,
					   BTFI_INFO_VLEN(rd32(bi->types + bi->toff[proto - bi->start_id] + 4)),
					   func < bi->start_id ? " (base mismatch?)" : "");
			pfunc = func;
			poff = off;
		}
	}
	return 0;
}

static uint32_t rec_len(const struct btfinline *bi, uint32_t i)
{
	return (i + 1 < bi->ntypes ? bi->toff[i + 1] : bi->type_len) - bi->toff[i];
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
	uint64_t tlen = 0;
	uint8_t *buf, *p;
	int err;

	for (uint32_t i = 0; i < bi->ntypes; i++)
		tlen += bi->kinds[i] <= BTF_KIND_ENUM64 ? rec_len(bi, i) : 12;
	buf = malloc(sizeof(h) + tlen + bi->str_len);
	if (!buf)
		return -ENOMEM;
	p = buf + sizeof(h);
	for (uint32_t i = 0; i < bi->ntypes; i++) {
		if (bi->kinds[i] <= BTF_KIND_ENUM64) {
			memcpy(p, bi->types + bi->toff[i], rec_len(bi, i));
			p += rec_len(bi, i);
		} else {
			uint32_t ph[3] = { 0, BTF_KIND_CONST << 24, 0 };

			memcpy(p, ph, 12);
			p += 12;
		}
	}
	h.type_len = tlen;
	h.str_off = tlen;
	h.str_len = bi->str_len;
	memcpy(buf, &h, sizeof(h));
	memcpy(p, bi->strs, bi->str_len);
	err = new_split(bi, buf, sizeof(h) + tlen + bi->str_len);
	free(buf);
	return err;
}

/* Sort key helpers: rank of each FUNC id by (name, id). */
static const struct btfinline *sort_bi;

static const char *func_name(const struct btfinline *bi, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(bi->btf, id);

	return t ? btf__name_by_offset(bi->btf, t->name_off) : "";
}

static int cmp_func_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(func_name(sort_bi, x), func_name(sort_bi, y));

	return c ? c : (x > y) - (x < y);
}

static int build_sites(struct btfinline *bi)
{
	uint32_t nids = bi->start_id + bi->ntypes, *rank = NULL, *funcs = NULL, nfuncs = 0;
	size_t *cnt = NULL, n = 0;
	int err = -ENOMEM;

	/* Sections and the total site count. */
	for (uint32_t i = 0; i < bi->ntypes; i++) {
		const uint8_t *t = bi->types + bi->toff[i];
		uint32_t nm, s;

		if (bi->kinds[i] != BTFI_KIND_LOCSEC)
			continue;
		n += BTFI_INFO_VLEN(rd32(t + 4));
		nm = rd32(t);
		for (s = 0; s < bi->nsecs; s++)
			if (!strcmp(bi->secs[s].name, str_at(bi, nm) + 6))
				break;
		if (s == bi->nsecs) {
			struct rsec *ns;

			if (bi->nsecs == MAX_SECS)
				return bad(bi, "more than %d LOCSEC sections", MAX_SECS);
			ns = realloc(bi->secs, (bi->nsecs + 1) * sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			bi->secs = ns;
			bi->secs[bi->nsecs++] = (struct rsec){ .name_off = nm, .name = str_at(bi, nm) + 6 };
		}
	}
	bi->nsites = n;
	bi->sites = malloc((n ? n : 1) * sizeof(*bi->sites));
	rank = calloc(nids, sizeof(*rank));
	if (!bi->sites || !rank)
		goto out;
	/* Distinct functions, sorted by name: their rank orders the sites. */
	for (uint32_t i = 0; i < bi->ntypes; i++) {
		const uint8_t *t = bi->types + bi->toff[i];

		if (bi->kinds[i] != BTFI_KIND_LOCSEC)
			continue;
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
	sort_bi = bi;	/* qsort has no context argument; single-threaded open */
	qsort(funcs, nfuncs, sizeof(*funcs), cmp_func_ids);
	for (uint32_t r = 0; r < nfuncs; r++)
		rank[funcs[r]] = r;
	/* Counting sort by rank; LOCSEC order keeps (secno, offset) within a func. */
	for (uint32_t i = 0; i < bi->ntypes; i++) {
		const uint8_t *t = bi->types + bi->toff[i];

		if (bi->kinds[i] != BTFI_KIND_LOCSEC)
			continue;
		for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v; k++)
			cnt[rank[rd32(t + 12 + 12 * k)] + 1]++;
	}
	for (uint32_t r = 0; r < nfuncs; r++)
		cnt[r + 1] += cnt[r];
	for (uint32_t s = 0; s < bi->nsecs; s++) {
		for (uint32_t i = 0; i < bi->ntypes; i++) {
			const uint8_t *t = bi->types + bi->toff[i];

			if (bi->kinds[i] != BTFI_KIND_LOCSEC ||
			    strcmp(str_at(bi, rd32(t)) + 6, bi->secs[s].name))
				continue;
			for (uint32_t k = 0, v = BTFI_INFO_VLEN(rd32(t + 4)); k < v; k++) {
				const uint8_t *e = t + 12 + 12 * k;
				uint32_t f = rd32(e);

				bi->sites[cnt[rank[f]]++] = (struct btfinline_site){
					.func_id = f, .loc_proto_id = rd32(e + 4),
					.offset = rd32(e + 8), .secno = s,
				};
			}
		}
	}
	err = 0;
out:
	free(rank);
	free(funcs);
	free(cnt);
	return err;
}

static void account(struct btfinline *bi, const struct btfi_hdr *h)
{
	struct btfinline_sizes *z = &bi->sizes;

	z->hdr = h->hdr_len;
	z->layout = h->layout_len;
	z->strs = h->str_len;
	for (uint32_t i = 0; i < bi->ntypes; i++) {
		uint32_t len = rec_len(bi, i);
		uint32_t vlen = BTFI_INFO_VLEN(rd32(bi->types + bi->toff[i] + 4));

		switch (bi->kinds[i]) {
		case BTFI_KIND_LOCSEC:
			z->locsec += len; z->nlocsec++; z->nsites += vlen; break;
		case BTFI_KIND_LOC_PARAM:
			z->loc_param += len; z->nloc_param++; break;
		case BTFI_KIND_LOC_PROTO:
			z->loc_proto += len; z->nloc_proto++; break;
		case BTF_KIND_FUNC:
			z->nfunc++;
			/* fallthrough */
		case BTF_KIND_FUNC_PROTO:
			z->func += len; break;
		default:
			z->other_types += len; break;
		}
	}
}

static int parse(struct btfinline *bi)
{
	const uint8_t *d = bi->raw, *lay = NULL;
	struct btfi_hdr h;
	uint32_t nlay = 0;
	int err;

	err = check_hdr(bi, d, bi->raw_sz, &h);
	if (err)
		return err;
	bi->start_id = btf__type_cnt(bi->base);
	bi->base_str_len = base_strs_len(bi->base);
	bi->types = d + h.hdr_len + h.type_off;
	bi->strs = (const char *)d + h.hdr_len + h.str_off;
	bi->str_len = h.str_len;
	bi->type_len = h.type_len;
	if (h.layout_len) {
		lay = d + h.hdr_len + h.layout_off;
		nlay = h.layout_len / 4;
	}
	err = walk_types(bi, &h, lay, nlay);
	if (err)
		return err;
	/* Base FUNC/FUNC_PROTO lookups need bi->btf: synthesize after the
	 * standard kinds are checked, then check the new kinds. */
	for (uint32_t i = 0; i < bi->ntypes; i++)
		if (bi->kinds[i] <= BTF_KIND_ENUM64 &&
		    (err = check_std(bi, bi->start_id + i, bi->types + bi->toff[i])))
			return err;
	err = synthesize(bi);
	if (err)
		return err;
	bi->sizes.total = bi->raw_sz;
	for (uint32_t i = 0; i < bi->ntypes; i++)
		if (bi->kinds[i] > BTF_KIND_ENUM64 && bi->kinds[i] != 0xff &&
		    (err = check_new(bi, bi->start_id + i, bi->types + bi->toff[i])))
			return err;
	account(bi, &h);
	return build_sites(bi);
}

static int open_common(struct btfinline *bi)
{
	int err = parse(bi);

	if (err)
		return err;
	return 0;
}

int btfinline__open_mem(const void *data, size_t size, struct btf *base,
			const struct btfi_log *log, struct btfinline **out)
{
	struct btfinline *bi;
	int err;

	*out = NULL;
	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	bi->name = "(memory)";
	if (log)
		bi->log = *log;
	if (!base) {
		btfinline__free(bi);
		btfi_err(log, "no base BTF");
		return -EINVAL;
	}
	bi->base = base;
	/* Copy so that every later access sees validated, aligned bytes. */
	bi->raw = malloc(size ? size : 1);
	if (!bi->raw) {
		btfinline__free(bi);
		return -ENOMEM;
	}
	memcpy(bi->raw, data, size);
	bi->raw_sz = size;
	err = open_common(bi);
	if (err) {
		btfinline__free(bi);
		return err;
	}
	bi->name = NULL;
	*out = bi;
	return 0;
}

struct elf_sec {
	char name[64];
	uint64_t addr;
};

/* Reads section `want` of ELF fd into a malloc'ed buffer (pread: no full
 * mapping), and lists allocated sections' addresses. */
static int read_elf(struct btfinline *bi, int fd, const char *want, struct elf_sec **secs,
		    uint32_t *nsecs)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = -ENOENT;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		return bad(bi, "not a readable ELF file");
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((sh.sh_flags & SHF_ALLOC) && strlen(nm) < 64) {
			struct elf_sec *ns = realloc(*secs, (*nsecs + 1) * sizeof(*ns));

			if (ns) {
				*secs = ns;
				strcpy(ns[*nsecs].name, nm);
				ns[(*nsecs)++].addr = sh.sh_addr;
			}
		}
		if (strcmp(nm, want) || err != -ENOENT)
			continue;
		if (sh.sh_type == SHT_NOBITS || sh.sh_size > (1ull << 32)) {
			err = bad(bi, "section %s has no usable data", want);
			continue;
		}
		bi->raw = malloc(sh.sh_size ? sh.sh_size : 1);
		if (!bi->raw) {
			err = -ENOMEM;
			continue;
		}
		bi->raw_sz = sh.sh_size;
		if (pread(fd, bi->raw, sh.sh_size, sh.sh_offset) != (ssize_t)sh.sh_size)
			err = bad(bi, "cannot read section %s", want);
		else
			err = 0;
	}
	elf_end(elf);
	if (err == -ENOENT)
		btfi_err(&bi->log, "%s: no %s section (run `btfinline encode` first)", bi->name, want);
	return err;
}

static int read_file(struct btfinline *bi, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		/* sysfs files report size 4096 or 0: read until EOF. */
		size_t cap = 1 << 20, n = 0;
		ssize_t r;

		bi->raw = malloc(cap);
		while (bi->raw && (r = read(fd, bi->raw + n, cap - n)) > 0) {
			n += r;
			if (n == cap) {
				uint8_t *nb = realloc(bi->raw, cap *= 2);

				if (!nb)
					return -ENOMEM;
				bi->raw = nb;
			}
		}
		bi->raw_sz = n;
		return bi->raw ? 0 : -ENOMEM;
	}
	bi->raw = malloc(st.st_size ? st.st_size : 1);
	if (!bi->raw)
		return -ENOMEM;
	bi->raw_sz = st.st_size;
	if (pread(fd, bi->raw, st.st_size, 0) != st.st_size)
		return bad(bi, "short read");
	return 0;
}

int btfinline__open(const char *path, const struct btfinline_open_opts *opts,
		    struct btfinline **out)
{
	struct btfinline *bi;
	struct elf_sec *esecs = NULL;
	uint32_t nesecs = 0;
	const char *base_path = NULL;
	unsigned char magic[4] = { 0 };
	bool is_elf;
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
	is_elf = pread(fd, magic, 4, 0) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	err = is_elf ? read_elf(bi, fd, ".BTF.inline", &esecs, &nesecs) : read_file(bi, fd);
	close(fd);
	if (err)
		goto err;
	if (!base_path)
		base_path = is_elf ? path : "/sys/kernel/btf/vmlinux";
	bi->base = btf__parse(base_path, NULL);
	if (!bi->base) {
		err = -errno;
		btfi_err(&bi->log, "%s: cannot load base BTF from %s: %s%s", path, base_path,
			 strerror(-err), is_elf && base_path == path ?
			 " (no .BTF section? run `pahole -J` first)" : "");
		goto err;
	}
	bi->own_base = true;
	err = open_common(bi);
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
	free(bi->raw);
	free(bi->toff);
	free(bi->kinds);
	free(bi->sites);
	free(bi->by_addr);
	free(bi->secs);
	free(bi);
}

struct btf *btfinline__btf(const struct btfinline *bi)
{
	return bi->btf;
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

const struct btfinline_site *btfinline__sites(const struct btfinline *bi, size_t *cnt)
{
	*cnt = bi->nsites;
	return bi->sites;
}

size_t btfinline__func_sites(const struct btfinline *bi, const char *name,
			     const struct btfinline_site **first)
{
	size_t lo = 0, hi = bi->nsites, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(func_name(bi, bi->sites[mid].func_id), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo, hi = bi->nsites; end < hi;) {
		size_t mid = end + (hi - end) / 2;

		if (strcmp(func_name(bi, bi->sites[mid].func_id), name) <= 0)
			end = mid + 1;
		else
			hi = mid;
	}
	*first = bi->sites + lo;
	return end - lo;
}

static const struct btfinline_site *cmp_sites;

static int cmp_addr(const void *a, const void *b)
{
	const struct btfinline_site *x = cmp_sites + *(const uint32_t *)a;
	const struct btfinline_site *y = cmp_sites + *(const uint32_t *)b;

	if (x->secno != y->secno)
		return x->secno < y->secno ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x > y) - (x < y);
}

size_t btfinline__sites_at(const struct btfinline *cbi, uint32_t secno, uint32_t offset,
			   const struct btfinline_site **out, size_t max)
{
	/* The address index is built on first use (dump by name never needs
	 * it); not thread-safe on that first call. */
	struct btfinline *bi = (struct btfinline *)cbi;
	size_t lo = 0, hi = bi->nsites, n = 0;

	if (!bi->by_addr && bi->nsites) {
		bi->by_addr = malloc(bi->nsites * sizeof(*bi->by_addr));
		if (!bi->by_addr)
			return 0;
		for (size_t i = 0; i < bi->nsites; i++)
			bi->by_addr[i] = i;
		cmp_sites = bi->sites;
		qsort(bi->by_addr, bi->nsites, sizeof(*bi->by_addr), cmp_addr);
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct btfinline_site *s = bi->sites + bi->by_addr[mid];

		if (s->secno < secno || (s->secno == secno && s->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bi->nsites; lo++) {
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

	if (id < bi->start_id || id - bi->start_id >= bi->ntypes ||
	    bi->kinds[id - bi->start_id] != BTFI_KIND_LOC_PROTO)
		return -EINVAL;
	p = bi->types + bi->toff[id - bi->start_id];
	n = BTFI_INFO_VLEN(rd32(p + 4));
	for (uint32_t i = 0; i < n && (int)i < max; i++) {
		uint32_t pid = rd32(p + 12 + 4 * i);

		if (!pid) {
			memset(&locs[i], 0, sizeof(locs[i]));
			locs[i].kind = BTFI_LOC_NONE;
			locs[i].reason = BTFI_R_UNKNOWN;
			continue;
		}
		decode_loc(bi->types + bi->toff[pid - bi->start_id], &locs[i]);
	}
	return n;
}

void btfinline__sizes(const struct btfinline *bi, struct btfinline_sizes *out)
{
	*out = bi->sizes;
}
