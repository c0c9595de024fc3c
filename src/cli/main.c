// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* btfinline CLI: dispatch to one subcommand per file. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "stats", cmd_stats, "stats FILE [--json]            inline sites and argument coverage from DWARF" },
	{ "encode", cmd_encode, "encode ELF [-o OUT] [--raw BLOB] [--in-place]  write .BTF.inline" },
	{ "dump", cmd_dump, "dump FILE [FUNC...] [-j] [--format=text|json|perf]  read .BTF.inline" },
	{ "trace", cmd_trace, "trace (-x BIN [-p PID] | -k) FUNC... [-- CMD]  trace all sites with arguments" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: btfinline COMMAND [ARGS]\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  btfinline %s\n", cmds[i].help);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "btfinline: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
