// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Attach core without the kernel: the SysV x86-64 classifier that gives the
 * argument locations at a function's out-of-line entry (argspec.c), the
 * location -> BPF spec translation, and the all-or-none refusal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "attach/attach.h"
#include "check.h"

static char logged[1024];

static void log_fn(void *ctx, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

/* expected location of one parameter */
struct want { int kind; uint32_t reg, reg2; int64_t off; uint32_t size; bool sgn; };
#define REG(r, sz, s)		{ BTFI_LOC_KREG, r, 0, 0, sz, s }
#define PAIR(r, r2, sz)		{ BTFI_LOC_KREG_PAIR, r, r2, 0, sz, false }
#define STK(o, sz, s)		{ BTFI_LOC_KMEM, 7, 0, o, sz, s }
#define NONE(sz)		{ BTFI_LOC_NONE, 0, 0, 0, sz, false }
enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9 };

static void check_proto(const char *name, struct btf *btf, int proto, const struct want *w, int n)
{
	struct btfi_loc l[16];
	int got = btfi_entry_locs(btf, proto, l, 16);

	CHECK(got == n, "%s: %d params, want %d", name, got, n);
	for (int i = 0; i < n && i < got; i++) {
		const struct btfi_loc *x = &l[i];

		CHECK(x->kind == w[i].kind, "%s arg %d: kind %s, want %s", name, i,
		      btfi_loc_kind_str(x->kind), btfi_loc_kind_str(w[i].kind));
		CHECK(x->size == w[i].size, "%s arg %d: size %u, want %u", name, i, x->size, w[i].size);
		if (x->kind != w[i].kind)
			continue;
		if (w[i].kind == BTFI_LOC_NONE)
			continue;
		CHECK(x->reg == w[i].reg, "%s arg %d: reg %s, want %s", name, i,
		      btfi_reg_name(x->reg), btfi_reg_name(w[i].reg));
		if (w[i].kind == BTFI_LOC_KREG_PAIR)
			CHECK(x->reg2 == w[i].reg2, "%s arg %d: reg2 %s, want %s", name, i,
			      btfi_reg_name(x->reg2), btfi_reg_name(w[i].reg2));
		if (w[i].kind == BTFI_LOC_KMEM)
			CHECK(x->off == w[i].off, "%s arg %d: [rsp+%lld], want [rsp+%lld]", name, i,
			      (long long)x->off, (long long)w[i].off);
		CHECK(x->is_signed == w[i].sgn, "%s arg %d: signed %d, want %d", name, i,
		      x->is_signed, w[i].sgn);
	}
}

static int proto(struct btf *btf, int ret, const int *types, int n)
{
	int id = btf__add_func_proto(btf, ret);

	for (int i = 0; i < n; i++)
		btf__add_func_param(btf, "", types[i]);
	return id;
}

