// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF location expression -> LOC_PARAM form. Only the fixed shapes the
 * format can carry are accepted; everything else is "unavailable" with a
 * reason. Value and memory are kept apart: `bregN off; stack_value` is the
 * value reg+off, a lone `bregN off` is the memory at reg+off.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <dwarf.h>
#include "dwarf/dwexpr.h"
#include "log.h"

/* Registers a probe can read from pt_regs (x86-64 DWARF 0..16: rax..rip).
 * Vector registers are not in pt_regs, so they cannot be recovered. */
#define MAX_GP_REG 16

bool btfi_dwexpr_known_op(unsigned atom)
{
	if (atom == DW_OP_addr || atom == DW_OP_deref)
		return true;
	if (atom >= DW_OP_const1u && atom <= DW_OP_reinterpret)
		return true;
	switch (atom) {
	case DW_OP_GNU_push_tls_address:
	case DW_OP_GNU_uninit:
	case DW_OP_GNU_encoded_addr:
	case DW_OP_GNU_implicit_pointer:
	case DW_OP_GNU_entry_value:
	case DW_OP_GNU_const_type:
	case DW_OP_GNU_regval_type:
	case DW_OP_GNU_deref_type:
	case DW_OP_GNU_convert:
	case DW_OP_GNU_reinterpret:
	case DW_OP_GNU_parameter_ref:
	case DW_OP_GNU_addr_index:
	case DW_OP_GNU_const_index:
	case DW_OP_GNU_variable_value:
		return true;
	}
	return false;
}

static void set_none(struct btfi_loc *out, enum btfi_reason r)
{
	out->kind = BTFI_LOC_NONE;
	out->reason = r;
}

static bool is_reg_op(const Dwarf_Op *op, uint32_t *reg)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		return true;
	}
	if (op->atom == DW_OP_regx) {
		*reg = op->number;
		return true;
	}
	return false;
}

/* DW_OP_bregN/bregx/fbreg: base register (FBREG for fbreg) and offset. */
static bool is_base_op(const Dwarf_Op *op, uint32_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	if (op->atom == DW_OP_fbreg) {
		*reg = BTFI_REG_FBREG;
		*off = (int64_t)op->number;
		return true;
	}
	return false;
}

/* Literal pushes: lit0..31, const1u..8s, constu, consts. */
static bool is_const_op(const Dwarf_Op *op, uint64_t *val)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*val = op->atom - DW_OP_lit0;
		return true;
	}
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_const8u: case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		/* libdw stores signed operands sign-extended in `number`. */
		*val = op->number;
		return true;
	}
	return false;
}

static bool reg_ok(uint32_t reg)
{
	return reg <= MAX_GP_REG || reg == BTFI_REG_FBREG;
}

/* Bytes kept by an AND mask of the low 1, 2 or 4 bytes; 0 for others. */
static uint32_t mask_bytes(uint64_t m)
{
	return m == 0xff ? 1 : m == 0xffff ? 2 : m == 0xffffffff ? 4 : 0;
}

/*
 * DW_OP_convert T (DWARF 5; clang's narrowing): truncating to a type no
 * wider than the value keeps its low T.size bytes as T's signedness;
 * widening keeps the value. False if the type is unknown or not 1/2/4/8
 * bytes.
 */
static bool convert_to(const Dwarf_Op *op, const struct btfi_dwexpr_in *in,
		       uint32_t *size, bool *is_signed)
{
	for (size_t k = 0; k < in->nconv; k++) {
		const struct btfi_dwexpr_conv *c = &in->conv[k];
		uint32_t ts = c->size ? c->size : 8;

		if (c->op_offset != op->offset)
			continue;
		if (ts != 1 && ts != 2 && ts != 4 && ts != 8)
			return false;
		if (ts <= *size) {
			*size = ts;
			*is_signed = c->size ? c->is_signed : *is_signed;
		}
		return true;
	}
	return false;
}

/*
 * The rest of `base(reg, off) ...; stack_value` when it only loads and
 * narrows: GCC's and clang's idioms for a value converted from a narrower
 * type.
 *   [deref | deref_size N]                  value at reg+off (N bytes)
 *   const M; and                            zero-extend the low 1/2/4 bytes
 *   const S; shl; const S; shra|shr         sign/zero-extend the low 64-S bits
 *   convert T [; convert T2]                clang: to T's size and sign
 * The format carries them as a narrower read: REG, REG|OFFSET (the sum
 * reg+off, e.g. `(s32)(rbx + 1)`) or memory of `size` bytes, extended per
 * SIGNED: the low `size` bytes of the 64-bit value, exactly what the
 * idiom computes.
 */
