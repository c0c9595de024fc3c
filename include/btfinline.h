/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * btfinline: inline-site locations in BTF (.BTF.inline, bpf-next UAPI).
 *
 * Public API of libbtfinline (pkg-config --cflags --libs btfinline).
 *
 * Conventions, as libbpf's:
 * - Functions that can fail return 0 or a negative errno (-EINVAL, ...);
 *   those returning a pointer return NULL and set errno. The reason is
 *   logged once, as one line naming the file and the problem, through the
 *   struct btfi_log of the call's opts (stderr when none is set).
 * - ABI: every opts struct starts with `size_t sz`, the size of the struct
 *   the caller was compiled with; declare it with BTFI_OPTS(), which sets
 *   sz and zeroes the rest. New fields are only ever added at the end. A
 *   caller built against an older header passes a smaller sz: the fields
 *   past it take their defaults. A caller built against a newer header
 *   passes a larger sz: every byte past the fields this library knows must
 *   be zero, else the call fails with -EINVAL (a field it cannot honour is
 *   not ignored silently). NULL opts means all defaults.
 * - Exported symbols carry the version node LIBBTFINLINE_<version>
 *   (libbtfinline.map); the SONAME's major number changes only when a
 *   symbol or struct layout changes incompatibly.
 * - A struct btfinline is not thread-safe: its lazily built indexes
 *   (btfinline__sites(), btfinline__btf(), ...) are built on first call.
 */
#ifndef BTFINLINE_H
#define BTFINLINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct btf;
struct bpf_program;
struct bpf_link;

/* Declare opts struct `type` named `name`: sz set, unnamed fields zero. */
#define BTFI_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* Log levels, as libbpf's print levels: WARN is the one message per
 * failure; INFO says what was done (e.g. sites skipped); DEBUG details. */
enum btfi_log_level {
	BTFI_LOG_WARN = 0,
	BTFI_LOG_INFO,
	BTFI_LOG_DEBUG,
};
/* Error sink: called once per failure with a complete message (no newline). */
typedef void (*btfi_log_fn)(void *ctx, const char *msg);
/* Sink for every level. */
typedef void (*btfi_print_fn)(void *ctx, enum btfi_log_level level, const char *msg);
/*
 * Where messages go: print, when set, gets every level; else fn gets the
 * WARN messages only; with neither, WARN and INFO go to stderr as
 * "btfinline: <msg>" (DEBUG is dropped), as libbpf's default print.
 */
struct btfi_log {
	btfi_log_fn fn;
	void *ctx;
	btfi_print_fn print;
};

/* ---- UAPI constants (bpf-next include/uapi/linux/btf.h) ---- */
#define BTFI_KIND_LOC_PARAM	20
#define BTFI_KIND_LOC_PROTO	21
#define BTFI_KIND_LOCSEC	22

#define BTFI_LOC_SIGNED		0x01
#define BTFI_LOC_CONST		0x02
#define BTFI_LOC_ADDR		0x04
#define BTFI_LOC_REG		0x08
#define BTFI_LOC_DEREF		0x10
#define BTFI_LOC_OFFSET		0x20

#define BTFI_REG_FBREG		0xffffffffu	/* frame base pseudo-register */

/* ---- One argument location: the LOC_PARAM forms, decoded ---- */
enum btfi_loc_kind {
	BTFI_LOC_NONE = 0,	/* unavailable; see reason */
	BTFI_LOC_KREG,		/* value in reg */
	BTFI_LOC_KREG_PAIR,	/* 16-byte value: reg (low 8 bytes), reg2 (high) */
	BTFI_LOC_KREG_OFF,	/* value = reg + off (an address, no load) */
	BTFI_LOC_KMEM,		/* value = load of `size` bytes at reg + off */
	BTFI_LOC_KCONST,	/* value = cval (sign/zero-extended per is_signed) */
	BTFI_LOC_KADDR,		/* value = cval + load base (rebased address) */
};

