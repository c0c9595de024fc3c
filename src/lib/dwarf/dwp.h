/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DWARF packages (.dwp: gcc's `dwp`, `llvm-dwp`) read by us: libdw 0.188
 * opens split units only from .dwo files (0.191 reads packages). A unit
 * of the package is written back as the .dwo it was made of, in a private
 * temp directory, next to a copy of the skeleton file's debug sections:
 * libdw looks for a skeleton's .dwo in the directory of the file the
 * skeleton is in first, and opens it as any .dwo (docs/DESIGN.md).
 */
#ifndef BTFI_DWP_H
#define BTFI_DWP_H

#include <stdint.h>
#include <libelf.h>
#include "btfinline.h"

struct btfi_dwp;

/* Open path and check its .debug_cu_index (version 2, GNU's for DWARF 4,
 * or 5), every unit's contributions inside their sections. 0 or -errno
 * with "PATH: problem" logged once. */
int btfi_dwp_open(const char *path, const struct btfi_log *log, struct btfi_dwp **out);
/* Closes the package and removes the temp directory with all in it. */
void btfi_dwp_close(struct btfi_dwp *d);

/* Unit dwo_id as a standalone .dwo at TMPDIR/name (name relative, no
 * ".."): 0, -ENOENT when the package has no such unit (nothing logged),
 * or -errno logged. */
int btfi_dwp_write_unit(struct btfi_dwp *d, uint64_t dwo_id, const char *name,
			const struct btfi_log *log);

/* The debug sections (.debug_*, decompressed as libdw left them) of elf,
 * the file the skeleton units are in (path names it in errors), copied to
 * TMPDIR: *copy is its path (owned by d). */
int btfi_dwp_skeleton_copy(struct btfi_dwp *d, Elf *elf, const char *path, const char **copy,
			   const struct btfi_log *log);

#endif
