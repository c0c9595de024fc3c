// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Typed formatting of captured argument bytes, driven by BTF. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "attach/attach.h"
#include "json_writer.h"
#include "trace_fmt.h"

/* Text into buf, or JSON through jw. */
struct out {
	char *buf;
	size_t len, pos;
	struct json_writer *jw;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->pos >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n < o->len - o->pos ? (size_t)n : o->len - o->pos - 1;
}

/* Text: C-like escapes, bytes outside ASCII as \xNN. */
static void put_str(struct out *o, const char *s, size_t max)
{
	if (o->jw) {
		jw_string_n(o->jw, s, max);
		return;
	}
	put(o, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

/* No value: ? in text, null in JSON. */
static void put_none(struct out *o)
{
	if (o->jw)
		jw_null(o->jw);
	else
		put(o, "?");
}

static uint64_t load(const uint8_t *raw, uint32_t off, uint32_t size, bool is_signed)
{
	uint64_t v = 0;

	if (off >= 16)
		return 0;
	if (size > 8)
		size = 8;
	if (off + size > 16)
		size = 16 - off;
	memcpy(&v, raw + off, size);	/* little endian */
	if (size && size < 8) {
		unsigned sh = 64 - size * 8;

		v = is_signed ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
	}
	return v;
}

static void put_int(struct out *o, uint64_t v, bool is_signed)
{
	if (o->jw && is_signed)
		jw_int(o->jw, (int64_t)v);
	else if (o->jw)
		jw_uint(o->jw, v);
	else if (is_signed)
		put(o, "%" PRId64, (int64_t)v);
	else
		put(o, "%" PRIu64, v);
}

static void fmt(const struct btf *btf, uint32_t id, const uint8_t *raw, uint32_t off,
		uint32_t avail, const char *str, struct out *o, int depth)
{
	const struct btf_type *t = btf ? btfi_skip_mods(btf, &id) : NULL;
	struct json_writer *jw = o->jw;

	if (!t || depth > 4) {
		put_none(o);
		return;
	}
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		uint64_t v = load(raw, off, t->size, enc & BTF_INT_SIGNED);

		if ((enc & BTF_INT_BOOL) && jw)
			jw_bool(jw, v);
		else if (enc & BTF_INT_BOOL)
			put(o, v ? "true" : "false");
		else if (t->size == 16 && jw)
			jw_stringf(jw, "0x%016" PRIx64 "%016" PRIx64, load(raw, off + 8, 8, false),
				   load(raw, off, 8, false));
		else if (t->size == 16)
			put(o, "0x%016" PRIx64 "%016" PRIx64, load(raw, off + 8, 8, false),
			    load(raw, off, 8, false));
		else
			put_int(o, v, enc & BTF_INT_SIGNED);
		return;
	}
	if (btf_is_ptr(t)) {
		uint64_t v = load(raw, off, 8, false);

		if (str) {
			put_str(o, str, 64);
			if (!jw)
				put(o, "@0x%" PRIx64, v);
		} else if (jw) {
			jw_stringf(jw, "0x%" PRIx64, v);
		} else {
			put(o, "0x%" PRIx64, v);
		}
		return;
	}
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		bool sgn = btf_kflag(t);
		uint64_t v = load(raw, off, t->size, sgn);
		const char *name = NULL;

		for (int i = 0; i < btf_vlen(t) && !name; i++) {
			uint64_t ev = btf_is_enum(t) ? (sgn ? (uint64_t)(int64_t)btf_enum(t)[i].val :
						     (uint64_t)(uint32_t)btf_enum(t)[i].val) :
				       btf_enum64_value(btf_enum64(t) + i);

			if (ev == v)
				name = btf__name_by_offset(btf, btf_is_enum(t) ? btf_enum(t)[i].name_off :
								btf_enum64(t)[i].name_off);
		}
		if (name && *name && jw)
			jw_string(jw, name);
		else if (name && *name)
			put(o, "%s", name);
		else
			put_int(o, v, sgn);
		return;
	}
	if (btf_is_float(t)) {
		uint64_t v = load(raw, off, t->size, false);
		double d;

		if (t->size == 4) {
			float f;
			uint32_t u = v;

			memcpy(&f, &u, 4);
			d = f;
		} else if (t->size == 8) {
			memcpy(&d, &v, 8);
		} else {
			put_none(o);
			return;
		}
		if (jw)
			jw_float(jw, "%g", d);	/* NaN, inf: null */
		else
			put(o, "%g", d);
		return;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		int64_t esz = btf__resolve_size(btf, a->type);
		uint32_t eid = a->type;
		const struct btf_type *et = btfi_skip_mods(btf, &eid);

		if (et && btf_is_int(et) && et->size == 1) {	/* char array */
			if (str)
				put_str(o, str, a->nelems);
			else if (off < 16)
				put_str(o, (const char *)raw + off, a->nelems < 16 - off ? a->nelems : 16 - off);
			else
				put_none(o);
			return;
		}
		if (jw)
			jw_start_array(jw);
		else
			put(o, "{");
		for (uint32_t i = 0; i < a->nelems; i++) {
			if (esz <= 0 || off + i * esz >= avail) {
				if (!jw)
					put(o, "...");
				break;
			}
			if (!jw)
				put(o, i ? ", " : "");
			fmt(btf, a->type, raw, off + i * esz, avail, NULL, o, depth + 1);
		}
		if (jw)
			jw_end_array(jw);
		else
			put(o, "}");
		return;
	}
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		if (jw)
			jw_start_object(jw);
		else
			put(o, "{");
		for (int i = 0; i < btf_vlen(t); i++, m++) {
			uint32_t moff = off + btf_member_bit_offset(t, i) / 8;
			const char *mn = btf__name_by_offset(btf, m->name_off);

			if (moff >= avail) {
				if (!jw)
					put(o, "%s...", i ? ", " : "");
				break;
			}
			if (jw)
				jw_name(jw, mn ? mn : "");
			else
				put(o, "%s%s=", i ? ", " : "", mn ? mn : "");
			if (btf_member_bitfield_size(t, i))
				put_none(o);	/* bitfields: not decoded */
			else
				fmt(btf, m->type, raw, moff, avail, NULL, o, depth + 1);
		}
		if (jw)
			jw_end_object(jw);
		else
			put(o, "}");
		return;
	}
	put_none(o);
}

static void fmt_value(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
		      bool is_signed, const char *str, struct out *o)
{
	if (!type_id) {
		if (str)
			put_str(o, str, 64);
		else
			put_int(o, load(raw, 0, size ? size : 8, is_signed), is_signed);
		return;
	}
	fmt(btf, type_id, raw, 0, size < 16 ? size : 16, str, o, 0);
}

void btfi_fmt_value(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
		    bool is_signed, const char *str, char *buf, size_t len)
{
	struct out o = { buf, len, 0, NULL };

	buf[0] = 0;
	fmt_value(btf, type_id, raw, size, is_signed, str, &o);
}

void btfi_fmt_value_json(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
			 bool is_signed, const char *str, struct json_writer *jw)
{
	struct out o = { .jw = jw };

	fmt_value(btf, type_id, raw, size, is_signed, str, &o);
}
