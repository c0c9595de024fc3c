// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * File names of a CU's line table, from its header only. libdw's
 * dwarf_getsrcfiles decodes the whole line program, which on a kernel
 * costs about a second and 200 MB; a call_file only needs the names.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include "dwarf/scan_priv.h"

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_n(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n && i < 8; i++)	/* little endian; skip the rest */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static const char *rd_cstr(struct rd *r)
{
	const uint8_t *s = r->p;

	if (r->bad)
		return NULL;
	while (r->p < r->end && *r->p)
		r->p++;
	if (r->p >= r->end) {
		r->bad = true;
		return NULL;
	}
	r->p++;
	return (const char *)s;
}

static const char *sec_str(const Elf_Data *d, uint64_t off)
{
	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	/* Must be NUL-terminated inside the section. */
	if (!memchr((const char *)d->d_buf + off, 0, d->d_size - off))
		return NULL;
	return (const char *)d->d_buf + off;
}

/* Read one attribute value of the given form; strings into *str. */
static void rd_form(struct rd *r, struct scan_priv *p, unsigned form, unsigned offsz,
		    const char **str)
{
	uint64_t n;

	*str = NULL;
	switch (form) {
	case DW_FORM_string:
		*str = rd_cstr(r);
		break;
	case DW_FORM_line_strp:
		*str = sec_str(p->line_str, rd_n(r, offsz));
		break;
	case DW_FORM_strp:
		*str = sec_str(p->str, rd_n(r, offsz));
		break;
	case DW_FORM_udata:
	case DW_FORM_sdata:
		rd_uleb(r);
		break;
	case DW_FORM_data1: case DW_FORM_strx1:
		rd_n(r, 1);
		break;
	case DW_FORM_data2: case DW_FORM_strx2:
		rd_n(r, 2);
		break;
	case DW_FORM_strx3:
		rd_n(r, 3);
		break;
	case DW_FORM_data4: case DW_FORM_strx4:
		rd_n(r, 4);
		break;
	case DW_FORM_data8:
		rd_n(r, 8);
		break;
	case DW_FORM_data16:
		rd_n(r, 16);
		break;
	case DW_FORM_strx:
		rd_uleb(r);
		break;
	case DW_FORM_block:
		n = rd_uleb(r);
		if ((uint64_t)(r->end - r->p) < n)
			r->bad = true;
		else
			r->p += n;
		break;
	default:	/* a form we cannot size: stop */
		r->bad = true;
	}
}

static int push_name(struct scan_priv *p, const char *name)
{
	if (p->nfnames == p->fnames_cap) {
		uint32_t cap = p->fnames_cap ? p->fnames_cap * 2 : 64;
		const char **n = realloc(p->fnames, cap * sizeof(*n));

		if (!n)
			return -1;
		p->fnames = n;
		p->fnames_cap = cap;
	}
	p->fnames[p->nfnames++] = name;
	return 0;
}

/* Fill p->fnames for the line table at `off`; index as DW_AT_call_file. */
void scan_read_file_names(struct scan_priv *p, uint64_t off)
{
	struct rd r;
	uint64_t len, cnt, i;
	unsigned offsz = 4, version, opbase, nfmt, j;
	unsigned fmt[2 * 16];

	p->nfnames = 0;
	if (!p->line || !p->line->d_buf || off >= p->line->d_size)
		return;
	r.p = (const uint8_t *)p->line->d_buf + off;
	r.end = (const uint8_t *)p->line->d_buf + p->line->d_size;
	r.bad = false;
	len = rd_n(&r, 4);
	if (len == 0xffffffff) {
		len = rd_n(&r, 8);
		offsz = 8;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return;
	r.end = r.p + len;
	version = rd_n(&r, 2);
	if (version < 2 || version > 5)
		return;
	if (version >= 5)
		rd_n(&r, 2);		/* address_size, seg_sel_size */
	rd_n(&r, offsz);		/* header_length */
	rd_n(&r, version >= 4 ? 5 : 4);	/* min_inst [max_ops] is_stmt base range */
	opbase = rd_n(&r, 1);
	if (opbase)
		rd_n(&r, opbase - 1);
	if (r.bad)
		return;

	if (version < 5) {
		/* DWARF 2-4: file 0 is unused, names start at 1. */
		if (push_name(p, NULL))
			return;
		while (!r.bad && r.p < r.end && *r.p)
			rd_cstr(&r);		/* include_directories */
		rd_n(&r, 1);
		while (!r.bad && r.p < r.end && *r.p) {
			const char *name = rd_cstr(&r);

			rd_uleb(&r);
			rd_uleb(&r);
			rd_uleb(&r);
			if (r.bad || push_name(p, name))
				return;
		}
		return;
	}
	/* DWARF 5: directories, then files, each with an entry format. */
	for (int pass = 0; pass < 2; pass++) {
		nfmt = rd_n(&r, 1);
		if (nfmt > 16)
			return;
		for (j = 0; j < nfmt; j++) {
			fmt[2 * j] = rd_uleb(&r);
			fmt[2 * j + 1] = rd_uleb(&r);
		}
		cnt = rd_uleb(&r);
		for (i = 0; i < cnt && !r.bad; i++) {
			const char *path = NULL, *s;

			for (j = 0; j < nfmt; j++) {
				rd_form(&r, p, fmt[2 * j + 1], offsz, &s);
				if (fmt[2 * j] == DW_LNCT_path)
					path = s;
			}
			if (pass == 1 && (r.bad || push_name(p, path)))
				return;
		}
	}
}
