// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* x86-64 instruction facts through capstone (insn.h). */
#include <errno.h>
#include <stdlib.h>
#include <capstone/capstone.h>
#include "insn.h"

struct btfi_insn_dec {
	csh h;
	cs_insn *insn;
};

int btfi_insn_dec_new(struct btfi_insn_dec **out)
{
	struct btfi_insn_dec *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK) {
		free(d);
		return -EINVAL;
	}
	cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->h);
	if (!d->insn) {
		cs_close(&d->h);
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void btfi_insn_dec_free(struct btfi_insn_dec *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->h);
	free(d);
}

static bool in_group(const cs_detail *dt, uint8_t g)
{
	for (uint8_t i = 0; i < dt->groups_count; i++)
		if (dt->groups[i] == g)
			return true;
	return false;
}

static uint8_t flow(const cs_insn *in, uint64_t *target)
{
	const cs_detail *dt = in->detail;
	const cs_x86 *x = &dt->x86;
	bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	*target = direct ? (uint64_t)x->operands[0].imm : 0;
	switch (in->id) {
	case X86_INS_UD2: case X86_INS_HLT: case X86_INS_INT3:
		return BTFI_FLOW_STOP;
	}
	if (in_group(dt, CS_GRP_RET) || in_group(dt, CS_GRP_IRET))
		return BTFI_FLOW_STOP;
	if (in_group(dt, CS_GRP_CALL))
		return BTFI_FLOW_CALL;
	if (in_group(dt, CS_GRP_JUMP)) {
		if (!direct)
			return BTFI_FLOW_IJUMP;
		return in->id == X86_INS_JMP ? BTFI_FLOW_JUMP : BTFI_FLOW_CJUMP;
	}
	return BTFI_FLOW_NEXT;
}

/* capstone's conditional jumps on EFLAGS -> x86 condition code */
static int8_t cond_code(unsigned id)
{
	static const uint16_t jcc[16] = {
		X86_INS_JO, X86_INS_JNO, X86_INS_JB, X86_INS_JAE, X86_INS_JE, X86_INS_JNE,
		X86_INS_JBE, X86_INS_JA, X86_INS_JS, X86_INS_JNS, X86_INS_JP, X86_INS_JNP,
		X86_INS_JL, X86_INS_JGE, X86_INS_JLE, X86_INS_JG,
	};

	for (int8_t k = 0; k < 16; k++)
		if (jcc[k] == id)
			return k;
	return -1;
}

int btfi_insn_decode(struct btfi_insn_dec *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct btfi_insn *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	const cs_x86 *x;

	*out = (struct btfi_insn){ .cc = -1 };
	if (!cs_disasm_iter(d->h, &p, &n, &a, d->insn))
		return -EINVAL;
	x = &d->insn->detail->x86;
	out->len = d->insn->size;
	out->nop = d->insn->id == X86_INS_NOP;
	out->flow = flow(d->insn, &out->target);
	out->cc = out->flow == BTFI_FLOW_CJUMP ? cond_code(d->insn->id) : -1;
	out->ret = in_group(d->insn->detail, CS_GRP_RET);
	if (x->prefix[0] == X86_PREFIX_LOCK)
		out->uprobe_refusal = "lock prefix";
	else if (x->prefix[1] == X86_PREFIX_CS || x->prefix[1] == X86_PREFIX_DS ||
		 x->prefix[1] == X86_PREFIX_ES || x->prefix[1] == X86_PREFIX_SS)
		out->uprobe_refusal = "segment-override prefix";
	return 0;
}

