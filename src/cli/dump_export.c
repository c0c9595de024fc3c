// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dump --format=perf` and `--format=bpftrace`: one probe per inline site
 * for perf probe or bpftrace, each argument read from its location at that
 * site. What the other tool cannot express is a comment naming the
 * argument and why, never a wrong value: an address (register + offset, no
 * load) is not written as perf's memory fetch of it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "btfinline.bpf.h"
#include "dump_export.h"

/* x86-64 DWARF registers 0-16 as pt_regs names without the r prefix: what
 * both perf's kprobe-tracer args (%di) and bpftrace's reg("di") take. */
static const char *const regs[] = { "ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip" };
#define NREGS (sizeof(regs) / sizeof(regs[0]))

/* How a parameter's value prints: its type through typedefs/modifiers. */
enum vclass { V_SIGNED, V_UNSIGNED, V_PTR, V_OTHER };

static enum vclass value_class(const struct btfinline *bi, uint32_t id)
{
	for (int depth = 0; depth < 16; depth++) {
		const struct btf_type *t = btfinline__type_by_id(bi, id);

		if (!t)
			return V_OTHER;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_INT:
			return btf_int_encoding(t) & BTF_INT_SIGNED ? V_SIGNED : V_UNSIGNED;
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return btf_kflag(t) ? V_SIGNED : V_UNSIGNED;
		case BTF_KIND_PTR:
			return V_PTR;
		default:
			return V_OTHER;
		}
	}
	return V_OTHER;
}

static bool scalar_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* A constant as the signed or unsigned value of its size. */
static void const_str(const struct btfi_loc *l, char *buf, size_t n)
{
	uint64_t v = l->cval;
	unsigned sh = l->size && l->size < 8 ? 64 - 8 * l->size : 0;

	if (l->is_signed)
		snprintf(buf, n, "%" PRId64, (int64_t)(v << sh) >> sh);
	else
		snprintf(buf, n, "%" PRIu64, sh ? v << sh >> sh : v);
}

/* Why the other tool gets no value for this location; NULL if it does. */
static const char *why_not(const struct btfi_loc *l, bool perf)
{
	switch (l->kind) {
	case BTFI_LOC_NONE:
		return "no location";
	case BTFI_LOC_KREG:
		return l->reg < 16 && scalar_size(l->size) ? NULL : "register perf has no name for";
	case BTFI_LOC_KMEM:
		return l->reg < 16 && scalar_size(l->size) ? NULL : "not a 1, 2, 4 or 8-byte value in memory";
	case BTFI_LOC_KCONST:
		return scalar_size(l->size) ? NULL : "constant wider than 8 bytes";
	case BTFI_LOC_KREG_OFF:
		return perf ? "an address: perf would read memory there" : l->reg < NREGS ? NULL : "unknown register";
	case BTFI_LOC_KADDR:
		return "an address rebased at run time";
	case BTFI_LOC_KREG_PAIR:
		return perf ? "16 bytes in two registers" : l->reg < 16 && l->reg2 < 16 ? NULL : "unknown register";
	default:
		return "unknown location kind";
	}
}

static const char *pname(const struct btfinline *bi, const struct export_site *s, int k)
{
	const char *n = k < s->nparams ? btfinline__name_by_offset(bi, s->params[k].name_off) : NULL;

	return n && *n ? n : "arg";
}

/* Comment naming the arguments left out: "x (why), y (why)". */
static void skipped(const struct btfinline *bi, const struct export_site *s, bool perf,
		    char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (int k = 0; k < s->nlocs && k < s->nparams && len < n; k++) {
		const char *w = why_not(&s->locs[k], perf);
		char loc[96];

		if (!w)
			continue;
		btfi_loc_snprintf(loc, sizeof(loc), &s->locs[k], 0);
		len += snprintf(buf + len, n - len, "%s%s=%s (%s)", len ? ", " : "", pname(bi, s, k), loc, w);
	}
}

/* ---- perf probe ---- */

void export_perf_header(const char *path, bool kernel, bool module)
{
	printf("# perf probe %s %s -a '<line>' for each line below\n",
	       module ? "-m" : kernel ? "-k" : "-x", path);
}

