/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opts structs (libbpf's OPTS_VALID / OPTS_HAS / OPTS_GET in spirit): each
 * starts with `size_t sz`, the size the caller was compiled with. An older
 * caller's struct is shorter: fields past its sz read as their default. A
 * newer caller's is longer: its tail must be zero (a field we do not know
 * would be ignored silently otherwise).
 */
#ifndef BTFI_OPTS_H
#define BTFI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include "log.h"

#define btfi_offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

static inline bool btfi_opts_valid(const void *opts, size_t known, size_t sz, const char *type,
				   const struct btfi_log *log)
{
	if (sz < sizeof(size_t)) {
		btfi_err(log, "%s: sz %zu too small", type, sz);
		return false;
	}
	for (size_t i = known; i < sz; i++)
		if (((const char *)opts)[i]) {
			btfi_err(log, "%s: unknown non-zero field at byte %zu (sz %zu, known %zu)",
				 type, i, sz, known);
			return false;
		}
	return true;
}

/* NULL opts is valid (all defaults). */
#define OPTS_VALID(opts, type, log) \
	(!(opts) || btfi_opts_valid((opts), sizeof(struct type), (opts)->sz, #type, (log)))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= btfi_offsetofend(__typeof__(*(opts)), field))
#define OPTS_GET(opts, field, fallback) (OPTS_HAS(opts, field) ? (opts)->field : (fallback))

#endif
