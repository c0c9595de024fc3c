// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `btfinline dump FILE [FUNC...] [-j] [--format=text|json|perf|bpftrace] [--base BTF]`:
 * read .BTF.inline (of an ELF, or a raw blob) and print each function's
 * sites and argument locations, perf-probe or bpftrace probes (dump_export.c), or a size summary.
 * Only the named functions are touched: lookups are binary searches, and
 * the ELF symbol table is read once for the callers of the printed sites.
 */
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <getopt.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btfinline.h"
#include "cli.h"
#include "source/source.h"
#include "json_writer.h"
#include "dwarf/scan.h"
#include "elf_file.h"
#include "elf_syms.h"
#include "debug_opts.h"
#include "dwarf/debuginfo.h"
#include "dump_export.h"

enum fmt { F_TEXT, F_JSON, F_PERF, F_BPFTRACE };

struct dump {
	const char *path;
	struct btfinline *bi;
	enum fmt fmt;
	struct btfi_symtab st;
	struct json_writer jw;		/* -j, -p */
	/* --why: the DWARF of why_path says why an argument has no location
	 * (the format keeps no reason). Scanned once, before any output. */
	const char *why_path;
	struct debug_opts dbg;		/* where that DWARF (and .symtab) is */
	/* A raw blob's section addresses: those of --debug-file's ELF (the
	 * blob keeps section names only). */
	struct btfi_elf_info layout;
	bool has_layout;
	bool raw;			/* the file is a raw blob, no ELF (asked once) */
	/* [0] the default probe policy's scan, [1] entry-pc's (a blob encoded
	 * with --probe=entry-pc has other addresses), loaded when asked */
	struct why_scan {
		struct btfi_scan *scan;
		uint32_t *by_addr;	/* its sites with an address, by addr */
		uint32_t n;
		bool tried;
	} ws[2];
	/* --format=perf|bpftrace: a kernel image (kprobes), or the binary's
	 * absolute path (a uprobe target). */
	bool kernel;
	char target[4096];
};

/* ---- C declarations from BTF (own printer: bounded depth, no libbpf
 * btf_dump state for a handful of prototypes) ---- */

static const char *nm(const struct btfinline *bi, uint32_t off)
{
	const char *s = btfinline__name_by_offset(bi, off);

	return s ? s : "?";
}

static void cat(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf);

	if (l < n - 1)
		snprintf(buf + l, n - l, "%s", s);
}

static void type_name(const struct btfinline *bi, uint32_t id, char *buf, size_t n, int depth)
{
	const struct btf_type *t;
	char tmp[256];

	if (depth > 16) {
		cat(buf, n, "...");
		return;
	}
	if (!id) {
		cat(buf, n, "void");
		return;
	}
	t = btfinline__type_by_id(bi, id);
	if (!t) {
		cat(buf, n, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_TYPEDEF:
		cat(buf, n, nm(bi, t->name_off));
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: {
		const char *tn = nm(bi, t->name_off);
		bool uni = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t));

		cat(buf, n, btf_is_any_enum(t) ? "enum " : uni ? "union " : "struct ");
		cat(buf, n, *tn ? tn : "{...}");
		break;
	}
	case BTF_KIND_PTR: {
		const struct btf_type *p = btfinline__type_by_id(bi, t->type);

		if (p && btf_is_func_proto(p)) {
			const struct btf_param *pp = btf_params(p);

			type_name(bi, p->type, buf, n, depth + 1);
			cat(buf, n, " (*)(");
			for (int i = 0; i < btf_vlen(p); i++) {
				if (i)
					cat(buf, n, ", ");
				if (!pp[i].type && !pp[i].name_off)
					cat(buf, n, "...");
				else
					type_name(bi, pp[i].type, buf, n, depth + 1);
			}
			cat(buf, n, ")");
			break;
		}
		type_name(bi, t->type, buf, n, depth + 1);
		cat(buf, n, buf[0] && buf[strlen(buf) - 1] == '*' ? "*" : " *");
		break;
	}
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT: {
		const struct btf_type *r = btfinline__type_by_id(bi, t->type);
		const char *q = btf_is_const(t) ? "const" : btf_is_volatile(t) ? "volatile" : "restrict";

		if (r && btf_is_ptr(r)) {	/* char *const p */
			type_name(bi, t->type, buf, n, depth + 1);
			cat(buf, n, q);
		} else {
			cat(buf, n, q);
			cat(buf, n, " ");
			type_name(bi, t->type, buf, n, depth + 1);
		}
		break;
	}
	case BTF_KIND_ARRAY:
		type_name(bi, btf_array(t)->type, buf, n, depth + 1);
		snprintf(tmp, sizeof(tmp), "[%u]", btf_array(t)->nelems);
		cat(buf, n, tmp);
		break;
	case BTF_KIND_TYPE_TAG:
		type_name(bi, t->type, buf, n, depth + 1);
		break;
	default:
		cat(buf, n, "?");
	}
}