/* capstone register -> DWARF number of the general register it is part of */
static int gpr_dwarf(unsigned r)
{
	static const struct { uint16_t reg; int8_t dw; } map[] = {
#define R5(a, b, c, d, e, n) { X86_REG_##a, n }, { X86_REG_##b, n }, { X86_REG_##c, n }, \
			     { X86_REG_##d, n }, { X86_REG_##e, n }
		R5(RAX, EAX, AX, AL, AH, 0), R5(RDX, EDX, DX, DL, DH, 1),
		R5(RCX, ECX, CX, CL, CH, 2), R5(RBX, EBX, BX, BL, BH, 3),
		R5(RSI, ESI, SI, SIL, SIL, 4), R5(RDI, EDI, DI, DIL, DIL, 5),
		R5(RBP, EBP, BP, BPL, BPL, 6), R5(RSP, ESP, SP, SPL, SPL, 7),
		R5(R8, R8D, R8W, R8B, R8B, 8), R5(R9, R9D, R9W, R9B, R9B, 9),
		R5(R10, R10D, R10W, R10B, R10B, 10), R5(R11, R11D, R11W, R11B, R11B, 11),
		R5(R12, R12D, R12W, R12B, R12B, 12), R5(R13, R13D, R13W, R13B, R13B, 13),
		R5(R14, R14D, R14W, R14B, R14B, 14), R5(R15, R15D, R15W, R15B, R15B, 15),
#undef R5
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].reg == r)
			return map[i].dw;
	return -1;
}

/* capstone registers -> bits of the general registers' DWARF numbers */
static uint32_t gpr_mask(const uint16_t *regs, uint8_t n)
{
	uint32_t mask = 0;
	int r;

	for (uint8_t i = 0; i < n; i++)
		if ((r = gpr_dwarf(regs[i])) >= 0)
			mask |= 1u << r;
	return mask;
}

uint32_t btfi_insn_writes(struct btfi_insn_dec *d)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	uint32_t mask = 0;

	if (in_group(in->detail, CS_GRP_CALL))	/* SysV: rax rdx rcx rsi rdi r8-r11 */
		mask |= 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 5 | 0xf00 | BTFI_INSN_W_MEM;
	if (cs_regs_access(d->h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 0xffff | BTFI_INSN_W_MEM;
	mask |= gpr_mask(wr, nwr);
	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && (x->operands[i].access & CS_AC_WRITE))
			mask |= BTFI_INSN_W_MEM;
	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_PUSHFQ: case X86_INS_ENTER:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
		mask |= BTFI_INSN_W_MEM;
	}
	return mask;
}

uint32_t btfi_insn_reads(struct btfi_insn_dec *d)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (cs_regs_access(d->h, d->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 0xffff;
	return gpr_mask(rd, nrd);
}

bool btfi_insn_const(struct btfi_insn_dec *d, int *reg, uint64_t *val, bool *pcrel)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	*pcrel = false;
	if (x->op_count != 2 || o[0].type != X86_OP_REG || (*reg = gpr_dwarf(o[0].reg)) < 0 ||
	    (o[0].size != 4 && o[0].size != 8))
		return false;
	switch (in->id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (o[1].type != X86_OP_IMM)
			return false;
		*val = o[0].size == 4 ? (uint32_t)o[1].imm : (uint64_t)o[1].imm;
		return true;
	case X86_INS_XOR:
		if (o[1].type != X86_OP_REG || o[1].reg != o[0].reg)
			return false;
		*val = 0;
		return true;
	case X86_INS_LEA:
		if (o[0].size != 8 || o[1].type != X86_OP_MEM || o[1].mem.base != X86_REG_RIP ||
		    o[1].mem.index != X86_REG_INVALID)
			return false;
		*val = in->address + in->size + o[1].mem.disp;
		*pcrel = true;
		return true;
	}
	return false;
}

static uint32_t mix(uint32_t h, uint64_t v)
{
	h ^= (uint32_t)v ^ (uint32_t)(v >> 32);
	return h * 16777619u;
}