enum btfi_reason {
	BTFI_R_OK = 0,
	BTFI_R_NO_LOCATION,	/* no DW_AT_location nor DW_AT_const_value */
	BTFI_R_NOT_AT_ADDR,	/* location list does not cover the probe address */
	BTFI_R_ENTRY_VALUE,	/* DW_OP_entry_value: caller's entry register */
	BTFI_R_IMPLICIT_PTR,	/* DW_OP_implicit_pointer */
	BTFI_R_PARAM_REF,	/* DW_OP_GNU_parameter_ref */
	BTFI_R_UNSUPPORTED,	/* expression has no fixed LOC_PARAM form */
	BTFI_R_NO_CFA,		/* DW_OP_fbreg but CFI gives no rsp-based CFA */
	BTFI_R_NO_ADDR,		/* the instance itself has no code address */
	BTFI_R_UNKNOWN,		/* from a blob: LOC_PROTO slot 0, reason not stored */
	BTFI_R__MAX
};

struct btfi_loc {
	uint8_t kind;		/* enum btfi_loc_kind */
	uint8_t reason;		/* enum btfi_reason, when kind == BTFI_LOC_NONE */
	uint8_t is_signed;
	uint8_t _pad;
	uint32_t size;		/* bytes of the value (parameter size) */
	uint32_t reg, reg2;	/* DWARF register numbers, BTFI_REG_FBREG */
	int64_t off;
	uint64_t cval;
};

/**
 * @brief **btfi_reason_str()** names why a location is missing.
 * @param r a reason (struct btfi_loc.reason)
 * @return "no_location", "entry_value", ... (as `btfinline stats` prints
 * them); "?" for a value out of range. Static storage.
 */
const char *btfi_reason_str(enum btfi_reason r);
/**
 * @brief **btfi_loc_kind_str()** names a location kind.
 * @param k a kind (struct btfi_loc.kind)
 * @return "none", "reg", "reg_pair", "reg_offset", "mem", "const", "addr";
 * "?" for a value out of range. Static storage.
 */
const char *btfi_loc_kind_str(enum btfi_loc_kind k);
/**
 * @brief **btfi_loc_type_str()** gives the value's C-ish type from its size
 * and sign: "u32", "s8", ..., "u8[N]" for sizes other than 1, 2, 4, 8.
 * @param l the location
 * @param buf where to write (16 bytes are enough)
 * @param n size of buf
 * @return buf
 */
const char *btfi_loc_type_str(const struct btfi_loc *l, char *buf, size_t n);
/* A register (or register + offset) value narrower than the parameter
 * (GCC's conversion idioms): printed as a cast, (u32)%rdi, (s32)(%rbx+0x1). */
static inline bool btfi_loc_narrowed(const struct btfi_loc *l, uint32_t param_size)
{
	return (l->kind == BTFI_LOC_KREG || l->kind == BTFI_LOC_KREG_OFF) && l->size &&
	       l->size < param_size;
}
/**
 * @brief **btfi_reg_name()** names an x86-64 DWARF register.
 * @param dwreg DWARF register number (0 = rax, 5 = rdi, 16 = rip), or
 * BTFI_REG_FBREG
 * @return "rax", ..., "r15", "rip", "fb"; NULL for any other number.
 */
const char *btfi_reg_name(uint32_t dwreg);
/**
 * @brief **btfi_cc_str()** names an x86 condition code, as the suffix of
 * its jcc mnemonic (the names of conditional LOCSECs, docs/FORMAT.md,
 * "Sites on a branch").
 * @param cc a condition code, the low nibble of a jcc's opcode (0 = o,
 * 4 = e, 5 = ne, 15 = g); btfinline__sec_cond() returns 1 + cc
 * @return "o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p",
 * "np", "l", "ge", "le", "g"; NULL for cc > 15. Static storage.
 */
const char *btfi_cc_str(uint32_t cc);
/**
 * @brief **btfi_loc_snprintf()** writes a location as `btfinline dump` and
 * `stats --sites` print it: %rdi, (u32)%rdi (narrowed, see above),
 * %rax:%rdx, %rsp+0x8, *(u64 *)(%rsp+0x8), 0x3 or -1, &0x4010 (rebased
 * address), ? (none; callers add a reason).
 * @param buf, n as snprintf's
 * @param l the location
 * @param param_size the parameter's size in bytes (for the narrowing cast)
 * @return what snprintf returns
 */
int btfi_loc_snprintf(char *buf, size_t n, const struct btfi_loc *l, uint32_t param_size);

/* ---- Reader: .BTF.inline of an ELF, a raw blob, or sysfs ---- */
struct btfinline;

