// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * When libdw cannot decode a location, find out why from the raw bytes: an
 * opcode no DWARF version or GNU extension defines is corrupt input (an
 * error for the whole file), while a defined op libdw 0.188 does not handle
 * (GCC's DW_OP_GNU_uninit) only makes that parameter unsupported.
 */
#include <dwarf.h>
#include <gelf.h>
#include "dwarf/scan_priv.h"
#include "dwarf/dwexpr.h"

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static void skip(struct cur *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n)
		c->bad = true;
	else
		c->p += n;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		if (c->bad || c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

static uint64_t fixed(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n && i < 8; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* First undefined opcode in one expression; 0 if none, -1 if malformed. */
static int expr_bad_op(const uint8_t *p, size_t len, unsigned addrsz, unsigned offsz)
{
	struct cur c = { p, p + len, false };

	while (!c.bad && c.p < c.end) {
		unsigned op = *c.p++;

		if (!btfi_dwexpr_known_op(op))
			return op;
		switch (op) {
		case DW_OP_addr: skip(&c, addrsz); break;
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_pick:
		case DW_OP_deref_size: case DW_OP_xderef_size:
			skip(&c, 1); break;
		case DW_OP_const2u: case DW_OP_const2s: case DW_OP_bra: case DW_OP_skip:
		case DW_OP_call2:
			skip(&c, 2); break;
		case DW_OP_const4u: case DW_OP_const4s: case DW_OP_call4:
		case DW_OP_GNU_parameter_ref:
			skip(&c, 4); break;
		case DW_OP_const8u: case DW_OP_const8s: skip(&c, 8); break;
		case DW_OP_call_ref: case DW_OP_GNU_variable_value: skip(&c, offsz); break;
		case DW_OP_constu: case DW_OP_consts: case DW_OP_plus_uconst: case DW_OP_regx:
		case DW_OP_fbreg: case DW_OP_piece: case DW_OP_addrx: case DW_OP_constx:
		case DW_OP_convert: case DW_OP_reinterpret: case DW_OP_GNU_convert:
		case DW_OP_GNU_reinterpret: case DW_OP_GNU_addr_index: case DW_OP_GNU_const_index:
			uleb(&c); break;
		case DW_OP_bregx: case DW_OP_bit_piece: case DW_OP_regval_type:
		case DW_OP_GNU_regval_type:
			uleb(&c); uleb(&c); break;
		case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value:
			skip(&c, uleb(&c)); break;
		case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
			skip(&c, offsz); uleb(&c); break;
		case DW_OP_const_type: case DW_OP_GNU_const_type:
			uleb(&c); skip(&c, fixed(&c, 1)); break;
		case DW_OP_deref_type: case DW_OP_xderef_type: case DW_OP_GNU_deref_type:
			skip(&c, 1); uleb(&c); break;
		case DW_OP_GNU_encoded_addr:
			return -1;	/* operand size depends on the encoding */
		default:
			if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
				uleb(&c);	/* sleb: same length rules */
			break;
		}
	}
	return c.bad ? -1 : 0;
}

/* Walk every expression of a location list (DWARF 5 loclists or DWARF 4
 * .debug_loc) at `off`; first undefined opcode, 0 if none, -1 if malformed. */
static int list_bad_op(const Elf_Data *sec, uint64_t off, int version, unsigned addrsz,
		       unsigned offsz)
{
	struct cur c;
	int r;

	if (!sec || !sec->d_buf || off >= sec->d_size)
		return -1;
	c.p = (const uint8_t *)sec->d_buf + off;
	c.end = (const uint8_t *)sec->d_buf + sec->d_size;
	c.bad = false;
	for (int n = 0; n < 100000 && !c.bad; n++) {
		uint64_t len;

		if (version >= 5) {
			switch (fixed(&c, 1)) {
			case DW_LLE_end_of_list: return 0;
			case DW_LLE_base_addressx: uleb(&c); continue;
			case DW_LLE_startx_endx: case DW_LLE_startx_length: case DW_LLE_offset_pair:
				uleb(&c); uleb(&c); break;
			case DW_LLE_default_location: break;
			case DW_LLE_base_address: skip(&c, addrsz); continue;
			case DW_LLE_start_end: skip(&c, 2 * addrsz); break;
			case DW_LLE_start_length: skip(&c, addrsz); uleb(&c); break;
			default: return -1;
			}
			len = uleb(&c);
		} else {
			uint64_t b = fixed(&c, addrsz), e = fixed(&c, addrsz);

			if (!b && !e)
				return 0;
			if (b == (addrsz == 8 ? ~0ULL : 0xffffffffULL))
				continue;	/* base address selection */
			len = fixed(&c, 2);
		}
		if (c.bad || (uint64_t)(c.end - c.p) < len)
			return -1;
		r = expr_bad_op(c.p, len, addrsz, offsz);
		if (r)
			return r;
		c.p += len;
	}
	return -1;
}

int scan_raw_bad_op(struct scan_priv *p, Dwarf_Attribute *loc)
{
	Dwarf_Block blk;
	Dwarf_Word off;

	switch (dwarf_whatform(loc)) {
	case DW_FORM_exprloc:
	case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
		if (dwarf_formblock(loc, &blk))
			return -1;
		return expr_bad_op(blk.data, blk.length, p->addr_size, p->offset_size);
	case DW_FORM_sec_offset:
	case DW_FORM_data4: case DW_FORM_data8:
		if (dwarf_formudata(loc, &off))
			return -1;
		return list_bad_op(p->cu_version >= 5 ? p->loclists : p->loc, off,
				   p->cu_version, p->addr_size, p->offset_size);
	default:	/* loclistx: would need the offsets table; not produced here */
		return -1;
	}
}
