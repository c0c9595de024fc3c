/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Subcommands. Each returns the process exit code: 0 ok, 1 error, 2 usage. */
#ifndef BTFI_CLI_H
#define BTFI_CLI_H
int cmd_stats(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_trace(int argc, char **argv);
#endif
