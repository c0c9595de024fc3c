/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel front end of the attach core: inline sites of a function in the
 * running kernel (rebased through /proc/kallsyms), minus those no kprobe
 * can sit on, and one kprobe per site with the spec key as bpf cookie.
 */
#ifndef BTFI_ATTACH_KERNEL_H
#define BTFI_ATTACH_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include "attach/attach.h"
#include "attach/kallsyms.h"
#include "attach/kmodule.h"

#define BTFI_KPROBE_BLACKLIST	"/sys/kernel/debug/kprobes/blacklist"

/* Where the kernel refuses a kprobe: the address ranges of
 * /sys/kernel/debug/kprobes/blacklist (sites there are skipped), and the
 * functions ftrace can trace (available_filter_functions: without
 * CONFIG_KPROBE_EVENTS_ON_NOTRACE the kprobe PMU refuses the others, e.g.
 * all of kernel/trace; used only to name the cause of an EINVAL, since the
 * config is not visible from user space). */
struct btfi_kblacklist {
	struct { uint64_t start, end; } *r;
	size_t n;
	char *fbuf;		/* available_filter_functions, one name per line */
	const char **fn;	/* sorted names */
	size_t nfn;
};
#define BTFI_FILTER_FUNCS	"/sys/kernel/tracing/available_filter_functions"
/* Missing or unreadable files (no debugfs/tracefs): that part is empty,
 * and the kernel's EINVAL at attach skips those sites instead. path NULL:
 * the files above. */
int btfi_kblacklist_load(const char *path, struct btfi_kblacklist *bl);
void btfi_kblacklist_free(struct btfi_kblacklist *bl);
bool btfi_kblacklist_has(const struct btfi_kblacklist *bl, uint64_t addr);
/* false when the filter list was read and `func` is not in it */
bool btfi_kfunc_traceable(const struct btfi_kblacklist *bl, const char *func);

/* Sites left out, for one summary line per function. */
struct btfi_kskips {
	size_t n;
	/* Of them, sites whose code can run (blacklisted, notrace, refused):
	 * calls there would be missed, which all-or-none refuses. Init text
	 * freed after boot or code outside the kernel never runs. */
	size_t nmissed;
	char text[400];		/* "caller+0x1a (init text), ..." */
};
void btfi_kskips_add(struct btfi_kskips *sk, const char *label, const char *why, bool missed);

/* Sites of `func`: inline sites at runtime addresses (site->vaddr), then
 * the out-of-line entry at every kallsyms symbol of that name (by address:
 * static names repeat). Sites in init text, outside kernel text or in the
 * kprobe blacklist go to `skips`, not `out`. mod: bi is that loaded
 * module's inline info (sections from sysfs, its own kallsyms symbols);
 * NULL: vmlinux's. -ESRCH (nothing logged) when mod is given and neither
 * a site nor a symbol of that name is in the module. */
int btfi_collect_ksites(struct btfinline *bi, const struct btfi_ksyms *ks,
			const struct btfi_kmod *mod, const struct btfi_kblacklist *bl,
			const char *func, bool no_entry,
			btfinline_site_filter_fn filter, void *filter_ctx,
			const struct btfi_log *log, struct btfi_site_list *out,
			struct btfi_kskips *skips);

/* One kprobe per site (runtime addresses) running `prog`, which must use
 * btfi_specs. spec->vaddr is the link-time address + 1 (what PT_REGS_IP
 * shows in a kprobe, minus the KASLR slide `kaslr_delta`). A site the
 * kernel refuses with EINVAL (not probe-able) goes to `skips`; any other
 * failure detaches everything. */
int btfi_attach_ksites(struct bpf_program *prog, const struct btfi_attach_site *sites,
		       size_t n, int64_t kaslr_delta, const struct btfi_kblacklist *bl,
		       const struct btfi_attach_core_opts *opts,
		       struct btfinline_link **out, struct btfi_kskips *skips);

/* Detach the probes at addresses in [lo, hi] (a module that went away:
 * the kernel has disarmed them). Returns how many. */
size_t btfi_link_detach_range(struct btfinline_link *l, uint64_t lo, uint64_t hi);

#endif
