/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel side of attach: one kprobe (perf_event_open on the kprobe PMU) per
 * address, a BPF program on it with a bpf cookie; and the check that an
 * inline blob was built against the running kernel's BTF.
 */
#ifndef BTFI_ATTACH_KPROBE_H
#define BTFI_ATTACH_KPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include "btfinline.h"

struct btf;
struct bpf_program;
struct bpf_link;

struct btfi_kprobe_opts {
	size_t sz;
	uint64_t bpf_cookie;	/* read back with bpf_get_attach_cookie() */
	bool retprobe;
	/* kprobe PMU type from btfi_kprobe_pmu_type(); 0: read it here
	 * (pass it when attaching many sites) */
	int pmu_type;
	struct btfi_log log;
};

/* /sys/bus/event_source/devices/kprobe/type, or -errno (logged). */
int btfi_kprobe_pmu_type(const struct btfi_log *log);

/* Open the kprobe perf event only (no program): returns the perf event fd
 * or -errno (logged). Same addressing as btfi_kprobe_attach(). */
int btfi_kprobe_open(const char *sym, uint64_t off, const struct btfi_kprobe_opts *opts);

/* Attach `prog` at `sym`+`off` (sym != NULL; the kernel resolves the first
 * symbol of that name) or at the absolute runtime address `off` (sym ==
 * NULL; rebase for KASLR first, see kallsyms.h). The address must be an
 * instruction boundary inside a probe-able function. Returns 0 and the
 * link in *link (destroying it removes the kprobe), or -errno (logged). */
int btfi_kprobe_attach(struct bpf_program *prog, const char *sym, uint64_t off,
		       const struct btfi_kprobe_opts *opts, struct bpf_link **link);

/* 0 if `base_of_blob` (the base an inline blob was encoded against, e.g.
 * the debug vmlinux's .BTF) is byte-identical to the running kernel's
 * BTF at `sysfs_path` (NULL: /sys/kernel/btf/vmlinux); -ESTALE (logged,
 * with type counts and string sizes) if it differs; other -errno if the
 * sysfs file cannot be read. */
int btfi_check_base_matches(const struct btf *base_of_blob, const char *sysfs_path,
			    const struct btfi_log *log);

#endif