void export_perf_site(const struct btfinline *bi, const struct export_site *s)
{
	char line[2048], why[1024], ty[16], c[32];
	int len;

	if (!s->caller) {
		printf("# %s_%zu: no caller symbol at 0x%" PRIx64 ", perf cannot place it\n", s->func, s->idx, s->addr);
		return;
	}
	/* Every hit of a probe there would be an event, calls or not. */
	if (s->cond) {
		printf("# %s_%zu: %s+%" PRIu64 " is a branch into the body, a call only if %s: "
		       "perf probe cannot test the flags, left out\n", s->func, s->idx, s->caller,
		       s->caller_off, btfi_cc_str(s->cond - 1));
		return;
	}
	len = snprintf(line, sizeof(line), "%.40s_%zu=%s+%" PRIu64, s->func, s->idx, s->caller, s->caller_off);
	for (int k = 0; k < s->nlocs && k < s->nparams; k++) {
		const struct btfi_loc *l = &s->locs[k];
		char arg[128];

		if (why_not(l, true) || len >= (int)sizeof(line))
			continue;
		btfi_loc_type_str(l, ty, sizeof(ty));
		if (l->kind == BTFI_LOC_KREG)
			snprintf(arg, sizeof(arg), "%%%s:%s", regs[l->reg], ty);
		else if (l->kind == BTFI_LOC_KMEM)
			snprintf(arg, sizeof(arg), "%+lld(%%%s):%s", (long long)l->off, regs[l->reg], ty);
		else {	/* constant: perf's immediate */
			const_str(l, c, sizeof(c));
			snprintf(arg, sizeof(arg), "\\%s:%s", c, ty);
		}
		len += snprintf(line + len, sizeof(line) - len, " %s=%s", pname(bi, s, k), arg);
	}
	skipped(bi, s, true, why, sizeof(why));
	if (why[0])
		printf("# %s_%zu: perf cannot fetch: %s\n", s->func, s->idx, why);
	printf("%s\n", line);
}

/* ---- bpftrace ---- */

void export_bpftrace_header(const char *path, const char *target, bool kernel)
{
	printf("#!/usr/bin/env bpftrace\n"
	       "// btfinline dump --format=bpftrace %s: one probe per inline site, each\n"
	       "// argument read where .BTF.inline says it is there.%s\n"
	       "// A probe inside a function (SYM+OFF) needs a bpftrace with (k|u)probe offset\n"
	       "// support (built with libbfd, or ALLOW_UNSAFE_PROBE and --unsafe): Debian 12's\n"
	       "// 0.17 has neither and attaches only at a symbol's start. More than 512 probes:\n"
	       "// BPFTRACE_MAX_PROBES.\n",
	       path, kernel ? "" : "\n// Run: bpftrace THIS_FILE -c 'CMD' (or with -p PID).");
	(void)target;
}

/* The value of location l as a bpftrace expression, 64 bits wide. */
static bool bt_expr(const struct export_site *s, const struct btfi_loc *l, enum vclass vc,
		    char *buf, size_t n)
{
	const char *cast = vc == V_SIGNED ? "int64" : "uint64";
	char c[32], sized[16];
	int64_t off = l->off;

	snprintf(sized, sizeof(sized), "%sint%u", l->is_signed ? "" : "u", l->size * 8);
	switch (l->kind) {
	case BTFI_LOC_KREG:
		if (l->size == 8)
			snprintf(buf, n, "(%s)reg(\"%s\")", cast, regs[l->reg]);
		else	/* narrowed: the low bytes, extended by their own sign */
			snprintf(buf, n, "(%s)(%s)reg(\"%s\")", cast, sized, regs[l->reg]);
		return true;
	case BTFI_LOC_KMEM:
		snprintf(buf, n, "(%s)*(%s*)(reg(\"%s\") %c 0x%" PRIx64 ")", cast, sized, regs[l->reg],
			 off < 0 ? '-' : '+', off < 0 ? -(uint64_t)off : (uint64_t)off);
		return true;
	case BTFI_LOC_KREG_OFF:
		if (l->size && l->size < 8)
			snprintf(buf, n, "(%s)(%s)(reg(\"%s\") %c 0x%" PRIx64 ")", cast, sized, regs[l->reg],
				 off < 0 ? '-' : '+', off < 0 ? -(uint64_t)off : (uint64_t)off);
		else
			snprintf(buf, n, "(reg(\"%s\") %c 0x%" PRIx64 ")", regs[l->reg],
				 off < 0 ? '-' : '+', off < 0 ? -(uint64_t)off : (uint64_t)off);
		return true;
	case BTFI_LOC_KCONST:
		const_str(l, c, sizeof(c));
		snprintf(buf, n, "(%s)%s", cast, c);
		return true;
	case BTFI_LOC_KADDR:
		/* A uprobe stops at the site: ip - its link-time address is
		 * the load bias. (A kprobe's ip is not reliably the site.) */
		if (s->kernel)
			return false;
		snprintf(buf, n, "(reg(\"ip\") - 0x%" PRIx64 " + 0x%" PRIx64 ")", s->addr, l->cval);
		return true;
	case BTFI_LOC_KREG_PAIR:
		snprintf(buf, n, "reg(\"%s\"), reg(\"%s\")", regs[l->reg], regs[l->reg2]);
		return true;
	default:
		return false;
	}
}

