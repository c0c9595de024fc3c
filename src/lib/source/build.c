// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Inline info built from DWARF on demand (source/build.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include "dwarf/debuginfo.h"
#include "dwarf/scan.h"
#include "elf_file.h"
#include "encode/encode.h"
#include "log.h"
#include "opts.h"
#include "source/build.h"

const char *btfi_base_how_str(enum btfi_base_how how)
{
	switch (how) {
	case BTFI_BASE_OWN: return "its own .BTF";
	case BTFI_BASE_DEBUG_FILE: return "the debug file's .BTF";
	case BTFI_BASE_PAHOLE: return "pahole --btf_encode_detached on the DWARF file";
	case BTFI_BASE_NONE: return "none";
	case BTFI_BASE_GIVEN: return "given";
	}
	return "?";
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The base, in order: the binary's .BTF (pahole -J ran on it), its debug
 * file's (pahole -J before the split), pahole on the DWARF file; without
 * pahole an empty base: the encoder then adds every prototype itself
 * (structs as FWD: arguments print, their members cannot be followed).
 */
static int find_base(const struct btfi_scan *s, const struct btfi_log *log,
		     struct btf **base, struct btfi_build_info *info)
{
	struct btfi_msgbuf m = { { 0 } };
	struct btfi_log ml = BTFI_LOG_KEEP(&m);
	int err;

	/* libbpf would print its own line for a file without .BTF */
	if (btfi_elf_file_has_section(s->path, ".BTF") == 1) {
		*base = btf__parse_elf(s->path, NULL);
		if (!*base) {
			err = -errno;
			btfi_err(log, "%s: cannot read its .BTF: %s", s->path, strerror(-err));
			return err;
		}
		info->base_how = BTFI_BASE_OWN;
		return 0;
	}
	if (s->dwarf_path != s->path && btfi_elf_file_has_section(s->dwarf_path, ".BTF") == 1) {
		*base = btf__parse_elf(s->dwarf_path, NULL);
		if (!*base) {
			err = -errno;
			btfi_err(log, "%s: cannot read its .BTF: %s", s->dwarf_path, strerror(-err));
			return err;
		}
		info->base_how = BTFI_BASE_DEBUG_FILE;
		return 0;
	}
	err = btfi_base_from_pahole(s->dwarf_path, &ml, base);
	if (!err) {
		info->base_how = BTFI_BASE_PAHOLE;
		return 0;
	}
	if (err != -ENOENT && err != -ENODATA) {
		btfi_err(log, "%s", m.s);
		return err;
	}
	/* "DWARF_FILE: base BTF: why" -> "why" */
	{
		const char *why = strstr(m.s, "base BTF: ");

		snprintf(info->base_note, sizeof(info->base_note),
			 "%s; prototypes from the DWARF, struct members unknown", why ? why + 10 : m.s);
	}
	*base = btf__new_empty();
	if (!*base) {
		btfi_err(log, "%s: out of memory", s->path);
		return -ENOMEM;
	}
	info->base_how = BTFI_BASE_NONE;
	return 0;
}

int btfi_build_inline(const char *path, const struct btfi_build_opts *o, void **base_out,
		      size_t *base_sz, void **blob, size_t *blob_sz, struct btfi_build_info *info)
{
	static const struct btfi_log no_log;
	const struct btfi_log *log = OPTS_HAS(o, log) ? &o->log : &no_log;
	BTFI_OPTS(btfi_scan_opts, so, .log = *log, .debug_file = OPTS_GET(o, debug_file, NULL),
		  .debug_dirs = OPTS_GET(o, debug_dirs, NULL));
	BTFI_OPTS(btfi_encode_opts, eo, .log = *log);
	struct btfi_build_info dummy;
	struct btfi_encode_stats st;
	struct btfi_scan *s = NULL;
	struct btf *base = NULL;
	const void *raw;
	uint32_t rsz;
	double t0 = now();
	int err;

	*base_out = *blob = NULL;
	*base_sz = *blob_sz = 0;
	if (!OPTS_VALID(o, btfi_build_opts, log))
		return -EINVAL;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	err = btfi_scan_open(path, &so, &s);
	if (err)
		return err;	/* logged: no DWARF anywhere, a bad debug file... */
	snprintf(info->dwarf_path, sizeof(info->dwarf_path), "%s", s->dwarf_path);
	info->dwarf_src = s->di->src;
	if (OPTS_GET(o, base, NULL)) {	/* a copy: btfi_encode() splits over it */
		const void *b = btf__raw_data(o->base, &rsz);

		base = b ? btf__new(b, rsz) : NULL;
		if (!base) {
			btfi_err(log, "%s: out of memory", path);
			err = -ENOMEM;
			goto out;
		}
		info->base_how = BTFI_BASE_GIVEN;
	} else {
		err = find_base(s, log, &base, info);
		if (err)
			goto out;
	}
	err = btfi_encode(s, base, &eo, blob, blob_sz, &st);
	if (err)
		goto out;
	raw = btf__raw_data(base, &rsz);
	if (!raw || !(*base_out = malloc(rsz ? rsz : 1))) {
		btfi_err(log, "%s: out of memory", path);
		err = -ENOMEM;
		goto out;
	}
	memcpy(*base_out, raw, rsz);
	*base_sz = rsz;
	info->nsites = st.nsites;
	info->secs = now() - t0;
out:
	if (err) {
		free(*blob);
		*blob = NULL;
		*blob_sz = 0;
	}
	btf__free(base);
	btfi_scan_free(s);
	return err;
}
