/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inline info of a user binary that has DWARF (in it, detached, from
 * debuginfod) but no .BTF.inline, built in memory: the scan and encoder of
 * `btfinline encode`, over a base BTF found or made here. Nothing is
 * written to the binary or its debug file. source.c caches the result.
 */
#ifndef BTFI_BUILD_H
#define BTFI_BUILD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "btfinline.h"

struct btf;

struct btfi_build_opts {
	size_t sz;
	struct btfi_log log;
	const char *debug_file;	/* as --debug-file */
	const char *debug_dirs;	/* as --debug-dir */
	/* the base to build over, borrowed (the running kernel's BTF, a
	 * module's flattened onto it); NULL: found as below */
	const struct btf *base;
};

enum btfi_base_how {
	BTFI_BASE_OWN,		/* the binary's own .BTF */
	BTFI_BASE_DEBUG_FILE,	/* the .BTF of its debug file */
	BTFI_BASE_PAHOLE,	/* pahole --btf_encode_detached on the DWARF file */
	BTFI_BASE_NONE,		/* no pahole: prototypes from DWARF, structs as FWD */
	BTFI_BASE_GIVEN,	/* opts.base */
};

struct btfi_build_info {
	char dwarf_path[PATH_MAX];	/* where the DWARF came from */
	int dwarf_src;			/* enum btfi_debuginfo_src */
	enum btfi_base_how base_how;
	char base_note[640];		/* BTFI_BASE_NONE: why not pahole */
	uint32_t nsites;
	double secs;
};

/*
 * 0 and the raw base BTF (*base, *base_sz) and blob (*blob, *blob_sz),
 * both malloc'd; or -errno with one message ("BIN: problem").
 */
int btfi_build_inline(const char *path, const struct btfi_build_opts *o, void **base,
		      size_t *base_sz, void **blob, size_t *blob_sz, struct btfi_build_info *info);
const char *btfi_base_how_str(enum btfi_base_how how);

#endif
