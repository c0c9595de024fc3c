// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Argument locations -> BPF argument specs, and the SysV x86-64 calling
 * convention for the out-of-line entry of a function (from its FUNC_PROTO).
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "attach/attach.h"
#include "insn.h"

int btfi_loc_to_spec(const struct btfi_loc *loc, struct btfi_arg_spec *a, const char **why)
{
	memset(a, 0, sizeof(*a));
	*why = NULL;
	a->size = loc->size > 255 ? 255 : loc->size;
	a->is_signed = loc->is_signed;
	switch (loc->kind) {
	case BTFI_LOC_NONE:
		*why = btfi_reason_str(loc->reason);
		return -EOPNOTSUPP;
	case BTFI_LOC_KCONST:
		a->kind = BTFI_ARG_CONST;
		a->cval = loc->cval;
		return 0;
	case BTFI_LOC_KADDR:
		a->kind = BTFI_ARG_ADDR;
		a->cval = loc->cval;
		return 0;
	case BTFI_LOC_KREG:
		a->kind = BTFI_ARG_REG;
		break;
	case BTFI_LOC_KREG_PAIR:
		a->kind = BTFI_ARG_REG_PAIR;
		if (loc->reg2 > 16) {
			*why = "register not in pt_regs";
			return -EOPNOTSUPP;
		}
		a->reg2 = loc->reg2;
		break;
	case BTFI_LOC_KREG_OFF:
		a->kind = BTFI_ARG_REG_OFF;
		a->off = loc->off;
		break;
	case BTFI_LOC_KMEM:
		a->kind = BTFI_ARG_MEM;
		a->off = loc->off;
		break;
	default:
		*why = "unknown location kind";
		return -EOPNOTSUPP;
	}
	/* fb (frame base) and rip-less numbers beyond pt_regs cannot be read */
	if (loc->reg > 16) {
		*why = loc->reg == BTFI_REG_FBREG ? "frame base" : "register not in pt_regs";
		return -EOPNOTSUPP;
	}
	a->reg = loc->reg;
	return 0;
}

/* ---- SysV x86-64 classification ---- */

enum cls { C_NONE = 0, C_INT, C_SSE, C_MEM };

const struct btf_type *btfi_skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static enum cls merge(enum cls a, enum cls b)
{
	if (a == b || b == C_NONE)
		return a;
	if (a == C_NONE)
		return b;
	if (a == C_MEM || b == C_MEM)
		return C_MEM;
	if (a == C_INT || b == C_INT)
		return C_INT;
	return C_SSE;
}