static void decl(const struct btfinline *bi, uint32_t type, const char *name, char *buf, size_t n)
{
	buf[0] = 0;
	type_name(bi, type, buf, n, 0);
	if (name && *name) {
		if (buf[0] && buf[strlen(buf) - 1] != '*')
			cat(buf, n, " ");
		cat(buf, n, name);
	}
}

static void proto_str(const struct btfinline *bi, uint32_t func_id, char *buf, size_t n)
{
	const struct btf_type *f = btfinline__type_by_id(bi, func_id);
	const struct btf_type *p = f ? btfinline__type_by_id(bi, f->type) : NULL;
	const struct btf_param *pp;
	char d[512];

	if (!p || !btf_is_func_proto(p)) {
		snprintf(buf, n, "?");
		return;
	}
	pp = btf_params(p);

	decl(bi, p->type, nm(bi, f->name_off), buf, n);
	cat(buf, n, "(");
	for (int i = 0; i < btf_vlen(p); i++) {
		if (i)
			cat(buf, n, ", ");
		if (!pp[i].type && !pp[i].name_off) {
			cat(buf, n, "...");
			continue;
		}
		decl(bi, pp[i].type, nm(bi, pp[i].name_off), d, sizeof(d));
		cat(buf, n, d);
	}
	cat(buf, n, btf_vlen(p) ? ")" : "void)");
}

/* ---- locations ---- */

/* Byte size of a scalar type through modifiers and typedefs; 0 if none. */
static uint32_t scalar_size(const struct btfinline *bi, uint32_t id)
{
	for (int depth = 0; depth < 16; depth++) {
		const struct btf_type *t = btfinline__type_by_id(bi, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return t->size;
		case BTF_KIND_PTR:
			return 8;
		default:
			return 0;
		}
	}
	return 0;
}

/* Section secno's address: the blob's, or for a raw blob that of the
 * section of the same name in --debug-file's ELF; -ENOENT if neither. */
static int sec_addr(struct dump *d, uint32_t secno, uint64_t *a)
{
	if (!btfinline__sec_addr(d->bi, secno, a))
		return 0;
	if (d->has_layout)
		return btfi_elf_sec_addr(&d->layout, btfinline__sec_name(d->bi, secno), a);
	return -ENOENT;
}

static uint64_t site_addr(struct dump *d, const struct btfinline_site *s, bool *known)
{
	uint64_t base = 0;

	*known = !sec_addr(d, s->secno, &base);
	return base + s->offset;
}

/* What btfi_symtab_callers() looks a site up by: its address, or in a
 * relocatable object (kernel module) its section key + offset. */
static uint64_t caller_key(struct dump *d, const struct btfinline_site *s)
{
	uint64_t k;
	bool known;

	if (!d->st.rel)
		return site_addr(d, s, &known);
	k = btfi_symtab_sec_key(&d->st, btfinline__sec_name(d->bi, s->secno));
	return k == UINT64_MAX ? k : k + s->offset;
}

/* ---- --why: reasons from DWARF ---- */

static void quiet(void *ctx, const char *msg)
{
}

/* A stripped ELF's .symtab is in its debug file (what gdb and perf read);
 * not finding one only leaves the callers unnamed. */
