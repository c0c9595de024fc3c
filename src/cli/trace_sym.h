/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Optional DWARF lookup of a site's call file:line (trace output only). */
#ifndef BTFI_TRACE_SYM_H
#define BTFI_TRACE_SYM_H
#include <stddef.h>
#include <stdint.h>

struct trace_sym;
/* NULL when the file has no DWARF: callers then print no file:line. */
struct trace_sym *trace_sym_open(const char *path);
void trace_sym_close(struct trace_sym *s);
/* "file:line" of the call of inlined `func` covering addr (func NULL: the
 * line at addr). Empty string if unknown. */
void trace_sym_where(struct trace_sym *s, uint64_t addr, const char *func, char *buf, size_t len);
#endif
