// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `btfinline encode ELF [-o OUT|--in-place] [--raw BLOB] [--base BTF] [-v]`:
 * DWARF scan -> .BTF.inline (split on the ELF's own .BTF). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "atomic_file.h"
#include "cli.h"
#include "debug_opts.h"
#include "dwarf/debuginfo.h"
#include "dwarf/scan.h"
#include "encode/encode.h"
#include "format/btf_write.h"
#include "format/base.h"
#include "format/elf_write.h"
#include "elf_file.h"
#include "attach/kmodule.h"
#include "source/source.h"
#include <sys/utsname.h>

static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* errno text, including libbpf's own codes (4000+). */
static const char *err_str(int err, char *buf, size_t n)
{
	if (err >= 4000) {
		libbpf_strerror(err, buf, n);
		return buf;
	}
	return strerror(err);
}

/*
 * The base the blob extends: ELF's own .BTF, or --base. A --base must be
 * what ELF ships when ELF has a .BTF (the blob's ids and string offsets
 * continue the base's); without one (a binary whose BTF was written
 * detached), --base is taken as given.
 */
static void no_base(const char *path, int err)
{
	char eb[128];

	fprintf(stderr, "btfinline: %s: no usable .BTF section (%s); run `pahole -J %s` first, or pass --base\n",
		path, err_str(err, eb, sizeof(eb)), path);
}

/* *none: ELF has no .BTF section (without --base: NULL, nothing logged,
 * the caller may take the debug file's). */
static struct btf *open_base(const char *path, const char *base_path, bool *none)
{
	char eb[128];
	enum btfi_file_kind kind;
	struct btf *base, *own;

	*none = false;
	if (!base_path) {
		base = btf__parse(path, NULL);
		if (!base && errno == ENOENT)
			*none = true;
		else if (!base)
			no_base(path, errno);
		return base;
	}
	if (access(base_path, R_OK)) {
		fprintf(stderr, "btfinline: %s: %s\n", base_path, strerror(errno));
		return NULL;
	}
	kind = btfi_file_kind(base_path);
	if (kind == BTFI_FILE_OTHER) {
		fprintf(stderr, "btfinline: %s: base is not an ELF file or a BTF blob\n", base_path);
		return NULL;
	}
	if (kind == BTFI_FILE_ELF && btfi_elf_check_file(base_path, NULL))
		return NULL;
	base = btf__parse(base_path, NULL);
	if (!base) {
		fprintf(stderr, "btfinline: %s: cannot read base BTF: %s\n", base_path,
			err_str(errno, eb, sizeof(eb)));
		return NULL;
	}
	own = btf__parse_elf(path, NULL);
	*none = !own && errno == ENOENT;
	if (own) {
		struct btfi_base_diff d;
		int err = btfi_base_same(own, base, &d);

		btf__free(own);
		if (err) {
			fprintf(stderr, "btfinline: %s: base %s is not this file's own .BTF (%u vs %u types, %zu vs %zu bytes)\n",
				path, base_path, d.ntypes[0], d.ntypes[1], d.size[0], d.size[1]);
			btf__free(base);
			return NULL;
		}
	}
	return base;
}

/*
 * A kernel module's base: its own .BTF, split over vmlinux's (--base: the
 * vmlinux it was built with, its .BTF or /sys/kernel/btf/vmlinux of that
 * kernel), as one flattened BTF (format/base.h). elf: the module as the
 * scan read it (decompressed).
 */
static struct btf *kmod_base(const char *path, Elf *elf, const char *vmlinux)
{
	const void *mod;
	const char *why;
	struct btf *vm, *flat;
	size_t msz;
	char eb[128];

	if (!vmlinux) {
		fprintf(stderr, "btfinline: %s: a kernel module, whose .BTF is split over vmlinux's: "
			"pass --base VMLINUX (the vmlinux it was built with, or that kernel's "
			"/sys/kernel/btf/vmlinux)\n", path);
		return NULL;
	}
	mod = btfi_elf_section(elf, ".BTF", &msz, NULL);
	if (!mod) {
		fprintf(stderr, "btfinline: %s: kernel module without a .BTF section "
			"(kernel built without CONFIG_DEBUG_INFO_BTF_MODULES?)\n", path);
		return NULL;
	}
	if (access(vmlinux, R_OK)) {
		fprintf(stderr, "btfinline: %s: %s\n", vmlinux, strerror(errno));
		return NULL;
	}
	if (btfi_file_kind(vmlinux) == BTFI_FILE_ELF && btfi_elf_check_file(vmlinux, NULL))
		return NULL;
	vm = btf__parse(vmlinux, NULL);
	if (!vm) {
		fprintf(stderr, "btfinline: %s: cannot read vmlinux BTF: %s\n", vmlinux,
			err_str(errno, eb, sizeof(eb)));
		return NULL;
	}
	flat = btfi_base_flatten_btf(vm, mod, msz, &why);
	btf__free(vm);
	if (!flat)
		fprintf(stderr, "btfinline: %s: .BTF over --base %s: %s\n", path, vmlinux, why);
	return flat;
}

/*
 * encode --kernel [RELEASE] [--build-id ID] [--module M]: the cache entry
 * `trace -k` uses, made now: the kernel's (or module's) DWARF found as
 * trace -k finds it, encoded over its own BTF (a module's over --base).
 * RELEASE and ID default to the running kernel's.
 */
static int encode_kernel(int argc, char **argv, const char *vmlinux, const char *build_id,
			 const char *module, const struct debug_opts *dbg, bool other_out)
{
	BTFI_OPTS(btfi_source_opts, so, .build = true, .module = module, .base = vmlinux,
		  .debug_dirs = dbg->dirs);
	struct btfi_source_info si;
	struct btfinline *bi = NULL;
	struct utsname u;
	char id[130];

	if (other_out || dbg->file)
		return cli_usage(&cli_encode, "--kernel writes the cache entry: no -o, --raw, --in-place, "
				 "--no-narrow or --debug-file");
	if (optind + 1 < argc)
		return cli_usage(&cli_encode, "--kernel takes one RELEASE");
	uname(&u);
	so.kernel_release = optind < argc ? argv[optind] : u.release;
	if (!build_id) {
		if (strcmp(so.kernel_release, u.release))
			return cli_usage(&cli_encode, "--build-id ID: %s is not the running kernel",
					 so.kernel_release);
		if (!btfi_kmod_build_id(module, id, sizeof(id))) {
			fprintf(stderr, "btfinline: kernel: %s%s: no build-id (%s)\n", module ? "module " : "vmlinux",
				module ? module : "", module ? "is it loaded?" : "/sys/kernel/notes");
			return 1;
		}
		build_id = id;
	}
	so.kernel_build_id = build_id;
	if (btfi_source_open(BTFI_TARGET_KERNEL, NULL, &so, &bi, &si))
		return 1;	/* logged */
	if (dbg->verbose)
		fprintf(stderr, "btfinline: kernel: %s: DWARF from %s (%s); %s\n", module ? module : "vmlinux",
			si.build.dwarf_path, btfi_debuginfo_src_str(si.build.dwarf_src), si.key);
	if (*si.note)
		fprintf(stderr, "btfinline: kernel: %s\n", si.note);
	btfinline__free(bi);
	return *si.path ? 0 : 1;
}

static int cmd_encode(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "raw", required_argument, NULL, 'r' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "base", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-narrow", no_argument, NULL, 'N' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "build-id", required_argument, NULL, 'B' },
		{ "module", required_argument, NULL, 'm' },
		{ "probe", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		DEBUG_LONGOPTS,
		{}
	};
	const char *out = NULL, *raw = NULL, *base_path = NULL, *path, *base_from = NULL;
	bool in_place = false, verbose = false, no_narrow = false, no_own = false;
	bool kmod = false, packed = false, kernel = false;
	const char *build_id = NULL, *module = NULL;
	struct debug_opts dbg = {};
	struct btfi_scan *s = NULL;
	struct btf *base = NULL;
	struct btfi_encode_stats st;
	void *blob = NULL;
	size_t sz = 0;
	double t0 = now(), t1, t2;
	int c, err, rc = 1, policy = 0;

	libbpf_set_print(NULL);	/* failures are reported here, once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'r': raw = optarg; break;
		case 'i': in_place = true; break;
		case 'b': base_path = optarg; break;
		case 'v': verbose = true; break;
		case 'N': no_narrow = true; break;
		case 'k': kernel = true; break;
		case 'B': build_id = optarg; break;
		case 'm': module = optarg; break;
		case 'P':
			if ((policy = cli_probe_policy(optarg)) < 0)
				return cli_usage(&cli_encode, "unknown probe policy '%s'", optarg);
			break;
		case 'h': cli_help(&cli_encode, stdout); return 0;
		default:
			if (!debug_opt(&dbg, c, optarg))
				return cli_bad_option(&cli_encode, c, argv);
			break;
		}
	}
	if (kernel)
		return dbg.verbose = verbose, encode_kernel(argc, argv, base_path, build_id, module, &dbg,
						    out || raw || in_place || no_narrow);
	if (build_id || module)
		return cli_usage(&cli_encode, "--build-id and --module go with --kernel");
	if (optind == argc)
		return cli_usage(&cli_encode, NULL);
	if (optind + 1 < argc)
		return cli_usage(&cli_encode, "extra argument '%s'", argv[optind + 1]);
	if (!out && !raw && !in_place)
		return cli_usage(&cli_encode, "no output: -o OUT, --raw BLOB or --in-place");
	path = argv[optind];
	if (out && in_place)
		return cli_usage(&cli_encode, "-o and --in-place exclude each other");
	if ((out && same_file(out, path)) || (raw && same_file(raw, path))) {
		fprintf(stderr, "btfinline: %s: output is the input file; use --in-place to modify it\n", path);
		return 2;
	}
	/* The DWARF may be detached; the output is always a copy of ELF
	 * (what runs), never of its debug file. */
	if (dbg.file && (same_file(dbg.file, path) || (out && same_file(out, dbg.file)) ||
			 (raw && same_file(raw, dbg.file))))
		return cli_usage(&cli_encode, "--debug-file %s: must be another file than ELF and the output",
				 dbg.file);
	dbg.verbose = verbose;
	/* .ko.xz: the scan reads it through libdwfl, which decompresses */
	packed = btfi_file_kind(path) == BTFI_FILE_PACKED;
	if (packed && (out || in_place)) {
		fprintf(stderr, "btfinline: %s: compressed: only --raw (-o or --in-place would "
			"write the ELF uncompressed; decompress it first)\n", path);
		return 2;
	}
	if (!packed && btfi_elf_check_file(path, NULL))
		return 1;
	kmod = packed || btfi_file_is_kmod(path);
	if (!kmod) {
		base = open_base(path, base_path, &no_own);
		if (!base && !no_own)
			return 1;
	}
	err = btfi_scan_open(path, &(struct btfi_scan_opts){ .sz = sizeof(struct btfi_scan_opts),
			     .debug_file = dbg.file, .debug_dirs = dbg.dirs, .probe_policy = policy }, &s);
	if (err)
		goto out;	/* the scan logged the reason */
	debug_opts_report(&dbg, path, s);
	if (kmod && !btfi_elf_is_kmod(s->elf)) {
		fprintf(stderr, "btfinline: %s: compressed, and not a kernel module: decompress it first\n",
			path);
		goto out;
	}
	if (kmod && !(base = kmod_base(path, s->elf, base_path)))
		goto out;
	if (!base) {
		/* Stripped ELF without .BTF: pahole -J ran on the debug file
		 * (or before the split): its .BTF is the base, and goes into
		 * the output with the blob so that the copy is complete. */
		if (s->dwarf_path == path) {
			no_base(path, ENOENT);
			goto out;
		}
		base = btf__parse_elf(s->dwarf_path, NULL);
		if (!base) {
			fprintf(stderr, "btfinline: %s: no .BTF in the file or in its debug file %s; "
				"run `pahole -J` on a copy of %s and pass it as --base\n",
				path, s->dwarf_path, s->dwarf_path);
			goto out;
		}
		base_from = s->dwarf_path;
	}
	t1 = now();
	err = btfi_encode(s, base, &(struct btfi_encode_opts){ .sz = sizeof(struct btfi_encode_opts),
							       .no_narrow = no_narrow },
			  &blob, &sz, &st);
	if (err)
		goto out;
	t2 = now();
	if (raw && (err = btfi_atomic_write(raw, blob, sz, 0644, NULL)))
		goto out;	/* logged: "btfinline: RAW: problem" */
	if (out || in_place) {
		/* An ELF without .BTF gets its base too: the copy stands alone. */
		const char *dst = in_place ? path : out;
		uint32_t bsz;
		const void *b = no_own ? btf__raw_data(base, &bsz) : NULL;

		if (no_own && (!b || btfi_elf_write_section(path, dst, ".BTF", b, bsz, NULL)))
			goto out;
		if (btfi_elf_write_section(no_own ? dst : path, dst, ".BTF.inline", blob, sz, NULL))
			goto out;
	}
	if (verbose && base_from)
		fprintf(stderr, "btfinline: %s: base .BTF from %s%s\n", path, base_from,
			no_own && (out || in_place) ? ", copied into the output" : "");
	if (verbose)
		fprintf(stderr, "%s: %u sites (%u skipped: no address/section; at an address already taken "
			"by the function: %u identical, %u other instances), FUNCs %u from base + %u added, "
			"%u LOC_PARAM, %u LOC_PROTO; blob %zu bytes (%.2f bytes/site); scan %.2fs encode %.2fs write %.2fs\n",
			path, st.nsites, st.nsites_skipped, st.ndup_same, st.ndup_other,
			st.nfuncs_base, st.nfuncs_split,
			st.nloc_param, st.nloc_proto, sz, st.nsites ? (double)sz / st.nsites : 0.0,
			t1 - t0, t2 - t1, now() - t2);
	rc = 0;
out:
	free(blob);
	btfi_scan_free(s);
	btf__free(base);
	return rc;
}

const struct cli_cmd cli_encode = {
	.name = "encode",
	.fn = cmd_encode,
	.synopsis = "encode ELF [-o OUT|--in-place] [--raw BLOB] [--base BTF] [--no-narrow] [--probe=POLICY] [-v]\n"
		    "encode --kernel [RELEASE] [--build-id ID] [--module MOD] [--base VMLINUX] [--debug-dir DIR] [-v]",
	.summary = "DWARF + the file's .BTF -> .BTF.inline (split BTF with LOC_PARAM, LOC_PROTO, LOCSEC).",
	.options =
"  ELF           an ELF with DWARF (in it or detached: see --debug-file), and\n"
"                .BTF (pahole -J) unless --base or its debug file has one\n"
"  -o OUT        copy of ELF with .BTF.inline added or replaced\n"
"  --in-place    replace ELF (temp file + fsync + rename)\n"
"  --raw BLOB    the .BTF.inline blob alone (also with -o or --in-place);\n"
"                one of -o, --in-place, --raw is needed\n"
"  --base BTF    base BTF (ELF or raw) instead of ELF's own .BTF; when ELF\n"
"                has none (also from its debug file), -o/--in-place add it;\n"
"                for a kernel module (.ko, .ko.xz: --raw only): the vmlinux\n"
"                (or its BTF) under the module's own .BTF\n"
"  --debug-file FILE  DWARF from FILE (its build-id must match ELF's)\n"
"  --debug-dir DIR    debug files under DIR (DIR:DIR2...) instead of /usr/lib/debug\n"
"  --no-narrow   write registers narrower than their parameter as no location\n"
"                (for readers that take LOC_PARAM size as the type's size)\n"
"  --probe=POLICY  where each inline site is probed (as `stats --probe`;\n"
"                docs/DESIGN.md, \"Probe address policy\")\n"
"  -v, --verbose counts and times, where the DWARF came from, on stderr\n"
"  --kernel      the cache entry `trace -k` reads for kernel RELEASE (default:\n"
"                the running one): its DWARF found as trace -k finds it, by\n"
"                build-id (under --debug-dir, /usr/lib/debug, debuginfod)\n"
"  --build-id ID  with --kernel: the build-id of that kernel (or module) to\n"
"                look for; needed for another kernel than the running one\n"
"  --module MOD  with --kernel: module MOD's entry (its --base: the vmlinux)\n"
"  -h, --help    this text\n",
};
