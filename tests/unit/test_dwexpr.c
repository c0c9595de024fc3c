// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One case per DWARF expression shape of dwexpr.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <dwarf.h>
#include "dwarf/dwexpr.h"
#include "check.h"

static char logged[1024];
static int nlogged;

static void log_fn(void *ctx, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
	nlogged++;
}

static const struct btfi_log tlog = { .fn = log_fn };

#define OP(a) { .atom = (a) }
#define OP1(a, n) { .atom = (a), .number = (Dwarf_Word)(n) }
#define OP2(a, n, m) { .atom = (a), .number = (Dwarf_Word)(n), .number2 = (Dwarf_Word)(m) }

static void expect(const char *name, const Dwarf_Op *ops, size_t n, uint32_t size, bool sgn,
		   int kind, int reason, uint32_t reg, uint32_t reg2, int64_t off, uint64_t cval)
{
	struct btfi_dwexpr_in in = { .size = size, .is_signed = sgn, .log = &tlog, .what = name };
	struct btfi_loc l;
	int err = btfi_dwexpr_loc(ops, n, &in, &l);
	bool bad = err || l.kind != kind || (kind == BTFI_LOC_NONE && l.reason != reason) ||
		((kind == BTFI_LOC_KREG || kind == BTFI_LOC_KREG_PAIR || kind == BTFI_LOC_KREG_OFF ||
		  kind == BTFI_LOC_KMEM) && l.reg != reg) ||
		(kind == BTFI_LOC_KREG_PAIR && l.reg2 != reg2) ||
		((kind == BTFI_LOC_KREG_OFF || kind == BTFI_LOC_KMEM) && l.off != off) ||
		((kind == BTFI_LOC_KCONST || kind == BTFI_LOC_KADDR) && l.cval != cval) ||
		(kind != BTFI_LOC_KREG_PAIR && l.size != size) || l.is_signed != sgn;

	if (CHECK(!bad, "%s: err %d kind %s reason %s reg %u reg2 %u off %lld cval 0x%llx size %u",
		  name, err, btfi_loc_kind_str(l.kind), btfi_reason_str(l.reason), l.reg, l.reg2,
		  (long long)l.off, (unsigned long long)l.cval, l.size))
		printf("ok   %s\n", name);
}

#define EXPECT(name, size, sgn, kind, reason, reg, reg2, off, cval, ...) do { \
	const Dwarf_Op ops_[] = { __VA_ARGS__ }; \
	expect(name, ops_, sizeof(ops_) / sizeof(ops_[0]), size, sgn, kind, reason, reg, reg2, off, cval); \
} while (0)

#define NONE(name, reason, ...) EXPECT(name, 8, false, BTFI_LOC_NONE, reason, 0, 0, 0, 0, __VA_ARGS__)

/* Narrowing idioms: the result's size and signedness differ from the
 * parameter's (a narrower read, extended per SIGNED). conv: the base
 * types of the expression's DW_OP_converts, as the scan resolves them. */
static void expect_narrow(const char *name, const Dwarf_Op *ops, size_t n, uint32_t psize,
			  bool psgn, const struct btfi_dwexpr_conv *conv, size_t nconv, int kind,
			  uint32_t reg, int64_t off, uint32_t size, bool sgn)
{
	struct btfi_dwexpr_in in = { .size = psize, .is_signed = psgn, .log = &tlog, .what = name,
				     .conv = conv, .nconv = nconv };
	struct btfi_loc l;
	int err = btfi_dwexpr_loc(ops, n, &in, &l);
	bool bad = err || l.kind != kind || (kind != BTFI_LOC_NONE &&
		(l.reg != reg || l.off != off || l.size != size || l.is_signed != sgn)) ||
		(kind == BTFI_LOC_NONE && l.reason != BTFI_R_UNSUPPORTED);

	if (CHECK(!bad, "%s: err %d kind %s reason %s reg %u off %lld size %u signed %d",
		  name, err, btfi_loc_kind_str(l.kind), btfi_reason_str(l.reason), l.reg,
		  (long long)l.off, l.size, l.is_signed))
		printf("ok   %s\n", name);
}

#define NARROW(name, psize, psgn, kind, reg, off, size, sgn, ...) do { \
	const Dwarf_Op ops_[] = { __VA_ARGS__ }; \
	expect_narrow(name, ops_, sizeof(ops_) / sizeof(ops_[0]), psize, psgn, NULL, 0, kind, reg, \
		      off, size, sgn); \
} while (0)

