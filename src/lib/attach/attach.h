/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal attach core. Front ends (the .BTF.inline reader in attach.c,
 * the CLI, the kprobe attach) describe each probe point as a plain site
 * descriptor; the core turns locations into BPF specs, enforces the
 * policy, fills the spec map and attaches.
 */
#ifndef BTFI_ATTACH_H
#define BTFI_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include "btfinline.h"
#include "btfinline.bpf.h"
#include "elf_file.h"

/* Per-argument additions beyond the location: field chain, string hint. */
struct btfi_arg_extra {
	uint8_t nsteps;
	bool str;
	struct btfi_step steps[BTFI_MAX_STEPS];
};

struct btfi_attach_site {
	const char *func;		/* for messages */
	char label[96];			/* "caller+0x1a" or "entry", for messages */
	uint64_t vaddr;			/* ELF vaddr (uprobe) / kernel address */
	uint64_t tag;			/* stored in spec->user */
	bool entry;			/* out-of-line entry (calling convention) */
	/* 0; else 1 + x86 condition code: a branch of the caller's, a hit is
	 * a call only when the condition holds (btfinline__sec_cond()). */
	uint8_t cond;
	uint32_t func_id;		/* BTF FUNC id, 0 if unknown */
	uint32_t nargs;
	struct btfi_loc *locs;		/* nargs */
	const char **arg_names;		/* nargs entries, may be NULL */
	struct btfi_arg_extra *extra;	/* nargs entries, may be NULL */
};

struct btfi_site_list {
	struct btfi_attach_site *sites;
	size_t cnt, cap;
	/* owned storage for locs/names */
	void **allocs;
	size_t nallocs;
};
void btfi_site_list_free(struct btfi_site_list *l);
struct btfi_attach_site *btfi_site_list_add(struct btfi_site_list *l);
/* An out-of-line entry the blob has a site at (l->sites[from..)): the
 * compiler changed that copy's ABI and the site has its parameters'
 * locations from DWARF, so the entry is that site, not one probed by the
 * calling convention. Marks it the entry with `label`; NULL if none. A
 * site on a branch is never the entry (not every hit is a call). */
struct btfi_attach_site *btfi_site_list_entry(struct btfi_site_list *l, size_t from,
					      uint64_t vaddr, const char *label);
/* Is a site labelled `label` ("SYM+0xOFF") the first byte of func's
 * out-of-line copy or of a GCC clone of it: an entry that --no-entry
 * (opts.no_entry, a filter refusing the entry) leaves out? */
bool btfi_label_is_entry(const char *label, const char *func);
void *btfi_site_list_alloc(struct btfi_site_list *l, size_t sz);	/* zeroed, owned by l */

struct btfi_attach_core_opts {
	size_t sz;
	enum btfinline_policy policy;
	bool kernel;			/* kprobes: read kernel memory */
	struct btfi_log log;
};

struct btfinline_link {
	int map_fd;
	size_t cnt;
	struct bpf_link **links;
	uint64_t *cookies;
	bool multi;			/* one uprobe_multi link, multi_fd */
	int multi_fd;
	uint64_t *addrs;		/* kprobes: each probe's address */
};

/* Specs in the program's map, keyed by the BPF cookie: the first free
 * cookie base (above every key other attachments hold), and one spec
 * added under the next free cookie (*cookie advanced); 0 or -errno. */
__u64 btfi_spec_cookie_base(int map_fd);
int btfi_spec_add(int map_fd, __u64 *cookie, const struct btfi_site_spec *spec);

/* An empty link for n sites owning map_fd (closed by destroy); NULL if
 * out of memory (map_fd stays the caller's then). */
struct btfinline_link *btfi_link_new(int map_fd, size_t n);

/* Attach type of uprobe_multi links (Linux 6.6+, unknown to libbpf 1.1).
 * A program loaded with this expected attach type is attached at all
 * sites through one link; otherwise one perf-event uprobe per site. */
#define BTFI_TRACE_UPROBE_MULTI	48
/* The running kernel has uprobe_multi links (loads a 2-insn probe). */
bool btfi_uprobe_multi_supported(void);

/*
 * The file a uprobe target names (binpath.c): a path (with a '/', or an
 * existing file) as given; else a library or program name ("libc",
 * "libc.so.6", "python3") among the files pid maps (pid > 0), else in the
 * ld.so cache (`ldconfig -p`, this machine's ABI), else PATH. "libc"
 * matches libc.so.6 and libc-2.31.so. 0, out and *how ("path", "mapped by
 * the process", "ld.so cache", "PATH"); -ENOENT or -EINVAL (ambiguous)
 * logged once.
 */
int btfi_resolve_binary(const char *name, int pid, char *out, size_t len, const char **how,
			const struct btfi_log *log);

/* spec->flags for site s: kernel memory, its condition. */
__u32 btfi_spec_flags(const struct btfi_attach_site *s, bool kernel);

/* Attach `prog` at `n` sites of `binary` (uprobes; pid -1 = all). */
int btfi_attach_sites(struct bpf_program *prog, int pid, const char *binary,
		      const struct btfi_attach_site *sites, size_t n,
		      const struct btfi_attach_core_opts *opts,
		      struct btfinline_link **out);

/* attach_btf.c: sites of `func` from .BTF.inline (+ out-of-line entry from the ELF
 * symbol and FUNC_PROTO unless no_entry), appended to `out`. */
/* Parameter names (and count, a trailing `...` not counted) of FUNC
 * func_id's prototype; names allocated in l. */
int btfi_func_params(const struct btf *btf, uint32_t func_id, uint32_t *proto_id,
		     const char ***names, uint32_t *n, struct btfi_site_list *l);
/* syms_file: when binary is stripped, its debug file (labels, entries of
 * static functions); may be NULL. */
int btfi_collect_sites(struct btfinline *bi, const char *binary, const char *syms_file,
		       const char *func,
		       bool no_entry, btfinline_site_filter_fn filter, void *filter_ctx,
		       const struct btfi_log *log, struct btfi_site_list *out);

/* argspec.c */
/* One LOC_PARAM location -> BPF spec. -EOPNOTSUPP when BPF cannot read it;
 * *why is set to a short reason. */
int btfi_loc_to_spec(const struct btfi_loc *loc, struct btfi_arg_spec *a, const char **why);
/* Locations of the parameters of FUNC_PROTO `proto_id` at function entry
 * (SysV x86-64). Returns the number of parameters (varargs not counted),
 * writing at most max. */
struct btf;
int btfi_entry_locs(const struct btf *btf, uint32_t proto_id, struct btfi_loc *locs, int max);
/* The type under `*id` past modifiers and typedefs; *id becomes its id.
 * NULL if an id is out of range. */
const struct btf_type *btfi_skip_mods(const struct btf *btf, uint32_t *id);

/* Exported by attach.c for the kprobe path (attach_kernel.c), which shares
 * the spec map and the policy check. */
int btfi_spec_map_fd(struct bpf_program *prog, const struct btfi_log *log);
int btfi_sites_policy(const struct btfi_attach_site *sites, size_t n, const char *what,
		      const struct btfi_attach_core_opts *opts);

#endif