/* Classify the eightbytes of type `id` placed at byte `off` of an aggregate. */
static int classify(const struct btf *btf, uint32_t id, uint32_t off, enum cls cls[2], int depth)
{
	const struct btf_type *t = btfi_skip_mods(btf, &id);
	int i;

	if (!t || depth > 16)
		return -EINVAL;
	if (btf_is_int(t) || btf_is_ptr(t) || btf_is_enum(t) || btf_is_enum64(t)) {
		uint32_t sz = btf_is_ptr(t) ? 8 : t->size;

		if (off / 8 > 1)
			return -E2BIG;
		cls[off / 8] = merge(cls[off / 8], C_INT);
		if (sz > 8 && off / 8 == 0)
			cls[1] = merge(cls[1], C_INT);
		return 0;
	}
	if (btf_is_float(t)) {
		if (t->size > 8) {	/* long double: x87, passed in memory */
			cls[0] = cls[1] = C_MEM;
			return 0;
		}
		if (off / 8 > 1)
			return -E2BIG;
		cls[off / 8] = merge(cls[off / 8], C_SSE);
		return 0;
	}
	if (btf_is_array(t)) {
		const struct btf_array *arr = btf_array(t);
		int64_t esz = btf__resolve_size(btf, arr->type);

		if (esz <= 0)
			return arr->nelems ? -EINVAL : 0;
		for (i = 0; i < (int)arr->nelems && i < 16; i++)
			if (classify(btf, arr->type, off + i * esz, cls, depth + 1))
				return -EINVAL;
		return 0;
	}
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		for (i = 0; i < btf_vlen(t); i++, m++) {
			uint32_t bit = btf_member_bit_offset(t, i);

			if (bit % 8 && !btf_member_bitfield_size(t, i))
				cls[0] = cls[1] = C_MEM;	/* unaligned */
			if (classify(btf, m->type, off + bit / 8, cls, depth + 1))
				return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}


/* Class of a whole argument/return value of type id: sets *n_int / *n_sse
 * to the registers it needs, or returns C_MEM. */
static enum cls arg_class(const struct btf *btf, uint32_t id, int *n_int, int *n_sse, int64_t *size)
{
	const struct btf_type *t = btfi_skip_mods(btf, &id);
	enum cls cls[2] = { C_NONE, C_NONE };
	int i;

	*n_int = *n_sse = 0;
	*size = btf__resolve_size(btf, id);
	if (!t || *size <= 0)
		return C_MEM;
	if (*size > 16 || classify(btf, id, 0, cls, 0))
		return C_MEM;
	if (cls[0] == C_MEM || cls[1] == C_MEM)
		return C_MEM;
	for (i = 0; i < (*size > 8 ? 2 : 1); i++) {
		if (cls[i] == C_SSE)
			(*n_sse)++;
		else
			(*n_int)++;	/* C_INT, or padding-only: INTEGER */
	}
	return *n_sse ? C_SSE : C_INT;
}

static bool type_signed(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btfi_skip_mods(btf, &id);

	if (!t)
		return false;
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return btf_kflag(t);
	return false;
}

int btfi_entry_locs(const struct btf *btf, uint32_t proto_id, struct btfi_loc *locs, int max)
{
	const struct btf_type *proto = btf__type_by_id(btf, proto_id);
	const struct btf_param *p;
	int gp = 0, sse = 0, n_int, n_sse, i, nparams;
	int64_t stack = 8, size;	/* [rsp] holds the return address at entry */
	uint32_t rid;

	if (!proto || !btf_is_func_proto(proto))
		return -EINVAL;
	/* A struct returned in memory takes rdi for the hidden pointer. */
	rid = proto->type;
	if (rid && arg_class(btf, rid, &n_int, &n_sse, &size) == C_MEM)
		gp = 1;

	nparams = btf_vlen(proto);
	p = btf_params(proto);
	if (nparams && !p[nparams - 1].type)
		nparams--;	/* varargs */
	for (i = 0; i < nparams; i++) {
		struct btfi_loc l = { 0 };
		enum cls c = arg_class(btf, p[i].type, &n_int, &n_sse, &size);

		l.size = size > 0 ? size : 0;
		l.is_signed = type_signed(btf, p[i].type);
		if (c != C_MEM && gp + n_int <= 6 && sse + n_sse <= 8) {
			if (n_sse) {
				/* xmm registers are not in pt_regs */
				l.kind = BTFI_LOC_NONE;
				l.reason = BTFI_R_UNSUPPORTED;
			} else if (n_int == 2) {
				l.kind = BTFI_LOC_KREG_PAIR;
				l.reg = btfi_sysv_int_regs[gp];
				l.reg2 = btfi_sysv_int_regs[gp + 1];
			} else {
				l.kind = BTFI_LOC_KREG;
				l.reg = btfi_sysv_int_regs[gp];
			}
			gp += n_int;
			sse += n_sse;
		} else {
			bool x87 = c == C_MEM && size == 16 && btf_is_float(btfi_skip_mods(btf, &(uint32_t){ p[i].type }));

			/* 16-byte slots align within the argument area,
			 * which starts at rsp+8 (after the return address) */
			if (x87 && (stack - 8) % 16)
				stack += 8;
			if (x87) {
				l.kind = BTFI_LOC_NONE;
				l.reason = BTFI_R_UNSUPPORTED;
			} else {
				l.kind = BTFI_LOC_KMEM;
				l.reg = 7;	/* rsp */
				l.off = stack;
			}
			stack += (l.size + 7) & ~7u;
		}
		if (i < max)
			locs[i] = l;
	}
	return nparams;
}