uint32_t btfi_insn_shape(struct btfi_insn_dec *d)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	/* a compare's operands in either order: GCC swaps them (and the
	 * condition) between copies, glibc's char_buffer_add in
	 * __vfscanf_internal: `cmp -0x468(%rbp),%rdx`, `cmp %rdx,-0x468(%rbp)` */
	bool unordered = in->id == X86_INS_CMP || in->id == X86_INS_TEST;
	uint32_t h = mix(2166136261u, in->id), sum = 0;

	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];
		uint32_t g = unordered ? 2166136261u : h;

		g = mix(mix(g, o->type), o->size);
		if (o->type == X86_OP_IMM && in->id != X86_INS_MOV && in->id != X86_INS_MOVABS &&
		    !in_group(in->detail, CS_GRP_JUMP) && !in_group(in->detail, CS_GRP_CALL))
			g = mix(g, (uint64_t)o->imm);
		if (o->type == X86_OP_MEM) {
			g = mix(mix(mix(g, o->mem.segment), o->mem.index != X86_REG_INVALID), o->mem.scale);
			if (o->mem.base != X86_REG_RIP)
				g = mix(g, (uint64_t)o->mem.disp);
		}
		if (unordered)
			sum += g;
		else
			h = g;
	}
	return unordered ? mix(h, sum) : h;
}

bool btfi_insn_copy(struct btfi_insn_dec *d, int *dst, int *src, uint32_t *bytes)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	if (in->id != X86_INS_MOV || x->op_count != 2 || o[0].type != X86_OP_REG ||
	    o[1].type != X86_OP_REG || o[0].size != o[1].size || (o[0].size != 4 && o[0].size != 8) ||
	    (*dst = gpr_dwarf(o[0].reg)) < 0 || (*src = gpr_dwarf(o[1].reg)) < 0)
		return false;
	*bytes = o[0].size;
	return true;
}

bool btfi_insn_load(struct btfi_insn_dec *d, int *dst, int *base, int64_t *disp,
		    uint32_t *bytes, bool *sgn)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	if (x->op_count != 2 || o[0].type != X86_OP_REG || o[1].type != X86_OP_MEM ||
	    (o[0].size != 4 && o[0].size != 8) || o[1].mem.segment != X86_REG_INVALID ||
	    o[1].mem.index != X86_REG_INVALID || (*dst = gpr_dwarf(o[0].reg)) < 0 ||
	    (*base = gpr_dwarf(o[1].mem.base)) < 0)
		return false;
	switch (in->id) {
	case X86_INS_MOV:
		if (o[1].size != o[0].size)
			return false;
		*sgn = false;
		break;
	case X86_INS_MOVZX:
		*sgn = false;
		break;
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		*sgn = true;
		break;
	default:
		return false;
	}
	if (o[1].size != 1 && o[1].size != 2 && o[1].size != 4 && o[1].size != 8)
		return false;
	*bytes = o[1].size;
	*disp = o[1].mem.disp;
	return true;
}

bool btfi_insn_store(struct btfi_insn_dec *d, int *base, int64_t *disp, uint32_t *bytes)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;

	if (in_group(in->detail, CS_GRP_CALL) || in->id == X86_INS_LEA || in->id == X86_INS_NOP)
		return false;
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type != X86_OP_MEM || !(o->access & CS_AC_WRITE))
			continue;
		if (o->mem.segment != X86_REG_INVALID || o->mem.index != X86_REG_INVALID ||
		    o->mem.base == X86_REG_RSP || (*base = gpr_dwarf(o->mem.base)) < 0)
			return false;
		*disp = o->mem.disp;
		*bytes = o->size;
		return true;
	}
	return false;
}

bool btfi_insn_mem(struct btfi_insn_dec *d)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;

	if (in_group(in->detail, CS_GRP_CALL))
		return true;
	if (in->id == X86_INS_LEA || in->id == X86_INS_NOP)
		return false;
	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].access &&
		    x->operands[i].mem.base != X86_REG_RSP)
			return true;
	return false;
}

bool btfi_insn_regs_only(struct btfi_insn_dec *d)
{
	const cs_insn *in = d->insn;
	const cs_detail *dt = in->detail;
	const cs_x86 *x = &dt->x86;

	if (in_group(dt, CS_GRP_CALL) || in_group(dt, CS_GRP_JUMP) || in_group(dt, CS_GRP_RET) ||
	    in->id == X86_INS_NOP || !x->op_count)
		return false;
	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM)
			return false;
	/* push, pop, string instructions: memory through implicit registers */
	for (uint8_t i = 0; i < dt->regs_read_count; i++)
		if (dt->regs_read[i] == X86_REG_RSP || dt->regs_read[i] == X86_REG_RSI ||
		    dt->regs_read[i] == X86_REG_RDI)
			return false;
	for (uint8_t i = 0; i < dt->regs_write_count; i++)
		if (dt->regs_write[i] == X86_REG_RSP)
			return false;
	return true;
}

