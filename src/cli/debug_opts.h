/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --debug-file FILE and --debug-dir DIR, shared by the commands that read DWARF. */
#ifndef BTFI_DEBUG_OPTS_H
#define BTFI_DEBUG_OPTS_H
#include <stdbool.h>

struct debug_opts {
	const char *file;	/* --debug-file */
	const char *dirs;	/* --debug-dir: ':'-separated roots */
	bool verbose;		/* -v: say where the DWARF came from */
};

/* getopt_long codes of the two options (outside any short option). */
enum { OPT_DEBUG_FILE = 0x1d0, OPT_DEBUG_DIR };
#define DEBUG_LONGOPTS \
	{ "debug-file", required_argument, NULL, OPT_DEBUG_FILE }, \
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR }
/* Take getopt_long's c/optarg if it is one of ours. */
bool debug_opt(struct debug_opts *o, int c, const char *arg);
/* -v: "btfinline: PATH: DWARF from DWARF_PATH (how)" on stderr, and the
 * dwz alternate file and .dwp package it needed. */
struct btfi_scan;
void debug_opts_report(const struct debug_opts *o, const char *path, const struct btfi_scan *s);
#endif
