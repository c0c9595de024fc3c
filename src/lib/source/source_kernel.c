// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline info of the running kernel or of a loaded module: a blob
 * given, else the kernel's own (/sys/kernel/btf/vmlinux.inline,
 * <module>.inline), else (opts.build: trace -k in one step) the cache
 * entry for its build-id (/sys/kernel/notes, /sys/module/<m>/notes), else
 * encoded now from its DWARF (source/kdebug.c finds it by build-id, then
 * debuginfod) over the running kernel's BTF, and cached. Every view is
 * validated against /sys/kernel/btf/vmlinux (and /sys/kernel/btf/<m>).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <bpf/btf.h>
#include "attach/attach_kprobe.h"
#include "attach/kmodule.h"
#include "dwarf/debuginfo.h"
#include "format/base.h"
#include "elf_file.h"
#include "log.h"
#include "opts.h"
#include "source/build.h"
#include "source/cache.h"
#include "source/kdebug.h"
#include "source/source.h"
#include "source/source_priv.h"

static int kernel_build(const char *mod, const struct btfi_source_opts *opts,
			const struct btfi_log *log, struct btfinline **out,
			struct btfi_source_info *info);

/* ---- vmlinux ---- */


/* `file`'s BTF (an ELF's .BTF, or raw) must be the running kernel's. */
static int check_base_file(const char *file, const char *what, const struct btfi_log *log)
{
	struct btfi_msgbuf m = { { 0 } };
	struct btfi_log ml = BTFI_LOG_KEEP(&m);
	struct btf *b;
	int err;

	b = btf__parse(file, NULL);
	if (!b) {
		err = -errno;
		btfi_err(log, "%s: cannot read %s BTF: %s", file, what, strerror(-err));
		return err;
	}
	err = btfi_check_base_matches(b, BTFI_SYSFS_BTF, &ml);
	btf__free(b);
	if (err)
		btfi_err(log, "%s: %s", file, m.s);
	return err;
}

static int kernel_open(const struct btfi_source_opts *opts, const struct btfi_log *log,
		       struct btfinline **out, struct btfi_source_info *info)
{
	const char *blob = OPTS_GET(opts, inline_btf, NULL), *base_file = OPTS_GET(opts, base, NULL);
	bool build = OPTS_GET(opts, build, false);
	struct btfi_msgbuf m = { { 0 } };
	BTFI_OPTS(btfinline_open_opts, oo, .base_path = BTFI_SYSFS_BTF,
		  .log = BTFI_LOG_KEEP(&m));
	const char *path = blob ? blob : BTFI_SYSFS_INLINE;
	int err;

	*out = NULL;
	if (access(BTFI_SYSFS_BTF, R_OK)) {
		err = -errno;
		btfi_err(log, "%s: %s (kernel without CONFIG_DEBUG_INFO_BTF?)", BTFI_SYSFS_BTF,
			 strerror(errno));
		return err;
	}
	if (!blob && access(path, R_OK)) {
		if (build)
			return kernel_build(NULL, opts, log, out, info);
		btfi_err(log, "%s: not provided by this kernel; pass --inline-btf FILE "
			 "(btfinline encode VMLINUX --raw FILE, from this kernel's debug vmlinux)", path);
		return -ENOENT;
	}
	/* A raw blob does not name its base: the optional base file (what it
	 * was encoded against) and an ELF's own .BTF are compared byte for
	 * byte; the blob is then checked structurally against the live base. */
	if (base_file && (err = check_base_file(base_file, "base", log)))
		return err;
	if (blob && btfi_file_kind(blob) == BTFI_FILE_ELF && (err = check_base_file(blob, "its", log)))
		return err;
	err = btfinline__open(path, &oo, out);
	if (!err) {
		info->how = blob ? BTFI_SOURCE_FILE : BTFI_SOURCE_SYSFS;
		snprintf(info->path, sizeof(info->path), "%s", path);
	}
	if (err) {
		/* the reader's message names the file and the record */
		if (err == -ENOENT || err == -EACCES || err == -ENOMEM || err == -EIO)
			btfi_err(log, "%s", m.s);
		else
			btfi_err(log, "%s; not inline info for the running kernel (its BTF is %s)",
				 m.s, BTFI_SYSFS_BTF);
		return err == -EINVAL ? -ESTALE : err;
	}
	return 0;
}

/* ---- a loaded module ---- */

/* The whole file (sysfs files report no size). */
static void *slurp(const char *path, size_t *sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *nb;
	ssize_t got = 0;

	if (fd < 0)
		return NULL;
	while ((nb = realloc(buf, cap))) {
		buf = nb;
		got = read(fd, buf + n, cap - n);
		if (got <= 0)
			break;
		n += got;
		if (n == cap)
			cap *= 2;
	}
	close(fd);
	if (!nb || got < 0) {
		free(buf);
		return NULL;
	}
	*sz = n;
	return buf;
}

