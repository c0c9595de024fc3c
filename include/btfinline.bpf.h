/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * btfinline BPF side: read the arguments of an inlined function at one of
 * its sites, in the spirit of libbpf's usdt.bpf.h.
 *
 * User space (btfinline_attach_uprobe/_kprobe) stores one struct
 * btfi_site_spec per attached site in the map `btfi_specs`, keyed by the
 * attach cookie; the BPF program calls bpf_inline_arg(ctx, n, &val).
 *
 * A tracer must first call bpf_inline_site_is_call(ctx) and return when it
 * is 0: some sites are a conditional branch of the caller's that enters
 * the inlined body (docs/FORMAT.md, "Sites on a branch"); such a probe
 * fires on every pass over the branch, and only the hits where the branch
 * goes into the body are calls.
 *
 * The spec layout part of this header is shared with user space (it is
 * plain C with __u* types); the helpers are compiled only for BPF.
 */
#ifndef __BTFINLINE_BPF_H__
#define __BTFINLINE_BPF_H__

#include <linux/types.h>

#define BTFI_MAX_ARGS		12	/* like usdt: more is rare for inlines */
#define BTFI_MAX_STEPS		4	/* arg->a->b->c->d */
#define BTFI_SPECS_MAX		4096	/* default btfi_specs capacity */

enum btfi_arg_kind {
	BTFI_ARG_NONE = 0,	/* no location at this site */
	BTFI_ARG_REG,		/* reg */
	BTFI_ARG_REG_PAIR,	/* 16 bytes: reg (low), reg2 (high) */
	BTFI_ARG_REG_OFF,	/* reg + off, not dereferenced */
	BTFI_ARG_MEM,		/* size bytes at reg + off */
	BTFI_ARG_CONST,		/* cval */
	BTFI_ARG_ADDR,		/* cval + (runtime ip - spec vaddr): rebased */
};

/* One field access after the argument value: value = *(value + off). */
struct btfi_step {
	__s32 off;
	__u8 size;		/* bytes to load (<= 16); 0: address only */
	__u8 is_signed;
	__u16 _pad;
};

struct btfi_arg_spec {
	__u8 kind;		/* enum btfi_arg_kind */
	__u8 size;		/* bytes of the value; MEM reads at most 16 */
	__u8 is_signed;
	__u8 reg;		/* DWARF register number */
	__u8 reg2;
	__u8 nsteps;		/* field chain length, <= BTFI_MAX_STEPS */
	__u8 str;		/* consumer hint: value is a char pointer */
	__u8 _pad;
	__s64 off;
	__u64 cval;
	struct btfi_step steps[BTFI_MAX_STEPS];
};

#define BTFI_SPEC_KERNEL	0x1	/* read memory with probe_read_kernel */
/* The site is a conditional branch (jcc) of the caller's: a hit is a call
 * only when x86 condition code BTFI_SPEC_CC(flags) holds on the flags at
 * the probe (before the jcc runs). */
#define BTFI_SPEC_COND		0x2
/* The site is an out-of-line function's first instruction: the return
 * address is at the stack pointer (bpf_inline_site_ret()). */
#define BTFI_SPEC_ENTRY		0x4
#define BTFI_SPEC_CC_SHIFT	8	/* flags bits 8-11: the condition code */
#define BTFI_SPEC_CC(flags)	(((flags) >> BTFI_SPEC_CC_SHIFT) & 0xf)
#define BTFI_SPEC_CC_FLAGS(cc)	(BTFI_SPEC_COND | ((__u32)(cc) & 0xf) << BTFI_SPEC_CC_SHIFT)

/* EFLAGS bits the condition codes read. */
#define BTFI_EFL_CF		0x001
#define BTFI_EFL_PF		0x004
#define BTFI_EFL_ZF		0x040
#define BTFI_EFL_SF		0x080
#define BTFI_EFL_OF		0x800

/*
 * Does x86 condition code cc (the low nibble of a jcc's opcode: 0 o, 1 no,
 * 2 b, 3 ae, 4 e, 5 ne, 6 be, 7 a, 8 s, 9 ns, 10 p, 11 np, 12 l, 13 ge,
 * 14 le, 15 g) hold on eflags? 1 or 0. Odd codes negate the even one
 * before them. Plain C: the BPF helper below and user space share it.
 */
static inline __attribute__((always_inline)) int btfi_cc_holds(__u64 eflags, __u32 cc)
{
	int cf = !!(eflags & BTFI_EFL_CF), pf = !!(eflags & BTFI_EFL_PF);
	int zf = !!(eflags & BTFI_EFL_ZF), sf = !!(eflags & BTFI_EFL_SF);
	int of = !!(eflags & BTFI_EFL_OF), r;

	switch ((cc & 0xf) >> 1) {
	case 0: r = of; break;			/* o */
	case 1: r = cf; break;			/* b */
	case 2: r = zf; break;			/* e */
	case 3: r = cf | zf; break;		/* be */
	case 4: r = sf; break;			/* s */
	case 5: r = pf; break;			/* p */
	case 6: r = sf != of; break;		/* l */
	default: r = zf | (sf != of); break;	/* le */
	}
	return r ^ (int)(cc & 1);
}

