/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BTFI_ELF_WRITE_H
#define BTFI_ELF_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include "btfinline.h"

/* ELF output (elf_write.c): copy `in` to `out` with section .BTF.inline
 * added or replaced; out == in: temp file + fsync + rename. */
int btfi_elf_write_section(const char *in, const char *out, const char *secname,
			   const void *data, size_t sz, const struct btfi_log *log);

/* One non-allocated section of a new ELF file. */
struct btfi_elf_sec {
	const char *name;
	const void *data;
	size_t size;
};

/*
 * A new ELF file at `out` (temp file + fsync + rename, mode 0644) holding
 * only `secs`, plus the code sections (SHF_EXECINSTR) of `like` as
 * header-only (SHT_NOBITS) copies: same names, addresses, sizes and flags,
 * so that a reader finds the addresses of the sections sites are in. Class, byte order
 * and machine are `like`'s. Nothing of `like` is written.
 */
int btfi_elf_write_new(const char *out, const char *like, const struct btfi_elf_sec *secs,
		       size_t nsecs, const struct btfi_log *log);

/* The same ELF written to fd as it is (a file only we can see: no temp
 * file); `like` open already, path only names fd in the error line. */
int btfi_elf_write_new_fd(int fd, Elf *like, const struct btfi_elf_sec *secs, size_t nsecs,
			  const char *path, const struct btfi_log *log);

#endif
