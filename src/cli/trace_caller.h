/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `trace`: who called an out-of-line entry, from the return address its
 * hit read at the stack pointer (bpf_inline_site_ret()). */
#ifndef BTFI_TRACE_CALLER_H
#define BTFI_TRACE_CALLER_H
#include <stddef.h>
#include <stdint.h>

struct btfi_ksyms;
struct trace_sym;
struct trace_caller;

struct trace_caller_opts {
	const struct btfi_ksyms *ks;	/* -k: kernel return addresses */
	const char *binary;		/* user space: the traced binary, */
	const char *debug_file;		/* its debug file (symbols if stripped), */
	struct trace_sym *sym;		/* its DWARF: the call's file:line */
};
/* NULL on out of memory. */
struct trace_caller *trace_caller_new(const struct trace_caller_opts *o);
void trace_caller_free(struct trace_caller *c);
/*
 * The call that returns to `ret` in process pid, whose hit was at ELF
 * address vaddr of the traced binary with instruction pointer ip (0:
 * unknown): *caller "sym+0xoff" of the return address in the object
 * mapped there ("file+0xvaddr" without a symbol, "0xaddr" outside any
 * file; in the kernel, kallsyms' "sym+0xoff", "[module]" after a
 * module's), *line the call's "file:line" when that object is the traced
 * binary and its DWARF says, else "". Both owned by c, valid until the
 * next call. A return address into the traced binary needs no maps (a
 * process gone by the time its hit is printed); others are looked up in
 * /proc/PID/maps.
 */
void trace_caller_at(struct trace_caller *c, int pid, uint64_t ret, uint64_t ip, uint64_t vaddr,
		     const char **caller, const char **line);
#endif