/*
 * An ELF blob (encode -o of a .ko) names what it was built from: its
 * .modinfo name, its build-id and its own .BTF must be the loaded
 * module's (/sys/module/<m>/notes, /sys/kernel/btf/<m>).
 */
static int check_kmod_elf(const char *blob, const char *mod, const char *mbtf,
			  const struct btfi_log *log)
{
	char name[64] = "", have[130] = "", want[130] = "";
	const void *own;
	void *live = NULL;
	size_t osz, lsz = 0;
	struct btfi_base_diff d;
	Elf *elf;
	int fd, err = 0;

	fd = open(blob, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: %s", blob, strerror(-err));
		return err;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !btfi_elf_is_kmod(elf) || !btfi_elf_kmod_name(elf, name, sizeof(name))) {
		btfi_err(log, "%s: not a kernel module (no .modinfo name), cannot be module %s's inline info",
			 blob, mod);
		err = -EINVAL;
		goto out;
	}
	if (strcmp(name, mod)) {
		btfi_err(log, "%s: inline info of module %s, not of %s", blob, name, mod);
		err = -EINVAL;
		goto out;
	}
	btfi_elf_build_id(elf, have, sizeof(have));
	if (btfi_kmod_build_id(mod, want, sizeof(want)) && strcmp(have, want)) {
		btfi_err(log, "%s: module %s: built for build-id %s, the loaded module is %s",
			 blob, mod, *have ? have : "(none)", want);
		err = -ESTALE;
		goto out;
	}
	own = btfi_elf_section(elf, ".BTF", &osz, NULL);
	live = slurp(mbtf, &lsz);
	if (!own || !live || btfi_base_same_raw(own, osz, live, lsz, &d)) {
		btfi_err(log, "%s: module %s: its .BTF is not the loaded module's %s (%zu vs %zu bytes)",
			 blob, mod, mbtf, osz, lsz);
		err = -ESTALE;
	}
out:
	free(live);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

static int kmod_open(const char *mod, const struct btfi_source_opts *opts, const struct btfi_log *log,
		     struct btfinline **out, struct btfi_source_info *info)
{
	const char *blob = OPTS_GET(opts, inline_btf, NULL);
	bool build = OPTS_GET(opts, build, false);
	char mbtf[256], sysinl[256];
	struct btfi_msgbuf m = { { 0 } };
	BTFI_OPTS(btfinline_open_opts, oo, .base_path = mbtf, .base_base_path = BTFI_SYSFS_BTF,
		  .log = BTFI_LOG_KEEP(&m));
	const char *path = blob;
	int err;

	*out = NULL;
	if (!btfi_kmod_loaded(mod)) {
		btfi_err(log, "kernel: module %s is not loaded", mod);
		return -ENOENT;
	}
	snprintf(mbtf, sizeof(mbtf), BTFI_SYSFS_BTF_DIR "/%s", mod);
	snprintf(sysinl, sizeof(sysinl), BTFI_SYSFS_BTF_DIR "/%s.inline", mod);
	if (access(mbtf, R_OK)) {
		err = -errno;
		btfi_err(log, "kernel: module %s: %s: %s (kernel without CONFIG_DEBUG_INFO_BTF_MODULES?)",
			 mod, mbtf, strerror(-err));
		return err;
	}
	if (!path) {
		path = sysinl;
		if (access(path, R_OK)) {
			if (build)
				return kernel_build(mod, opts, log, out, info);
			btfi_err(log, "%s: not provided by this kernel; pass --inline-btf %s=FILE "
				 "(btfinline encode %s.ko --base VMLINUX --raw FILE, from its debug module)",
				 path, mod, mod);
			return -ENOENT;
		}
	}
	if (blob && btfi_file_kind(blob) == BTFI_FILE_ELF &&
	    (err = check_kmod_elf(blob, mod, mbtf, log)))
		return err;
	err = btfinline__open(path, &oo, out);
	if (err) {
		if (err == -ENOENT || err == -EACCES || err == -ENOMEM || err == -EIO)
			btfi_err(log, "%s", m.s);
		else
			btfi_err(log, "%s; not inline info for module %s as loaded (its BTF is %s)",
				 m.s, mod, mbtf);
		return err == -EINVAL ? -ESTALE : err;
	}
	info->how = blob ? BTFI_SOURCE_FILE : BTFI_SOURCE_SYSFS;
	snprintf(info->path, sizeof(info->path), "%s", path);
	return 0;
}


/* ---- in one step: cache, else DWARF + encode ---- */

static size_t unhex(const char *h, unsigned char *b, size_t len)
{
	size_t n = 0;

	for (; h[0] && h[1] && n < len; h += 2)
		if (sscanf(h, "%2hhx", &b[n++]) != 1)
			return 0;
	return n;
}

/* The base the blob of vmlinux (mod NULL) or of a module extends, as the
 * running kernel has it: /sys/kernel/btf/vmlinux, the module's
 * /sys/kernel/btf/<m> flattened onto it. */
static struct btf *live_base(const char *mod, const char *mbtf, const struct btfi_log *log)
{
	struct btf *vm = btf__parse(BTFI_SYSFS_BTF, NULL), *flat;
	const char *why;
	void *raw;
	size_t sz;

	if (!vm) {
		btfi_err(log, "%s: cannot read: %s", BTFI_SYSFS_BTF, strerror(errno));
		return NULL;
	}
	if (!mod)
		return vm;
	raw = slurp(mbtf, &sz);
	flat = raw ? btfi_base_flatten_btf(vm, raw, sz, &why) : NULL;
	if (!flat)
		btfi_err(log, "kernel: module %s: %s: %s", mod, mbtf, raw ? why : strerror(errno));
	free(raw);
	btf__free(vm);
	return flat;
}

/*
 * Its DWARF: on this machine by build-id (kdebug.c), else debuginfod. 0 and
 * *path; else one line saying where we looked and what to install.
 */
static int find_dwarf(const char *mod, const char *what, const char *hex, const unsigned char *id,
		      size_t nid, const struct btfi_source_opts *opts, const struct btfi_log *log,
		      char **path)
{
	BTFI_OPTS(btfi_kdebug_opts, ko, .log = *log, .build_id = hex,
		  .debug_dirs = OPTS_GET(opts, debug_dirs, NULL),
		  .release = OPTS_GET(opts, kernel_release, NULL));
	char tried[2048], why[256] = "", hint[256], got[130];
	int err;

	err = btfi_kdebug_find(mod, &ko, path, tried, sizeof(tried));
	if (err != -ENOENT)
		return err;	/* found, or a mismatch (logged) */
	if (!btfi_debuginfod_fetch(id, nid, path, why, sizeof(why))) {
		if (btfi_elf_file_build_id(*path, got, sizeof(got)) && !strcmp(got, hex))
			return 0;
		btfi_err(log, "kernel: %s: %s from debuginfod has build-id %s, want %s", what, *path,
			 *got ? got : "(none)", hex);
		free(*path);
		*path = NULL;
		return -ESTALE;
	}
	btfi_kdebug_hint(OPTS_GET(opts, kernel_release, NULL), hint, sizeof(hint));
	btfi_err(log, "kernel: no inline info for %s (build-id %s): no %s/%s.inline, not in the cache, "
		 "no DWARF (looked in %s%s%s); %s", what, hex, BTFI_SYSFS_BTF_DIR, mod ? mod : "vmlinux",
		 tried, getenv("DEBUGINFOD_URLS") ? "; debuginfod: " : "",
		 getenv("DEBUGINFOD_URLS") ? why : "", hint);
	return -ENOENT;
}

/* Another kernel's (encode --kernel): the debug files' own BTF, over the
 * vmlinux given (--base) for a module. */
static struct btf *file_base(const char *mod, const char *what, const char *dwarf,
			     const char *vmlinux, const struct btfi_log *log)
{
	struct btf *vm, *flat = NULL;
	const char *why = "no .BTF section", *raw;
	size_t sz;
	Elf *elf;
	int fd;

	if (mod && !vmlinux) {
		btfi_err(log, "kernel: %s of another kernel: pass its vmlinux (--base)", what);
		return NULL;
	}
	vm = btf__parse(vmlinux ? vmlinux : dwarf, NULL);
	if (!vm) {
		btfi_err(log, "%s: cannot read its BTF: %s", vmlinux ? vmlinux : dwarf, strerror(errno));
		return NULL;
	}
	if (!mod)
		return vm;
	fd = open(dwarf, O_RDONLY | O_CLOEXEC);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	raw = elf ? btfi_elf_section(elf, ".BTF", &sz, NULL) : NULL;
	if (raw)
		flat = btfi_base_flatten_btf(vm, raw, sz, &why);
	if (!flat)
		btfi_err(log, "%s: its .BTF over %s: %s", dwarf, vmlinux, why);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	btf__free(vm);
	return flat;
}

static int kernel_build(const char *mod, const struct btfi_source_opts *opts,
			const struct btfi_log *log, struct btfinline **out,
			struct btfi_source_info *info)
{
	struct btfi_msgbuf m = { { 0 } };
	char hex[130], kind[96], what[96], mbtf[256], *dwarf = NULL;
	const char *given_id = OPTS_GET(opts, kernel_build_id, NULL), *vmlinux = OPTS_GET(opts, base, NULL);
	const char *base_path = mod ? mbtf : BTFI_SYSFS_BTF, *base_base = mod ? BTFI_SYSFS_BTF : NULL;
	BTFI_OPTS(btfi_cache_opts, co, .log = BTFI_LOG_KEEP(&m), .dir = OPTS_GET(opts, cache_dir, NULL),
		  .base_base = base_base);
	struct btfi_cache_entry e = { 0 };
	struct btfi_cache_key k;
	unsigned char id[64];
	struct btf *base = NULL;
	void *bbase = NULL, *blob = NULL;
	double t0 = btfi_source_now();
	size_t nid;
	int err;

	snprintf(mbtf, sizeof(mbtf), BTFI_SYSFS_BTF_DIR "/%s", mod ? mod : "vmlinux");
	snprintf(what, sizeof(what), "%s%s", mod ? "module " : "vmlinux", mod ? mod : "");
	if (given_id)
		snprintf(hex, sizeof(hex), "%s", given_id);
	nid = given_id ? strlen(hex) / 2 : btfi_kmod_build_id(mod, hex, sizeof(hex));
	if (!nid || unhex(hex, id, sizeof(id)) != nid) {
		btfi_err(log, "kernel: %s: no build-id in %s, cannot look its inline info up; pass "
			 "--inline-btf", what, mod ? "/sys/module/<m>/notes" : BTFI_KERNEL_NOTES);
		return -ENOENT;
	}
	snprintf(kind, sizeof(kind), "%s%s", mod ? "kmod-" : "vmlinux", mod ? mod : "");
	btfi_cache_key_build_id(id, nid, kind, &k);
	/* another kernel's entry is made anew, the running one's used */
	if (given_id) {
		snprintf(info->key, sizeof(info->key), "%s", k.id);
		btfi_cache_path(&co, &k, info->path, sizeof(info->path));
	} else if (!btfi_source_cached(&co, &k, base_path, t0, &m, info, out)) {
		return 0;
	}
	err = find_dwarf(mod, what, hex, id, nid, opts, log, &dwarf);
	if (err)
		return err;
	if (given_id) {
		base = file_base(mod, what, dwarf, vmlinux, log);
		base_path = mod ? dwarf : vmlinux ? vmlinux : dwarf;
		base_base = mod ? vmlinux : NULL;
		co.base_base = base_base;
	} else {
		base = live_base(mod, mbtf, log);
	}
	if (!base) {
		free(dwarf);
		return -EINVAL;
	}
	/* the one slow step (seconds for vmlinux): say so before */
	btfi_info(log, "kernel: %s: encoding its inline info from %s (once: then cached)", what, dwarf);
	{
		BTFI_OPTS(btfi_build_opts, bo, .log = *log, .base = base,
			  .debug_dirs = OPTS_GET(opts, debug_dirs, NULL));

		err = btfi_build_inline(dwarf, &bo, &bbase, &e.base_sz, &blob, &e.blob_sz, &info->build);
	}
	free(bbase);	/* not stored: the live BTF is the base */
	btf__free(base);
	if (err)
		goto out;
	e.like = dwarf;
	e.blob = blob;
	info->how = BTFI_SOURCE_BUILT;
	err = btfi_cache_store(&co, &k, &e);
	if (!err) {
		err = btfi_cache_open(&co, &k, base_path, out);
		if (err)	/* what we just wrote: a bug, not a cache problem */
			btfi_err(log, "kernel: %s: %s", what, m.s);
	} else {
		snprintf(info->note, sizeof(info->note), "not cached: %s", m.s);
		info->path[0] = 0;
		err = btfi_source_uncached(&k, &e, base_path, base_base, log, out);
	}
	if (!err)
		btfi_info(log, "kernel: %s: %u sites in %.1f s%s%s", what, info->build.nsites,
			  btfi_source_now() - t0, *info->path ? ", cached as " : " (not cached)", info->path);
out:
	free(blob);
	free(dwarf);
	info->secs = btfi_source_now() - t0;
	return err;
}

int btfi_source_kernel(const struct btfi_source_opts *opts, const struct btfi_log *log,
		       struct btfinline **bi, struct btfi_source_info *info)
{
	const char *mod = OPTS_GET(opts, module, NULL);

	/* another kernel: nothing of it is loaded here */
	if (OPTS_GET(opts, kernel_build_id, NULL) && OPTS_GET(opts, build, false))
		return kernel_build(mod, opts, log, bi, info);
	return mod ? kmod_open(mod, opts, log, bi, info) : kernel_open(opts, log, bi, info);
}
