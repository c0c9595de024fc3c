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
#include "source/source_priv.h"

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

double btfi_source_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "PATH: problem" -> "problem", to put a message in another's context. */
const char *btfi_source_after_path(const char *msg, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2) ? msg + n + 2 : msg;
}

/*
 * The cache could not take the entry (no HOME, read-only): one in a
 * private temp directory, opened and removed. The reader loads the base
 * lazily by path: load it before the file goes.
 */
int btfi_source_uncached(const struct btfi_cache_key *k, const struct btfi_cache_entry *e,
			 const char *base, const char *base_base, const struct btfi_log *log,
			 struct btfinline **bi)
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
		BTFI_OPTS(btfi_cache_opts, co, .log = *log, .dir = dir, .base_base = base_base);

		err = btfi_cache_store(&co, k, e);
		if (!err)
			err = btfi_cache_open(&co, k, base, bi);
		if (!err && !btfinline__btf(*bi))
			err = -EINVAL;
		if (!btfi_cache_path(&co, k, path, sizeof(path)))
			unlink(path);
	}
	rmdir(dir);
	return err;
}

int btfi_source_cached(const struct btfi_cache_opts *co, const struct btfi_cache_key *k,
		       const char *base_path, double t0, struct btfi_msgbuf *m,
		       struct btfi_source_info *info, struct btfinline **bi)
{
	int err;

	snprintf(info->key, sizeof(info->key), "%s", k->id);
	btfi_cache_path(co, k, info->path, sizeof(info->path));
	err = btfi_cache_open(co, k, base_path, bi);
	if (!err) {
		info->how = BTFI_SOURCE_CACHE;
		info->secs = btfi_source_now() - t0;
		return 0;
	}
	if (err != -ENOENT && *info->path)
		snprintf(info->note, sizeof(info->note), "replaced an unusable cache entry: %s", m->s);
	m->s[0] = 0;
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
	double t0 = btfi_source_now();
	int err;

	err = btfi_cache_key_file(target, &k, log);
	if (err)
		return err;
	if (!btfi_source_cached(&co, &k, NULL, t0, &m, info, bi))
		return 0;
	err = btfi_build_inline(target, &bo, &base, &e.base_sz, &blob, &e.blob_sz, &info->build);
	if (err) {
		btfi_err(log, "%s: no .BTF.inline section, and none can be built: %s", target,
			 btfi_source_after_path(m.s, target));
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
		err = btfi_source_uncached(&k, &e, NULL, NULL, log, bi);
	}
	free(base);
	free(blob);
	info->secs = btfi_source_now() - t0;
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
	if (t == BTFI_TARGET_KERNEL)
		return btfi_source_kernel(opts, log, bi, info);
	if (!target) {
		btfi_err(log, "inline info: no target file");
		return -EINVAL;
	}
	if (OPTS_GET(opts, build, false) && !blob && !base &&
	    btfi_elf_file_has_section(target, ".BTF.inline") == 0)
		return build_open(target, opts, log, bi, info);
	return user_open(target, blob, base, base_base, log, bi, info);
}
