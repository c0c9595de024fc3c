/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DWARF location expression -> one LOC_PARAM form. Pure: no libdw state is
 * touched, so every expression shape is unit-tested from hand-built ops.
 */
#ifndef BTFI_DWEXPR_H
#define BTFI_DWEXPR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <elfutils/libdw.h>
#include "btfinline.h"

/* The base type a DW_OP_convert names (libdw resolves the DIE; this file
 * stays pure): the op is found by its offset in the expression. */
struct btfi_dwexpr_conv {
	uint64_t op_offset;	/* Dwarf_Op.offset */
	uint32_t size;		/* 0: the generic type (address-sized) */
	bool is_signed;
};

struct btfi_dwexpr_in {
	uint32_t size;		/* byte size of the parameter, 0 if unknown */
	bool is_signed;
	const struct btfi_dwexpr_conv *conv;	/* the expression's converts */
	size_t nconv;
	/* Block of the (first) DW_OP_implicit_value op, if the caller has
	 * it (libdw keeps it outside the Dwarf_Op). */
	const void *ival;
	size_t ival_len;
	const struct btfi_log *log;	/* for unknown opcodes */
	const char *what;		/* message prefix, e.g. "FILE: DIE 0x1234" */
};

/*
 * Translate `ops` (one location description, as returned by
 * dwarf_getlocation_addr) into *out. An expression without a fixed form
 * gives kind BTFI_LOC_NONE with a reason; DW_OP_fbreg gives reg
 * BTFI_REG_FBREG, which the caller resolves through the CFI.
 * Returns 0, or -EINVAL (logged) if an opcode is unknown.
 */
int btfi_dwexpr_loc(const Dwarf_Op *ops, size_t nops,
		    const struct btfi_dwexpr_in *in, struct btfi_loc *out);

/* DW_AT_const_value given as a number (data forms) or a block. */
void btfi_dwexpr_const(uint64_t val, const struct btfi_dwexpr_in *in,
		       struct btfi_loc *out);
void btfi_dwexpr_const_block(const void *data, size_t len,
			     const struct btfi_dwexpr_in *in, struct btfi_loc *out);

/* Frame base or CFA expression -> value reg + off. Accepts DW_OP_regN/regx
 * (value of the register), DW_OP_bregN/bregx off (reg + off).
 * Returns 0, or -ENOENT if the expression has another shape. */
int btfi_dwexpr_regoff(const Dwarf_Op *ops, size_t nops, uint32_t *reg, int64_t *off);

/* Replace a BTFI_REG_FBREG base by the frame base value fb_reg + fb_off. */
void btfi_dwexpr_rebase(struct btfi_loc *loc, uint32_t fb_reg, int64_t fb_off);

bool btfi_dwexpr_known_op(unsigned atom);
/* The shape of an expression, for counting what the format cannot carry:
 * op names, registers and offsets left out ("breg", "reg"), constants
 * kept ("breg; const 32; shl; const 32; shra; stack_value"). */
void btfi_dwexpr_shape(const Dwarf_Op *ops, size_t nops, char *buf, size_t len);

#endif
