// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Typed formatting of captured argument bytes, driven by BTF. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "trace_fmt.h"

struct out {
	char *buf;
	size_t len, pos;
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

static void put_str(struct out *o, const char *s, size_t max, bool json)
{
	put(o, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			put(o, json ? "\\u%04x" : "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

void btfi_fmt_json_str(const char *s, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };

	buf[0] = 0;
	put_str(&o, s, (size_t)-1, true);
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

static void put_int(struct out *o, uint64_t v, uint32_t size, bool is_signed)
{
	if (is_signed)
		put(o, "%" PRId64, (int64_t)v);
	else
		put(o, "%" PRIu64, v);
	(void)size;
}

static void fmt(const struct btf *btf, uint32_t id, const uint8_t *raw, uint32_t off,
		uint32_t avail, const char *str, bool json, struct out *o, int depth)
{
	const struct btf_type *t = btf ? btf__type_by_id(btf, id) : NULL;

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || depth > 4) {
		put(o, json ? "null" : "?");
		return;
	}
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		uint64_t v = load(raw, off, t->size, enc & BTF_INT_SIGNED);

		if (enc & BTF_INT_BOOL)
			put(o, v ? "true" : "false");
		else if (t->size == 16)
			put(o, json ? "\"0x%016" PRIx64 "%016" PRIx64 "\"" : "0x%016" PRIx64 "%016" PRIx64,
			    load(raw, off + 8, 8, false), load(raw, off, 8, false));
		else
			put_int(o, v, t->size, enc & BTF_INT_SIGNED);
		return;
	}
	if (btf_is_ptr(t)) {
		uint64_t v = load(raw, off, 8, false);

		if (str) {
			put_str(o, str, 64, json);
			if (!json)
				put(o, "@0x%" PRIx64, v);
		} else {
			put(o, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v);
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
		if (name && *name)
			put(o, json ? "\"%s\"" : "%s", name);
		else
			put_int(o, v, t->size, sgn);
		return;
	}
	if (btf_is_float(t)) {
		uint64_t v = load(raw, off, t->size, false);

		if (t->size == 4) {
			float f;
			uint32_t u = v;

			memcpy(&f, &u, 4);
			put(o, "%g", f);
		} else if (t->size == 8) {
			double d;

			memcpy(&d, &v, 8);
			put(o, "%g", d);
		} else {
			put(o, json ? "null" : "?");
		}
		return;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		const struct btf_type *et = btf__type_by_id(btf, a->type);
		int64_t esz = btf__resolve_size(btf, a->type);
		uint32_t eid = a->type;

		while (et && (btf_is_mod(et) || btf_is_typedef(et))) {
			eid = et->type;
			et = btf__type_by_id(btf, eid);
		}
		if (et && btf_is_int(et) && et->size == 1) {	/* char array */
			if (str)
				put_str(o, str, a->nelems, json);
			else if (off < 16)
				put_str(o, (const char *)raw + off,
					a->nelems < 16 - off ? a->nelems : 16 - off, json);
			else
				put(o, json ? "null" : "?");
			return;
		}
		put(o, json ? "[" : "{");
		for (uint32_t i = 0; i < a->nelems; i++) {
			if (esz <= 0 || off + i * esz >= avail) {
				put(o, json ? "" : "...");
				break;
			}
			put(o, i ? ", " : "");
			fmt(btf, a->type, raw, off + i * esz, avail, NULL, json, o, depth + 1);
		}
		put(o, json ? "]" : "}");
		return;
	}
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		put(o, "{");
		for (int i = 0; i < btf_vlen(t); i++, m++) {
			uint32_t moff = off + btf_member_bit_offset(t, i) / 8;
			const char *mn = btf__name_by_offset(btf, m->name_off);

			if (moff >= avail) {
				if (!json)
					put(o, "%s...", i ? ", " : "");
				break;
			}
			put(o, json ? "%s\"%s\": " : "%s%s=", i ? ", " : "", mn ? mn : "");
			if (btf_member_bitfield_size(t, i))
				put(o, json ? "null" : "?");	/* bitfields: not decoded */
			else
				fmt(btf, m->type, raw, moff, avail, NULL, json, o, depth + 1);
		}
		put(o, "}");
		return;
	}
	put(o, json ? "null" : "?");
}

void btfi_fmt_value(const struct btf *btf, uint32_t type_id, const void *raw, uint32_t size,
		    bool is_signed, const char *str, bool json, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };

	buf[0] = 0;
	if (!type_id) {
		if (str)
			put_str(&o, str, 64, json);
		else
			put_int(&o, load(raw, 0, size ? size : 8, is_signed), size, is_signed);
		return;
	}
	fmt(btf, type_id, raw, 0, size < 16 ? size : 16, str, json, &o, 0);
}
