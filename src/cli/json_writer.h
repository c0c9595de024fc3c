/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON output of dump, stats and trace (in the spirit of bpftool's
 * json_writer): values are written as they come, commas and indentation
 * follow from the nesting, strings are escaped in one place.
 */
#ifndef BTFI_JSON_WRITER_H
#define BTFI_JSON_WRITER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum json_style {
	JSON_COMPACT,	/* -j: {"a":1,"b":[2,3]} */
	JSON_PRETTY,	/* -p: four spaces per level, empty containers as {} and [] */
	JSON_LINE,	/* trace -j: one line, {"a": 1, "b": [2, 3]} */
};

struct json_writer {
	FILE *f;		/* sink; NULL: the buffer below */
	char *buf;		/* NUL-terminated, grows as needed */
	size_t len, cap;
	enum json_style style;
	int depth;
	uint64_t nonempty;	/* bit d: the container at depth d has a member */
	bool after_name;	/* the next value completes "name": */
	bool nomem;		/* the buffer could not grow: output truncated */
};

void jw_init(struct json_writer *w, FILE *f, enum json_style style);
/* Into w->buf instead of a file (jw_reset() empties it for reuse). */
void jw_init_buf(struct json_writer *w, enum json_style style);
void jw_reset(struct json_writer *w);
void jw_free(struct json_writer *w);

/* Closing the outermost container ends the line ("\n"). */
void jw_start_object(struct json_writer *w);
void jw_end_object(struct json_writer *w);
void jw_start_array(struct json_writer *w);
void jw_end_array(struct json_writer *w);
/* Member name in an object; the next call writes its value. */
void jw_name(struct json_writer *w, const char *name);

void jw_string(struct json_writer *w, const char *s);
/* At most max bytes of s (stops at a NUL). */
void jw_string_n(struct json_writer *w, const char *s, size_t max);
void jw_uint(struct json_writer *w, uint64_t v);
void jw_int(struct json_writer *w, int64_t v);
/* fmt: one double conversion ("%.3f"); NaN and infinities are null. */
void jw_float(struct json_writer *w, const char *fmt, double v);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);
/* A string value built with printf (escaped like jw_string). */
void jw_stringf(struct json_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* name + value in one call */
void jw_string_field(struct json_writer *w, const char *name, const char *s);
void jw_uint_field(struct json_writer *w, const char *name, uint64_t v);
void jw_float_field(struct json_writer *w, const char *name, const char *fmt, double v);

#endif
