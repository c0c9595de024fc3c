/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A compressed file's bytes (gzip, bzip2, xz: what btfi_file_kind() calls
 * BTFI_FILE_PACKED, a kernel's .ko.gz/.ko.bz2/.ko.xz). libdwfl undoes these
 * for the DWARF, but its image is no longer the file as stored (it applies
 * a module's relocations: elf_rela.h); the scan reads the stored
 * relocations from this copy. Undone before libdwfl sees the file: a cut
 * .ko.bz2 makes elfutils 0.188's reader loop for ever, ours says so.
 */
#ifndef BTFI_UNPACK_H
#define BTFI_UNPACK_H

#include <stddef.h>

/* Not more than this many bytes out (a module is a few MB; 1 GiB is no
 * module): a bomb is refused, not followed. */
#define BTFI_UNPACK_MAX (1ull << 30)

/* The decompressed bytes of path in *out (malloc'ed, *size of them): 0,
 * -EINVAL if it is none of the three formats or corrupt, -EFBIG past
 * BTFI_UNPACK_MAX, -ENOMEM, -errno of reading it. Nothing is logged: the
 * caller has a fallback. */
int btfi_unpack_file(const char *path, void **out, size_t *size);

#endif