struct btfinline_open_opts {
	size_t sz;
	/* Base BTF: an ELF (its .BTF) or a raw BTF file. Default: the ELF
	 * being opened; for a raw blob, /sys/kernel/btf/vmlinux. */
	const char *base_path;
	struct btfi_log log;
	/* The base's own base, when the base is split BTF: a kernel module's
	 * .BTF (or /sys/kernel/btf/<module>) builds on vmlinux's. An ELF or
	 * raw BTF; default /sys/kernel/btf/vmlinux. Not used for a base that
	 * is not split. (docs/FORMAT.md, "Kernel modules") */
	const char *base_base_path;
};

/**
 * @brief **btfinline__open()** opens the inline information of a file: the
 * .BTF.inline section of an ELF (its base: the ELF's own .BTF), or a raw
 * .BTF.inline blob (its base: opts->base_path, default the running
 * kernel's /sys/kernel/btf/vmlinux). The whole blob is validated against
 * the base before it returns.
 * @param path an ELF file or a raw blob
 * @param opts options, or NULL
 * @param out where the handle goes (NULL on error); free it with
 * btfinline__free()
 * @return 0 on success; a negative errno on error:
 *   - -ENOENT: no such file, an ELF without .BTF.inline, a base ELF
 *     without .BTF;
 *   - -EINVAL: not an ELF or BTF file, a malformed ELF, a blob that does
 *     not validate (the message names the first bad record), bad opts;
 *   - -EISDIR: path is a directory;
 *   - -ENOMEM; or the errno of open()/mmap() (-EACCES, ...).
 */
int btfinline__open(const char *path, const struct btfinline_open_opts *opts,
		    struct btfinline **out);
/**
 * @brief **btfinline__open_mem()** validates and opens a .BTF.inline blob
 * held in memory (fuzzing, tests, a blob from elsewhere).
 * @param data the blob; copied, need not outlive the call
 * @param size its size in bytes
 * @param base its base BTF; borrowed: must outlive the returned handle
 * @param log where the reason of a failure goes, or NULL (stderr)
 * @param out where the handle goes (NULL on error)
 * @return 0 on success; -EINVAL (no base, or the blob does not validate),
 * -ENOMEM.
 */
int btfinline__open_mem(const void *data, size_t size, struct btf *base,
			const struct btfi_log *log, struct btfinline **out);
/**
 * @brief **btfinline__free()** closes a handle and frees everything it
 * owns (arrays returned by the lookups below, its struct btf view). NULL
 * is ignored.
 */
void btfinline__free(struct btfinline *bi);

/**
 * @brief **btfinline__btf()** gives a libbpf view of the types: base +
 * the split part's standard kinds. Ids of the new kinds (LOC_PARAM,
 * LOC_PROTO, LOCSEC) hold CONST->void placeholders, so that every id is
 * the blob's. Built on the first call (loads the base through libbpf).
 * @return the view, owned by bi; NULL on failure (logged; libbpf's errno).
 */
struct btf *btfinline__btf(const struct btfinline *bi);

/* The same types without libbpf (what `dump` uses: no second parse of the
 * base): any id, base or split, as its raw record (standard kinds are the
 * usual struct btf_type; new kinds have kind bits 24-30, vlen bits 0-23),
 * NULL if out of range; strings likewise. Valid while bi lives. */
struct btf_type;
/**
 * @brief **btfinline__type_by_id()**: type id's raw record.
 * @return the record, valid while bi lives; NULL if id is out of range.
 */
const struct btf_type *btfinline__type_by_id(const struct btfinline *bi, uint32_t id);
/**
 * @brief **btfinline__name_by_offset()**: the string at offset off of the
 * base + split string sections (as btf__name_by_offset()).
 * @return the string, valid while bi lives; NULL if off is out of range.
 */
const char *btfinline__name_by_offset(const struct btfinline *bi, uint32_t off);
/**
 * @brief **btfinline__start_id()**: the first split type id (= the number
 * of base types, with void).
 */
uint32_t btfinline__start_id(const struct btfinline *bi);

struct btfinline_site {
	uint32_t func_id;	/* BTF_KIND_FUNC id (base or split) */
	uint32_t loc_proto_id;	/* LOC_PROTO id */
	uint32_t offset;	/* relative to section start */
	uint32_t secno;		/* index into btfinline__sec_name() */
};

