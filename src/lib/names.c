// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Printable names for location kinds, reasons and x86-64 DWARF registers. */
#include <stdio.h>
#include "btfinline.h"

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