static void symtab_open_any(struct dump *d)
{
	BTFI_OPTS(btfi_debuginfo_opts, o, .log = { quiet, NULL }, .debug_file = d->dbg.file,
		  .debug_dirs = d->dbg.dirs);
	char *dp = NULL;

	/* a raw blob: the symbols of the ELF whose layout it takes */
	btfi_symtab_open(&d->st, d->raw && d->dbg.file ? d->dbg.file : d->path);
	if (d->st.fd >= 0 || d->raw ||
	    btfi_debuginfo_find(d->path, &o, &dp) || !dp)
		return;
	btfi_symtab_open(&d->st, dp);
	if (d->st.fd >= 0 && d->dbg.verbose)
		fprintf(stderr, "btfinline: %s: symbols from %s\n", d->path, dp);
	free(dp);
}

/* Scan why_path with probe policy `policy` into w and index its sites by
 * address; false: logged. */
static bool why_load(struct dump *d, struct why_scan *w, int policy)
{
	BTFI_OPTS(btfi_scan_opts, so, .debug_file = d->dbg.file, .debug_dirs = d->dbg.dirs,
		  .probe_policy = policy);

	w->tried = true;
	if (btfi_scan_open(d->why_path, &so, &w->scan))
		return false;	/* the scan logged "btfinline: FILE: problem" */
	if (w == &d->ws[0])
		debug_opts_report(&d->dbg, d->why_path, w->scan);
	w->by_addr = btfi_scan_sites_by_addr(w->scan, &w->n);
	if (!w->by_addr) {
		fprintf(stderr, "btfinline: %s: out of memory\n", d->why_path);
		return false;
	}
	return true;
}

/* Address of a site in the --why file: the dumped ELF's, or for a raw
 * blob that of the same-named section of the DWARF file. */
static bool why_addr(struct dump *d, const struct btfinline_site *s, uint64_t *addr)
{
	const char *want = btfinline__sec_name(d->bi, s->secno);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool known;

	*addr = site_addr(d, s, &known);
	if (known)
		return true;
	if (elf_getshdrstrndx(d->ws[0].scan->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(d->ws[0].scan->elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(d->ws[0].scan->elf, shstrndx, sh.sh_name)) &&
		    !strcmp(nm, want)) {
			*addr = sh.sh_addr + s->offset;
			return true;
		}
	}
	return false;
}

/* Parameter k of the site of function name at addr in scan w: its
 * reason, "not_encodable", or NULL if w has no such site. */
static const char *why_in(const struct why_scan *w, const char *name, uint64_t addr, int k)
{
	const struct btfi_scan *sc = w->scan;

	for (uint32_t lo = btfi_scan_sites_at(sc, w->by_addr, w->n, addr);
	     lo < w->n && sc->sites[w->by_addr[lo]].addr == addr; lo++) {
		const struct btfi_site *x = &sc->sites[w->by_addr[lo]];
		const struct btfi_loc *l;

		if (strcmp(sc->funcs[x->func].name, name) || (uint32_t)k >= x->nlocs)
			continue;
		l = &sc->locs[x->first_loc + k];
		/* A location DWARF has but the format cannot hold. */
		return l->kind == BTFI_LOC_NONE ? btfi_reason_str(l->reason) : "not_encodable";
	}
	return NULL;
}

/* Why parameter k of site s (of function name) has no location, from
 * DWARF; NULL if --why is off or the site is not found there (at the
 * default policy's addresses, else at entry-pc's). */
static const char *why(struct dump *d, const char *name, const struct btfinline_site *s, int k)
{
	const char *r;
	uint64_t addr;

	if (!d->ws[0].by_addr || !why_addr(d, s, &addr))
		return NULL;
	if ((r = why_in(&d->ws[0], name, addr, k)))
		return r;
	if (!d->ws[1].tried && !why_load(d, &d->ws[1], BTFI_PROBE_ENTRY_PC))
		return NULL;
	return d->ws[1].by_addr ? why_in(&d->ws[1], name, addr, k) : NULL;
}

