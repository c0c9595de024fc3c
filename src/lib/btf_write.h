/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal encoder API. Two layers:
 *  - btfi_writer: the byte layer. Standard kinds go through a libbpf split
 *    BTF (btfi_writer_btf()); the three new kinds are collected here,
 *    deduplicated, and laid out by btfi_writer_finish() after all standard
 *    types, with the 32-byte header and the layout section (docs/FORMAT.md).
 *  - btfi_encode(): scan model -> blob (FUNC/FUNC_PROTO for inlined-only
 *    functions, LOC_PARAM/LOC_PROTO/LOCSEC for every site with an address).
 */
#ifndef BTFI_BTF_WRITE_H
#define BTFI_BTF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "btfinline.h"

struct btf;
struct btfi_scan;

/* On-disk structures of the new format (little-endian host order). */
struct btfi_hdr {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off, type_len;
	uint32_t str_off, str_len;
	uint32_t layout_off, layout_len;
};

struct btfi_layout {
	uint8_t info_sz;
	uint8_t elem_sz;
	uint16_t flags;
};

struct btfi_locsec_ent {
	uint32_t func;
	uint32_t loc_proto;
	uint32_t offset;
};

#define BTFI_MAGIC		0xeB9F
#define BTFI_HDR_LEN		32
#define BTFI_KIND_MAX_KNOWN	22	/* writer's layout covers 0..22 */
#define BTFI_VLEN_MAX		0xffffff
#define BTFI_INFO_KIND(info)	(((info) >> 24) & 0x7f)
#define BTFI_INFO_VLEN(info)	((info) & 0xffffff)
#define BTFI_INFO(kind, vlen)	(((uint32_t)(kind) << 24) | ((vlen) & 0xffffff))

/* Record sizes of kinds 0..22 as the writer lays them out. */
extern const struct btfi_layout btfi_layouts[BTFI_KIND_MAX_KNOWN + 1];

struct btfi_writer;

int btfi_writer_new(struct btf *base, const struct btfi_log *log, struct btfi_writer **out);
void btfi_writer_free(struct btfi_writer *w);
/* The libbpf split BTF holding standard kinds; add FUNC etc. through it. */
struct btf *btfi_writer_btf(struct btfi_writer *w);

/* New kinds return a handle (>= 0), not a type id: ids are assigned by
 * btfi_writer_finish() once the standard part is final. */
int btfi_writer_loc_param(struct btfi_writer *w, const struct btfi_loc *loc);
/* params[i]: handle from btfi_writer_loc_param() or -1 for "no location". */
int btfi_writer_loc_proto(struct btfi_writer *w, const int *params, uint32_t n);
/* One site: secname is the ELF section name (".text"); func a FUNC id. */
int btfi_writer_site(struct btfi_writer *w, const char *secname, uint32_t func_id,
		     int loc_proto, uint32_t offset);
/* Serialize. *blob is malloc'ed. */
int btfi_writer_finish(struct btfi_writer *w, void **blob, size_t *sz);
/* After finish: entries dropped because an earlier one had the same
 * (section, func, offset), with the same LOC_PROTO or another. */
void btfi_writer_dups(const struct btfi_writer *w, uint32_t *same, uint32_t *other);

/* Can `loc` be stored as a LOC_PARAM? (false: written as "no location") */
bool btfi_loc_encodable(const struct btfi_loc *loc);

/* DWARF type -> BTF id (btf_types.c), over a writer's split BTF. */
struct btfi_types;
/* Every name offset and type id of a base the encoder will read inside
 * the base (libbpf 1.1 checks neither on parse). -EINVAL, logged once
 * naming `what` and the record. */
int btfi_types_check_base(const struct btf *base, const char *what, const struct btfi_log *log);
int btfi_types_new(struct btf *split, Dwarf *dw, const char *path, const struct btfi_log *log,
		   struct btfi_types **out);
void btfi_types_free(struct btfi_types *t);
/* After btf__dedup() moved ids: rebuild the index, forget the memo. */
int btfi_types_reindex(struct btfi_types *t);
/* Type id for the DIE at die_off (0: void). fallback_size != 0: never
 * return void (an unsigned int of that size instead). */
int btfi_types_id(struct btfi_types *t, uint64_t die_off, uint32_t fallback_size);
/* A FUNC (base or split) named `name` whose FUNC_PROTO has exactly these
 * parameter names; 0 if none. */
int btfi_types_find_func(struct btfi_types *t, const char *name, const char *const *pnames,
			 uint32_t n);
int btfi_types_add_func(struct btfi_types *t, const char *name, bool global,
			uint64_t ret_off, const char *const *pnames, const uint64_t *ptypes,
			const uint32_t *psizes, uint32_t n);

struct btfi_encode_opts {
	size_t sz;
	struct btfi_log log;
	bool verbose;		/* counts on stderr */
	/* Write a register narrower than its parameter (GCC's extension
	 * idioms) as "no location", for readers that take LOC_PARAM size as
	 * the type's size (docs/FORMAT.md, "Narrowed values"). */
	bool no_narrow;
};

struct btfi_encode_stats {
	uint32_t nsites, nsites_skipped;	/* skipped: no address/section */
	uint32_t ndup_same, ndup_other;	/* same (func, offset): identical / another instance */
	uint32_t nfuncs_base, nfuncs_split;	/* FUNC reused from base / added */
	uint32_t nloc_param, nloc_proto, nlocsec;
	double secs;
};

int btfi_encode(const struct btfi_scan *s, struct btf *base,
		const struct btfi_encode_opts *o, void **blob, size_t *sz,
		struct btfi_encode_stats *st);

/* ELF output (elf_write.c): copy `in` to `out` with section .BTF.inline
 * added or replaced; out == in: temp file + fsync + rename. */
int btfi_elf_write_section(const char *in, const char *out, const char *secname,
			   const void *data, size_t sz, const struct btfi_log *log);

#endif
