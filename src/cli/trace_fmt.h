/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `trace` output: typed values from BTF, text or JSON. */
#ifndef BTFI_TRACE_FMT_H
#define BTFI_TRACE_FMT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct json_writer;

/* Append the value of type `type_id` held in `raw` (size bytes; raw holds
 * at most 16) to buf as text. str: NUL-terminated string read at the
 * pointer, or NULL. type_id 0: plain integer of `size`. */
void btfi_fmt_value(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
		    bool is_signed, const char *str, char *buf, size_t len);
/* The same value as one JSON value through jw. */
void btfi_fmt_value_json(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
			 bool is_signed, const char *str, struct json_writer *jw);

#endif