/* Sites s[0..n) of one function, all of them or those at one address. */
static int dump_sites(struct dump *d, const char *name, const struct btfinline_site *s, size_t n)
{
	struct btfi_caller *callers;
	char proto[1024], loc[128];
	struct btfi_loc locs[64];
	const char *cls;
	bool unknown = false;	/* printed a `?` without its reason */

	proto_str(d->bi, s[0].func_id, proto, sizeof(proto));
	/* Selective: its FUNC is in the base, which pahole emits only for
	 * functions with an out-of-line copy. */
	cls = s[0].func_id < btfinline__start_id(d->bi) ? "selectively" : "fully";
	callers = calloc(n, sizeof(*callers));
	if (!callers)
		return 1;
	for (size_t i = 0; i < n; i++)
		callers[i].addr = caller_key(d, &s[i]);
	btfi_symtab_callers(&d->st, callers, n);

	if (d->fmt == F_TEXT)
		printf("%s: %s inlined, %zu site%s\n  %s\n", name, cls, n, n == 1 ? "" : "s", proto);
	else if (d->fmt == F_JSON) {
		jw_start_object(&d->jw);
		jw_string_field(&d->jw, "name", name);
		jw_string_field(&d->jw, "inlined", cls);
		jw_string_field(&d->jw, "proto", proto);
		jw_uint_field(&d->jw, "nsites", n);
		jw_name(&d->jw, "sites");
		jw_start_array(&d->jw);
	}
	for (size_t i = 0; i < n; i++) {
		const struct btf_type *f = btfinline__type_by_id(d->bi, s[i].func_id);
		const struct btf_type *p = btfinline__type_by_id(d->bi, f->type);
		const struct btf_param *pp = btf_params(p);
		int nl = btfinline__site_locs(d->bi, &s[i], locs, 64);
		bool known;
		uint64_t addr = site_addr(d, &s[i], &known);
		struct btfi_caller key = { .addr = caller_key(d, &s[i]) };
		struct btfi_caller *c = bsearch(&key, callers, n, sizeof(*c), btfi_caller_cmp);
		const char *sec = btfinline__sec_name(d->bi, s[i].secno);
		/* On a branch of the caller's: a call only when this holds. */
		int cond = btfinline__sec_cond(d->bi, s[i].secno);
		const char *cc = cond > 0 ? btfi_cc_str(cond - 1) : NULL;
		/* A site at a GCC clone's first byte is that clone's entry, not
		 * an inline instance: said so where the symbols are known (the
		 * count above stays the blob's, the same without them). */
		bool clone = c && c->name && !c->off && btfi_clone_name(c->name, name);

		if (d->fmt == F_TEXT) {
			printf("  %s+0x%x", sec, s[i].offset);
			if (known)
				printf(" 0x%llx", (unsigned long long)addr);
			if (c && c->name)
				printf(" %s+0x%llx", c->name, (unsigned long long)c->off);
			if (clone)
				printf(" (clone entry)");
			if (cc)
				printf(" if %s", cc);
			printf(":");
		} else if (d->fmt == F_JSON) {
			jw_start_object(&d->jw);
			jw_string_field(&d->jw, "section", sec);
			jw_uint_field(&d->jw, "offset", s[i].offset);
			if (known)
				jw_uint_field(&d->jw, "address", addr);
			if (cc)
				jw_string_field(&d->jw, "cond", cc);
			if (c && c->name) {
				jw_string_field(&d->jw, "caller", c->name);
				jw_uint_field(&d->jw, "caller_offset", c->off);
				if (clone) {
					jw_name(&d->jw, "clone_entry");
					jw_bool(&d->jw, true);
				}
			}
			jw_name(&d->jw, "args");
			jw_start_array(&d->jw);
		} else {
			struct export_site es = {
				.func = name, .idx = i, .addr = addr, .kernel = d->kernel,
				.caller = c && c->name ? c->name : NULL, .caller_off = c ? c->off : 0,
				.cond = cond > 0 ? cond : 0,
				.target = d->target, .params = pp, .nparams = btf_vlen(p),
				.locs = locs, .nlocs = nl < 64 ? nl : 64,
			};

			if (d->fmt == F_PERF)
				export_perf_site(d->bi, &es);
			else
				export_bpftrace_site(d->bi, &es);
			continue;
		}
		for (int k = 0; k < nl && k < 64 && k < btf_vlen(p); k++) {
			const char *pn = nm(d->bi, pp[k].name_off), *r = NULL;

			btfi_loc_snprintf(loc, sizeof(loc), &locs[k], scalar_size(d->bi, pp[k].type));
			if (locs[k].kind == BTFI_LOC_NONE) {
				r = why(d, name, &s[i], k);
				unknown |= !r;
			}
			if (d->fmt == F_TEXT) {
				printf(" %s=%s", pn && *pn ? pn : "?", loc);
				if (r)
					printf("(%s)", r);
			} else {
				jw_start_object(&d->jw);
				jw_string_field(&d->jw, "name", pn);
				jw_string_field(&d->jw, "kind", btfi_loc_kind_str(locs[k].kind));
				jw_string_field(&d->jw, "loc", loc);
				jw_uint_field(&d->jw, "size", locs[k].size);
				if (locs[k].kind == BTFI_LOC_NONE)
					jw_string_field(&d->jw, "reason", r ? r : "unknown");
				jw_end_object(&d->jw);
			}
		}
		if (d->fmt == F_TEXT) {
			printf("\n");
		} else {
			jw_end_array(&d->jw);
			jw_end_object(&d->jw);
		}
	}
	if (d->fmt == F_JSON) {
		jw_end_array(&d->jw);
		jw_end_object(&d->jw);
	}
	else if (unknown && d->fmt == F_TEXT && !d->why_path)
		printf("  ?: no location at that site (.BTF.inline keeps no reason; --why reads it from DWARF)\n");
	else if (unknown && d->fmt == F_TEXT)
		printf("  ?: that site is not in the DWARF of %s\n", d->why_path);
	for (size_t i = 0; i < n; i++)
		free(callers[i].name);
	free(callers);
	return 0;
}

