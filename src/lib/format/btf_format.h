/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The on-disk .BTF.inline format, as the bpf-next UAPI header
 * (include/uapi/linux/btf.h) describes it: 32-byte header with the layout
 * section, 24-bit vlen, and the record sizes of kinds 0..22. Kind numbers
 * and LOC_PARAM flags are public (include/btfinline.h). Shared by the
 * writer and the reader; every byte: docs/FORMAT.md.
 */
#ifndef BTFI_BTF_FORMAT_H
#define BTFI_BTF_FORMAT_H

#include <stdint.h>
#include "btfinline.h"	/* kind numbers, LOC_PARAM flags */

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

#endif
