/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BTFI_JSON_PRETTY_H
#define BTFI_JSON_PRETTY_H
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
/* Print compact JSON s[0..n) indented (dump/stats -p). */
void json_pretty(FILE *out, const char *s, size_t n);

/* -p: stdout goes to memory from begin to end, which prints it indented
 * (without memory, stdout is left alone and the JSON stays compact). */
struct json_capture {
	FILE *real;
	char *buf;
	size_t len;
	bool on;
};
void json_capture_begin(struct json_capture *c);
void json_capture_end(struct json_capture *c);
#endif