/* clang's DW_OP_convert narrowing: the converts' base types, found by
 * the op's offset (a register's own value: offset 0). */
static const struct btfi_dwexpr_conv conv_u8_u32[] = {
	{ .op_offset = 10, .size = 1, .is_signed = false },
	{ .op_offset = 12, .size = 4, .is_signed = false },
};
static const struct btfi_dwexpr_conv conv_s8_s32[] = {
	{ .op_offset = 10, .size = 1, .is_signed = true },
	{ .op_offset = 12, .size = 4, .is_signed = true },
};

#define CONV(name, psize, psgn, conv, kind, reg, size, sgn, ...) do { \
	const Dwarf_Op ops_[] = { __VA_ARGS__ }; \
	expect_narrow(name, ops_, sizeof(ops_) / sizeof(ops_[0]), psize, psgn, conv, \
		      conv != no_conv ? 2 : 0, kind, reg, 0, size, sgn); \
} while (0)
#define OPAT(a, n, at) { .atom = (a), .number = (Dwarf_Word)(n), .offset = (at) }

static void convert_cases(void)
{
	const struct btfi_dwexpr_conv *no_conv = NULL;

	CONV("breg0 0; const 0xff; and; convert u8; convert u32 -> u8 in rax", 4, false, conv_u8_u32,
	     BTFI_LOC_KREG, 0, 1, false,
	     OPAT(DW_OP_breg0, 0, 0), OPAT(DW_OP_constu, 0xff, 2), OPAT(DW_OP_and, 0, 9),
	     OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	CONV("breg3 0; convert s8; convert s32 -> s8 in rbx", 4, true, conv_s8_s32,
	     BTFI_LOC_KREG, 3, 1, true,
	     OPAT(DW_OP_breg3, 0, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	CONV("mask 0xff then convert s8: the byte reinterpreted as signed", 4, true, conv_s8_s32,
	     BTFI_LOC_KREG, 2, 1, true,
	     OPAT(DW_OP_breg2, 0, 0), OPAT(DW_OP_constu, 0xff, 2), OPAT(DW_OP_and, 0, 9),
	     OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	/* clang 14's spill: literally the low byte of rsp + 31 (not a load) */
	CONV("breg7 31; convert u8; convert u32: an address's byte, refused", 4, false, conv_u8_u32,
	     BTFI_LOC_NONE, 0, 0, false,
	     OPAT(DW_OP_breg7, 31, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	/* the same at the slot rsp+0: the frame base's, or rsp's own value */
	CONV("fbreg 0; convert u8; convert u32: an address's byte, refused", 4, false, conv_u8_u32,
	     BTFI_LOC_NONE, 0, 0, false,
	     OPAT(DW_OP_fbreg, 0, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	CONV("breg7 0; convert u8; convert u32: an address's byte, refused", 4, false, conv_u8_u32,
	     BTFI_LOC_NONE, 0, 0, false,
	     OPAT(DW_OP_breg7, 0, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_convert, 0xa1, 12),
	     OPAT(DW_OP_stack_value, 0, 14));
	CONV("convert whose type the scan could not resolve: refused", 4, false,
	     no_conv, BTFI_LOC_NONE, 0, 0, false,
	     OPAT(DW_OP_breg0, 0, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_stack_value, 0, 14));
	CONV("convert; then arithmetic: refused", 4, false, conv_u8_u32,
	     BTFI_LOC_NONE, 0, 0, false,
	     OPAT(DW_OP_breg0, 0, 0), OPAT(DW_OP_convert, 0x9c, 10), OPAT(DW_OP_lit1, 0, 11),
	     OPAT(DW_OP_plus, 0, 12), OPAT(DW_OP_stack_value, 0, 14));
}

int main(void)
{
	/* register */
	EXPECT("reg5", 8, false, BTFI_LOC_KREG, 0, 5, 0, 0, 0, OP(DW_OP_reg5));
	EXPECT("regx 14", 4, true, BTFI_LOC_KREG, 0, 14, 0, 0, 0, OP1(DW_OP_regx, 14));
	NONE("reg17 (xmm0) not in pt_regs", BTFI_R_UNSUPPORTED, OP(DW_OP_reg17));
	EXPECT("reg5 for a 16-byte value", 16, false, BTFI_LOC_NONE, BTFI_R_UNSUPPORTED, 0, 0, 0, 0,
	       OP(DW_OP_reg5));
	/* register + offset: a value, no load */
	EXPECT("breg7 8; stack_value", 8, false, BTFI_LOC_KREG_OFF, 0, 7, 0, 8, 0,
	       OP1(DW_OP_breg7, 8), OP(DW_OP_stack_value));
	EXPECT("bregx 3 -24; stack_value", 8, false, BTFI_LOC_KREG_OFF, 0, 3, 0, -24, 0,
	       OP2(DW_OP_bregx, 3, -24), OP(DW_OP_stack_value));
	EXPECT("breg7 8; plus_uconst 8; stack_value", 8, false, BTFI_LOC_KREG_OFF, 0, 7, 0, 16, 0,
	       OP1(DW_OP_breg7, 8), OP1(DW_OP_plus_uconst, 8), OP(DW_OP_stack_value));
	/* memory at register + offset */
	EXPECT("lone breg6 -16", 4, true, BTFI_LOC_KMEM, 0, 6, 0, -16, 0, OP1(DW_OP_breg6, -16));
	EXPECT("lone bregx 3 24", 2, false, BTFI_LOC_KMEM, 0, 3, 0, 24, 0, OP2(DW_OP_bregx, 3, 24));
	/* frame base: left as FBREG for the CFI step */
	EXPECT("lone fbreg -20", 8, false, BTFI_LOC_KMEM, 0, BTFI_REG_FBREG, 0, -20, 0,
	       OP1(DW_OP_fbreg, -20));
	EXPECT("fbreg -20; stack_value", 8, false, BTFI_LOC_KREG_OFF, 0, BTFI_REG_FBREG, 0, -20, 0,
	       OP1(DW_OP_fbreg, -20), OP(DW_OP_stack_value));
	/* constants */
	EXPECT("lit5; stack_value", 4, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 5,
	       OP(DW_OP_lit5), OP(DW_OP_stack_value));
	EXPECT("consts -3; stack_value", 4, true, BTFI_LOC_KCONST, 0, 0, 0, 0, (uint64_t)-3,
	       OP1(DW_OP_consts, -3), OP(DW_OP_stack_value));
	EXPECT("constu 0x1234; stack_value", 8, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 0x1234,
	       OP1(DW_OP_constu, 0x1234), OP(DW_OP_stack_value));
	EXPECT("const1u 200; stack_value", 1, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 200,
	       OP1(DW_OP_const1u, 200), OP(DW_OP_stack_value));
	EXPECT("const8u; stack_value", 8, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 0xffffffff00000001ULL,
	       OP1(DW_OP_const8u, 0xffffffff00000001ULL), OP(DW_OP_stack_value));
	NONE("lone lit5 (an address, not a value)", BTFI_R_UNSUPPORTED, OP(DW_OP_lit5));
	/* constants computed from literals (the kernel's top shapes: a folded
	 * `1 << n`, `-(16 << 27)`) */
	EXPECT("lit16; lit12; shl; stack_value", 4, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 0x10000,
	       OP(DW_OP_lit16), OP(DW_OP_lit12), OP(DW_OP_shl), OP(DW_OP_stack_value));
	EXPECT("lit16; lit27; shl; neg; stack_value", 4, true, BTFI_LOC_KCONST, 0, 0, 0, 0,
	       0xffffffff80000000ULL,
	       OP(DW_OP_lit16), OP(DW_OP_lit27), OP(DW_OP_shl), OP(DW_OP_neg), OP(DW_OP_stack_value));
	EXPECT("const1u 150; lit9; shl; stack_value", 8, false, BTFI_LOC_KCONST, 0, 0, 0, 0, 150 << 9,
	       OP1(DW_OP_const1u, 150), OP(DW_OP_lit9), OP(DW_OP_shl), OP(DW_OP_stack_value));
	EXPECT("constu 7; neg; stack_value", 8, true, BTFI_LOC_KCONST, 0, 0, 0, 0, (uint64_t)-7,
	       OP1(DW_OP_constu, 7), OP(DW_OP_neg), OP(DW_OP_stack_value));
	EXPECT("lit10; lit3; minus; stack_value (second minus top)", 8, false, BTFI_LOC_KCONST,
	       0, 0, 0, 0, 7, OP(DW_OP_lit10), OP(DW_OP_lit3), OP(DW_OP_minus), OP(DW_OP_stack_value));
	EXPECT("lit12; lit10; and; lit1; or; lit3; plus; stack_value", 8, false, BTFI_LOC_KCONST,
	       0, 0, 0, 0, ((12 & 10) | 1) + 3, OP(DW_OP_lit12), OP(DW_OP_lit10), OP(DW_OP_and),
	       OP(DW_OP_lit1), OP(DW_OP_or), OP(DW_OP_lit3), OP(DW_OP_plus), OP(DW_OP_stack_value));
	EXPECT("consts -16; lit2; shra; stack_value", 8, true, BTFI_LOC_KCONST, 0, 0, 0, 0,
	       (uint64_t)-4, OP1(DW_OP_consts, -16), OP(DW_OP_lit2), OP(DW_OP_shra),
	       OP(DW_OP_stack_value));
	EXPECT("lit1; lit2; lit3; rot; minus; minus; stack_value", 8, true, BTFI_LOC_KCONST,
	       0, 0, 0, 0, 4, /* rot: 1 2 3 -> 3 1 2; 1 - 2 = -1; 3 - -1 = 4 */
	       OP(DW_OP_lit1), OP(DW_OP_lit2), OP(DW_OP_lit3), OP(DW_OP_rot), OP(DW_OP_minus),
	       OP(DW_OP_minus), OP(DW_OP_stack_value));
	NONE("lit1; lit0; div; stack_value (division by zero)", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_lit1), OP(DW_OP_lit0), OP(DW_OP_div), OP(DW_OP_stack_value));
	NONE("lit1; lit2; shl (an address, not a value)", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_lit1), OP(DW_OP_lit2), OP(DW_OP_shl));
	NONE("lit1; lit2; stack_value (two values left)", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_lit1), OP(DW_OP_lit2), OP(DW_OP_stack_value));
	NONE("breg5 0; lit2; shl; stack_value (reads a register: not constant)",
	     BTFI_R_UNSUPPORTED, OP1(DW_OP_breg5, 0), OP(DW_OP_lit2), OP(DW_OP_shl),
	     OP(DW_OP_stack_value));
	/* address */
	EXPECT("addr; stack_value", 8, false, BTFI_LOC_KADDR, 0, 0, 0, 0, 0xffffffff82000000ULL,
	       OP1(DW_OP_addr, 0xffffffff82000000ULL), OP(DW_OP_stack_value));
	NONE("lone addr (memory at an absolute address)", BTFI_R_UNSUPPORTED,
	     OP1(DW_OP_addr, 0xffffffff82000000ULL));
	/* pieces */
	EXPECT("reg5 piece 8 reg4 piece 8", 16, false, BTFI_LOC_KREG_PAIR, 0, 5, 4, 0, 0,
	       OP(DW_OP_reg5), OP1(DW_OP_piece, 8), OP(DW_OP_reg4), OP1(DW_OP_piece, 8));
	EXPECT("reg5 piece 8 on an 8-byte value", 8, false, BTFI_LOC_KREG, 0, 5, 0, 0, 0,
	       OP(DW_OP_reg5), OP1(DW_OP_piece, 8));
	NONE("reg5 piece 8; piece 8 (high half optimized out)", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_reg5), OP1(DW_OP_piece, 8), OP1(DW_OP_piece, 8));
	NONE("reg5 piece 4 reg4 piece 4", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_reg5), OP1(DW_OP_piece, 4), OP(DW_OP_reg4), OP1(DW_OP_piece, 4));
	NONE("reg5 piece 8 breg7 0 piece 8", BTFI_R_UNSUPPORTED,
	     OP(DW_OP_reg5), OP1(DW_OP_piece, 8), OP1(DW_OP_breg7, 0), OP1(DW_OP_piece, 8));
	NONE("bit_piece", BTFI_R_UNSUPPORTED, OP(DW_OP_reg5), OP2(DW_OP_bit_piece, 3, 0));
	/* not readable by a probe */
	NONE("entry_value(reg5); stack_value", BTFI_R_ENTRY_VALUE,
	     OP1(DW_OP_entry_value, 1), OP(DW_OP_reg5), OP(DW_OP_stack_value));
	NONE("GNU_entry_value(reg4); stack_value", BTFI_R_ENTRY_VALUE,
	     OP1(DW_OP_GNU_entry_value, 1), OP(DW_OP_reg4), OP(DW_OP_stack_value));
	NONE("implicit_pointer", BTFI_R_IMPLICIT_PTR, OP2(DW_OP_implicit_pointer, 0x1234, 0));
	NONE("GNU_implicit_pointer", BTFI_R_IMPLICIT_PTR, OP2(DW_OP_GNU_implicit_pointer, 0x1234, 8));
	NONE("GNU_parameter_ref", BTFI_R_PARAM_REF, OP1(DW_OP_GNU_parameter_ref, 0x40));
	/* The value loaded from rdi: the same as the memory location `breg5 0`. */
	EXPECT("breg5 0; deref; stack_value = memory at rdi", 8, false, BTFI_LOC_KMEM, 0, 5, 0, 0, 0,
	       OP1(DW_OP_breg5, 0), OP(DW_OP_deref), OP(DW_OP_stack_value));
	NONE("call_frame_cfa as a location", BTFI_R_UNSUPPORTED, OP(DW_OP_call_frame_cfa));
	NONE("empty (optimized out here)", BTFI_R_NOT_AT_ADDR, );

	/* DW_OP_implicit_value: libdw keeps the block outside the op. */
	{
		static const uint8_t blk4[4] = { 0xfe, 0xff, 0xff, 0xff };
		static const uint8_t blk16[16] = { 1 };
		const Dwarf_Op op4[] = { OP1(DW_OP_implicit_value, 4) };
		const Dwarf_Op op16[] = { OP1(DW_OP_implicit_value, 16) };
		struct btfi_dwexpr_in in = { .size = 4, .is_signed = true, .ival = blk4, .ival_len = 4 };
		struct btfi_loc l;

		if (CHECK(!btfi_dwexpr_loc(op4, 1, &in, &l) && l.kind == BTFI_LOC_KCONST &&
			  l.cval == (uint64_t)-2, "implicit_value 4 bytes signed: kind %d cval 0x%llx",
			  l.kind, (unsigned long long)l.cval))
			printf("ok   implicit_value 4 bytes signed\n");
		in.size = 16;
		in.ival = blk16;
		in.ival_len = 16;
		if (CHECK(!btfi_dwexpr_loc(op16, 1, &in, &l) && l.kind == BTFI_LOC_NONE &&
			  l.reason == BTFI_R_UNSUPPORTED, "implicit_value 16 bytes"))
			printf("ok   implicit_value 16 bytes (wider than CONST)\n");
	}
	/* DW_AT_const_value */
	{
		static const uint8_t blk[2] = { 0x34, 0x92 };
		struct btfi_dwexpr_in in = { .size = 2, .is_signed = true };
		struct btfi_loc l;

		btfi_dwexpr_const_block(blk, 2, &in, &l);
		if (CHECK(l.kind == BTFI_LOC_KCONST && l.cval == 0xffffffffffff9234ULL,
			  "const_value block"))
			printf("ok   const_value block, sign-extended\n");
		btfi_dwexpr_const(42, &in, &l);
		if (CHECK(l.kind == BTFI_LOC_KCONST && l.cval == 42 && l.size == 2 && l.is_signed,
			  "const_value data"))
			printf("ok   const_value data\n");
	}
	/* Frame base / CFA shapes and FBREG rebasing. */
	{
		const Dwarf_Op cfa[] = { OP2(DW_OP_bregx, 7, 16) }, rbp[] = { OP(DW_OP_reg6) },
			       callcfa[] = { OP(DW_OP_call_frame_cfa) }, fb[] = { OP1(DW_OP_fbreg, -20) };
		struct btfi_dwexpr_in in = { .size = 8 };
		struct btfi_loc l;
		uint32_t reg;
		int64_t off;

		if (CHECK(!btfi_dwexpr_regoff(cfa, 1, &reg, &off) && reg == 7 && off == 16 &&
			  !btfi_dwexpr_regoff(rbp, 1, &reg, &off) && reg == 6 && off == 0 &&
			  btfi_dwexpr_regoff(callcfa, 1, &reg, &off) == -ENOENT, "regoff"))
			printf("ok   frame base / CFA shapes\n");
		btfi_dwexpr_loc(fb, 1, &in, &l);
		btfi_dwexpr_rebase(&l, 7, 16);	/* CFA = rsp + 16 */
		if (CHECK(l.kind == BTFI_LOC_KMEM && l.reg == 7 && l.off == -4,
			  "fbreg rebase: reg %u off %lld", l.reg, (long long)l.off))
			printf("ok   fbreg -20 with CFA rsp+16 -> mem rsp-4\n");
	}
	/* Narrowing idioms (GCC, kernel: 10k parameters): value of a narrower
	 * type converted up. Register forms need offset 0. */
	NARROW("breg1 0; const4u 0xffffffff; and; stack_value -> u32 in rdx", 8, true,
	       BTFI_LOC_KREG, 1, 0, 4, false,
	       OP1(DW_OP_breg1, 0), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("breg3 0; const1u 0xff; and; stack_value -> u8 in rbx", 8, false,
	       BTFI_LOC_KREG, 3, 0, 1, false,
	       OP1(DW_OP_breg3, 0), OP1(DW_OP_const1u, 0xff), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("breg0 0; const2u 0xffff; and on a 4-byte param -> 2 bytes", 4, true,
	       BTFI_LOC_KREG, 0, 0, 2, false,
	       OP1(DW_OP_breg0, 0), OP1(DW_OP_const2u, 0xffff), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("mask wider than the param keeps the param's size and sign", 2, true,
	       BTFI_LOC_KREG, 0, 0, 2, true,
	       OP1(DW_OP_breg0, 0), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("breg5 0; shl 32; shra 32 -> s32 in rdi", 8, false,
	       BTFI_LOC_KREG, 5, 0, 4, true,
	       OP1(DW_OP_breg5, 0), OP1(DW_OP_const1u, 32), OP(DW_OP_shl), OP1(DW_OP_const1u, 32),
	       OP(DW_OP_shra), OP(DW_OP_stack_value));
	NARROW("breg5 0; shl 48; shr 48 -> u16", 8, true,
	       BTFI_LOC_KREG, 5, 0, 2, false,
	       OP1(DW_OP_breg5, 0), OP1(DW_OP_const1u, 48), OP(DW_OP_shl), OP1(DW_OP_const1u, 48),
	       OP(DW_OP_shr), OP(DW_OP_stack_value));
	NARROW("breg6 -8; deref; const4u 0xffffffff; and -> 4 bytes at rbp-8", 8, true,
	       BTFI_LOC_KMEM, 6, -8, 4, false,
	       OP1(DW_OP_breg6, -8), OP(DW_OP_deref), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and),
	       OP(DW_OP_stack_value));
	NARROW("breg7 16; deref_size 2; const1u 0xff; and -> 1 byte at rsp+16", 8, false,
	       BTFI_LOC_KMEM, 7, 16, 1, false,
	       OP1(DW_OP_breg7, 16), OP1(DW_OP_deref_size, 2), OP1(DW_OP_const1u, 0xff), OP(DW_OP_and),
	       OP(DW_OP_stack_value));
	NARROW("breg7 16; deref_size 4; stack_value -> 4 bytes, zero-extended", 8, true,
	       BTFI_LOC_KMEM, 7, 16, 4, false,
	       OP1(DW_OP_breg7, 16), OP1(DW_OP_deref_size, 4), OP(DW_OP_stack_value));
	NARROW("breg3 8; deref; stack_value -> memory at rbx+8", 8, false,
	       BTFI_LOC_KMEM, 3, 8, 8, false,
	       OP1(DW_OP_breg3, 8), OP(DW_OP_deref), OP(DW_OP_stack_value));
	NARROW("fbreg -24; plus_uconst 4; deref_size 4; stack_value", 4, true,
	       BTFI_LOC_KMEM, BTFI_REG_FBREG, -20, 4, true,
	       OP1(DW_OP_fbreg, -24), OP1(DW_OP_plus_uconst, 4), OP1(DW_OP_deref_size, 4),
	       OP(DW_OP_stack_value));
	/* Narrowed sums (issue 13): the low bytes of reg + off, REG|OFFSET of
	 * the narrower size. (rdx+8) & 0xffffffff = (u32)(rdx + 8). */
	NARROW("breg1 8; const4u mask; and -> (u32)(rdx+8)", 8, false,
	       BTFI_LOC_KREG_OFF, 1, 8, 4, false,
	       OP1(DW_OP_breg1, 8), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("breg3 1; shl 32; shra 32 -> (s32)(rbx+1)", 8, false,
	       BTFI_LOC_KREG_OFF, 3, 1, 4, true,
	       OP1(DW_OP_breg3, 1), OP1(DW_OP_const1u, 32), OP(DW_OP_shl), OP1(DW_OP_const1u, 32),
	       OP(DW_OP_shra), OP(DW_OP_stack_value));
	NARROW("breg0 -1; shl 56; shr 56 -> (u8)(rax-1)", 8, true,
	       BTFI_LOC_KREG_OFF, 0, -1, 1, false,
	       OP1(DW_OP_breg0, -1), OP1(DW_OP_const1u, 56), OP(DW_OP_shl), OP1(DW_OP_const1u, 56),
	       OP(DW_OP_shr), OP(DW_OP_stack_value));
	/* Not narrowing: each is a computation the format cannot carry. */
	NARROW("breg1 0; const1u 0xfe; and: not a low-bytes mask", 8, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg1, 0), OP1(DW_OP_const1u, 0xfe), OP(DW_OP_and), OP(DW_OP_stack_value));
	NARROW("breg1 0; shl 32; shra 31: shifts differ", 8, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg1, 0), OP1(DW_OP_const1u, 32), OP(DW_OP_shl), OP1(DW_OP_const1u, 31),
	       OP(DW_OP_shra), OP(DW_OP_stack_value));
	NARROW("breg6 0; deref; plus_uconst 8; stack_value: loaded value + 8", 8, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg6, 0), OP(DW_OP_deref), OP1(DW_OP_plus_uconst, 8), OP(DW_OP_stack_value));
	NARROW("breg6 0; deref; deref; stack_value: two loads", 8, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg6, 0), OP(DW_OP_deref), OP(DW_OP_deref), OP(DW_OP_stack_value));
	NARROW("breg1 0; const4u mask; and (no stack_value)", 8, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg1, 0), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and));
	NARROW("16-byte pair with a narrowed half is not a register pair", 16, false,
	       BTFI_LOC_NONE, 0, 0, 0, false,
	       OP1(DW_OP_breg0, 0), OP1(DW_OP_const4u, 0xffffffff), OP(DW_OP_and), OP(DW_OP_stack_value),
	       OP1(DW_OP_piece, 8), OP(DW_OP_reg1), OP1(DW_OP_piece, 8));
	/* Corrupt input: offsets that overflow wrap (no UB; UBSan build). */
	EXPECT("breg7 INT64_MAX; plus_uconst 128 wraps", 8, false, BTFI_LOC_KMEM, 0, 7, 0,
	       (int64_t)(0x7fffffffffffffffULL + 128), 0,
	       OP1(DW_OP_breg7, 0x7fffffffffffffffLL), OP1(DW_OP_plus_uconst, 128));
	{
		const Dwarf_Op fb[] = { OP1(DW_OP_fbreg, 0x7ffffffffffffff0LL) };
		struct btfi_dwexpr_in in = { .size = 8, .log = &tlog };
		struct btfi_loc l;

		btfi_dwexpr_loc(fb, 1, &in, &l);
		btfi_dwexpr_rebase(&l, 7, 0x100);
		if (CHECK(l.kind == BTFI_LOC_KMEM && l.reg == 7 &&
			  l.off == (int64_t)(0x7ffffffffffffff0ULL + 0x100), "fbreg rebase overflow"))
			printf("ok   fbreg near INT64_MAX rebased: wraps\n");
	}
	convert_cases();
	/* Unknown opcode: an error, logged once, naming the op. */
	{
		const Dwarf_Op bad[] = { OP(DW_OP_reg5), OP(0x04) };
		struct btfi_dwexpr_in in = { .size = 8, .log = &tlog, .what = "x.o: DIE 0x10" };
		struct btfi_loc l;
		int err;

		nlogged = 0;
		err = btfi_dwexpr_loc(bad, 2, &in, &l);
		if (CHECK(err == -EINVAL && nlogged == 1 && strstr(logged, "x.o: DIE 0x10") &&
			  strstr(logged, "unknown opcode 0x04") && l.kind == BTFI_LOC_NONE,
			  "unknown op: err %d nlogged %d '%s'", err, nlogged, logged))
			printf("ok   unknown op -> -EINVAL, logged: %s\n", logged);
	}
	return check_done();
}
