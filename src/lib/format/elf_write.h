/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BTFI_ELF_WRITE_H
#define BTFI_ELF_WRITE_H

#include <stddef.h>
#include "btfinline.h"

/* ELF output (elf_write.c): copy `in` to `out` with section .BTF.inline
 * added or replaced; out == in: temp file + fsync + rename. */
int btfi_elf_write_section(const char *in, const char *out, const char *secname,
			   const void *data, size_t sz, const struct btfi_log *log);

#endif
