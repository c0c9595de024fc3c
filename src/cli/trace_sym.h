/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Optional DWARF lookup of a site's call file:line (trace output only). */
#ifndef BTFI_TRACE_SYM_H
#define BTFI_TRACE_SYM_H
#include <stddef.h>
#include <stdint.h>

struct trace_sym;
/* NULL when no DWARF is found for the file (in it, --debug-file, build-id,
 * .gnu_debuglink): callers then print no file:line. */
struct trace_sym *trace_sym_open(const char *path, const char *debug_file, const char *debug_dirs);
/* The file the DWARF came from (for -v). */
const char *trace_sym_dwarf_path(const struct trace_sym *s);
void trace_sym_close(struct trace_sym *s);
/* "file:line" of the call of inlined `func` covering addr (func NULL: the
 * line at addr). Empty string if unknown. */
void trace_sym_where(struct trace_sym *s, uint64_t addr, const char *func, char *buf, size_t len);

struct trace_sym_req {
	uint64_t addr;		/* probe address (ELF vaddr) */
	const char *func;	/* inlined function; NULL: an out-of-line entry */
	char *buf;		/* out: "file:line", "" if unknown */
	size_t len;
};
/* Each inline site's call file:line: the DW_AT_call_file/line of the
 * instance of func whose probe address (default policy, else another) it
 * is, else as trace_sym_where. Returns how many came from their instance. */
size_t trace_sym_call_lines(struct trace_sym *s, struct trace_sym_req *req, size_t n);
#endif
