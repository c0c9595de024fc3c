// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* btfinline CLI: global options, help, and dispatch to one subcommand per
 * file (cmd_*.c, each with its help text in a struct cli_cmd). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include "cli.h"
#include "json_writer.h"

#ifndef BTFI_VERSION
#error "BTFI_VERSION comes from the Makefile (file VERSION)"
#endif

static const struct cli_cmd *const cmds[] = { &cli_stats, &cli_encode, &cli_dump, &cli_trace };
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* Each line of text after the first, indented by `indent`. */
static void print_lines(FILE *f, const char *first, const char *indent, const char *text)
{
	const char *pre = first;

	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(f, "%sbtfinline %.*s\n", pre, (int)n, text);
		text += n + (text[n] == '\n');
		pre = indent;
	}
}

void cli_help(const struct cli_cmd *c, FILE *f)
{
	print_lines(f, "usage: ", "       ", c->synopsis);
	fprintf(f, "%s\n%s", c->summary, c->options);
}

int cli_usage(const struct cli_cmd *c, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "btfinline %s: ", c->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	print_lines(stderr, "usage: ", "       ", c->synopsis);
	fprintf(stderr, "Try 'btfinline help %s' for the options.\n", c->name);
	return 2;
}

int cli_bad_option(const struct cli_cmd *c, int ret, char **argv)
{
	const char *arg = optind > 1 ? argv[optind - 1] : "";
	bool is_long = !strncmp(arg, "--", 2) && (!optopt || ret == ':' || strchr(arg, '='));

	if (ret == ':') {
		if (is_long)
			return cli_usage(c, "option '%s' needs an argument", arg);
		return cli_usage(c, "option '-%c' needs an argument", optopt);
	}
	if (is_long)
		return cli_usage(c, "unrecognized option '%s'", arg);
	return cli_usage(c, "unknown option '-%c'", optopt);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: btfinline COMMAND [ARGS]\n"
		"       btfinline help [COMMAND]\n"
		"       btfinline -V|--version [-j|-p]\n\n");
	for (size_t i = 0; i < NCMDS; i++) {
		print_lines(f, "  ", "  ", cmds[i]->synopsis);
		fprintf(f, "      %s\n", cmds[i]->summary);
	}
	fprintf(f, "\n`btfinline help COMMAND` (or COMMAND -h) lists a command's options.\n"
		"-j/-p: JSON, compact or indented, as bpftool's; but `trace -p` is a PID,\n"
		"as in perf, strace and bpftrace (trace -j prints JSON lines).\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "btfinline: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "usage: btfinline COMMAND [ARGS]\nTry 'btfinline help' for the commands.\n");
	return 2;
}

static const struct cli_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(name, cmds[i]->name))
			return cmds[i];
	return NULL;
}

/* As bpftool's: "btfinline v0.1.0", then the libraries it was built with. */
static int version(bool json, bool pretty)
{
	if (json) {
		struct json_writer w;

		jw_init(&w, stdout, pretty ? JSON_PRETTY : JSON_COMPACT);
		jw_start_object(&w);
		jw_string_field(&w, "version", BTFI_VERSION);
		jw_name(&w, "libbpf_version");
		jw_stringf(&w, "%u.%u", libbpf_major_version(), libbpf_minor_version());
		jw_string_field(&w, "elfutils_version", dwfl_version(NULL));
		jw_end_object(&w);
		return 0;
	}
	printf("btfinline v%s\nusing libbpf %s, elfutils %s\n", BTFI_VERSION,
	       libbpf_version_string(), dwfl_version(NULL));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool ver = false, json = false, pretty = false;
	const struct cli_cmd *c;
	int opt;

	/* A debug file fetched from debuginfod: libdebuginfod's own progress
	 * line, on a terminal only (it reads this when its client starts). */
	if (isatty(STDERR_FILENO))
		setenv("DEBUGINFOD_PROGRESS", "1", 0);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:Vjph", lopts, NULL)) != -1) {
		switch (opt) {
		case 'V': ver = true; break;
		case 'j': json = true; break;
		case 'p': json = pretty = true; break;
		case 'h': usage(stdout); return 0;
		default:
			if (optopt) {
				char o[3] = { '-', (char)optopt };

				return usage_error("unknown option '%s'", o);
			}
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	if (ver)
		return optind < argc ? usage_error("--version takes no command") : version(json, pretty);
	if (json)
		return usage_error("-j and -p go after the command (btfinline dump FILE -j)");
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 == argc) {
			usage(stdout);
			return 0;
		}
		c = find_cmd(argv[optind + 1]);
		if (!c)
			return usage_error("unknown command '%s'", argv[optind + 1]);
		if (optind + 2 < argc)
			return usage_error("help takes one command");
		cli_help(c, stdout);
		return 0;
	}
	c = find_cmd(argv[optind]);
	if (!c)
		return usage_error("unknown command '%s'", argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0;	/* the command parses its own options: 0 resets getopt fully */
	return c->fn(argc, argv);
}
