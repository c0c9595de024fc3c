/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `trace -k`: the kernel side of the trace command (inline info for the
 * running kernel, kprobe sites, attach), and folding of nested instances. */
#ifndef BTFI_TRACE_KERNEL_H
#define BTFI_TRACE_KERNEL_H
#include <stdbool.h>
#include <stdint.h>
#include "btfinline.h"
#include "attach/attach.h"

struct trace_kernel;

/*
 * Inline info, one --inline-btf each: FILE (vmlinux's; a module's ELF
 * from `encode -o` is named by its .modinfo) or MODULE=FILE; vmlinux's
 * defaults to /sys/kernel/btf/vmlinux.inline. Without any --inline-btf, in
 * one step: vmlinux's and each -m module's from sysfs, the cache, or
 * encoded from its DWARF, and at collect time the loaded modules that
 * have a symbol of the traced function. Each checked against the running
 * kernel (vmlinux's against `base` if given) or the loaded module. Also
 * kallsyms and the kprobe blacklist.
 */
struct trace_kernel_opts {
	const char *const *blobs;	/* --inline-btf */
	int nblobs;
	const char *const *mods;	/* -m: modules in one step */
	int nmods;
	const char *base;		/* --base: vmlinux's blob's base */
	const char *debug_dirs;		/* --debug-dir */
	bool verbose;			/* -v: where each inline info came from */
};
int trace_kernel_open(const struct trace_kernel_opts *o, struct trace_kernel **tk);
void trace_kernel_close(struct trace_kernel *tk);
/* The running kernel's symbols (kallsyms), NULL if none were read. */
const struct btfi_ksyms *trace_kernel_ksyms(const struct trace_kernel *tk);
/* Called after each object's sites of a function were appended to the
 * list (from index `from`), with that object's BTF. */
typedef int (*trace_kernel_prep_fn)(void *ctx, size_t from, const struct btf *btf);
/* Sites of func in vmlinux and every module given, appended to sl;
 * skipped sites reported on stderr. */
int trace_kernel_collect(struct trace_kernel *tk, const char *func, bool no_entry,
			 enum btfinline_policy policy, struct btfi_site_list *sl,
			 trace_kernel_prep_fn prep, void *ctx);
/* Modules unloaded since: their probes detached, one line each. Returns
 * the number of probes still attached. */
size_t trace_kernel_poll(struct trace_kernel *tk, struct btfinline_link *link);
/* Attach prog at every site (raises RLIMIT_NOFILE; reports attach time). */
int trace_kernel_attach(struct trace_kernel *tk, struct bpf_program *prog,
			const struct btfi_site_list *sl, enum btfinline_policy policy,
			struct btfinline_link **link);

/*
 * Nested instances of one function (GCC partial inlining puts an instance
 * of F inside an inlined F). fold_hit() returns true when a hit is the
 * nested instance of the call the same thread hit just before: same
 * function, same caller symbol, a later site, equal argument values
 * (docs/DESIGN.md). One state per thread slot.
 */
struct trace_fold;
struct trace_fold *fold_new(void);
void fold_free(struct trace_fold *f);
/* label: "caller+0xOFF" (anything else never folds). */
bool fold_hit(struct trace_fold *f, uint32_t tid, const char *func, const char *label,
	      uint32_t nargs, const int32_t *err, const void *val);	/* __u64 val[][2] */
#endif
