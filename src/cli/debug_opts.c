// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --debug-file / --debug-dir / -v reporting, shared by stats, encode, dump, trace. */
#include <stdio.h>
#include "debug_opts.h"
#include "dwarf/debuginfo.h"

bool debug_opt(struct debug_opts *o, int c, const char *arg)
{
	if (c == OPT_DEBUG_FILE)
		o->file = arg;
	else if (c == OPT_DEBUG_DIR)
		o->dirs = arg;
	else
		return false;
	return true;
}

void debug_opts_report(const struct debug_opts *o, const char *path, const char *dwarf_path, int src)
{
	if (!o->verbose)
		return;
	if (src == BTFI_DI_IN_FILE)
		fprintf(stderr, "btfinline: %s: DWARF in the file\n", path);
	else
		fprintf(stderr, "btfinline: %s: DWARF from %s (%s)\n", path, dwarf_path,
			btfi_debuginfo_src_str(src));
}
