/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal helpers of names.c (the public ones are in btfinline.h). */
#ifndef BTFI_NAMES_H
#define BTFI_NAMES_H

#include <stddef.h>

/* The condition code (0-15) btfi_cc_str() names s[0..n) ("ne" -> 5);
 * -EINVAL for anything else. */
int btfi_cc_parse(const char *s, size_t n);

#endif
