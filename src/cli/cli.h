/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Subcommands. Each returns the process exit code: 0 ok, 1 error, 2 usage.
 * A command's help text lives once, in its struct cli_cmd: `btfinline help`,
 * `help CMD`, `CMD -h` and usage errors all print from it.
 */
#ifndef BTFI_CLI_H
#define BTFI_CLI_H
#include <stdio.h>

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command name */
	const char *synopsis;	/* after "btfinline ", one line per form */
	const char *summary;	/* one line, for the command list */
	const char *options;	/* the option table of `help CMD` */
};

extern const struct cli_cmd cli_stats, cli_encode, cli_dump, cli_trace;

/* `btfinline help CMD`, and CMD -h/--help (then on stdout, exit 0). */
void cli_help(const struct cli_cmd *c, FILE *f);
/* Usage error on stderr: "btfinline CMD: problem" (fmt not NULL), the
 * synopsis and a hint to `help CMD`. Returns 2. */
int cli_usage(const struct cli_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long returned '?' or ':' (optstring starting with ':', opterr 0):
 * the usage error naming the option. Returns 2. */
int cli_bad_option(const struct cli_cmd *c, int ret, char **argv);
/* --probe=POLICY of stats and encode: enum btfi_probe_policy, -1 if no
 * policy has that name. */
int cli_probe_policy(const char *name);
#endif
