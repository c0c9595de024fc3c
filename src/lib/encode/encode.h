/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The encoder: scan model -> .BTF.inline blob (encode.c), with the DWARF
 * type -> BTF id conversion it needs for new FUNC_PROTOs (btf_types.c).
 * FUNC/FUNC_PROTO for inlined-only functions, LOC_PARAM/LOC_PROTO/LOCSEC
 * for every site with an address; the bytes come from format/btf_write.
 */
#ifndef BTFI_ENCODE_H
#define BTFI_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "btfinline.h"

struct btf;
struct btfi_scan;

/* DWARF type -> BTF id (btf_types.c), over a writer's split BTF. */
struct btfi_types;
/* Every name offset and type id of a base the encoder will read inside
 * the base (libbpf 1.1 checks neither on parse). -EINVAL, logged once
 * naming `what` and the record. */
int btfi_types_check_base(const struct btf *base, const char *what, const struct btfi_log *log);
/* dws[0]: the DWARF; dws[i]: split unit files, for DIE keys carrying i
 * << BTFI_DIE_FILE_SHIFT (dwarf/scan.h). */
int btfi_types_new(struct btf *split, Dwarf *const *dws, uint32_t ndws, const char *path,
		   const struct btfi_log *log, struct btfi_types **out);
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

/* Base BTF for a file that has none (base_pahole.c): pahole
 * --btf_encode_detached on dwarf_path, which pahole only reads. 0 and
 * *out; -ENOENT: no pahole in PATH; -ENODATA: no types (pahole 1.24
 * reads no split DWARF); else pahole failed. The reason is logged. */
int btfi_base_from_pahole(const char *dwarf_path, const struct btfi_log *log, struct btf **out);

int btfi_encode(const struct btfi_scan *s, struct btf *base,
		const struct btfi_encode_opts *o, void **blob, size_t *sz,
		struct btfi_encode_stats *st);

#endif
