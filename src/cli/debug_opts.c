// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --debug-file / --debug-dir / -v reporting, shared by stats, encode, dump, trace. */
#include <stdio.h>
#include "debug_opts.h"
#include "dwarf/debuginfo.h"
#include "dwarf/scan.h"

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

void debug_opts_report(const struct debug_opts *o, const char *path, const struct btfi_scan *s)
{
	if (!o->verbose)
		return;
	if (s->di->src == BTFI_DI_IN_FILE)
		fprintf(stderr, "btfinline: %s: DWARF in the file", path);
	else
		fprintf(stderr, "btfinline: %s: DWARF from %s (%s)", path, s->dwarf_path,
			btfi_debuginfo_src_str(s->di->src));
	if (s->di->alt_path)
		fprintf(stderr, "; dwz alternate file %s", s->di->alt_path);
	if (s->di->dwp_path)
		fprintf(stderr, "; split units from %s", s->di->dwp_path);
	fputc('\n', stderr);
}
