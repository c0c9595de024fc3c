// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which symbols are GCC's whole-function clones of a function (the scan
 * gives their entries a site of the function) and which are not: partial
 * inlining's parts, cold pieces, LTO renames and other functions that share
 * a prefix. Names as they are in Debian's 6.1 vmlinux and SQLite's gcc build.
 */
#include <string.h>
#include "check.h"
#include "elf_syms.h"

int main(void)
{
	static const struct { const char *sym, *name; bool clone; } cases[] = {
		{ "NF_HOOK.constprop.0", "NF_HOOK", true },
		{ "NF_HOOK.constprop.0.isra.0", "NF_HOOK", true },
		{ "sqlite3ChangeCookie.isra.0", "sqlite3ChangeCookie", true },
		{ "mix.isra.12", "mix", true },
		{ "NF_HOOK", "NF_HOOK", false },		/* the function itself */
		{ "nf_hook.constprop.0", "NF_HOOK", false },
		{ "NF_HOOK_LIST.constprop.0", "NF_HOOK", false },	/* another function */
		{ "renameReloadSchema.part.0", "renameReloadSchema", false },
		{ "f.part.0.isra.0", "f", false },		/* a part, then IPA-SRA */
		{ "f.isra.0.part.0", "f", false },
		{ "f.cold", "f", false },
		{ "f.constprop.0.cold", "f", false },
		{ "f.lto_priv.0", "f", false },
		{ "f.isra.", "f", false },			/* no number */
		{ "f.isra", "f", false },
		{ "f.isra.0x", "f", false },
		{ "f.", "f", false },
		{ "f.isra.0", "", false },
		{ "f.isra.0", NULL, false },
	};
	struct btfi_sym v[] = {
		{ 0x1000, 0x40, "mix", false },
		{ 0x1040, 0x40, "scale.constprop.0", false },
		{ 0x1040, 0x40, "scale_alias", false },
		{ 0x1080, 0x40, "mix.part.0", false },
	};
	struct btfi_syms syms = { v, sizeof(v) / sizeof(v[0]), NULL };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(btfi_clone_name(cases[i].sym, cases[i].name) == cases[i].clone,
		      "%s of %s: want %d", cases[i].sym, cases[i].name ? cases[i].name : "(null)",
		      cases[i].clone);
	CHECK(btfi_syms_clone_at(&syms, 0x1040, "scale") &&
	      !strcmp(btfi_syms_clone_at(&syms, 0x1040, "scale"), "scale.constprop.0"),
	      "the clone among two symbols at one address");
	CHECK(!btfi_syms_clone_at(&syms, 0x1044, "scale"), "inside the clone, not its entry");
	CHECK(!btfi_syms_clone_at(&syms, 0x1000, "mix"), "the exact name is no clone");
	CHECK(!btfi_syms_clone_at(&syms, 0x1080, "mix"), "a part is no clone");
	return check_done();
}
