// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON writer for the CLI's output. -p indents as it writes (no second
 * pass over the compact text). Strings: valid UTF-8 passes through; a byte
 * that is not part of a valid sequence is written as \u00XX (its Latin-1
 * reading), so the output is valid JSON whatever names a file holds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "json_writer.h"

#define MAX_DEPTH 64	/* bits of nonempty */

void jw_init(struct json_writer *w, FILE *f, enum json_style style)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->style = style;
}

void jw_init_buf(struct json_writer *w, enum json_style style)
{
	jw_init(w, NULL, style);
}

void jw_reset(struct json_writer *w)
{
	w->len = 0;
	if (w->buf)
		w->buf[0] = 0;
	w->depth = 0;
	w->nonempty = 0;
	w->after_name = false;
	w->nomem = false;
}

void jw_free(struct json_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

static void put(struct json_writer *w, const char *s, size_t n)
{
	if (w->f) {
		fwrite(s, 1, n, w->f);
		return;
	}
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		char *b;

		while (cap < w->len + n + 1)
			cap *= 2;
		b = realloc(w->buf, cap);
		if (!b) {
			w->nomem = true;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

static void puts_(struct json_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

static void vputf(struct json_writer *w, const char *fmt, va_list ap)
{
	char tmp[128], *p = tmp;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(tmp, sizeof(tmp), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		p = malloc(n + 1);
		if (!p) {
			w->nomem = true;
			return;
		}
		vsnprintf(p, n + 1, fmt, ap);
	}
	put(w, p, n);
	if (p != tmp)
		free(p);
}

static void putf(struct json_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct json_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vputf(w, fmt, ap);
	va_end(ap);
}

static void newline_indent(struct json_writer *w, int depth)
{
	static const char spaces[] = "                                ";

	put(w, "\n", 1);
	for (int i = 0; i < depth; i++)
		put(w, spaces, 4);
}

static bool has_member(const struct json_writer *w, int depth)
{
	return depth < MAX_DEPTH && (w->nonempty >> depth & 1);
}

/* Before any value or name: the comma and line break its place needs. */
static void sep(struct json_writer *w)
{
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (!w->depth)
		return;
	if (has_member(w, w->depth))
		put(w, w->style == JSON_LINE ? ", " : ",", w->style == JSON_LINE ? 2 : 1);
	if (w->style == JSON_PRETTY)
		newline_indent(w, w->depth);
	if (w->depth < MAX_DEPTH)
		w->nonempty |= 1ull << w->depth;
}

static void start(struct json_writer *w, char c)
{
	sep(w);
	put(w, &c, 1);
	w->depth++;
	if (w->depth < MAX_DEPTH)
		w->nonempty &= ~(1ull << w->depth);
}

static void end(struct json_writer *w, char c)
{
	if (!w->depth)
		return;
	if (w->style == JSON_PRETTY && has_member(w, w->depth))
		newline_indent(w, w->depth - 1);
	w->depth--;
	put(w, &c, 1);
	if (!w->depth)
		put(w, "\n", 1);
}

void jw_start_object(struct json_writer *w) { start(w, '{'); }
void jw_end_object(struct json_writer *w) { end(w, '}'); }
void jw_start_array(struct json_writer *w) { start(w, '['); }
void jw_end_array(struct json_writer *w) { end(w, ']'); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if there
 * is none: no overlong forms, surrogates or code points past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_escaped(struct json_writer *w, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;	/* s[run..i): bytes that go out as they are */

	put(w, "\"", 1);
	while (i < max && s[i]) {
		unsigned char c = s[i];
		const char *esc = NULL;
		char u[8];
		size_t ulen;

		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (c >= 0x20 && c < 0x7f) {
				i++;
				continue;
			}
			/* a NUL fails the continuation test: no read past it */
			ulen = c > 0x7f ? utf8_len(s + i, max - i) : 0;
			if (ulen) {
				i += ulen;
				continue;
			}
			snprintf(u, sizeof(u), "\\u%04x", c);
			esc = u;
		}
		put(w, str + run, i - run);
		puts_(w, esc);
		run = ++i;
	}
	put(w, str + run, i - run);
	put(w, "\"", 1);
}

void jw_name(struct json_writer *w, const char *name)
{
	sep(w);
	put_escaped(w, name ? name : "", (size_t)-1);
	put(w, w->style == JSON_COMPACT ? ":" : ": ", w->style == JSON_COMPACT ? 1 : 2);
	w->after_name = true;
}

void jw_string_n(struct json_writer *w, const char *s, size_t max)
{
	sep(w);
	put_escaped(w, s ? s : "", max);
}

void jw_string(struct json_writer *w, const char *s)
{
	jw_string_n(w, s, (size_t)-1);
}

void jw_stringf(struct json_writer *w, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	jw_string(w, tmp);
}

void jw_uint(struct json_writer *w, uint64_t v)
{
	sep(w);
	putf(w, "%" PRIu64, v);
}

void jw_int(struct json_writer *w, int64_t v)
{
	sep(w);
	putf(w, "%" PRId64, v);
}

void jw_float(struct json_writer *w, const char *fmt, double v)
{
	sep(w);
	if (isfinite(v))
		putf(w, fmt, v);
	else
		puts_(w, "null");
}

void jw_bool(struct json_writer *w, bool v)
{
	sep(w);
	puts_(w, v ? "true" : "false");
}

void jw_null(struct json_writer *w)
{
	sep(w);
	puts_(w, "null");
}

void jw_string_field(struct json_writer *w, const char *name, const char *s)
{
	jw_name(w, name);
	jw_string(w, s);
}

void jw_uint_field(struct json_writer *w, const char *name, uint64_t v)
{
	jw_name(w, name);
	jw_uint(w, v);
}

void jw_float_field(struct json_writer *w, const char *name, const char *fmt, double v)
{
	jw_name(w, name);
	jw_float(w, fmt, v);
}
