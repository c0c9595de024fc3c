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

/*
 * A kernel module's .BTF is split BTF over vmlinux's: its ids start at
 * vmlinux's type count (+1 for void), its string offsets at vmlinux's
 * str_len, and its string section does not start with "". The chain as one
 * plain BTF with the same ids and offsets: vmlinux's types then the
 * module's, vmlinux's strings then the module's (docs/FORMAT.md, "Kernel
 * modules"). A blob split over that is byte for byte the blob split over
 * the chain; libbpf 1.1 cannot split over a split base (its string offsets
 * restart at the middle base's length: fixed upstream in 2025).
 * Checks both headers; -EINVAL with *why set. *out is malloc'd.
 */
int btfi_base_flatten(const void *vmlinux, size_t vsz, const void *mod, size_t msz,
		      void **out, size_t *outsz, const char **why);
/* The same as a libbpf BTF (NULL and errno). */
struct btf *btfi_base_flatten_btf(const struct btf *vmlinux, const void *mod, size_t msz,
				  const char **why);

#endif
