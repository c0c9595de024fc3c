/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The blob writer, byte layer: standard kinds go through a libbpf split
 * BTF (btfi_writer_btf()); the three new kinds are collected here,
 * deduplicated, and laid out by btfi_writer_finish() after all standard
 * types, with the 32-byte header and the layout section (docs/FORMAT.md).
 * What to write comes from encode/encode.c.
 */
#ifndef BTFI_BTF_WRITE_H
#define BTFI_BTF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "btfinline.h"

struct btf;

#include "format/btf_format.h"

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
/* The same with a condition: 0 is btfi_writer_site(); 1 + an x86
 * condition code puts the site on a branch, in LOCSEC "inline<sec>:<cc>"
 * (docs/FORMAT.md, "Sites on a branch"). */
int btfi_writer_cond_site(struct btfi_writer *w, const char *secname, uint8_t cond,
			  uint32_t func_id, int loc_proto, uint32_t offset);
/* Serialize. *blob is malloc'ed. */
int btfi_writer_finish(struct btfi_writer *w, void **blob, size_t *sz);
struct btfi_writer_counts {
	uint32_t nloc_param, nloc_proto;	/* records after dedup */
	/* After finish: site entries dropped because an earlier one had the
	 * same (section, func, offset), with the same LOC_PROTO or another. */
	uint32_t ndup_same, ndup_other;
};
void btfi_writer_counts(const struct btfi_writer *w, struct btfi_writer_counts *c);

/* Can `loc` be stored as a LOC_PARAM? (false: written as "no location") */
bool btfi_loc_encodable(const struct btfi_loc *loc);

#endif
