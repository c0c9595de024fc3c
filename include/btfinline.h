/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * btfinline: inline-site locations in BTF (.BTF.inline, bpf-next UAPI).
 *
 * Public API. Conventions follow libbpf: functions return 0 or a negative
 * errno; the reason is logged once through the opts' log callback (stderr
 * when unset); every opts struct starts with `size_t sz` (use BTFI_OPTS()).
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

const char *btfi_reason_str(enum btfi_reason r);	/* "entry_value", ... */
const char *btfi_loc_kind_str(enum btfi_loc_kind k);	/* "reg", "mem", ... */
/* The value's C-ish type from size and sign: "u32", "s8", ... ("u8[N]" for
 * other sizes), into buf; returns buf. */
const char *btfi_loc_type_str(const struct btfi_loc *l, char *buf, size_t n);
/* A register (or register + offset) value narrower than the parameter
 * (GCC's conversion idioms): printed as a cast, (u32)%rdi, (s32)(%rbx+0x1). */
static inline bool btfi_loc_narrowed(const struct btfi_loc *l, uint32_t param_size)
{
	return (l->kind == BTFI_LOC_KREG || l->kind == BTFI_LOC_KREG_OFF) && l->size &&
	       l->size < param_size;
}
/* x86-64 DWARF register number -> "rdi" etc.; NULL if unknown. */
const char *btfi_reg_name(uint32_t dwreg);
/* A location as text, as `dump` and `stats --sites` print it: %rdi,
 * (u32)%rdi (narrowed, see above), %rax:%rdx, %rsp+0x8, *(u64 *)(%rsp+0x8),
 * 0x3 or -1, &0x4010 (rebased address), ? (none; callers add a reason).
 * Returns what snprintf returns. */
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

int btfinline__open(const char *path, const struct btfinline_open_opts *opts,
		    struct btfinline **out);
/* Parse from memory (fuzzing, tests). `base` is borrowed, must outlive. */
int btfinline__open_mem(const void *data, size_t size, struct btf *base,
			const struct btfi_log *log, struct btfinline **out);
void btfinline__free(struct btfinline *bi);

/* libbpf view of base + split standard kinds; new-kind ids are CONST->void
 * placeholders so that ids stay stable. Owned by bi. Built on the first
 * call (loads the base through libbpf); NULL on failure (logged). */
struct btf *btfinline__btf(const struct btfinline *bi);

/* The same types without libbpf (what `dump` uses: no second parse of the
 * base): any id, base or split, as its raw record (standard kinds are the
 * usual struct btf_type; new kinds have kind bits 24-30, vlen bits 0-23),
 * NULL if out of range; strings likewise. Valid while bi lives. */
struct btf_type;
const struct btf_type *btfinline__type_by_id(const struct btfinline *bi, uint32_t id);
const char *btfinline__name_by_offset(const struct btfinline *bi, uint32_t off);
/* First split type id (= number of base types, with void). */
uint32_t btfinline__start_id(const struct btfinline *bi);

struct btfinline_site {
	uint32_t func_id;	/* BTF_KIND_FUNC id (base or split) */
	uint32_t loc_proto_id;	/* LOC_PROTO id */
	uint32_t offset;	/* relative to section start */
	uint32_t secno;		/* index into btfinline__sec_name() */
};

uint32_t btfinline__nsecs(const struct btfinline *bi);
/* LOCSEC name without the "inline" prefix, e.g. ".text". */
const char *btfinline__sec_name(const struct btfinline *bi, uint32_t secno);
/* sh_addr of that ELF section when opened from an ELF file (site address =
 * sec_addr + offset); -ENOENT for a raw blob or a missing section. */
int btfinline__sec_addr(const struct btfinline *bi, uint32_t secno, uint64_t *addr);
/* All sites, sorted by (func name, func id, offset). */
const struct btfinline_site *btfinline__sites(const struct btfinline *bi, size_t *cnt);
/* Sites of one function name, sorted by (func id, secno, offset). After
 * btfinline__sites() was called: binary search in that list; before: the
 * FUNC ids of that name, then a binary search of each LOCSEC (sorted by
 * func). Returns count; *first is an array owned by bi, valid until
 * btfinline__free(). */
size_t btfinline__func_sites(const struct btfinline *bi, const char *name,
			     const struct btfinline_site **first);
/* Sites whose offset equals `offset` in section `secno` (may be several:
 * nested inlining). Returns count written (<= max). The first calls scan
 * the section's LOCSEC entries; later ones use an index built once. */
size_t btfinline__sites_at(const struct btfinline *bi, uint32_t secno, uint32_t offset,
			   const struct btfinline_site **out, size_t max);
/* Decoded locations of a site's parameters. Returns number of parameters
 * (may exceed max; only max are written), or -errno. */
int btfinline__site_locs(const struct btfinline *bi, const struct btfinline_site *site,
			 struct btfi_loc *locs, int max);

/* Size accounting for `dump` without FUNC. */
struct btfinline_sizes {
	size_t total, hdr, layout, strs;
	size_t locsec, loc_param, loc_proto, func, other_types;
	size_t nsites, nloc_param, nloc_proto, nfunc, nlocsec;
};
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
	struct btfinline *bi;		/* inline info; default: open `binary` */
	enum btfinline_policy policy;
	btfinline_site_filter_fn filter;
	void *filter_ctx;
	bool no_entry;			/* skip the out-of-line entry */
	struct btfi_log log;
};

/* One attachment at many sites (libbpf offers no public way to compose a
 * bpf_link): destroying it detaches every probe and drops their specs. */
struct btfinline_link;
void btfinline_link__destroy(struct btfinline_link *link);
size_t btfinline_link__cnt(const struct btfinline_link *link);	/* probes */

/* Attach `prog` at every inline site and the out-of-line entry of `func`
 * in `binary` (pid -1: all processes). `prog` must be loaded and use the
 * btfi_specs map of btfinline.bpf.h. NULL with errno set on error. */
struct btfinline_link *btfinline_attach_uprobe(struct bpf_program *prog, int pid,
					       const char *binary, const char *func,
					       const struct btfinline_attach_opts *opts);
/* Same with kprobes in the running kernel (inline info from opts->bi). */
struct btfinline_link *btfinline_attach_kprobe(struct bpf_program *prog, const char *func,
					       const struct btfinline_attach_opts *opts);

#ifdef __cplusplus
}
#endif
#endif /* BTFINLINE_H */
