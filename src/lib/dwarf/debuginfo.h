/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding and opening the DWARF of an ELF file: in the file itself
 * (compressed or not), in a detached debug file (--debug-file, build-id,
 * .gnu_debuglink, debuginfod), split units in .dwo files through libdw or
 * in a .dwp package (dwp.c), dwz alternate files. The order is
 * documented in docs/DESIGN.md ("Where debug info is looked for").
 */
#ifndef BTFI_DEBUGINFO_H
#define BTFI_DEBUGINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include "btfinline.h"

struct btfi_debuginfo_opts {
	size_t sz;
	struct btfi_log log;
	const char *debug_file;	/* use this file's DWARF; build-ids must match */
	const char *debug_dirs;	/* colon-separated roots searched instead of
				 * /usr/lib/debug (build-id and debuglink) */
	bool optional;		/* no DWARF anywhere: -ENOENT, nothing logged */
};

enum btfi_debuginfo_src {
	BTFI_DI_IN_FILE = 0,	/* the ELF's own sections */
	BTFI_DI_DEBUG_FILE,	/* opts.debug_file */
	BTFI_DI_BUILD_ID,	/* <dir>/.build-id/xx/rest.debug */
	BTFI_DI_DEBUGLINK,	/* .gnu_debuglink name (CRC or build-id checked) */
	BTFI_DI_DEBUGINFOD,	/* fetched by build-id from $DEBUGINFOD_URLS */
	BTFI_DI_MODULE_PATH,	/* a module's ROOT/lib/modules/... (build-id checked) */
};

struct btfi_debuginfo {
	const char *path;	/* the ELF asked about: what runs */
	Elf *elf;		/* its sections, symbols and .eh_frame; of a
				 * relocatable object, libdwfl's image with its
				 * sections laid out (sh_addr) as the DWARF is
				 * relocated (decompressed if the file is) */
	bool relocatable;	/* ET_REL: addresses only mean section + offset */
	/* A relocatable object as stored, where elf (libdwfl's image) has
	 * applied relocations: the file's own mapping, or a compressed
	 * file's (.ko.xz) bytes undone by us (unpack.c; before libdwfl, whose
	 * bzip2 reader loops on a cut file). NULL if neither. */
	Elf *stored;
	const char *dwarf_path;	/* the file the DWARF came from (== path if in the file) */
	Elf *dwarf_elf;		/* == elf when in the file */
	Dwarf *dw;
	Dwarf *alt;		/* dwz alternate file (dwarf_setalt), NULL if none
				 * or the one libdwfl found */
	const char *alt_path;	/* its file */
	const char *dwp_path;	/* split units read from this .dwp (dwp.c), or NULL */
	int src;		/* enum btfi_debuginfo_src */
	/* .debug_info's bytes in our own mapping of dwarf_path, when stored
	 * uncompressed there (else map is NULL): the scan drops pages of CUs
	 * it has walked. */
	void *map;
	size_t map_size;
	uint64_t info_off, info_size;
	void *priv;
};

/*
 * Open path and the DWARF that describes it. Logs "FILE: problem" once:
 * not an ELF, no DWARF anywhere (unless opts.optional), a debug file whose
 * build-id does not match, a compression libelf cannot undo.
 */
int btfi_debuginfo_open(const char *path, const struct btfi_debuginfo_opts *opts,
			struct btfi_debuginfo **out);
void btfi_debuginfo_close(struct btfi_debuginfo *di);

/* "in the file", "--debug-file", "build-id", ".gnu_debuglink", "debuginfod",
 * "module path" */
const char *btfi_debuginfo_src_str(int src);

/*
 * Only the detached debug file of path, if the file has no DWARF of its own
 * (for its symbol table): 0 and *debug_path (malloc'd, NULL if none).
 */
int btfi_debuginfo_find(const char *path, const struct btfi_debuginfo_opts *opts,
			char **debug_path);

/*
 * A debug file by build-id (raw bytes) alone, from $DEBUGINFOD_URLS through
 * libdebuginfod (the kernel's, whose running image is not a file): 0 and
 * *found (malloc'd: the file in libdebuginfod's cache, its build-id not
 * checked here), or -errno with the reason in why (-ENOENT: not set, or
 * no such file there).
 */
int btfi_debuginfod_fetch(const void *id, size_t nid, char **found, char *why, size_t len);

#endif
