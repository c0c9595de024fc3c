/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `trace` output: typed values from BTF, text or JSON. */
#ifndef BTFI_TRACE_FMT_H
#define BTFI_TRACE_FMT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/* Append the value of type `type_id` held in `raw` (size bytes; raw holds
 * at most 16) to buf. str: NUL-terminated string read at the pointer, or
 * NULL. json: JSON value syntax. type_id 0: plain integer of `size`. */
void btfi_fmt_value(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
		    bool is_signed, const char *str, bool json, char *buf, size_t len);
/* JSON string literal of s. */
void btfi_fmt_json_str(const char *s, char *buf, size_t len);

#endif