/* One function (all sites sharing its name). */
static int dump_func(struct dump *d, const char *name)
{
	const struct btfinline_site *s;
	size_t n = btfinline__func_sites(d->bi, name, &s);

	if (!n) {
		fprintf(stderr, "btfinline: %s: no inline sites of '%s'\n", d->path, name);
		return 1;
	}
	return dump_sites(d, name, s, n);
}

/* What is inlined at an address: the sites whose probe address it is (the
 * blob keeps no ranges), grouped by function; nested instances share one. */
static int dump_addr(struct dump *d, uint64_t addr)
{
	const struct btfinline_site *at[64];
	struct btfinline_site grp[64];
	uint64_t best = 0, a;
	uint32_t secno = UINT32_MAX;
	size_t n = 0;
	int rc = 0;

	for (uint32_t k = 0; k < btfinline__nsecs(d->bi); k++)
		if (!sec_addr(d, k, &a) && a <= addr && (secno == UINT32_MAX || a > best))
			secno = k, best = a;
	if (secno == UINT32_MAX || addr - best > UINT32_MAX) {
		fprintf(stderr, "btfinline: %s: 0x%llx: not in a section with inline sites%s\n", d->path,
			(unsigned long long)addr, d->st.rel ?
			" (a kernel module's sections have no address until it is loaded)" :
			btfinline__nsecs(d->bi) && sec_addr(d, 0, &a) ?
			" (a raw blob has no section addresses: use the ELF, or --debug-file ELF)" : "");
		return 1;
	}
	/* The section's sites on a branch have secnos of their own, at the
	 * same address. */
	for (uint32_t k = secno; k < btfinline__nsecs(d->bi) && n < 64; k++)
		if (!sec_addr(d, k, &a) && a == best &&
		    !strcmp(btfinline__sec_name(d->bi, k), btfinline__sec_name(d->bi, secno)))
			n += btfinline__sites_at(d->bi, k, (uint32_t)(addr - best), at + n, 64 - n);
	if (!n) {
		fprintf(stderr, "btfinline: %s: no inline site at 0x%llx\n", d->path, (unsigned long long)addr);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = 0;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= at[j]->func_id == at[i]->func_id;
		if (seen)
			continue;
		for (size_t j = i; j < n; j++)
			if (at[j]->func_id == at[i]->func_id)
				grp[g++] = *at[j];
		rc |= dump_sites(d, nm(d->bi, btfinline__type_by_id(d->bi, at[i]->func_id)->name_off),
				 grp, g);
	}
	return rc;
}

/* --funcs: the names of the functions with sites, once each, sorted (what
 * the bash completion offers after `dump FILE` and `trace -x BIN`). */