struct btfi_site_spec {
	__u32 nargs;
	__u32 flags;
	__u64 vaddr;		/* link-time probe address (ADDR rebasing) */
	__u64 user;		/* caller's tag (the CLI: its site index) */
	struct btfi_arg_spec args[BTFI_MAX_ARGS];
};

#define BTFI_SPECS_MAP_NAME	"btfi_specs"

#ifdef __bpf__

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#ifndef ENOENT
#define ENOENT 2
#endif
#ifndef ESRCH
#define ESRCH 3
#endif
#ifndef EINVAL
#define EINVAL 22
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BTFI_SPECS_MAX);
	__type(key, __u64);
	__type(value, struct btfi_site_spec);
} btfi_specs SEC(".maps");

/* pt_regs field names differ between vmlinux.h/kernel and the UAPI header. */
#if defined(__KERNEL__) || defined(__VMLINUX_H__)
#define __BTFI_R(k, u) k
#else
#define __BTFI_R(k, u) u
#endif

/* DWARF x86-64 register number -> offset in struct pt_regs. */
static __always_inline int __btfi_reg_off(__u32 reg)
{
	switch (reg) {
	case 0: return __builtin_offsetof(struct pt_regs, __BTFI_R(ax, rax));
	case 1: return __builtin_offsetof(struct pt_regs, __BTFI_R(dx, rdx));
	case 2: return __builtin_offsetof(struct pt_regs, __BTFI_R(cx, rcx));
	case 3: return __builtin_offsetof(struct pt_regs, __BTFI_R(bx, rbx));
	case 4: return __builtin_offsetof(struct pt_regs, __BTFI_R(si, rsi));
	case 5: return __builtin_offsetof(struct pt_regs, __BTFI_R(di, rdi));
	case 6: return __builtin_offsetof(struct pt_regs, __BTFI_R(bp, rbp));
	case 7: return __builtin_offsetof(struct pt_regs, __BTFI_R(sp, rsp));
	case 8: return __builtin_offsetof(struct pt_regs, r8);
	case 9: return __builtin_offsetof(struct pt_regs, r9);
	case 10: return __builtin_offsetof(struct pt_regs, r10);
	case 11: return __builtin_offsetof(struct pt_regs, r11);
	case 12: return __builtin_offsetof(struct pt_regs, r12);
	case 13: return __builtin_offsetof(struct pt_regs, r13);
	case 14: return __builtin_offsetof(struct pt_regs, r14);
	case 15: return __builtin_offsetof(struct pt_regs, r15);
	case 16: return __builtin_offsetof(struct pt_regs, __BTFI_R(ip, rip));
	default: return -EINVAL;
	}
}

/* Register value. clang folds a switch of ctx field loads into one load at
 * a computed offset, which the verifier rejects (modified ctx pointer); like
 * usdt.bpf.h, read pt_regs (kernel memory) with probe_read_kernel instead. */
static __always_inline int __btfi_reg(struct pt_regs *ctx, __u32 reg, __u64 *out)
{
	int off = __btfi_reg_off(reg);

	if (off < 0)
		return off;
	return bpf_probe_read_kernel(out, sizeof(*out), (void *)ctx + off);
}

static __always_inline int __btfi_read(void *dst, __u32 size, __u64 addr, __u32 flags)
{
	if (size > 16)
		size = 16;
	if (flags & BTFI_SPEC_KERNEL)
		return bpf_probe_read_kernel(dst, size, (const void *)addr);
	return bpf_probe_read_user(dst, size, (const void *)addr);
}

static __always_inline void __btfi_extend(__u64 *v, __u32 size, int is_signed)
{
	__u32 sh;

	if (size == 0 || size >= 8)
		return;
	sh = 64 - size * 8;
	if (is_signed)
		*v = (__u64)((__s64)(*v << sh) >> sh);
	else
		*v = (*v << sh) >> sh;
}

