// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `-p` (as bpftool's): re-indent the compact JSON a command printed, four
 * spaces per level, empty arrays and objects kept on one line. The input is
 * our own output, so this only tracks strings and nesting.
 */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include "json_pretty.h"

static void indent(FILE *out, int depth)
{
	fputc('\n', out);
	for (int i = 0; i < depth; i++)
		fputs("    ", out);
}

void json_pretty(FILE *out, const char *s, size_t n)
{
	bool in_str = false, esc = false;
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (in_str) {
			fputc(c, out);
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			continue;
		}
		switch (c) {
		case '"':
			in_str = true;
			fputc(c, out);
			break;
		case '{': case '[': {
			size_t j = i + 1;

			while (j < n && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t'))
				j++;
			if (j < n && s[j] == (c == '{' ? '}' : ']')) {
				fputc(c, out);
				fputc(s[j], out);
				i = j;
				break;
			}
			fputc(c, out);
			indent(out, ++depth);
			break;
		}
		case '}': case ']':
			indent(out, depth > 0 ? --depth : 0);
			fputc(c, out);
			break;
		case ',':
			fputc(c, out);
			indent(out, depth);
			break;
		case ':':
			fputs(": ", out);
			break;
		case ' ': case '\n': case '\t': case '\r':
			break;
		default:
			fputc(c, out);
		}
	}
	fputc('\n', out);
}

void json_capture_begin(struct json_capture *c)
{
	FILE *mem;

	*c = (struct json_capture){ .real = stdout };
	fflush(stdout);
	mem = open_memstream(&c->buf, &c->len);
	if (mem) {
		stdout = mem;
		c->on = true;
	}
}

void json_capture_end(struct json_capture *c)
{
	if (!c->on)
		return;
	fclose(stdout);
	stdout = c->real;
	json_pretty(stdout, c->buf, c->len);
	free(c->buf);
	c->on = false;
}