static int dump_funcs(struct dump *d)
{
	const struct btfinline_site *s;
	const char *prev = NULL;
	size_t n;

	s = btfinline__sites(d->bi, &n);
	if (!s && n)
		return 1;
	if (d->fmt == F_JSON)
		jw_start_array(&d->jw);
	for (size_t i = 0; i < n; i++) {
		const struct btf_type *t = btfinline__type_by_id(d->bi, s[i].func_id);
		const char *name = t ? btfinline__name_by_offset(d->bi, t->name_off) : NULL;

		if (!name || !*name || (prev && !strcmp(prev, name)))
			continue;
		prev = name;
		if (d->fmt == F_JSON)
			jw_string(&d->jw, name);
		else
			printf("%s\n", name);
	}
	if (d->fmt == F_JSON)
		jw_end_array(&d->jw);
	return 0;
}

/* ELF sections with sites: a section's sites on a branch have secnos
 * (LOCSECs) of their own, counted as LOCSECs, not as sections. */
static uint32_t count_sections(const struct btfinline *bi)
{
	uint32_t n = 0, ns = btfinline__nsecs(bi);

	for (uint32_t k = 0; k < ns; k++) {
		bool seen = false;

		for (uint32_t j = 0; j < k && !seen; j++)
			seen = !strcmp(btfinline__sec_name(bi, j), btfinline__sec_name(bi, k));
		n += !seen;
	}
	return n;
}