static void test_sysv(void)
{
	struct btf *btf = btf__new_empty();
	int t_long, t_int, t_uint, t_char, t_charp, t_double, t_ldouble, t_pair, t_big, t_mixed,
	    t_enum, t_s3, t_cint, p;

	t_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t_uint = btf__add_int(btf, "unsigned int", 4, 0);
	t_char = btf__add_int(btf, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	t_charp = btf__add_ptr(btf, t_char);
	t_double = btf__add_float(btf, "double", 8);
	t_ldouble = btf__add_float(btf, "long double", 16);
	t_pair = btf__add_struct(btf, "pair", 16);	/* two longs: INTEGER x2 */
	btf__add_field(btf, "lo", t_long, 0, 0);
	btf__add_field(btf, "hi", t_long, 64, 0);
	t_big = btf__add_struct(btf, "big", 48);	/* > 16 bytes: MEMORY */
	btf__add_field(btf, "v", btf__add_array(btf, t_int, t_long, 6), 0, 0);
	t_mixed = btf__add_struct(btf, "mixed", 16);	/* SSE + INTEGER */
	btf__add_field(btf, "d", t_double, 0, 0);
	btf__add_field(btf, "l", t_long, 64, 0);
	t_enum = btf__add_enum(btf, "e", 4);
	btf__add_enum_value(btf, "E0", 0);
	t_s3 = btf__add_struct(btf, "s3", 3);		/* small aggregate: one INTEGER eightbyte */
	btf__add_field(btf, "a", t_char, 0, 0);
	btf__add_field(btf, "b", t_char, 8, 0);
	btf__add_field(btf, "c", t_char, 16, 0);
	t_cint = btf__add_const(btf, btf__add_typedef(btf, "myint", t_int));
	CHECK(t_cint > 0, "btf build failed: %d", t_cint);

	{	/* f(long, int, char *, struct pair, long, long): pair takes rcx:r8 */
		int ty[] = { t_long, t_int, t_charp, t_pair, t_long, t_long };
		struct want w[] = { REG(RDI, 8, true), REG(RSI, 4, true), REG(RDX, 8, false),
				    PAIR(RCX, R8, 16), REG(R9, 8, true), STK(8, 8, true) };

		p = proto(btf, t_long, ty, 6);
		check_proto("ints+pair", btf, p, w, 6);
	}
	{	/* 5 longs, then a pair that does not fit in r9 alone goes to the
		 * stack; the next long still gets r9 */
		int ty[] = { t_long, t_long, t_long, t_long, t_long, t_pair, t_long, t_int };
		struct want w[] = { REG(RDI, 8, true), REG(RSI, 8, true), REG(RDX, 8, true),
				    REG(RCX, 8, true), REG(R8, 8, true), STK(8, 16, false),
				    REG(R9, 8, true), STK(24, 4, true) };

		p = proto(btf, 0, ty, 8);
		check_proto("pair-spill", btf, p, w, 8);
	}
	{	/* returns struct big: hidden pointer in rdi shifts the args */
		int ty[] = { t_long, t_uint };
		struct want w[] = { REG(RSI, 8, true), REG(RDX, 4, false) };

		p = proto(btf, t_big, ty, 2);
		check_proto("sret", btf, p, w, 2);
	}
	{	/* big by value in memory, doubles in xmm (unreadable), ints go on */
		int ty[] = { t_big, t_int, t_double, t_mixed, t_long, t_s3, t_enum, t_cint };
		struct want w[] = { STK(8, 48, false), REG(RDI, 4, true), NONE(8), NONE(16),
				    REG(RDX, 8, true), REG(RCX, 3, false), REG(R8, 4, false),
				    REG(R9, 4, true) };

		p = proto(btf, t_int, ty, 8);
		check_proto("mem+sse", btf, p, w, 8);
	}
	{	/* long double: x87 class, memory, 16-byte aligned slot */
		int ty[] = { t_long, t_long, t_long, t_long, t_long, t_long, t_long, t_ldouble, t_long };
		struct want w[] = { REG(RDI, 8, true), REG(RSI, 8, true), REG(RDX, 8, true),
				    REG(RCX, 8, true), REG(R8, 8, true), REG(R9, 8, true),
				    STK(8, 8, true), NONE(16), STK(40, 8, true) };

		p = proto(btf, t_long, ty, 9);
		check_proto("x87", btf, p, w, 9);
	}
	{	/* varargs: the trailing void param is not an argument */
		p = btf__add_func_proto(btf, t_int);
		btf__add_func_param(btf, "fmt", t_charp);
		btf__add_func_param(btf, NULL, 0);
		{
			struct want w[] = { REG(RDI, 8, false) };

			check_proto("varargs", btf, p, w, 1);
		}
	}
	CHECK(btfi_entry_locs(btf, t_long, NULL, 0) == -EINVAL, "non-proto id accepted");
	btf__free(btf);
}

static void test_loc_to_spec(void)
{
	struct btfi_arg_spec a;
	const char *why;
	struct btfi_loc l = { .kind = BTFI_LOC_KMEM, .size = 4, .is_signed = 1, .reg = 7, .off = -24 };

	CHECK(!btfi_loc_to_spec(&l, &a, &why) && a.kind == BTFI_ARG_MEM && a.reg == 7 &&
	      a.off == -24 && a.size == 4 && a.is_signed == 1, "mem rsp-24");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KREG_PAIR, .size = 16, .reg = 2, .reg2 = 8 };
	CHECK(!btfi_loc_to_spec(&l, &a, &why) && a.kind == BTFI_ARG_REG_PAIR && a.reg == 2 &&
	      a.reg2 == 8, "pair rcx:r8");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KCONST, .size = 8, .cval = 0xfffffffffffffff0ull, .is_signed = 1 };
	CHECK(!btfi_loc_to_spec(&l, &a, &why) && a.kind == BTFI_ARG_CONST &&
	      a.cval == 0xfffffffffffffff0ull && a.is_signed, "const -16");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KADDR, .size = 8, .cval = 0x4010 };
	CHECK(!btfi_loc_to_spec(&l, &a, &why) && a.kind == BTFI_ARG_ADDR && a.cval == 0x4010, "addr");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KREG_OFF, .size = 8, .reg = 6, .off = 5 };
	CHECK(!btfi_loc_to_spec(&l, &a, &why) && a.kind == BTFI_ARG_REG_OFF && a.reg == 6 &&
	      a.off == 5, "rbp+5");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KMEM, .size = 8, .reg = BTFI_REG_FBREG, .off = 8 };
	CHECK(btfi_loc_to_spec(&l, &a, &why) == -EOPNOTSUPP && why && !strcmp(why, "frame base"),
	      "fbreg refused: %s", why ? why : "(null)");
	l = (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 8, .reg = 17 };	/* xmm0 */
	CHECK(btfi_loc_to_spec(&l, &a, &why) == -EOPNOTSUPP, "xmm0 refused");
	l = (struct btfi_loc){ .kind = BTFI_LOC_NONE, .reason = BTFI_R_ENTRY_VALUE };
	CHECK(btfi_loc_to_spec(&l, &a, &why) == -EOPNOTSUPP && why &&
	      !strcmp(why, btfi_reason_str(BTFI_R_ENTRY_VALUE)), "none: reason %s", why ? why : "(null)");
}