/* A bpftrace predicate for x86 condition code cc on the flags at the probe
 * (btfi_cc_holds() of btfinline.bpf.h, in bpftrace's words). */
static void bt_cond(uint32_t cc, char *buf, size_t n)
{
	static const unsigned mask[6] = { BTFI_EFL_OF, BTFI_EFL_CF, BTFI_EFL_ZF,
					  BTFI_EFL_CF | BTFI_EFL_ZF, BTFI_EFL_SF, BTFI_EFL_PF };
	const char *lt = "((reg(\"flags\") >> 7) & 1) != ((reg(\"flags\") >> 11) & 1)";
	bool neg = cc & 1;

	cc = (cc & 0xf) >> 1;
	if (cc < 6)
		snprintf(buf, n, "(reg(\"flags\") & 0x%x) %s 0", mask[cc], neg ? "==" : "!=");
	else if (cc == 6)
		snprintf(buf, n, "%s(%s)", neg ? "!" : "", lt);
	else
		snprintf(buf, n, "%s((reg(\"flags\") & 0x%x) != 0 || %s)", neg ? "!" : "",
			 BTFI_EFL_ZF, lt);
}

void export_bpftrace_site(const struct btfinline *bi, const struct export_site *s)
{
	char fmt[1024], args[2048], why[1024], e[160], where[160], at[160], pred[200];
	size_t fl = 0, al = 0;

	/* Printed as `btfinline trace` names sites; attached without "+0x0"
	 * at a symbol's start, the one place every bpftrace accepts. */
	if (s->caller) {
		snprintf(where, sizeof(where), "%s+0x%" PRIx64, s->caller, s->caller_off);
		snprintf(at, sizeof(at), "%s", s->caller_off ? where : s->caller);
	} else if (!s->kernel) {
		snprintf(where, sizeof(where), "0x%" PRIx64, s->addr);
		snprintf(at, sizeof(at), "%s", where);
	} else {
		printf("\n// %s site %zu: no symbol at 0x%" PRIx64 ", kprobes need one\n", s->func, s->idx, s->addr);
		return;
	}
	fmt[0] = args[0] = 0;
	for (int k = 0; k < s->nlocs && k < s->nparams && fl < sizeof(fmt) && al < sizeof(args); k++) {
		const struct btfi_loc *l = &s->locs[k];
		enum vclass vc = value_class(bi, s->params[k].type);
		const char *conv;

		if (why_not(l, false) || !bt_expr(s, l, vc, e, sizeof(e))) {
			fl += snprintf(fmt + fl, sizeof(fmt) - fl, " %s=?", pname(bi, s, k));
			continue;
		}
		if (l->kind == BTFI_LOC_KREG_PAIR)
			conv = "0x%lx:0x%lx";
		else if (vc == V_SIGNED)
			conv = "%ld";
		else if (vc == V_UNSIGNED)
			conv = "%lu";
		else
			conv = "0x%lx";
		fl += snprintf(fmt + fl, sizeof(fmt) - fl, " %s=%s", pname(bi, s, k), conv);
		al += snprintf(args + al, sizeof(args) - al, ", %s", e);
	}
	skipped(bi, s, false, why, sizeof(why));
	printf("\n// %s site %zu: 0x%" PRIx64 " %s%s%s\n", s->func, s->idx, s->addr, where,
	       why[0] ? "; not read: " : "", why);
	if (s->kernel)
		printf("kprobe:%s\n", at);
	else
		printf("uprobe:%s:%s\n", s->target, at);
	/* A branch into the body: a call only when it is taken that way. */
	if (s->cond) {
		bt_cond(s->cond - 1, pred, sizeof(pred));
		printf("/%s/\n", pred);
	}
	printf("{\n\tprintf(\"%s %s%s\\n\"%s);\n}\n", s->func, where, fmt, args);
}
