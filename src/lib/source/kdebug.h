/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the DWARF of the running kernel, or of one of its loaded modules,
 * is on this machine: the debug files distributions install, checked
 * against the build-id the kernel reports (/sys/kernel/notes,
 * /sys/module/<m>/notes). When there is none: what to install.
 */
#ifndef BTFI_KDEBUG_H
#define BTFI_KDEBUG_H

#include <stddef.h>
#include "btfinline.h"

struct btfi_kdebug_opts {
	size_t sz;
	struct btfi_log log;
	const char *release;	/* default: uname -r */
	const char *build_id;	/* hex; default: the running kernel's or module's */
	const char *debug_dirs;	/* roots, ':'-separated; default /usr/lib/debug */
};

/*
 * The debug file of vmlinux (module NULL) or of loaded module `module`,
 * with DWARF and the wanted build-id, in this order under each root:
 *   ROOT/.build-id/xx/rest.debug
 *   vmlinux: ROOT/boot/vmlinux-R, ROOT/lib/modules/R/vmlinux, and
 *            /boot/vmlinux-R, /lib/modules/R/build/vmlinux (own builds)
 *   module:  ROOT/lib/modules/R/.../M.ko[.xz|.gz] (names with '-' or '_')
 * 0 and *path (malloc'd); -ENOENT, nothing logged, *tried says where it
 * looked; -ESTALE when a candidate exists but its build-id differs (logged,
 * one line naming both ids).
 */
int btfi_kdebug_find(const char *module, const struct btfi_kdebug_opts *opts, char **path,
		     char *tried, size_t tried_len);

/* "install linux-image-R-dbg" and the like, for this distribution. */
void btfi_kdebug_hint(const char *release, char *buf, size_t len);

#endif