/* All-or-none refuses before touching the program, naming site and arg. */
static void test_policy(void)
{
	BTFI_OPTS(btfi_attach_core_opts, co, .log = { .fn = log_fn });
	struct btfi_loc locs[2] = {
		{ .kind = BTFI_LOC_KREG, .size = 8, .reg = 5 },
		{ .kind = BTFI_LOC_NONE, .reason = BTFI_R_ENTRY_VALUE },
	};
	const char *names[2] = { "v", "k" };
	struct btfi_attach_site s[2] = {
		{ .func = "scale", .label = "main+0x93", .vaddr = 0x1113, .nargs = 2,
		  .locs = locs, .arg_names = names },
		{ .func = "scale", .label = "main+0x200", .vaddr = 0x1280, .nargs = 1,
		  .locs = locs, .arg_names = names },
	};
	struct btfinline_link *link = (void *)1;
	int err;

	logged[0] = 0;
	err = btfi_attach_sites(NULL, -1, "bin", s, 2, &co, &link);
	CHECK(err == -ENOENT && link == NULL, "refusal: err %d", err);
	CHECK(strstr(logged, "bin: scale: 1 of 2 sites lack argument locations") &&
	      strstr(logged, "scale main+0x93: k (entry_value)") && !strstr(logged, "main+0x200"),
	      "refusal message: %s", logged);
}

int main(void)
{
	test_sysv();
	test_loc_to_spec();
	test_policy();
	return check_done();
}
