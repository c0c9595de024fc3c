/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the inline info of a target comes from: one place for trace, dump
 * and the attach API. A user-space target: its own .BTF.inline section, or
 * a blob (raw or an ELF holding the section) over the target's .BTF. The
 * running kernel: a blob given by the caller, else the kernel's own
 * /sys/kernel/btf/vmlinux.inline, always over /sys/kernel/btf/vmlinux; a
 * loaded module's likewise over /sys/kernel/btf/<module> (itself over
 * vmlinux's), refused unless it was built for the module as loaded.
 * Every view is validated by the reader against its base before use.
 * A user binary without .BTF.inline but with DWARF somewhere (opts.build):
 * its entry in the cache (source/cache.h), else built from the DWARF now
 * (source/build.h) and cached.
 */
#ifndef BTFI_SOURCE_H
#define BTFI_SOURCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "btfinline.h"
#include "source/build.h"

#define BTFI_SYSFS_BTF		"/sys/kernel/btf/vmlinux"
#define BTFI_SYSFS_INLINE	"/sys/kernel/btf/vmlinux.inline"

enum btfi_target { BTFI_TARGET_USER, BTFI_TARGET_KERNEL };

struct btfi_source_opts {
	size_t sz;
	struct btfi_log log;
	/* inline info from this file (raw blob, or an ELF with .BTF.inline)
	 * instead of the target's own */
	const char *inline_btf;
	/* user: the base BTF file instead of the target (dump --base);
	 * kernel: the vmlinux or BTF the blob was encoded from, which must
	 * be the running kernel's */
	const char *base;
	/* user: no .BTF.inline and no inline_btf/base: build it from the
	 * DWARF (in the file, detached, debuginfod) through the cache */
	bool build;
	const char *debug_file;	/* where that DWARF is (as --debug-file) */
	const char *debug_dirs;	/* as --debug-dir */
	const char *cache_dir;	/* default: see source/cache.h */
	/* the base's own base when the base is split BTF (a kernel module's
	 * .BTF builds on vmlinux's); default /sys/kernel/btf/vmlinux */
	const char *base_base;
	/* kernel: the inline info of this loaded module instead of vmlinux's
	 * (inline_btf, else /sys/kernel/btf/<module>.inline), over
	 * /sys/kernel/btf/<module> and /sys/kernel/btf/vmlinux */
	const char *module;
	/* kernel, build: another kernel than the running one (encode
	 * --kernel): its release and build-id (hex; the module's for a
	 * module), the cache entry always built; `base` is then its vmlinux
	 * (default: the debug vmlinux found), required for a module */
	const char *kernel_release;
	const char *kernel_build_id;
};

enum btfi_source_how {
	BTFI_SOURCE_SECTION,	/* the target's own .BTF.inline */
	BTFI_SOURCE_FILE,	/* opts.inline_btf */
	BTFI_SOURCE_SYSFS,	/* /sys/kernel/btf/vmlinux.inline */
	BTFI_SOURCE_CACHE,	/* a cache entry built by an earlier run */
	BTFI_SOURCE_BUILT,	/* built now from the DWARF, then cached */
};

struct btfi_source_info {
	enum btfi_source_how how;
	char path[PATH_MAX];	/* the file the inline info was read from */
	char key[PATH_MAX + 96];	/* CACHE, BUILT: the cache key */
	struct btfi_build_info build;	/* BUILT */
	char note[600];		/* CACHE, BUILT: an unusable entry replaced, or
				 * why the result is not cached */
	double secs;		/* time to find (and build) the inline info */
};

/* target: the user ELF (NULL for the kernel). 0 and *bi, or a negative
 * errno with one message naming the file and the problem. */
int btfi_source_open(enum btfi_target t, const char *target, const struct btfi_source_opts *opts,
		     struct btfinline **bi, struct btfi_source_info *info);
const char *btfi_source_how_str(enum btfi_source_how how);

#endif