static void narrowed(const Dwarf_Op *ops, size_t n, uint32_t reg, int64_t off,
		     const struct btfi_dwexpr_in *in, struct btfi_loc *out)
{
	/* the value so far: the low vsize bytes, extended per vsigned */
	uint32_t size = in->size && in->size < 8 ? in->size : 8, vsize = 8, nb;
	bool mem = false, vsigned = false, narrow = false;
	uint64_t m, s2;
	size_t i = 0;

	if (ops[i].atom == DW_OP_deref || ops[i].atom == DW_OP_deref_size) {
		uint32_t ds = ops[i].atom == DW_OP_deref ? 8 : (uint32_t)ops[i].number;

		if (ds == 0 || ds > 8)
			return set_none(out, BTFI_R_UNSUPPORTED);
		vsize = ds;	/* deref_size zero-extends */
		mem = true;
		i++;
	}
	if (i + 2 < n && is_const_op(&ops[i], &m) && ops[i + 1].atom == DW_OP_and &&
	    (nb = mask_bytes(m))) {
		if (nb < vsize) {
			vsize = nb;
			vsigned = false;
		}
		narrow = true;
		i += 2;
	} else if (!mem && i + 4 < n && is_const_op(&ops[i], &m) && ops[i + 1].atom == DW_OP_shl &&
		   is_const_op(&ops[i + 2], &s2) && s2 == m &&
		   (ops[i + 3].atom == DW_OP_shra || ops[i + 3].atom == DW_OP_shr) &&
		   (m == 32 || m == 48 || m == 56)) {
		nb = (64 - m) / 8;
		if (nb < vsize) {
			vsize = nb;
			vsigned = ops[i + 3].atom == DW_OP_shra;
		}
		narrow = true;
		i += 4;
	}
	for (; i + 1 < n && (ops[i].atom == DW_OP_convert || ops[i].atom == DW_OP_GNU_convert); i++) {
		/* clang 14 writes a spilled u8 at rsp+31 as `breg7 31; convert;
		 * convert; stack_value`: literally the low byte of the address,
		 * not what it meant; at the slot rsp+0 `fbreg 0` (SQLite's
		 * sqlite3BeginWriteOperation, the truth harness). Only a
		 * register's own value is taken, never the stack's address
		 * (x86-64 DWARF register 7: rsp). */
		if ((!mem && (off || reg == BTFI_REG_FBREG || reg == 7)) ||
		    !convert_to(&ops[i], in, &vsize, &vsigned))
			return set_none(out, BTFI_R_UNSUPPORTED);
		narrow = true;
	}
	if (i != n - 1 || ops[i].atom != DW_OP_stack_value || (!mem && !narrow))
		return set_none(out, BTFI_R_UNSUPPORTED);
	out->kind = mem ? BTFI_LOC_KMEM : off ? BTFI_LOC_KREG_OFF : BTFI_LOC_KREG;
	out->reg = reg;
	out->off = off;
	out->size = vsize < size ? vsize : size;
	out->is_signed = vsize < size ? vsigned : in->is_signed;
}

/*
 * A value computed from literals only (GCC folds a constant argument into
 * `lit16; lit12; shl; stack_value`, `const; neg`, ...): evaluated here on
 * DWARF's stack of address-size (64-bit) values. False if any op reads
 * the machine or the expression is not a value.
 */
