/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Is this the base a blob was made for? Split-BTF ids and string offsets
 * continue the base's, so only identical bytes are the same base (encode
 * --base against the file's own .BTF; attach against the running kernel's
 * /sys/kernel/btf/vmlinux).
 */
#ifndef BTFI_BASE_H
#define BTFI_BASE_H

#include <stddef.h>
#include <stdint.h>

struct btf;

struct btfi_base_diff {
	uint32_t ntypes[2], str_len[2];	/* of a and b (0 if not parseable) */
	size_t size[2];			/* raw bytes of a and b */
	size_t first_diff;		/* first differing byte of the raw data */
};

/* 0 if the raw bytes of a and b are identical, -ESTALE (with *d filled)
 * if they differ, -ENOMEM if one cannot be serialized. */
int btfi_base_same(const struct btf *a, const struct btf *b, struct btfi_base_diff *d);
/* The same on raw BTF bytes. */
int btfi_base_same_raw(const void *a, size_t asz, const void *b, size_t bsz,
		       struct btfi_base_diff *d);

#endif
