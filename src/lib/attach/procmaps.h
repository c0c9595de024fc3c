/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A process's file mappings, from /proc/PID/maps. */
#ifndef BTFI_PROCMAPS_H
#define BTFI_PROCMAPS_H
#include <stdint.h>

struct btfi_procmap {
	uint64_t start, end;	/* runtime addresses [start, end) */
	uint64_t off;		/* file offset of start */
	const char *path;	/* absolute; valid during the callback only */
};

/* Call fn for each mapping of a file (path starting with '/', not
 * " (deleted)") until it returns nonzero, which is returned; -errno when
 * the maps cannot be read (a process gone, no permission). */
int btfi_procmaps(int pid, int (*fn)(const struct btfi_procmap *m, void *ctx), void *ctx);
#endif