static int dump_summary(struct dump *d)
{
	struct btfinline_sizes z;
	const struct btfinline_site *s;
	size_t n, nf = 0;
	uint32_t nsec = count_sections(d->bi);

	btfinline__sizes(d->bi, &z);
	s = btfinline__sites(d->bi, &n);
	for (size_t i = 0; i < n; i++)
		if (!i || s[i].func_id != s[i - 1].func_id)
			nf++;
	if (d->fmt == F_JSON) {
		struct json_writer *w = &d->jw;

		jw_start_object(w);
		jw_string_field(w, "file", d->path);
		jw_uint_field(w, "bytes", z.total);
		jw_uint_field(w, "sites", n);
		jw_uint_field(w, "functions", nf);
		jw_uint_field(w, "sections", nsec);
		jw_float_field(w, "bytes_per_site", "%.2f", n ? (double)z.total / n : 0.0);
		jw_name(w, "sizes");
		jw_start_object(w);
		jw_uint_field(w, "header", z.hdr);
		jw_uint_field(w, "layout", z.layout);
		jw_uint_field(w, "locsec", z.locsec);
		jw_uint_field(w, "loc_param", z.loc_param);
		jw_uint_field(w, "loc_proto", z.loc_proto);
		jw_uint_field(w, "func", z.func);
		jw_uint_field(w, "other_types", z.other_types);
		jw_uint_field(w, "strings", z.strs);
		jw_end_object(w);
		jw_name(w, "counts");
		jw_start_object(w);
		jw_uint_field(w, "locsec", z.nlocsec);
		jw_uint_field(w, "loc_param", z.nloc_param);
		jw_uint_field(w, "loc_proto", z.nloc_proto);
		jw_uint_field(w, "func", z.nfunc);
		jw_end_object(w);
		jw_end_object(w);
		return 0;
	}
	printf("%s: .BTF.inline %zu bytes, %zu sites of %zu functions in %u section%s, %.2f bytes/site\n",
	       d->path, z.total, n, nf, nsec, nsec == 1 ? "" : "s",
	       n ? (double)z.total / n : 0.0);
	printf("  %-18s %10s %8s %8s\n", "part", "bytes", "records", "B/site");
#define ROW(label, bytes, cnt) printf("  %-18s %10zu %8s %8.2f\n", label, (size_t)(bytes), cnt, n ? (double)(bytes) / n : 0.0)
	{
		char c1[32], c2[32], c3[32], c4[32];

		snprintf(c1, sizeof(c1), "%zu", z.nlocsec);
		snprintf(c2, sizeof(c2), "%zu", z.nloc_param);
		snprintf(c3, sizeof(c3), "%zu", z.nloc_proto);
		snprintf(c4, sizeof(c4), "%zu", z.nfunc);
		ROW("header", z.hdr, "");
		ROW("layout", z.layout, "");
		ROW("LOCSEC", z.locsec, c1);
		ROW("LOC_PARAM", z.loc_param, c2);
		ROW("LOC_PROTO", z.loc_proto, c3);
		ROW("FUNC+FUNC_PROTO", z.func, c4);
		ROW("other types", z.other_types, "");
		ROW("strings", z.strs, "");
	}
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "base", required_argument, NULL, 'b' },
		{ "addr", required_argument, NULL, 'a' },
		{ "why", optional_argument, NULL, 'w' },
		{ "funcs", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		DEBUG_LONGOPTS,
		{}
	};
	struct dump d = { .fmt = F_TEXT, .st.fd = -1 };
	BTFI_OPTS(btfi_source_opts, so);
	uint64_t addrs[64];
	const char *bases[2] = { 0 };
	int c, err, rc = 0, naddrs = 0, nbases = 0;
	char *end;
	bool pretty = false, funcs = false;

	libbpf_set_print(NULL);	/* failures are reported by the reader, once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jphv", lopts, NULL)) != -1) {
		switch (c) {
		case 'v': d.dbg.verbose = true; break;
		case 'j': d.fmt = F_JSON; break;
		case 'p': d.fmt = F_JSON; pretty = true; break;
		case 'b':
			if (nbases == 2)
				return cli_usage(&cli_dump, "more than two --base");
			bases[nbases++] = optarg;
			break;
		case 'w': d.why_path = optarg ? optarg : ""; break;
		case 'F': funcs = true; break;
		case 'a':
			if (naddrs == 64)
				return cli_usage(&cli_dump, "more than 64 --addr");
			errno = 0;
			addrs[naddrs++] = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				return cli_usage(&cli_dump, "--addr '%s': not an address", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "text")) d.fmt = F_TEXT;
			else if (!strcmp(optarg, "json")) d.fmt = F_JSON;
			else if (!strcmp(optarg, "perf")) d.fmt = F_PERF;
			else if (!strcmp(optarg, "bpftrace")) d.fmt = F_BPFTRACE;
			else return cli_usage(&cli_dump, "unknown format '%s'", optarg);
			break;
		case 'h': cli_help(&cli_dump, stdout); return 0;
		default:
			if (!debug_opt(&d.dbg, c, optarg))
				return cli_bad_option(&cli_dump, c, argv);
			break;
		}
	}
	if (optind >= argc)
		return cli_usage(&cli_dump, NULL);
	d.path = argv[optind++];
	if (funcs && (optind < argc || naddrs || d.fmt == F_PERF || d.fmt == F_BPFTRACE || d.why_path))
		return cli_usage(&cli_dump, "--funcs takes no FUNC, --addr, --format=perf|bpftrace or --why");
	/* A kernel module's .BTF builds on vmlinux's: for a module (encode
	 * -o), --base is that vmlinux; for a raw blob of one, --base MODULE
	 * --base VMLINUX. */
	if (nbases && btfi_file_is_kmod(d.path)) {
		if (nbases > 1)
			return cli_usage(&cli_dump, "%s is a kernel module: one --base (its vmlinux)", d.path);
		so.base_base = bases[0];
	} else {
		so.base = bases[0];
		so.base_base = bases[1];
	}
	if (d.why_path && !*d.why_path)
		d.why_path = d.path;
	if ((d.fmt == F_PERF || d.fmt == F_BPFTRACE) && optind == argc && !naddrs)
		return cli_usage(&cli_dump, "--format=%s needs FUNC names", d.fmt == F_PERF ? "perf" : "bpftrace");
	jw_init(&d.jw, stdout, pretty ? JSON_PRETTY : JSON_COMPACT);
	/* Callers are named only for printed sites; the summary needs none. */
	if (optind < argc || naddrs) {
		d.raw = btfi_file_kind(d.path) != BTFI_FILE_ELF;
		symtab_open_any(&d);
	}
	err = btfi_source_open(BTFI_TARGET_USER, d.path, &so, &d.bi, NULL);
	if (err) {
		btfi_symtab_close(&d.st);
		return 1;	/* the reader logged "FILE: problem" */
	}
	/* Before any output: a file without DWARF is one error line. */
	if (d.why_path && !why_load(&d, &d.ws[0], BTFI_PROBE_DEFAULT)) {
		rc = 1;
		goto out;
	}
	if (funcs) {
		rc = dump_funcs(&d);
		goto out;
	}
	if (optind == argc && !naddrs) {
		rc = dump_summary(&d);
		goto out;
	}
	if (d.fmt == F_JSON)
		jw_start_array(&d.jw);
	/* a raw blob: the sections of the ELF it was encoded from */
	if (d.dbg.file && d.raw) {
		if (btfi_elf_info_load(d.dbg.file, &d.layout, NULL)) {
			rc = 1;		/* logged: "FILE: problem" */
			goto out;
		}
		d.has_layout = true;
	}
	if (d.fmt == F_PERF || d.fmt == F_BPFTRACE) {
		uint64_t a = 0;

		/* probes need addresses: a raw blob has none of its own */
		if (btfinline__nsecs(d.bi) && sec_addr(&d, 0, &a)) {
			fprintf(stderr, "btfinline: %s: a raw blob has no section addresses: --format=%s needs the ELF it was encoded into (encode -o), or --debug-file ELF for its sections and symbols\n",
				d.path, d.fmt == F_PERF ? "perf" : "bpftrace");
			rc = 1;
			goto out;
		}
		/* kernel image: sections live in the top half of the address space */
		d.kernel = d.st.rel || a >= 0xffff800000000000ull;	/* a module: kprobes */
		/* uprobe paths are looked up in $PATH when relative (libbpf, bpftrace) */
		if (!realpath(d.path, d.target))
			snprintf(d.target, sizeof(d.target), "%s", d.path);
		if (d.fmt == F_PERF)
			export_perf_header(d.has_layout ? d.dbg.file : d.path, d.kernel, d.st.rel);
		else
			export_bpftrace_header(d.path, d.target, d.kernel);
	}
	for (int i = optind; i < argc; i++)
		rc |= dump_func(&d, argv[i]);
	for (int i = 0; i < naddrs; i++)
		rc |= dump_addr(&d, addrs[i]);
	if (d.fmt == F_JSON)
		jw_end_array(&d.jw);
