// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Printable names for location kinds, reasons, x86-64 DWARF registers and
 * condition codes, and the one text form of a location (stats, dump). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "btfinline.h"
#include "names.h"

const char *btfi_reason_str(enum btfi_reason r)
{
	static const char *const names[BTFI_R__MAX] = {
		[BTFI_R_OK] = "ok",
		[BTFI_R_NO_LOCATION] = "no_location",
		[BTFI_R_NOT_AT_ADDR] = "not_at_addr",
		[BTFI_R_ENTRY_VALUE] = "entry_value",
		[BTFI_R_IMPLICIT_PTR] = "implicit_pointer",
		[BTFI_R_PARAM_REF] = "parameter_ref",
		[BTFI_R_UNSUPPORTED] = "unsupported_expr",
		[BTFI_R_NO_CFA] = "no_cfa",
		[BTFI_R_NO_ADDR] = "no_code_addr",
		[BTFI_R_UNKNOWN] = "unknown",
	};
	return (unsigned)r < BTFI_R__MAX && names[r] ? names[r] : "?";
}

const char *btfi_loc_type_str(const struct btfi_loc *l, char *buf, size_t n)
{
	if (l->size == 1 || l->size == 2 || l->size == 4 || l->size == 8)
		snprintf(buf, n, "%c%u", l->is_signed ? 's' : 'u', l->size * 8);
	else
		snprintf(buf, n, "u8[%u]", l->size);
	return buf;
}

static void reg_str(uint32_t reg, char *buf, size_t n)
{
	const char *r = btfi_reg_name(reg);

	if (reg == BTFI_REG_FBREG)
		snprintf(buf, n, "fb");
	else if (r)
		snprintf(buf, n, "%%%s", r);
	else
		snprintf(buf, n, "%%reg%u", reg);
}

static void off_str(int64_t off, char *buf, size_t n)
{
	if (off)
		snprintf(buf, n, "%c0x%llx", off < 0 ? '-' : '+',
			 (unsigned long long)(off < 0 ? -(uint64_t)off : (uint64_t)off));
	else
		buf[0] = 0;
}

int btfi_loc_snprintf(char *buf, size_t n, const struct btfi_loc *l, uint32_t param_size)
{
	char r[32], r2[32], o[32], ty[16];

	reg_str(l->reg, r, sizeof(r));
	off_str(l->off, o, sizeof(o));
	switch (l->kind) {
	case BTFI_LOC_KREG:
		if (btfi_loc_narrowed(l, param_size))
			return snprintf(buf, n, "(%s)%s", btfi_loc_type_str(l, ty, sizeof(ty)), r);
		return snprintf(buf, n, "%s", r);
	case BTFI_LOC_KREG_PAIR:
		reg_str(l->reg2, r2, sizeof(r2));
		return snprintf(buf, n, "%s:%s", r, r2);
	case BTFI_LOC_KREG_OFF:
		if (btfi_loc_narrowed(l, param_size))
			return snprintf(buf, n, "(%s)(%s%s)", btfi_loc_type_str(l, ty, sizeof(ty)), r, o);
		return snprintf(buf, n, "%s%s", r, o);
	case BTFI_LOC_KMEM:
		return snprintf(buf, n, "*(%s *)(%s%s)", btfi_loc_type_str(l, ty, sizeof(ty)), r, o);
	case BTFI_LOC_KCONST:
		if (l->is_signed && (int64_t)l->cval < 0)
			return snprintf(buf, n, "%lld", (long long)l->cval);
		return snprintf(buf, n, "0x%llx", (unsigned long long)l->cval);
	case BTFI_LOC_KADDR:
		return snprintf(buf, n, "&0x%llx", (unsigned long long)l->cval);
	default:
		return snprintf(buf, n, "?");
	}
}

const char *btfi_loc_kind_str(enum btfi_loc_kind k)
{
	static const char *const names[] = {
		[BTFI_LOC_NONE] = "none",
		[BTFI_LOC_KREG] = "reg",
		[BTFI_LOC_KREG_PAIR] = "reg_pair",
		[BTFI_LOC_KREG_OFF] = "reg_offset",
		[BTFI_LOC_KMEM] = "mem",
		[BTFI_LOC_KCONST] = "const",
		[BTFI_LOC_KADDR] = "addr",
	};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *btfi_reg_name(uint32_t dwreg)
{
	static const char *const names[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	if (dwreg == BTFI_REG_FBREG)
		return "fb";
	return dwreg < sizeof(names) / sizeof(names[0]) ? names[dwreg] : NULL;
}

/* Jcc mnemonics' suffixes, by condition code (the opcode's low nibble). */
static const char *const cc_names[16] = {
	"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
};

const char *btfi_cc_str(uint32_t cc)
{
	return cc < 16 ? cc_names[cc] : NULL;
}

int btfi_cc_parse(const char *s, size_t n)
{
	for (int cc = 0; cc < 16; cc++)
		if (strlen(cc_names[cc]) == n && !memcmp(cc_names[cc], s, n))
			return cc;
	return -EINVAL;
}
