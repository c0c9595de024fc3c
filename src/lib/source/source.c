// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The inline info of a target, from wherever it is (source/source.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "attach/attach_kprobe.h"
#include "attach/kmodule.h"
#include "format/base.h"
#include "elf_file.h"
#include "log.h"
#include "opts.h"
#include "source/cache.h"
#include "source/source.h"

const char *btfi_source_how_str(enum btfi_source_how how)
{
	switch (how) {
	case BTFI_SOURCE_SECTION: return "section";
	case BTFI_SOURCE_FILE: return "file";
	case BTFI_SOURCE_SYSFS: return "sysfs";
	case BTFI_SOURCE_CACHE: return "cache";
	case BTFI_SOURCE_BUILT: return "built";
	}
	return "?";
}

/* ---- the running kernel ---- */

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

static int kernel_open(const char *blob, const char *base_file, const struct btfi_log *log,
		       struct btfinline **out, struct btfi_source_info *info)
{
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

/* ---- a loaded kernel module ---- */

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
	own = btfi_elf_section(elf, ".BTF", &osz);
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

static int kmod_open(const char *mod, const char *blob, const struct btfi_log *log,
		     struct btfinline **out, struct btfi_source_info *info)
{
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

/* ---- user space ---- */

static int user_open(const char *target, const char *blob, const char *base,
		     const char *base_base, const struct btfi_log *log, struct btfinline **out,
		     struct btfi_source_info *info)
{
	/* A blob's ids continue the target's own .BTF (or --base's). */
	BTFI_OPTS(btfinline_open_opts, oo, .log = *log, .base_path = base ? base : blob ? target : NULL,
		  .base_base_path = base_base);
	const char *path = blob ? blob : target;
	int err = btfinline__open(path, &oo, out);

	if (!err) {
		info->how = blob ? BTFI_SOURCE_FILE : BTFI_SOURCE_SECTION;
		snprintf(info->path, sizeof(info->path), "%s", path);
	}
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "PATH: problem" -> "problem", to put a message in another's context. */
static const char *after_path(const char *msg, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2) ? msg + n + 2 : msg;
}

/*
 * The cache could not take the entry (no HOME, read-only): one in a
 * private temp directory, opened and removed. The reader loads the base
 * lazily by path: load it before the file goes.
 */
static int open_uncached(const struct btfi_cache_key *k, const struct btfi_cache_entry *e,
			 const struct btfi_log *log, struct btfinline **bi)
{
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], path[4200];
	int err;

	snprintf(dir, sizeof(dir), "%s/btfinline.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		err = -errno;
		btfi_err(log, "%s: %s", dir, strerror(-err));
		return err;
	}
	{
		BTFI_OPTS(btfi_cache_opts, co, .log = *log, .dir = dir);

		err = btfi_cache_store(&co, k, e);
		if (!err)
			err = btfi_cache_open(&co, k, NULL, bi);
		if (!err && !btfinline__btf(*bi))
			err = -EINVAL;
		if (!btfi_cache_path(&co, k, path, sizeof(path)))
			unlink(path);
	}
	rmdir(dir);
	return err;
}

/* No .BTF.inline in the target: the cache entry, else build and cache it. */
static int build_open(const char *target, const struct btfi_source_opts *opts,
		      const struct btfi_log *log, struct btfinline **bi, struct btfi_source_info *info)
{
	struct btfi_msgbuf m = { { 0 } };
	BTFI_OPTS(btfi_cache_opts, co, .log = BTFI_LOG_KEEP(&m),
		  .dir = OPTS_GET(opts, cache_dir, NULL));
	BTFI_OPTS(btfi_build_opts, bo, .log = BTFI_LOG_KEEP(&m),
		  .debug_file = OPTS_GET(opts, debug_file, NULL),
		  .debug_dirs = OPTS_GET(opts, debug_dirs, NULL));
	struct btfi_cache_entry e = { .like = target };
	struct btfi_cache_key k;
	void *base = NULL, *blob = NULL;
	double t0 = now();
	int err;

	err = btfi_cache_key_file(target, &k, log);
	if (err)
		return err;
	snprintf(info->key, sizeof(info->key), "%s", k.id);
	btfi_cache_path(&co, &k, info->path, sizeof(info->path));
	err = btfi_cache_open(&co, &k, NULL, bi);
	if (!err) {
		info->how = BTFI_SOURCE_CACHE;
		info->secs = now() - t0;
		return 0;
	}
	if (err != -ENOENT && *info->path)
		snprintf(info->note, sizeof(info->note), "replaced an unusable cache entry: %s", m.s);
	m.s[0] = 0;
	err = btfi_build_inline(target, &bo, &base, &e.base_sz, &blob, &e.blob_sz, &info->build);
	if (err) {
		btfi_err(log, "%s: no .BTF.inline section, and none can be built: %s", target,
			 after_path(m.s, target));
		return err;
	}
	e.base = base;
	e.blob = blob;
	info->how = BTFI_SOURCE_BUILT;
	m.s[0] = 0;
	/* Without a real base, build again next time: pahole may be there. */
	if (info->build.base_how == BTFI_BASE_NONE) {
		snprintf(info->note, sizeof(info->note), "not cached: no base BTF");
		err = -EAGAIN;
	} else {
		err = btfi_cache_store(&co, &k, &e);
	}
	if (!err) {
		err = btfi_cache_open(&co, &k, NULL, bi);
		if (err)	/* what we just wrote: a bug, not a cache problem */
			btfi_err(log, "%s: %s", target, m.s);
	} else {
		if (err != -EAGAIN)
			snprintf(info->note, sizeof(info->note), "not cached: %s", m.s);
		info->path[0] = 0;
		err = open_uncached(&k, &e, log, bi);
	}
	free(base);
	free(blob);
	info->secs = now() - t0;
	return err;
}

int btfi_source_open(enum btfi_target t, const char *target, const struct btfi_source_opts *opts,
		     struct btfinline **bi, struct btfi_source_info *info)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(opts, log) ? &opts->log : &no_log;
	const char *blob = OPTS_GET(opts, inline_btf, NULL), *base = OPTS_GET(opts, base, NULL);
	const char *base_base = OPTS_GET(opts, base_base, NULL);
	struct btfi_source_info dummy;

	*bi = NULL;
	if (!OPTS_VALID(opts, btfi_source_opts, log))
		return -EINVAL;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (t == BTFI_TARGET_KERNEL && OPTS_GET(opts, module, NULL))
		return kmod_open(opts->module, blob, log, bi, info);
	if (t == BTFI_TARGET_KERNEL)
		return kernel_open(blob, base, log, bi, info);
	if (!target) {
		btfi_err(log, "inline info: no target file");
		return -EINVAL;
	}
	if (OPTS_GET(opts, build, false) && !blob && !base &&
	    btfi_elf_file_has_section(target, ".BTF.inline") == 0)
		return build_open(target, opts, log, bi, info);
	return user_open(target, blob, base, base_base, log, bi, info);
}
