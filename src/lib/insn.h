/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * x86-64 instruction facts, from capstone: where control goes next (the
 * scan's control-flow graph of a function, to find the addresses of an
 * inline instance that run once per call), where alignment padding ends,
 * which registers an instruction writes, and whether a uprobe may sit on
 * it (attach: find the one site the kernel would refuse before it refuses
 * the whole function).
 */
#ifndef BTFI_INSN_H
#define BTFI_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btfi_insn_dec;

/* The SysV x86-64 ABI's integer argument registers, in order, as DWARF
 * register numbers (rdi rsi rdx rcx r8 r9): attach reads an out-of-line
 * entry's arguments there, the scan tells a changed ABI from them. */
extern const uint8_t btfi_sysv_int_regs[6];
/* Is DWARF register r one of them? */
bool btfi_sysv_is_int_reg(uint32_t r);

/* Where control goes after an instruction. */
enum btfi_insn_flow {
	BTFI_FLOW_NEXT = 0,	/* to the next instruction */
	BTFI_FLOW_CALL,		/* a call: back to the next one (noreturn callees unknown) */
	BTFI_FLOW_JUMP,		/* direct jump to target */
	BTFI_FLOW_CJUMP,	/* conditional direct jump: target or the next one */
	BTFI_FLOW_IJUMP,	/* indirect jump: targets unknown */
	BTFI_FLOW_STOP,		/* ret, ud2, hlt, int3, iret: nothing follows */
};

struct btfi_insn {
	uint32_t len;		/* bytes; 0: not an instruction capstone knows */
	bool nop;		/* a no-op of any length (padding) */
	uint8_t flow;		/* enum btfi_insn_flow */
	uint64_t target;	/* JUMP, CJUMP, direct CALL */
	bool ret;		/* a return (STOP): the function is left */
	/* Why x86 uprobes refuse it (arch/x86/kernel/uprobes.c, is_prefix_bad:
	 * ES/CS/DS/SS segment-override and LOCK prefixes), NULL if they take it. */
	const char *uprobe_refusal;
	/* A CJUMP on EFLAGS: its condition code (the low nibble of opcode
	 * 0x7X / 0x0f 0x8X: 0 o, 1 no, 2 b, ... 15 g); -1 otherwise (jrcxz,
	 * loop: they test %rcx, not flags). */
	int8_t cc;
};

/* 0 or -ENOMEM/-EINVAL (capstone could not start). */
int btfi_insn_dec_new(struct btfi_insn_dec **out);
void btfi_insn_dec_free(struct btfi_insn_dec *d);
/* Decode the instruction at code[0..len) (at address addr); 0, or -EINVAL
 * if it is not one (out->len = 0). */
int btfi_insn_decode(struct btfi_insn_dec *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct btfi_insn *out);
/* What the instruction last decoded may change: general registers as
 * bits of their DWARF numbers 0-15 (a write to any part counts; a call
 * clobbers the SysV caller-saved ones), BTFI_INSN_W_MEM if it may store to
 * memory (an operand, push, call, string stores). */
#define BTFI_INSN_W_MEM (1u << 16)
uint32_t btfi_insn_writes(struct btfi_insn_dec *d);
/* What the instruction last decoded reads: general registers as bits of
 * their DWARF numbers 0-15, an address's base and index included. */
uint32_t btfi_insn_reads(struct btfi_insn_dec *d);
/* Does the instruction last decoded set a general register to a value
 * known here: mov $imm (zero-extended into a 32-bit register), xor of a
 * register with itself, lea of a rip-relative address (*pcrel: *val is
 * the link-time address)? *reg gets its DWARF number. */
bool btfi_insn_const(struct btfi_insn_dec *d, int *reg, uint64_t *val, bool *pcrel);

/* A hash of what the instruction last decoded does, blind to where its
 * code and data lie and to register allocation: the mnemonic, each
 * operand's kind and size, an immediate unless moved (a constant argument
 * of one copy) or a branch target, and for memory its segment, scale and,
 * unless addressed from %rip, displacement (branch targets, %rip offsets,
 * registers and moved constants differ between copies of one code); a
 * compare's (cmp, test) operands in either order. */
