// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Record sizes of the kinds the writer knows: written as the blob's layout
 * section, and what the reader checks a blob's layout against. */
#include <linux/btf.h>
#include "format/btf_format.h"

const struct btfi_layout btfi_layouts[BTFI_KIND_MAX_KNOWN + 1] = {
	[BTF_KIND_UNKN]		= { 0, 0, 0 },
	[BTF_KIND_INT]		= { 4, 0, 0 },
	[BTF_KIND_PTR]		= { 0, 0, 0 },
	[BTF_KIND_ARRAY]	= { 12, 0, 0 },
	[BTF_KIND_STRUCT]	= { 0, 12, 0 },
	[BTF_KIND_UNION]	= { 0, 12, 0 },
	[BTF_KIND_ENUM]		= { 0, 8, 0 },
	[BTF_KIND_FWD]		= { 0, 0, 0 },
	[BTF_KIND_TYPEDEF]	= { 0, 0, 0 },
	[BTF_KIND_VOLATILE]	= { 0, 0, 0 },
	[BTF_KIND_CONST]	= { 0, 0, 0 },
	[BTF_KIND_RESTRICT]	= { 0, 0, 0 },
	[BTF_KIND_FUNC]		= { 0, 0, 0 },
	[BTF_KIND_FUNC_PROTO]	= { 0, 8, 0 },
	[BTF_KIND_VAR]		= { 4, 0, 0 },
	[BTF_KIND_DATASEC]	= { 0, 12, 0 },
	[BTF_KIND_FLOAT]	= { 0, 0, 0 },
	[BTF_KIND_DECL_TAG]	= { 4, 0, 0 },
	[BTF_KIND_TYPE_TAG]	= { 0, 0, 0 },
	[BTF_KIND_ENUM64]	= { 0, 12, 0 },
	[BTFI_KIND_LOC_PARAM]	= { 4, 4, 0 },
	[BTFI_KIND_LOC_PROTO]	= { 0, 4, 0 },
	[BTFI_KIND_LOCSEC]	= { 0, 12, 0 },
};
