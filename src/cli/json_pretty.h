/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BTFI_JSON_PRETTY_H
#define BTFI_JSON_PRETTY_H
#include <stddef.h>
#include <stdio.h>
/* Print compact JSON s[0..n) indented (dump/stats -p). */
void json_pretty(FILE *out, const char *s, size_t n);
#endif