out:
	btfi_symtab_close(&d.st);
	if (d.has_layout)
		btfi_elf_info_free(&d.layout);
	btfinline__free(d.bi);
	for (int w = 0; w < 2; w++) {
		btfi_scan_free(d.ws[w].scan);
		free(d.ws[w].by_addr);
	}
	return rc;
}

const struct cli_cmd cli_dump = {
	.name = "dump",
	.fn = cmd_dump,
	.synopsis = "dump FILE [FUNC...] [--addr ADDR]... [-j|-p] [--format=text|json|perf|bpftrace] [--base BTF]... [--why[=ELF]] [--debug-file ELF]\n"
		    "dump FILE --funcs [-j|-p]",
	.summary = "Each inline site of FUNC and where its arguments are, from .BTF.inline alone (no DWARF).",
	.options =
"  FILE           an ELF with .BTF.inline, or a raw .BTF.inline blob\n"
"  FUNC           every inline site of FUNC and where each argument is\n"
"  --addr ADDR    the inline sites whose probe address is ADDR\n"
"  (no FUNC, no --addr: sizes of the blob)\n"
"  --funcs        the names of the functions with inline sites, one per line\n"
"                 (a JSON array with -j): what bash completion offers\n"
"  -j, --json     JSON (--format=json)\n"
"  -p, --pretty   JSON indented (bpftool's -p)\n"
"  --format=perf  `perf probe` definitions, one per site\n"
"  --format=bpftrace  a bpftrace script, one probe per site\n"
"  --base BTF     the base BTF of a raw blob (an ELF or raw BTF; default: the\n"
"                 running kernel's /sys/kernel/btf/vmlinux); a kernel module's\n"
"                 builds on vmlinux's: dump MODULE.ko --base VMLINUX, or for a\n"
"                 raw blob --base MODULE.ko --base VMLINUX (default: the running\n"
"                 kernel's /sys/kernel/btf/vmlinux)\n"
"  --why[=ELF]    why an argument shows `?`, from the DWARF of ELF (default FILE)\n"
"  --debug-file FILE  that DWARF from FILE (build-id checked); also its symbols\n"
"                 name the callers when FILE has no .symtab (default: found by\n"
"                 build-id or .gnu_debuglink, as for stats); for a raw blob, the\n"
"                 ELF it was encoded from: its section addresses and symbols\n"
"                 (what --format=perf|bpftrace need: kprobe:SYM+OFF for vmlinux)\n"
"  --debug-dir DIR    debug files under DIR (DIR:DIR2...) instead of /usr/lib/debug\n"
"  -v, --verbose  say where the DWARF and the symbols came from (stderr)\n"
"  -h, --help     this text\n",
};