static bool const_value(const Dwarf_Op *ops, size_t n, uint64_t *val)
{
	enum { DEPTH = 16 };
	uint64_t st[DEPTH], a, b;
	size_t sp = 0, i;

	if (n < 2 || ops[n - 1].atom != DW_OP_stack_value)
		return false;
	for (i = 0; i < n - 1; i++) {
		unsigned op = ops[i].atom;

		if (is_const_op(&ops[i], &a)) {
			if (sp == DEPTH)
				return false;
			st[sp++] = a;
			continue;
		}
		switch (op) {	/* one operand */
		case DW_OP_neg: case DW_OP_not: case DW_OP_abs: case DW_OP_plus_uconst:
		case DW_OP_dup: case DW_OP_drop: case DW_OP_pick:
			if (op == DW_OP_pick ? ops[i].number >= sp : sp < 1)
				return false;
			a = st[sp - 1];
			switch (op) {
			case DW_OP_neg: st[sp - 1] = -a; break;
			case DW_OP_not: st[sp - 1] = ~a; break;
			case DW_OP_abs: st[sp - 1] = (int64_t)a < 0 ? -a : a; break;
			case DW_OP_plus_uconst: st[sp - 1] = a + ops[i].number; break;
			case DW_OP_drop: sp--; break;
			default:	/* dup, pick */
				if (sp == DEPTH)
					return false;
				st[sp] = st[sp - 1 - (op == DW_OP_pick ? ops[i].number : 0)];
				sp++;
			}
			continue;
		}
		if (sp < 2)
			return false;
		a = st[sp - 2];		/* second entry */
		b = st[sp - 1];		/* top */
		switch (op) {
		case DW_OP_swap: st[sp - 2] = b; st[sp - 1] = a; continue;
		case DW_OP_over:
			if (sp == DEPTH)
				return false;
			st[sp++] = a;
			continue;
		case DW_OP_rot:		/* top three: 1 2 3 -> 3 1 2 */
			if (sp < 3)
				return false;
			st[sp - 1] = a;
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = b;
			continue;
		case DW_OP_plus: a += b; break;
		case DW_OP_minus: a -= b; break;
		case DW_OP_mul: a *= b; break;
		case DW_OP_and: a &= b; break;
		case DW_OP_or: a |= b; break;
		case DW_OP_xor: a ^= b; break;
		case DW_OP_shl: a = b >= 64 ? 0 : a << b; break;
		case DW_OP_shr: a = b >= 64 ? 0 : a >> b; break;
		case DW_OP_shra:
			a = (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b));
			break;
		case DW_OP_div:		/* signed, as DWARF's generic type */
			if (!b || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
				return false;
			a = (uint64_t)((int64_t)a / (int64_t)b);
			break;
		case DW_OP_mod:		/* unsigned */
			if (!b)
				return false;
			a %= b;
			break;
		case DW_OP_eq: a = a == b; break;
		case DW_OP_ne: a = a != b; break;
		case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
		case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
		case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
		case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
		default:
			return false;
		}
		st[--sp - 1] = a;
	}
	if (sp != 1)
		return false;
	*val = st[0];
	return true;
}

/* One piece (or a whole expression without pieces). */
static void one_piece(const Dwarf_Op *ops, size_t n, const struct btfi_dwexpr_in *in,
		      struct btfi_loc *out)
{
	uint32_t reg;
	int64_t off;
	uint64_t val;
	size_t i;

	if (n == 0) {
		/* Empty description: the value is optimized out here. */
		set_none(out, BTFI_R_NOT_AT_ADDR);
		return;
	}
	if (n == 1 && is_reg_op(&ops[0], &reg)) {
		/* A value wider than a register needs pieces. */
		if (!reg_ok(reg) || in->size > 8)
			return set_none(out, BTFI_R_UNSUPPORTED);
		out->kind = BTFI_LOC_KREG;
		out->reg = reg;
		return;
	}
	if (is_base_op(&ops[0], &reg, &off)) {
		/* Fold `plus_uconst k` into the offset (GCC emits it). */
		for (i = 1; i < n && ops[i].atom == DW_OP_plus_uconst; i++)
			off = (int64_t)((uint64_t)off + ops[i].number);	/* wraps, as DWARF's stack does */
		if (!reg_ok(reg))
			return set_none(out, BTFI_R_UNSUPPORTED);
		if (i == n) {
			/* Memory at reg+off: the parameter lives there. */
			out->kind = BTFI_LOC_KMEM;
			out->reg = reg;
			out->off = off;
			return;
		}
		if (i == n - 1 && ops[i].atom == DW_OP_stack_value) {
			out->kind = BTFI_LOC_KREG_OFF;
			out->reg = reg;
			out->off = off;
			return;
		}
		return narrowed(ops + i, n - i, reg, off, in, out);
	}
	if (const_value(ops, n, &val)) {
		out->kind = BTFI_LOC_KCONST;
		out->cval = val;
		return;
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		if (!in->ival || in->ival_len != ops[0].number)
			return set_none(out, BTFI_R_UNSUPPORTED);
		return btfi_dwexpr_const_block(in->ival, in->ival_len, in, out);
	}
	if (n == 2 && ops[0].atom == DW_OP_addr && ops[1].atom == DW_OP_stack_value) {
		out->kind = BTFI_LOC_KADDR;
		out->cval = ops[0].number;
		return;
	}
	/* Includes a lone DW_OP_addr (memory at an absolute address: no base
	 * register to express it with) and any real computation. */
	set_none(out, BTFI_R_UNSUPPORTED);
}