/* Evaluate one argument into v[0] (and v[1] for 16-byte values). */
static __always_inline int __btfi_eval(struct pt_regs *ctx, const struct btfi_site_spec *spec,
				       const struct btfi_arg_spec *a, __u64 v[2])
{
	__u64 base = 0;
	__u32 i, sz;
	int err;

	v[0] = v[1] = 0;
	switch (a->kind) {
	case BTFI_ARG_REG:
		if (__btfi_reg(ctx, a->reg, &v[0]))
			return -EINVAL;
		break;
	case BTFI_ARG_REG_PAIR:
		if (__btfi_reg(ctx, a->reg, &v[0]) || __btfi_reg(ctx, a->reg2, &v[1]))
			return -EINVAL;
		break;
	case BTFI_ARG_REG_OFF:
		if (__btfi_reg(ctx, a->reg, &base))
			return -EINVAL;
		v[0] = base + a->off;
		break;
	case BTFI_ARG_MEM:
		if (__btfi_reg(ctx, a->reg, &base))
			return -EINVAL;
		err = __btfi_read(v, a->size, base + a->off, spec->flags);
		if (err)
			return err;
		break;
	case BTFI_ARG_CONST:
		v[0] = a->cval;
		break;
	case BTFI_ARG_ADDR:
		v[0] = a->cval + (PT_REGS_IP(ctx) - spec->vaddr);
		break;
	default:
		return -ENOENT;
	}
	/* The value has the parameter's size (or a narrower one: GCC's
	 * conversion idioms), also for a computed reg + off. */
	if (a->kind != BTFI_ARG_ADDR)
		__btfi_extend(&v[0], a->size, a->is_signed);

	for (i = 0; i < BTFI_MAX_STEPS; i++) {
		const struct btfi_step *s = &a->steps[i];

		if (i >= a->nsteps)
			break;
		base = v[0] + s->off;
		sz = s->size;
		if (!sz) {
			v[0] = base;
			v[1] = 0;
			continue;
		}
		v[0] = v[1] = 0;
		err = __btfi_read(v, sz, base, spec->flags);
		if (err)
			return err;
		__btfi_extend(&v[0], sz, s->is_signed);
	}
	return 0;
}

static __always_inline const struct btfi_site_spec *__btfi_spec(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	return bpf_map_lookup_elem(&btfi_specs, &cookie);
}

/* Is this hit of the site with spec `spec` a call? See bpf_inline_site_is_call(). */
static __always_inline int __btfi_is_call(struct pt_regs *ctx, const struct btfi_site_spec *spec)
{
	if (!(spec->flags & BTFI_SPEC_COND))
		return 1;
	/* A fixed ctx offset: a plain load the verifier takes. */
	return btfi_cc_holds(ctx->__BTFI_R(flags, eflags), BTFI_SPEC_CC(spec->flags));
}

/* 1 when this hit is a call of the inlined function: the site has no
 * condition, or its condition holds on the flags at the probe (the branch
 * goes into the body); 0 when it is not (the branch goes elsewhere: return
 * without counting or emitting); -ESRCH when no spec is attached. */
static __always_inline int bpf_inline_site_is_call(struct pt_regs *ctx)
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);

	return spec ? __btfi_is_call(ctx, spec) : -ESRCH;
}

/* The return address of a hit at an out-of-line entry (*ret); the call
 * is the instruction before it. -ENOENT at an inline site (the call's
 * place is the site: its "where"), -ESRCH when no spec is attached. */
static __always_inline int __btfi_ret(struct pt_regs *ctx, const struct btfi_site_spec *spec,
				      __u64 *ret)
{
	__u64 sp;
	int err;

	*ret = 0;
	if (!(spec->flags & BTFI_SPEC_ENTRY))
		return -ENOENT;
	err = __btfi_reg(ctx, 7, &sp);
	return err ? err : __btfi_read(ret, sizeof(*ret), sp, spec->flags);
}

static __always_inline int bpf_inline_site_ret(struct pt_regs *ctx, __u64 *ret)
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);

	*ret = 0;
	return spec ? __btfi_ret(ctx, spec, ret) : -ESRCH;
}

/* Number of arguments of the function at this site, or -ESRCH. */
static __always_inline int bpf_inline_arg_cnt(struct pt_regs *ctx)
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);

	return spec ? (int)spec->nargs : -ESRCH;
}

/* Argument n (0-based), sign/zero-extended to 64 bits (the low 8 bytes of a
 * 16-byte value). -ENOENT: no location at this site. */
static __always_inline int bpf_inline_arg(struct pt_regs *ctx, __u64 n, long *res)
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);
	__u64 v[2];
	int err;

	*res = 0;
	if (!spec)
		return -ESRCH;
	if (n >= BTFI_MAX_ARGS || n >= spec->nargs)
		return -ENOENT;
	err = __btfi_eval(ctx, spec, &spec->args[n], v);
	*res = (long)v[0];
	return err;
}

/* Both halves of a value of up to 16 bytes (register pairs, small structs). */
static __always_inline int bpf_inline_arg16(struct pt_regs *ctx, __u64 n, __u64 res[2])
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);

	res[0] = res[1] = 0;
	if (!spec)
		return -ESRCH;
	if (n >= BTFI_MAX_ARGS || n >= spec->nargs)
		return -ENOENT;
	return __btfi_eval(ctx, spec, &spec->args[n], res);
}

/* The caller's tag stored with the spec (0 if none). */
static __always_inline __u64 bpf_inline_site_tag(struct pt_regs *ctx)
{
	const struct btfi_site_spec *spec = __btfi_spec(ctx);

	return spec ? spec->user : 0;
}

#endif /* __bpf__ */
#endif /* __BTFINLINE_BPF_H__ */