/**
 * @brief **btfinline__nsecs()**: the number of code sections with sites
 * (one LOCSEC each), a section's sites on a branch counted apart, per
 * condition (btfinline__sec_cond()); secno below is an index in [0, nsecs).
 */
uint32_t btfinline__nsecs(const struct btfinline *bi);
/**
 * @brief **btfinline__sec_name()**: section secno's name, without the
 * LOCSEC's "inline" prefix nor a condition suffix, e.g. ".text".
 * @return the name, valid while bi lives; NULL if secno is out of range.
 */
const char *btfinline__sec_name(const struct btfinline *bi, uint32_t secno);
/**
 * @brief **btfinline__sec_cond()**: whether the sites of secno are on a
 * branch: each is a conditional jump (jcc) of the caller's that enters
 * the inlined body, and a hit there is a call only when the jump's
 * condition holds on the flags at the probe (docs/FORMAT.md, "Sites on a
 * branch"). Such sites have a secno of their own (LOCSEC "inline.text:ne")
 * whose btfinline__sec_name() is the plain section's, so two secnos can
 * share a name and an address.
 * @return 0: every hit is a call; else 1 + the x86 condition code
 * (btfi_cc_str() names it); -ENOENT if secno is out of range.
 */
int btfinline__sec_cond(const struct btfinline *bi, uint32_t secno);
/**
 * @brief **btfinline__sec_addr()**: the sh_addr of section secno in the
 * ELF file bi was opened from; a site's address is sec_addr + offset.
 * @return 0 and *addr set; -ENOENT for a raw blob, a section the ELF does
 * not have, or secno out of range.
 */
int btfinline__sec_addr(const struct btfinline *bi, uint32_t secno, uint64_t *addr);
/**
 * @brief **btfinline__sites()**: every site, sorted by (function name,
 * FUNC id, offset). Built on the first call.
 * @param cnt where the number of sites goes
 * @return an array owned by bi, valid until btfinline__free(); NULL with
 * *cnt 0 when memory ran out (errno ENOMEM).
 */
const struct btfinline_site *btfinline__sites(const struct btfinline *bi, size_t *cnt);
/**
 * @brief **btfinline__func_sites()**: the sites of the functions named
 * name, sorted by (FUNC id, secno, offset). Before btfinline__sites() has
 * been called this binary-searches each LOCSEC (fast for one lookup);
 * after, the sorted list.
 * @param first where the array goes (NULL when there is none); owned by
 * bi, valid until btfinline__free()
 * @return the number of sites; 0 when name has none, or out of memory.
 */
size_t btfinline__func_sites(const struct btfinline *bi, const char *name,
			     const struct btfinline_site **first);
/**
 * @brief **btfinline__sites_at()**: the sites at one probe address,
 * offset in section secno (several when instances are nested). The first
 * calls scan; later ones use an index built once. Sites on a branch at
 * that address are in the secnos of the same name with a condition
 * (btfinline__sec_cond()): ask each.
 * @param out an array of max pointers, filled with sites owned by bi
 * @return the number of pointers written (<= max); 0 when there is none,
 * or out of memory.
 */
size_t btfinline__sites_at(const struct btfinline *bi, uint32_t secno, uint32_t offset,
			   const struct btfinline_site **out, size_t max);
/**
 * @brief **btfinline__site_locs()** decodes where each parameter of the
 * site's function is at that site (kind BTFI_LOC_NONE with reason
 * BTFI_R_UNKNOWN where the blob has no location: it stores no reason).
 * @param locs an array of max locations, filled in parameter order
 * @return the number of parameters, which may exceed max (only max are
 * written); -EINVAL if site->loc_proto_id is not a LOC_PROTO of bi.
 */
int btfinline__site_locs(const struct btfinline *bi, const struct btfinline_site *site,
			 struct btfi_loc *locs, int max);

/* Size accounting (what `dump FILE` prints): bytes per part and counts. */
struct btfinline_sizes {
	size_t total, hdr, layout, strs;
	size_t locsec, loc_param, loc_proto, func, other_types;
	size_t nsites, nloc_param, nloc_proto, nfunc, nlocsec;
};
/**
 * @brief **btfinline__sizes()** fills *out with the blob's size accounting,
 * computed at open.
 */
void btfinline__sizes(const struct btfinline *bi, struct btfinline_sizes *out);