bool btfi_insn_affine(struct btfi_insn_dec *d, struct btfi_insn_affine *out)
{
	const cs_insn *in = d->insn;
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;
	int dst, src;

	if (!x->op_count || o[0].type != X86_OP_REG || (o[0].size != 4 && o[0].size != 8) ||
	    (dst = gpr_dwarf(o[0].reg)) < 0)
		return false;
	*out = (struct btfi_insn_affine){ .dst = dst, .src = dst, .bytes = o[0].size };
	switch (in->id) {
	case X86_INS_INC:
	case X86_INS_DEC:
		if (x->op_count != 1)
			return false;
		out->off = in->id == X86_INS_INC ? 1 : -1;
		return true;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (x->op_count != 2 || o[1].type != X86_OP_IMM)
			return false;
		out->off = in->id == X86_INS_ADD ? o[1].imm : -o[1].imm;
		return true;
	case X86_INS_LEA:
		if (x->op_count != 2 || o[1].type != X86_OP_MEM ||
		    o[1].mem.segment != X86_REG_INVALID || o[1].mem.index != X86_REG_INVALID ||
		    (src = gpr_dwarf(o[1].mem.base)) < 0)
			return false;
		out->src = src;
		out->off = o[1].mem.disp;
		return true;
	case X86_INS_MOV:
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (x->op_count != 2 || o[1].type != X86_OP_REG || (src = gpr_dwarf(o[1].reg)) < 0 ||
		    (o[1].size != 1 && o[1].size != 2 && o[1].size != 4 && o[1].size != 8) ||
		    o[1].reg == X86_REG_AH || o[1].reg == X86_REG_BH || o[1].reg == X86_REG_CH ||
		    o[1].reg == X86_REG_DH)	/* bits 8-15: not the low byte */
			return false;
		out->src = src;
		if (o[1].size < 8) {
			out->ext = o[1].size < o[0].size ? o[1].size : o[0].size;
			out->sgn = in->id == X86_INS_MOVSX || in->id == X86_INS_MOVSXD;
		}
		return true;
	}
	return false;
}

bool btfi_insn_affine_read(const struct btfi_insn_affine *a, uint32_t *size, bool *sgn)
{
	uint32_t n = *size ? *size : 8;

	if (n > 8)
		return false;
	if (a->ext && n > a->ext) {
		/* src's low ext bytes extended per a->sgn to a->bytes, zero above */
		if (a->sgn && (n > a->bytes || (!*sgn && n < 8)))
			return false;
		*size = a->ext;
		*sgn = a->sgn;
	} else if (!a->ext && n > a->bytes) {	/* a 32-bit sum, zero-extended */
		*size = a->bytes;
		*sgn = false;
	}
	return true;
}

int btfi_insn_copy_source(const struct btfi_insn_step *st, uint32_t n, int reg, uint32_t size)
{
	if (reg < 0 || reg > 15)
		return -1;
	for (uint32_t j = n; j-- > 0;) {
		if (st[j].call)
			return -1;
		if (!(st[j].writes >> reg & 1))
			continue;
		if (st[j].copy_dst != reg || st[j].copy_src < 0 ||
		    (st[j].copy_bytes != 8 && !(st[j].copy_bytes == 4 && size && size <= 4)))
			return -1;
		reg = st[j].copy_src;
	}
	return reg;
}

const uint8_t btfi_sysv_int_regs[6] = { 5, 4, 1, 2, 8, 9 };

bool btfi_sysv_is_int_reg(uint32_t r)
{
	for (int i = 0; i < 6; i++)
		if (btfi_sysv_int_regs[i] == r)
			return true;
	return false;
}
