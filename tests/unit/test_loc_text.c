// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* btfi_loc_snprintf(): the one text form of a location (dump, stats --sites,
 * dump -j's "loc"), one case per kind. */
#include <stdio.h>
#include <string.h>
#include "btfinline.h"
#include "check.h"

static void expect(const char *what, struct btfi_loc l, uint32_t psize, const char *want)
{
	char buf[128];
	int n = btfi_loc_snprintf(buf, sizeof(buf), &l, psize);

	CHECK(!strcmp(buf, want) && n == (int)strlen(want), "%s: got '%s' (%d), want '%s'", what, buf,
	      n, want);
}

int main(void)
{
	char small[6];

	/* DWARF registers: 0 rax, 1 rdx, 5 rdi, 7 rsp, 14 r14 */
	expect("reg", (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 8, .reg = 5 }, 8, "%rdi");
	expect("reg narrowed", (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 4, .reg = 5 }, 8,
	       "(u32)%rdi");
	expect("reg narrowed signed", (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 1, .is_signed = 1,
	       .reg = 14 }, 8, "(s8)%r14");
	expect("reg, size = param", (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 4, .reg = 5 }, 4, "%rdi");
	expect("reg unknown number", (struct btfi_loc){ .kind = BTFI_LOC_KREG, .size = 8, .reg = 40 }, 8,
	       "%reg40");
	expect("reg pair", (struct btfi_loc){ .kind = BTFI_LOC_KREG_PAIR, .size = 16, .reg = 0, .reg2 = 1 },
	       16, "%rax:%rdx");
	expect("reg + off", (struct btfi_loc){ .kind = BTFI_LOC_KREG_OFF, .size = 8, .reg = 7, .off = 0x40 },
	       8, "%rsp+0x40");
	expect("reg - off", (struct btfi_loc){ .kind = BTFI_LOC_KREG_OFF, .size = 8, .reg = 7, .off = -24 },
	       8, "%rsp-0x18");
	expect("reg + off narrowed", (struct btfi_loc){ .kind = BTFI_LOC_KREG_OFF, .size = 4, .is_signed = 1,
	       .reg = 3, .off = 1 }, 8, "(s32)(%rbx+0x1)");
	expect("fb + off", (struct btfi_loc){ .kind = BTFI_LOC_KREG_OFF, .size = 8, .reg = BTFI_REG_FBREG,
	       .off = 8 }, 8, "fb+0x8");
	expect("mem", (struct btfi_loc){ .kind = BTFI_LOC_KMEM, .size = 8, .reg = 4, .off = 8 }, 8,
	       "*(u64 *)(%rsi+0x8)");
	expect("mem signed, no offset", (struct btfi_loc){ .kind = BTFI_LOC_KMEM, .size = 8, .is_signed = 1,
	       .reg = 7 }, 8, "*(s64 *)(%rsp)");
	expect("mem odd size", (struct btfi_loc){ .kind = BTFI_LOC_KMEM, .size = 12, .reg = 7, .off = -8 },
	       12, "*(u8[12] *)(%rsp-0x8)");
	expect("const", (struct btfi_loc){ .kind = BTFI_LOC_KCONST, .size = 4, .cval = 3 }, 4, "0x3");
	expect("const negative", (struct btfi_loc){ .kind = BTFI_LOC_KCONST, .size = 4, .is_signed = 1,
	       .cval = (uint64_t)-5 }, 4, "-5");
	expect("const unsigned high bit", (struct btfi_loc){ .kind = BTFI_LOC_KCONST, .size = 8,
	       .cval = (uint64_t)-1 }, 8, "0xffffffffffffffff");
	expect("addr", (struct btfi_loc){ .kind = BTFI_LOC_KADDR, .size = 8, .cval = 0x4010 }, 8, "&0x4010");
	expect("none", (struct btfi_loc){ .kind = BTFI_LOC_NONE, .reason = BTFI_R_ENTRY_VALUE }, 8, "?");
	/* snprintf semantics: truncated, NUL-terminated, full length returned */
	CHECK(btfi_loc_snprintf(small, sizeof(small), &(struct btfi_loc){ .kind = BTFI_LOC_KMEM, .size = 8,
				.reg = 7, .off = 8 }, 8) == 18 && !strcmp(small, "*(u64"),
	      "truncation: '%s'", small);
	return check_done();
}
