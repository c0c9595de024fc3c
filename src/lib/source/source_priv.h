/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Between source.c (dispatch, user space) and source_kernel.c. */
#ifndef BTFI_SOURCE_PRIV_H
#define BTFI_SOURCE_PRIV_H

#include "source/cache.h"
#include "source/source.h"

/* The running kernel's, or a loaded module's (opts.module), inline info. */
int btfi_source_kernel(const struct btfi_source_opts *opts, const struct btfi_log *log,
		       struct btfinline **bi, struct btfi_source_info *info);

/* An entry the cache could not take (no HOME, read-only), stored in a
 * private temp directory, opened over base (NULL: the entry's own .BTF) and
 * base_base, and removed. */
int btfi_source_uncached(const struct btfi_cache_key *k, const struct btfi_cache_entry *e,
			 const char *base, const char *base_base, const struct btfi_log *log,
			 struct btfinline **bi);

/* The cache's entry for k (info's key and path set): 0 and info->how =
 * CACHE when it opens over base_path (NULL: its own .BTF); else the error,
 * with info->note saying an entry there was unusable (m: the cache's
 * message, cleared for what follows). */
int btfi_source_cached(const struct btfi_cache_opts *co, const struct btfi_cache_key *k,
		       const char *base_path, double t0, struct btfi_msgbuf *m,
		       struct btfi_source_info *info, struct btfinline **bi);

double btfi_source_now(void);
/* "PATH: problem" -> "problem", to put a message in another's context. */
const char *btfi_source_after_path(const char *msg, const char *path);

#endif