/* ---- Attach (uprobes / kprobes) ---- */
enum btfinline_policy {
	BTFI_ALL_OR_NONE = 0,	/* refuse when any site lacks an argument */
	BTFI_BEST_EFFORT,	/* attach anyway; missing args read as unavailable */
};

/* Return true to attach at this site. site == NULL: out-of-line entry. */
typedef bool (*btfinline_site_filter_fn)(void *ctx, const struct btfinline_site *site);

struct btfinline_attach_opts {
	size_t sz;
	struct btfinline *bi;		/* inline info; default: `binary`'s (or built, cached) */
	enum btfinline_policy policy;
	btfinline_site_filter_fn filter;
	void *filter_ctx;
	bool no_entry;			/* skip the out-of-line entry (and clones') */
	struct btfi_log log;
};

/* One attachment at many sites (libbpf offers no public way to compose a
 * bpf_link): destroying it detaches every probe and drops their specs. */
struct btfinline_link;
/**
 * @brief **btfinline_link__destroy()** detaches every probe of the link,
 * deletes their specs from the program's btfi_specs map and frees it.
 * NULL is ignored.
 */
void btfinline_link__destroy(struct btfinline_link *link);
/**
 * @brief **btfinline_link__cnt()**: the number of probes (sites, with the
 * entry) of the link; 0 for NULL.
 */
size_t btfinline_link__cnt(const struct btfinline_link *link);

/**
 * @brief **btfinline_attach_uprobe()** attaches a BPF program at every
 * inline site of func in binary and at its out-of-line entry (an ELF
 * symbol of that name, arguments by the SysV calling convention), with one
 * spec per site in the program's btfi_specs map (keyed by the probe's BPF
 * cookie) for bpf_inline_arg() of btfinline.bpf.h. One uprobe_multi link
 * when the kernel has it, else one uprobe per site.
 * @param prog a loaded program whose object has the btfi_specs map (it
 * includes btfinline.bpf.h); SEC("uprobe")
 * @param pid only this process; -1 for every process
 * @param binary the ELF; its .BTF.inline unless opts->bi is given, else
 * (no such section) built from its DWARF and cached as `btfinline trace`
 * does (${XDG_CACHE_HOME:-~/.cache}/btfinline/encoded, keyed by build-id)
 * @param func the function name
 * @param opts options, or NULL: policy (default BTFI_ALL_OR_NONE: refuse
 * when some site has an argument without location), a site filter, no
 * entry, the inline info to use
 * @return the link; NULL on error with errno set:
 *   - ENOENT: func has no site and no symbol in binary, every site was
 *     filtered out, a site lacks argument locations (all-or-none), the
 *     program has no btfi_specs map, no .BTF.inline;
 *   - EINVAL: prog, binary or func NULL, bad opts, a bad blob;
 *   - ERANGE: a site outside every loadable segment;
 *   - E2BIG: btfi_specs is full;
 *   - the kernel's errno of the attach (EPERM without privileges, ...),
 *     ENOMEM.
 */
struct btfinline_link *btfinline_attach_uprobe(struct bpf_program *prog, int pid,
					       const char *binary, const char *func,
					       const struct btfinline_attach_opts *opts);
/**
 * @brief **btfinline_attach_kprobe()** is btfinline_attach_uprobe() for a
 * function of the running kernel, with one kprobe per site (addresses
 * rebased by KASLR from /proc/kallsyms).
 * @param prog a loaded program with the btfi_specs map; SEC("kprobe")
 * @param func the function name
 * @param opts as for btfinline_attach_uprobe(); opts->bi is the inline
 * information, default /sys/kernel/btf/vmlinux.inline, else the cache
 * entry for the running kernel's build-id, else encoded from its DWARF
 * (found by build-id under /usr/lib/debug, or debuginfod) and cached, as
 * `btfinline trace -k` does; it must fit the running kernel's BTF
 * @return the link; NULL on error with errno set: as for
 * btfinline_attach_uprobe(), and ESTALE: the blob is not for the running
 * kernel's BTF, or its DWARF is another build's; ENOENT: no inline
 * information and no DWARF for the running kernel.
 */
struct btfinline_link *btfinline_attach_kprobe(struct bpf_program *prog, const char *func,
					       const struct btfinline_attach_opts *opts);

#ifdef __cplusplus
}
#endif
#endif /* BTFINLINE_H */