uint32_t btfi_insn_shape(struct btfi_insn_dec *d);

/* Does the instruction last decoded copy one general register into
 * another: whole (mov r64, r64: *bytes 8) or its low half, zero-extended
 * (mov r32, r32: 4)? DWARF numbers. */
bool btfi_insn_copy(struct btfi_insn_dec *d, int *dst, int *src, uint32_t *bytes);

/* Does the instruction last decoded load a general register from memory
 * at base + disp (a general base register, no index, no segment): mov
 * r64/r32, m (*bytes 8/4, a 32-bit load zero-extends), movzx / movsx /
 * movsxd (*bytes 1, 2 or 4, *sgn for movsx*)? DWARF numbers. */
bool btfi_insn_load(struct btfi_insn_dec *d, int *dst, int *base, int64_t *disp,
		    uint32_t *bytes, bool *sgn);

/* Does the instruction last decoded write memory at base + disp through
 * an operand (a store or a read-modify-write: `mov %dx,0x14(%r13)`,
 * `orw $0x8,0x14(%r13)`; a general base register, not %rsp, no index, no
 * segment), *bytes wide? DWARF numbers. */
bool btfi_insn_store(struct btfi_insn_dec *d, int *base, int64_t *disp, uint32_t *bytes);

/* Does the instruction last decoded touch memory through an operand
 * (a load, a store, a read-modify-write such as `incl %gs:x` or `bt r,m`;
 * not lea, not a nop, not at %rsp: a spill is the caller's) or call? */
bool btfi_insn_mem(struct btfi_insn_dec *d);
/* Does the instruction last decoded read and write registers only (no
 * memory operand, explicit or implicit, no call, jump or return)? */
bool btfi_insn_regs_only(struct btfi_insn_dec *d);
/* dst = (src + off) as the instruction last decoded computes it
 * (btfi_insn_affine()): `bytes` of the result are written (4: zero-extended
 * to 64 bits); ext != 0: only src's low ext bytes are read, extended per
 * sgn (movzx, movsx, movsxd, mov r32, r32), off is then 0. */
struct btfi_insn_affine {
	int8_t dst, src;	/* DWARF numbers */
	uint8_t bytes, ext;
	bool sgn;
	int64_t off;
};

/* Does the instruction last decoded set a general register to another
 * one's value (the same one for add/sub/inc/dec) plus a constant, or
 * extended from its low bytes: lea disp(base) (no index, not rip), add or
 * sub $imm, inc, dec, movzx/movsx/movsxd/mov between registers? 32- and
 * 64-bit destinations only (narrower writes keep the upper bytes). */
bool btfi_insn_affine(struct btfi_insn_dec *d, struct btfi_insn_affine *out);

/* After instruction a, a value is the low `*size` bytes of a.dst extended
 * per *sgn (a location's narrowed read, docs/FORMAT.md): which read of
 * a.src + a.off before it gives the same value? *size and *sgn become
 * that read's; false if none does (a sign extension into 32 bits read as
 * 64, a signed read of an unsigned extension's upper bytes). */
bool btfi_insn_affine_read(const struct btfi_insn_affine *a, uint32_t *size, bool *sgn);

/* One instruction on a straight path, for btfi_insn_copy_source(). */
struct btfi_insn_step {
	uint32_t writes;		/* btfi_insn_writes() */
	int8_t copy_dst, copy_src;	/* btfi_insn_copy(), -1 if it is no copy */
	uint8_t copy_bytes;
	bool call;
};

/*
 * A value of `size` bytes is in general register reg after st[0..n) ran,
 * in that order: which register held it before st[0]? Walking back, a
 * copy into the register that holds it (mov R, R') moves the value to R';
 * any other write of it, or a call, loses it (-1). A 4-byte copy keeps
 * only values of at most 4 bytes.
 */
int btfi_insn_copy_source(const struct btfi_insn_step *st, uint32_t n, int reg, uint32_t size);

#endif
