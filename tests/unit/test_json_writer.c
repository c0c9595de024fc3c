// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The CLI's JSON writer (src/cli/json_writer.c, compiled in): the three
 * styles byte for byte, and string escaping (valid UTF-8 passes, other
 * bytes become \u00XX, control characters escaped). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../../src/cli/json_writer.c"
#include "check.h"

static void expect(const char *what, struct json_writer *w, const char *want)
{
	CHECK(!w->nomem && w->buf && !strcmp(w->buf, want), "%s:\n  got  '%s'\n  want '%s'", what,
	      w->buf ? w->buf : "(null)", want);
	jw_reset(w);
}

/* {"a":1,"b":[],"c":{"d":[-2,true,null]},"e":{},"f":0.50,"g":null} */
static void doc(struct json_writer *w)
{
	jw_start_object(w);
	jw_uint_field(w, "a", 1);
	jw_name(w, "b");
	jw_start_array(w);
	jw_end_array(w);
	jw_name(w, "c");
	jw_start_object(w);
	jw_name(w, "d");
	jw_start_array(w);
	jw_int(w, -2);
	jw_bool(w, true);
	jw_null(w);
	jw_end_array(w);
	jw_end_object(w);
	jw_name(w, "e");
	jw_start_object(w);
	jw_end_object(w);
	jw_float_field(w, "f", "%.2f", 0.5);
	jw_float_field(w, "g", "%g", NAN);
	jw_end_object(w);
}

static void str(struct json_writer *w, const char *what, const char *s, size_t max, const char *want)
{
	jw_string_n(w, s, max);
	expect(what, w, want);
}

int main(void)
{
	struct json_writer w;

	jw_init_buf(&w, JSON_COMPACT);
	doc(&w);
	expect("compact", &w, "{\"a\":1,\"b\":[],\"c\":{\"d\":[-2,true,null]},\"e\":{},\"f\":0.50,\"g\":null}\n");

	w.style = JSON_PRETTY;
	doc(&w);
	expect("pretty", &w,
	       "{\n"
	       "    \"a\": 1,\n"
	       "    \"b\": [],\n"
	       "    \"c\": {\n"
	       "        \"d\": [\n"
	       "            -2,\n"
	       "            true,\n"
	       "            null\n"
	       "        ]\n"
	       "    },\n"
	       "    \"e\": {},\n"
	       "    \"f\": 0.50,\n"
	       "    \"g\": null\n"
	       "}\n");

	w.style = JSON_LINE;
	doc(&w);
	expect("line", &w, "{\"a\": 1, \"b\": [], \"c\": {\"d\": [-2, true, null]}, \"e\": {}, \"f\": 0.50, \"g\": null}\n");
	/* JSON lines: one value after another, each on its line */
	jw_start_array(&w);
	jw_end_array(&w);
	jw_start_object(&w);
	jw_uint_field(&w, "n", 18446744073709551615ull);
	jw_end_object(&w);
	expect("two lines", &w, "[]\n{\"n\": 18446744073709551615}\n");

	w.style = JSON_COMPACT;
	str(&w, "plain", "main+0x1a", -1, "\"main+0x1a\"");
	str(&w, "quote, backslash", "a\"b\\c", -1, "\"a\\\"b\\\\c\"");
	str(&w, "short escapes", "\b\f\n\r\t", -1, "\"\\b\\f\\n\\r\\t\"");
	str(&w, "other controls, DEL", "\x01\x1f\x7f", -1, "\"\\u0001\\u001f\\u007f\"");
	str(&w, "UTF-8 passes", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", -1,
	    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	str(&w, "lone bytes", "\xff\x80z", -1, "\"\\u00ff\\u0080z\"");
	str(&w, "overlong", "\xc0\xaf", -1, "\"\\u00c0\\u00af\"");
	str(&w, "surrogate", "\xed\xa0\x80", -1, "\"\\u00ed\\u00a0\\u0080\"");
	str(&w, "past U+10FFFF", "\xf4\x90\x80\x80", -1, "\"\\u00f4\\u0090\\u0080\\u0080\"");
	str(&w, "sequence cut by NUL", "\xe2\x82", -1, "\"\\u00e2\\u0082\"");
	str(&w, "sequence cut by max", "\xc3\xa9x", 1, "\"\\u00c3\"");
	str(&w, "max", "abcdef", 3, "\"abc\"");
	jw_start_object(&w);
	jw_string_field(&w, "k\"\n", "v");
	jw_end_object(&w);
	expect("escaped name", &w, "{\"k\\\"\\n\":\"v\"}\n");
	jw_stringf(&w, "0x%x", 255);
	expect("stringf", &w, "\"0xff\"");

	/* to a FILE: the same bytes */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct json_writer fw;

		jw_init(&fw, f, JSON_PRETTY);
		doc(&fw);
		fclose(f);
		w.style = JSON_PRETTY;
		doc(&w);
		CHECK(buf && !strcmp(buf, w.buf), "file sink differs from buffer sink");
		free(buf);
		jw_reset(&w);
	}
	jw_free(&w);
	return check_done();
}
