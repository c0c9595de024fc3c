/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Structural checks of an ELF file before any section of it is read. */
#ifndef BTFI_ELF_CHECK_H
#define BTFI_ELF_CHECK_H
#include <stdint.h>
#include <libelf.h>
#include "btfinline.h"

/*
 * ELF kind, header, section header table and every section's bytes inside
 * a file of fsize bytes. libelf returns no section header past EOF and says
 * nothing, so a cut file would otherwise look like one lacking a section.
 * Logs "PATH: problem" once; 0 or -EINVAL.
 */
int btfi_elf_check(Elf *elf, const char *path, uint64_t fsize, const struct btfi_log *log);

/* The same on a file by name (encode's first step); also -errno of open. */
int btfi_elf_check_file(const char *path, const struct btfi_log *log);

#endif