int btfi_dwexpr_loc(const Dwarf_Op *ops, size_t nops,
		    const struct btfi_dwexpr_in *in, struct btfi_loc *out)
{
	size_t i, start, npieces = 0;
	struct btfi_loc part[2];
	struct btfi_dwexpr_in pin;
	uint64_t psize[2];

	memset(out, 0, sizeof(*out));
	out->size = in->size;
	out->is_signed = in->is_signed;

	for (i = 0; i < nops; i++) {
		if (!btfi_dwexpr_known_op(ops[i].atom)) {
			btfi_err(in->log, "%s: DWARF expression has unknown opcode 0x%02x",
				 in->what ? in->what : "?", ops[i].atom);
			set_none(out, BTFI_R_UNSUPPORTED);
			return -EINVAL;
		}
	}
	/* Ops that make the value depend on something a probe cannot read. */
	for (i = 0; i < nops; i++) {
		switch (ops[i].atom) {
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			/* The register at entry of the enclosing function,
			 * not its current content. */
			set_none(out, BTFI_R_ENTRY_VALUE);
			return 0;
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			set_none(out, BTFI_R_IMPLICIT_PTR);
			return 0;
		case DW_OP_GNU_parameter_ref:
			set_none(out, BTFI_R_PARAM_REF);
			return 0;
		}
	}
	for (i = 0; i < nops; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			break;
	if (i == nops) {
		one_piece(ops, nops, in, out);
		return 0;
	}

	/* Pieces: one covering the whole value, or two 8-byte registers. */
	for (start = 0, i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_bit_piece) {
			set_none(out, BTFI_R_UNSUPPORTED);
			return 0;
		}
		if (ops[i].atom != DW_OP_piece)
			continue;
		if (npieces == 2) {
			set_none(out, BTFI_R_UNSUPPORTED);
			return 0;
		}
		pin = *in;
		pin.size = ops[i].number;
		memset(&part[npieces], 0, sizeof(part[0]));
		one_piece(ops + start, i - start, &pin, &part[npieces]);
		psize[npieces++] = ops[i].number;
		start = i + 1;
	}
	if (start != nops) {	/* trailing ops after the last piece */
		set_none(out, BTFI_R_UNSUPPORTED);
		return 0;
	}
	if (npieces == 1 && (in->size == 0 || psize[0] >= in->size) && psize[0] <= 8 &&
	    part[0].kind != BTFI_LOC_NONE) {
		one_piece(ops, nops - 1, in, out);
		return 0;
	}
	if (npieces == 2 && psize[0] == 8 && psize[1] == 8 &&
	    part[0].kind == BTFI_LOC_KREG && part[1].kind == BTFI_LOC_KREG &&
	    !part[0].size && !part[1].size) {	/* whole registers, not narrowed */
		out->kind = BTFI_LOC_KREG_PAIR;
		out->reg = part[0].reg;
		out->reg2 = part[1].reg;
		if (!out->size)
			out->size = 16;
		return 0;
	}
	/* A missing piece means part of the value is optimized out. */
	set_none(out, BTFI_R_UNSUPPORTED);
	return 0;
}

void btfi_dwexpr_const(uint64_t val, const struct btfi_dwexpr_in *in, struct btfi_loc *out)
{
	memset(out, 0, sizeof(*out));
	out->size = in->size;
	out->is_signed = in->is_signed;
	out->kind = BTFI_LOC_KCONST;
	out->cval = val;
}

void btfi_dwexpr_const_block(const void *data, size_t len,
			     const struct btfi_dwexpr_in *in, struct btfi_loc *out)
{
	const uint8_t *p = data;
	uint64_t v = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->size = in->size;
	out->is_signed = in->is_signed;
	/* The format's CONST carries at most 64 bits. */
	if (len == 0 || len > 8) {
		set_none(out, BTFI_R_UNSUPPORTED);
		return;
	}
	for (i = 0; i < len; i++)	/* target byte order: little endian */
		v |= (uint64_t)p[i] << (8 * i);
	if (in->is_signed && len < 8 && (p[len - 1] & 0x80))
		v |= ~0ULL << (8 * len);
	out->kind = BTFI_LOC_KCONST;
	out->cval = v;
}

int btfi_dwexpr_regoff(const Dwarf_Op *ops, size_t nops, uint32_t *reg, int64_t *off)
{
	if (nops == 1 && is_reg_op(&ops[0], reg)) {
		*off = 0;
		return 0;
	}
	if (nops == 1 && is_base_op(&ops[0], reg, off) && *reg != BTFI_REG_FBREG)
		return 0;
	return -ENOENT;
}

