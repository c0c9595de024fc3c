// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The inline info of a target, from wherever it is (source/source.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "attach/attach_kprobe.h"
#include "elf_file.h"
#include "log.h"
#include "opts.h"
#include "source/source.h"

const char *btfi_source_how_str(enum btfi_source_how how)
{
	switch (how) {
	case BTFI_SOURCE_SECTION: return "section";
	case BTFI_SOURCE_FILE: return "file";
	case BTFI_SOURCE_SYSFS: return "sysfs";
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
	if (t == BTFI_TARGET_KERNEL)
		return kernel_open(blob, base, log, bi, info);
	if (!target) {
		btfi_err(log, "inline info: no target file");
		return -EINVAL;
	}
	return user_open(target, blob, base, base_base, log, bi, info);
}
