/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Cache of inline info built on demand (source.c encodes a binary that has
 * DWARF but no .BTF.inline; the kernel's modules can do the same). One
 * file per target under ${XDG_CACHE_HOME:-~/.cache}/btfinline/encoded/,
 * named by the target's key: its build-id, else a hash of its path, size
 * and mtime. An entry is a small ELF file (readable by `dump`, `readelf`):
 *   .btfinline.key  "btfinline-cache <format> <version>\n<key id>\n"
 *   .BTF            the base the blob extends (absent: the caller names it)
 *   .BTF.inline     the blob
 * plus header-only copies of the target's code sections (their
 * addresses: `dump ENTRY` prints the target's). Entries are written to a temp file and renamed; on open the
 * key text must match and the blob is validated against its base like any
 * input, so a corrupt, truncated or stale entry is refused (and rebuilt by
 * the caller), never used.
 */
#ifndef BTFI_CACHE_H
#define BTFI_CACHE_H

#include <limits.h>
#include <stddef.h>
#include "btfinline.h"

struct btfi_cache_key {
	char name[144];			/* file name stem in the cache dir */
	char id[PATH_MAX + 96];		/* stored in the entry, compared on open */
};

/* Key of an ELF file: "build-id HEX", else "file PATH size N mtime S.NS"
 * (PATH made absolute). 0, or -errno logged ("PATH: problem"). */
int btfi_cache_key_file(const char *path, struct btfi_cache_key *k, const struct btfi_log *log);
/* Key from a build-id the caller read itself (kernel notes). `kind`
 * separates entries of different bases for one build-id ("user",
 * "kernel"...). */
void btfi_cache_key_build_id(const void *id, size_t n, const char *kind, struct btfi_cache_key *k);

struct btfi_cache_opts {
	size_t sz;
	struct btfi_log log;
	const char *dir;	/* default ${XDG_CACHE_HOME:-$HOME/.cache}/btfinline/encoded */
	/* open: the base's own base, for an entry whose base is split BTF (a
	 * kernel module's: /sys/kernel/btf/<m> over /sys/kernel/btf/vmlinux) */
	const char *base_base;
};

/* The entry's path (whether it exists or not). -ENOENT: no cache
 * directory (neither XDG_CACHE_HOME nor HOME set). */
int btfi_cache_path(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		    char *buf, size_t len);

/*
 * Open the entry of k, validated. base_path: the base BTF for an entry
 * stored without .BTF (NULL: the entry's own). 0 and *bi; -ENOENT: no
 * entry (nothing logged); another -errno: the entry is unusable, the
 * reason logged ("ENTRY: problem").
 */
int btfi_cache_open(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		    const char *base_path, struct btfinline **bi);

struct btfi_cache_entry {
	const char *like;		/* the target ELF: class, machine, section addresses */
	const void *base;		/* raw base BTF, NULL: not stored */
	size_t base_sz;
	const void *blob;		/* raw .BTF.inline */
	size_t blob_sz;
};

/* Write the entry of k (creating the directory), atomically. 0 or -errno
 * logged. */
int btfi_cache_store(const struct btfi_cache_opts *o, const struct btfi_cache_key *k,
		     const struct btfi_cache_entry *e);

#endif
