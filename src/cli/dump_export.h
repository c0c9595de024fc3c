/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `dump --format=perf|bpftrace`: each inline site as a probe definition
 * for another tracer, reading every argument it can express from its
 * location, with a comment for those it cannot.
 */
#ifndef BTFI_DUMP_EXPORT_H
#define BTFI_DUMP_EXPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "btfinline.h"

struct btf_param;

struct export_site {
	const char *func;	/* the inlined function */
	size_t idx;		/* site number within func: FUNC_idx */
	const char *caller;	/* enclosing symbol, NULL if none */
	uint64_t caller_off;
	uint64_t addr;		/* link-time address of the site */
	bool kernel;		/* kprobe (kernel image) rather than uprobe */
	const char *target;	/* uprobe: the binary's absolute path */
	const struct btf_param *params;	/* the function's parameters */
	int nparams;
	const struct btfi_loc *locs;	/* their locations at this site */
	int nlocs;
	int cond;		/* 0; else 1 + x86 condition code: a branch of the
				 * caller's, a call only when it holds */
};

/* Header lines of the output (the command to run it). */
/* module: a kernel module (perf probe -m) */
void export_perf_header(const char *path, bool kernel, bool module);
void export_bpftrace_header(const char *path, const char *target, bool kernel);
/* One site: a `perf probe` definition / a bpftrace probe block. */
void export_perf_site(const struct btfinline *bi, const struct export_site *s);
void export_bpftrace_site(const struct btfinline *bi, const struct export_site *s);

#endif
