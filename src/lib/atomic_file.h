/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Writing an output file whole or not at all: a temp file in the target's
 * directory, fsync'ed, renamed over the target. A symlink target writes the
 * file it names (the link stays); a target that exists and is not a regular
 * file (/dev/null, /dev/stdout, a FIFO) is written directly, never replaced;
 * a directory is refused.
 */
#ifndef BTFI_ATOMIC_FILE_H
#define BTFI_ATOMIC_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include "btfinline.h"

struct btfi_atomic {
	int fd;				/* write here */
	bool direct;			/* no temp file: the target itself */
	char path[PATH_MAX];		/* the target (symlinks resolved) */
	char tmp[PATH_MAX + 32];
};

/* 0, or -errno logged once naming the target. need_regular: a target
 * that exists as something else is refused (libelf writes seek). */
int btfi_atomic_open(struct btfi_atomic *a, const char *path, mode_t mode, bool need_regular,
		     const struct btfi_log *log);
/* fsync + close + rename; on error the temp file is removed. */
int btfi_atomic_commit(struct btfi_atomic *a, const struct btfi_log *log);
/* Close and remove the temp file (after an error while writing). */
void btfi_atomic_abort(struct btfi_atomic *a);
/* open + write all + commit. */
int btfi_atomic_write(const char *path, const void *data, size_t sz, mode_t mode,
		      const struct btfi_log *log);

#endif
