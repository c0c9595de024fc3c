/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A loaded kernel module as sysfs shows it: where each of its sections was
 * loaded (/sys/module/<m>/sections/, root only), its build-id
 * (/sys/module/<m>/notes/), its BTF (/sys/kernel/btf/<m>). Also the running
 * kernel's build-id (/sys/kernel/notes).
 */
#ifndef BTFI_KMODULE_H
#define BTFI_KMODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "btfinline.h"

#define BTFI_SYSFS_MODULE	"/sys/module"
#define BTFI_SYSFS_BTF_DIR	"/sys/kernel/btf"
#define BTFI_KERNEL_NOTES	"/sys/kernel/notes"

struct btfi_kmod_sec {
	char name[64];
	uint64_t addr;
};

struct btfi_kmod {
	char name[64];
	struct btfi_kmod_sec *secs;
	size_t nsecs;
};

/* Is module `name` loaded (/sys/module/<name>/sections exists)? Built-in
 * "modules" have a /sys/module entry too, but no sections. */
bool btfi_kmod_loaded(const char *name);
/* Its sections' load addresses. -ENOENT "kernel: module X is not loaded",
 * -EPERM when every address reads as 0 (not root), one message each. */
int btfi_kmod_load(const char *name, struct btfi_kmod *m, const struct btfi_log *log);
void btfi_kmod_free(struct btfi_kmod *m);
/* Load address of a section named in a LOCSEC ("inline.text" or ".text").
 * -ENOENT: no such section, or init code (freed once the module is up). */
int btfi_kmod_sec_base(const struct btfi_kmod *m, const char *sec, uint64_t *addr);

/* The GNU build-id in an ELF notes file (/sys/kernel/notes,
 * /sys/module/<m>/notes/.note.gnu.build-id) as lower-case hex; returns
 * its length in bytes, 0 when there is none or the file cannot be read. */
size_t btfi_notes_build_id(const char *path, char *hex, size_t len);
/* That of module `name`, or of the kernel itself (name NULL). */
size_t btfi_kmod_build_id(const char *name, char *hex, size_t len);

#endif