void btfi_dwexpr_rebase(struct btfi_loc *loc, uint32_t fb_reg, int64_t fb_off)
{
	if (loc->kind == BTFI_LOC_NONE || loc->reg != BTFI_REG_FBREG)
		return;
	loc->reg = fb_reg;
	loc->off = (int64_t)((uint64_t)loc->off + (uint64_t)fb_off);	/* wraps on corrupt input */
}

static const char *op_name(unsigned a)
{
	switch (a) {
	case DW_OP_addr: return "addr";
	case DW_OP_deref: return "deref";
	case DW_OP_deref_size: return "deref_size";
	case DW_OP_dup: return "dup";
	case DW_OP_drop: return "drop";
	case DW_OP_over: return "over";
	case DW_OP_pick: return "pick";
	case DW_OP_swap: return "swap";
	case DW_OP_rot: return "rot";
	case DW_OP_abs: return "abs";
	case DW_OP_and: return "and";
	case DW_OP_div: return "div";
	case DW_OP_minus: return "minus";
	case DW_OP_mod: return "mod";
	case DW_OP_mul: return "mul";
	case DW_OP_neg: return "neg";
	case DW_OP_not: return "not";
	case DW_OP_or: return "or";
	case DW_OP_plus: return "plus";
	case DW_OP_plus_uconst: return "plus_uconst";
	case DW_OP_shl: return "shl";
	case DW_OP_shr: return "shr";
	case DW_OP_shra: return "shra";
	case DW_OP_xor: return "xor";
	case DW_OP_eq: return "eq";
	case DW_OP_ge: return "ge";
	case DW_OP_gt: return "gt";
	case DW_OP_le: return "le";
	case DW_OP_lt: return "lt";
	case DW_OP_ne: return "ne";
	case DW_OP_skip: return "skip";
	case DW_OP_bra: return "bra";
	case DW_OP_regx: return "reg";
	case DW_OP_fbreg: return "fbreg";
	case DW_OP_bregx: return "breg";
	case DW_OP_piece: return "piece";
	case DW_OP_bit_piece: return "bit_piece";
	case DW_OP_call_frame_cfa: return "call_frame_cfa";
	case DW_OP_implicit_value: return "implicit_value";
	case DW_OP_stack_value: return "stack_value";
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer: return "implicit_pointer";
	case DW_OP_entry_value: case DW_OP_GNU_entry_value: return "entry_value";
	case DW_OP_convert: case DW_OP_GNU_convert: return "convert";
	case DW_OP_regval_type: case DW_OP_GNU_regval_type: return "regval_type";
	case DW_OP_deref_type: case DW_OP_GNU_deref_type: return "deref_type";
	case DW_OP_const_type: case DW_OP_GNU_const_type: return "const_type";
	case DW_OP_GNU_parameter_ref: return "parameter_ref";
	case DW_OP_GNU_variable_value: return "variable_value";
	case DW_OP_addrx: case DW_OP_GNU_addr_index: return "addrx";
	case DW_OP_constx: case DW_OP_GNU_const_index: return "constx";
	case DW_OP_form_tls_address: case DW_OP_GNU_push_tls_address: return "tls_address";
	case DW_OP_GNU_uninit: return "uninit";
	}
	return NULL;
}

void btfi_dwexpr_shape(const Dwarf_Op *ops, size_t nops, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < nops && used < len; i++) {
		unsigned a = ops[i].atom;
		const char *sep = i ? "; " : "";
		const char *nm = op_name(a);
		int w;

		if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			w = snprintf(buf + used, len - used, "%sbreg", sep);
		else if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
			w = snprintf(buf + used, len - used, "%sreg", sep);
		else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
			w = snprintf(buf + used, len - used, "%slit%u", sep, a - DW_OP_lit0);
		else if (a >= DW_OP_const1u && a <= DW_OP_consts)
			w = snprintf(buf + used, len - used, "%sconst %lld", sep,
				     (a == DW_OP_const1s || a == DW_OP_const2s || a == DW_OP_const4s ||
				      a == DW_OP_const8s || a == DW_OP_consts) ?
				     (long long)(int64_t)ops[i].number : (long long)ops[i].number);
		else if (a == DW_OP_deref_size || a == DW_OP_piece)
			w = snprintf(buf + used, len - used, "%s%s %llu", sep, nm,
				     (unsigned long long)ops[i].number);
		else if (nm)
			w = snprintf(buf + used, len - used, "%s%s", sep, nm);
		else
			w = snprintf(buf + used, len - used, "%s0x%02x", sep, a);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

