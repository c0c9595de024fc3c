// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF type -> BTF (encode/btf_types.c) against pahole. The types
 * fixture (tests/fixtures/types.c) keeps every t_* function out of line,
 * so pahole -J encoded a FUNC_PROTO for each from the same DWARF. For every
 * one, btfi_types_add_func() builds a prototype from the DWARF DIEs (as the
 * encoder does for inlined-only functions) and it must match pahole's:
 *  - over pahole's own .BTF as base: every type the base has is reused
 *    (same id), new split types are only those the base cannot hold
 *    (a prototype, an array, a nameless aggregate, or one built on them);
 *    btfi_types_find_func() finds pahole's FUNC by name and parameter names;
 *    adding the same function again adds only its FUNC_PROTO and FUNC;
 *  - over an empty base: the same shapes, each named type added once
 *    (structs and unions as FWD, enums without values by design).
 * libbpf re-parses each split BTF. Known differences with pahole 1.24 are
 * accepted and counted: floats (pahole without --btf_gen_floats writes INT),
 * char's CHAR bit, nameless aggregates as memberless shells.
 *   test_btf_types [ELF...]   default: $FIXTURES/types-*
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <dwarf.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <elfutils/libdw.h>
#include "encode/encode.h"
#include "check.h"

static const char *const fnames[] = {
	"t_ptrs", "t_quals", "t_typedefs", "t_enums", "t_byval", "t_fnptrs", "t_arrays",
	"t_anon", "t_scalars", "t_floats", "t_wide", "t_ret_struct", "t_ret_ptr", "t_ret_void",
	"t_global",
};
#define NFUNCS (sizeof(fnames) / sizeof(fnames[0]))

static char lastmsg[1024];
static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
	printf("  log: %s\n", msg);
}
static const struct btfi_log tlog = { .fn = logfn };

/* A function's DIE with its own parameters, as the scan reads it. */
struct dfunc {
	const char *name;
	bool ext;
	uint64_t ret;
	uint32_t n;
	const char *pnames[16];
	uint64_t ptypes[16];
	uint32_t psizes[16];
};

static uint64_t type_off(Dwarf_Die *die, uint32_t *size)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word sz = 0;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &a), &t))
		return 0;
	if (size)
		*size = dwarf_aggregate_size(&t, &sz) ? 0 : (uint32_t)sz;
	return dwarf_dieoffset(&t);
}

static bool find_dfunc(Dwarf *dw, const char *name, struct dfunc *f)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, c, p;

	while (!dwarf_get_units(dw, cu, &next, NULL, NULL, &cudie, NULL)) {
		cu = next;
		if (dwarf_child(&cudie, &c))
			continue;
		do {
			Dwarf_Attribute a;
			bool ext = false;

			/* the abstract (or only) DIE: name, types and parameters */
			if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_hasattr(&c, DW_AT_abstract_origin) ||
			    !dwarf_diename(&c) || strcmp(dwarf_diename(&c), name))
				continue;
			memset(f, 0, sizeof(*f));
			f->name = name;
			dwarf_formflag(dwarf_attr(&c, DW_AT_external, &a), &ext);
			f->ext = ext;
			f->ret = type_off(&c, NULL);
			if (dwarf_child(&c, &p) == 0) {
				do {
					if (dwarf_tag(&p) != DW_TAG_formal_parameter || f->n == 16)
						continue;
					f->pnames[f->n] = dwarf_diename(&p);
					f->ptypes[f->n] = type_off(&p, &f->psizes[f->n]);
					f->n++;
				} while (dwarf_siblingof(&p, &p) == 0);
			}
			return true;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return false;
}

/* Known, counted differences with pahole. */
struct diffs { uint32_t float_as_int, char_bit, shell, fwd, enum_novals; };

struct cmp {
	const struct btf *a, *b;	/* ours (split), pahole's */
	bool fresh;			/* ours over an empty base */
	struct diffs *d;
	char why[512];
};

static const char *kname(int k)
{
	static const char *const n[] = { "UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM",
		"FWD", "TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR",
		"DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64" };

	return k >= 0 && k < (int)(sizeof(n) / sizeof(n[0])) ? n[k] : "?";
}

static bool eq(struct cmp *c, uint32_t ia, uint32_t ib, int depth);

/* Element type of nested ARRAYs and their total element count. */
static uint32_t flat_array(const struct btf *btf, uint32_t id, uint32_t *n)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	*n = 1;
	while (btf_is_array(t)) {
		*n *= btf_array(t)->nelems;
		id = btf_array(t)->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static bool fail(struct cmp *c, uint32_t ia, uint32_t ib, const char *what)
{
	const struct btf_type *ta = btf__type_by_id(c->a, ia), *tb = btf__type_by_id(c->b, ib);

	if (!c->why[0])
		snprintf(c->why, sizeof(c->why), "ours [%u] %s '%s' vs pahole [%u] %s '%s': %s", ia,
			 ta ? kname(btf_kind(ta)) : "void", ta ? btf__name_by_offset(c->a, ta->name_off) : "",
			 ib, tb ? kname(btf_kind(tb)) : "void", tb ? btf__name_by_offset(c->b, tb->name_off) : "",
			 what);
	return false;
}

static bool same_name(struct cmp *c, const struct btf_type *ta, const struct btf_type *tb)
{
	return !strcmp(btf__name_by_offset(c->a, ta->name_off) ?: "",
		       btf__name_by_offset(c->b, tb->name_off) ?: "");
}

static bool eq_proto(struct cmp *c, uint32_t ia, uint32_t ib, int depth)
{
	const struct btf_type *ta = btf__type_by_id(c->a, ia), *tb = btf__type_by_id(c->b, ib);

	if (btf_vlen(ta) != btf_vlen(tb))
		return fail(c, ia, ib, "parameter count");
	if (!eq(c, ta->type, tb->type, depth + 1))
		return false;
	for (uint32_t i = 0; i < btf_vlen(ta); i++) {
		const struct btf_param *pa = &btf_params(ta)[i], *pb = &btf_params(tb)[i];

		if (strcmp(btf__name_by_offset(c->a, pa->name_off) ?: "",
			   btf__name_by_offset(c->b, pb->name_off) ?: ""))
			return fail(c, ia, ib, "parameter name");
		if (!eq(c, pa->type, pb->type, depth + 1))
			return false;
	}
	return true;
}

/* Structural equality of our type ia and pahole's ib. */
static bool eq(struct cmp *c, uint32_t ia, uint32_t ib, int depth)
{
	const struct btf_type *ta, *tb;
	int ka, kb;

	if (depth > 32)
		return fail(c, ia, ib, "too deep");
	if (!ia || !ib)
		return ia == ib || fail(c, ia, ib, "void vs a type");
	/* over pahole's base, a reused type is the very same id */
	if (!c->fresh && ia == ib)
		return true;
	ta = btf__type_by_id(c->a, ia);
	tb = btf__type_by_id(c->b, ib);
	ka = btf_kind(ta);
	kb = btf_kind(tb);
	if (ka == BTF_KIND_FLOAT && kb == BTF_KIND_INT) {
		if (!same_name(c, ta, tb) || ta->size != tb->size)
			return fail(c, ia, ib, "float name or size");
		c->d->float_as_int++;
		return true;
	}
	if (c->fresh && ka == BTF_KIND_FWD && (kb == BTF_KIND_STRUCT || kb == BTF_KIND_UNION)) {
		if (!same_name(c, ta, tb) || btf_kflag(ta) != (kb == BTF_KIND_UNION))
			return fail(c, ia, ib, "forward declaration");
		c->d->fwd++;
		return true;
	}
	if (c->fresh && ka == BTF_KIND_ENUM && (kb == BTF_KIND_ENUM || kb == BTF_KIND_ENUM64)) {
		if (!same_name(c, ta, tb) || ta->size != tb->size || btf_vlen(ta))
			return fail(c, ia, ib, "enum name, size or values");
		c->d->enum_novals++;
		return true;
	}
	if (ka != kb)
		return fail(c, ia, ib, "kind");
	switch (ka) {
	case BTF_KIND_INT: {
		uint32_t ea = btf_int_encoding(ta), eb = btf_int_encoding(tb);

		if (!same_name(c, ta, tb) || ta->size != tb->size || btf_int_bits(ta) != btf_int_bits(tb) ||
		    btf_int_offset(ta) != btf_int_offset(tb) || (ea & ~BTF_INT_CHAR) != (eb & ~BTF_INT_CHAR))
			return fail(c, ia, ib, "int name, size or encoding");
		if (ea != eb)
			c->d->char_bit++;
		return true;
	}
	case BTF_KIND_FLOAT:
		return (same_name(c, ta, tb) && ta->size == tb->size) || fail(c, ia, ib, "float");
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		return eq(c, ta->type, tb->type, depth + 1);
	case BTF_KIND_TYPEDEF:
		return (same_name(c, ta, tb) || fail(c, ia, ib, "typedef name")) &&
		       eq(c, ta->type, tb->type, depth + 1);
	case BTF_KIND_ARRAY: {
		/* T[2][8]: pahole writes one ARRAY of 16 T, nested ARRAYs say
		 * the same: compare element counts and the innermost type. */
		uint32_t na, nb, ea = flat_array(c->a, ia, &na), eb = flat_array(c->b, ib, &nb);

		if (na != nb)
			return fail(c, ia, ib, "array length");
		return eq(c, ea, eb, depth + 1) &&
		       eq(c, btf_array(ta)->index_type, btf_array(tb)->index_type, depth + 1);
	}
	case BTF_KIND_FUNC_PROTO:
		return eq_proto(c, ia, ib, depth);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (!same_name(c, ta, tb) || ta->size != tb->size)
			return fail(c, ia, ib, "aggregate name or size");
		/* a nameless aggregate by value: a shell of the right size */
		if (!ta->name_off && !btf_vlen(ta) && btf_vlen(tb)) {
			c->d->shell++;
			return true;
		}
		return fail(c, ia, ib, "a different aggregate");
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return fail(c, ia, ib, "a different enum");
	default:
		return fail(c, ia, ib, "unexpected kind");
	}
}

/* A type pahole's base already has: same kind and name, or same kind and
 * target for the reference kinds. */
static uint32_t in_base(const struct btf *split, const struct btf *base, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(split, id);
	int k = btf_kind(t);
	const char *name = btf__name_by_offset(split, t->name_off);

	for (uint32_t b = 1; b < btf__type_cnt(base); b++) {
		const struct btf_type *bt = btf__type_by_id(base, b);

		if (btf_kind(bt) != k)
			continue;
		switch (k) {
		case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
			if (bt->type == t->type)
				return b;
			break;
		case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_TYPEDEF: case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: case BTF_KIND_FWD: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
			if (name && name[0] && !strcmp(btf__name_by_offset(base, bt->name_off), name))
				return b;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Every split type must be one the base does not have. */
static uint32_t check_no_dups(const char *path, const char *mode, const struct btf *split,
			      const struct btf *base)
{
	uint32_t n = 0;

	for (uint32_t id = btf__type_cnt(base); id < btf__type_cnt(split); id++) {
		uint32_t b = in_base(split, base, id);
		const struct btf_type *t = btf__type_by_id(split, id);

		CHECK(!b, "%s (%s): new [%u] %s '%s' duplicates base [%u]", path, mode, id,
		      kname(btf_kind(t)), btf__name_by_offset(split, t->name_off), b);
		n++;
	}
	return n;
}

/* Over an empty base: each named type and each reference type once. */
static void check_unique(const char *path, const struct btf *split)
{
	uint32_t cnt = btf__type_cnt(split);

	for (uint32_t i = 1; i < cnt; i++) {
		const struct btf_type *x = btf__type_by_id(split, i);
		int k = btf_kind(x);
		bool ref = k == BTF_KIND_PTR || k == BTF_KIND_CONST || k == BTF_KIND_VOLATILE ||
			   k == BTF_KIND_RESTRICT;

		if (!ref && !(x->name_off && (k == BTF_KIND_INT || k == BTF_KIND_FLOAT ||
		    k == BTF_KIND_TYPEDEF || k == BTF_KIND_ENUM || k == BTF_KIND_FWD)))
			continue;
		for (uint32_t j = i + 1; j < cnt; j++) {
			const struct btf_type *y = btf__type_by_id(split, j);

			if (btf_kind(y) != k || (ref ? y->type != x->type : y->name_off != x->name_off))
				continue;
			CHECK(0, "%s (empty base): [%u] and [%u] are the same %s '%s'", path, i, j, kname(k),
			      btf__name_by_offset(split, x->name_off));
		}
	}
}

/* The split BTF as bytes, parsed again by libbpf over the same base
 * (through a memfd: Debian's libbpf 1.1 does not export btf__new_split). */
static void check_reparse(const char *path, const char *mode, struct btf *split, struct btf *base)
{
	uint32_t sz;
	const void *raw = btf__raw_data(split, &sz);
	int fd = memfd_create("split-btf", MFD_CLOEXEC);
	struct btf *again = NULL;
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (raw && fd >= 0 && write(fd, raw, sz) == (ssize_t)sz)
		again = btf__parse_raw_split(p, base);
	if (fd >= 0)
		close(fd);

	CHECK(again && btf__type_cnt(again) == btf__type_cnt(split),
	      "%s (%s): libbpf cannot parse the split BTF back: %d", path, mode, -errno);
	btf__free(again);
}

static void one(const char *path)
{
	struct btf *pahole = btf__parse_elf(path, NULL), *empty = NULL, *split = NULL;
	struct btfi_types *t = NULL;
	struct dfunc df[NFUNCS];
	struct diffs d = {};
	uint32_t base_cnt, nnew, nreused = 0, nparams = 0, nglobal = 0;
	Dwarf *dw = NULL;
	int fd = open(path, O_RDONLY), err;

	printf("%s\n", path);
	if (!CHECK(pahole, "%s: no .BTF from pahole -J", path) ||
	    !CHECK(fd >= 0 && (dw = dwarf_begin(fd, DWARF_C_READ)), "%s: no DWARF", path))
		goto out;
	for (size_t i = 0; i < NFUNCS; i++)
		if (!CHECK(find_dfunc(dw, fnames[i], &df[i]), "%s: no DIE for %s", path, fnames[i]))
			goto out;

	/* 1. Over pahole's BTF: reuse. */
	base_cnt = btf__type_cnt(pahole);
	split = btf__new_empty_split(pahole);
	err = split ? btfi_types_new(split, &dw, 1, path, &tlog, &t) : -ENOMEM;
	if (!CHECK(!err, "%s: btfi_types_new: %d", path, err))
		goto out;
	for (size_t i = 0; i < NFUNCS; i++) {
		const struct dfunc *f = &df[i];
		int pid = btf__find_by_name_kind(pahole, f->name, BTF_KIND_FUNC), id, id2, found;
		uint32_t before;
		struct cmp c = { .a = split, .b = pahole, .fresh = false, .d = &d };

		if (!CHECK(pid > 0, "%s: pahole has no FUNC %s", path, f->name))
			continue;
		found = btfi_types_find_func(t, f->name, f->pnames, f->n);
		CHECK(found == pid, "%s: find_func(%s) = %d, pahole's FUNC is [%d]", path, f->name, found, pid);
		id = btfi_types_add_func(t, f->name, f->ext, f->ret, f->pnames, f->ptypes, f->psizes, f->n);
		if (!CHECK(id >= (int)base_cnt, "%s: add_func(%s) = %d", path, f->name, id))
			continue;
		nglobal += f->ext;
		CHECK(btf_is_func(btf__type_by_id(split, id)) &&
		      !strcmp(btf__name_by_offset(split, btf__type_by_id(split, id)->name_off), f->name) &&
		      btf_vlen(btf__type_by_id(split, id)) == (f->ext ? BTF_FUNC_GLOBAL : BTF_FUNC_STATIC),
		      "%s: [%d] is not FUNC %s with %s linkage", path, id, f->name, f->ext ? "global" : "static");
		CHECK(eq(&c, btf__type_by_id(split, id)->type, btf__type_by_id(pahole, pid)->type, 0),
		      "%s: %s: %s", path, f->name, c.why);
		/* params reused as they are: the same id as pahole's */
		for (uint32_t k = 0; k < btf_vlen(btf__type_by_id(pahole, btf__type_by_id(pahole, pid)->type)); k++) {
			const struct btf_type *pa = btf__type_by_id(split, btf__type_by_id(split, id)->type);
			const struct btf_type *pb = btf__type_by_id(pahole, btf__type_by_id(pahole, pid)->type);

			nparams++;
			if (k < btf_vlen(pa) && btf_params(pa)[k].type == btf_params(pb)[k].type)
				nreused++;
		}
		/* The same function again: only its FUNC_PROTO and FUNC are new. */
		before = btf__type_cnt(split);
		id2 = btfi_types_add_func(t, f->name, f->ext, f->ret, f->pnames, f->ptypes, f->psizes, f->n);
		CHECK(id2 > 0 && btf__type_cnt(split) == before + 2, "%s: %s added twice: %u new types",
		      path, f->name, btf__type_cnt(split) - before);
		CHECK(id2 > 0 && !memcmp(btf_params(btf__type_by_id(split, btf__type_by_id(split, id)->type)),
					 btf_params(btf__type_by_id(split, btf__type_by_id(split, id2)->type)),
					 f->n * sizeof(struct btf_param)),
		      "%s: %s added twice: other parameter types", path, f->name);
	}
	/* only t_global is extern in the C source */
	CHECK(nglobal == 1, "%s: %u functions with DW_AT_external, want 1", path, nglobal);
	nnew = check_no_dups(path, "pahole base", split, pahole);
	check_reparse(path, "pahole base", split, pahole);
	printf("  over pahole's base: %zu prototypes equal, %u of %u parameter types the very same id, "
	       "%u new split types\n", NFUNCS, nreused, nparams, nnew);
	btfi_types_free(t);
	t = NULL;
	btf__free(split);

	/* 2. Over an empty base: every type built. */
	empty = btf__new_empty();
	split = empty ? btf__new_empty_split(empty) : NULL;
	err = split ? btfi_types_new(split, &dw, 1, path, &tlog, &t) : -ENOMEM;
	if (!CHECK(!err, "%s: btfi_types_new (empty base): %d", path, err))
		goto out;
	for (size_t i = 0; i < NFUNCS; i++) {
		const struct dfunc *f = &df[i];
		int pid = btf__find_by_name_kind(pahole, f->name, BTF_KIND_FUNC), id;
		struct cmp c = { .a = split, .b = pahole, .fresh = true, .d = &d };

		CHECK(btfi_types_find_func(t, f->name, f->pnames, f->n) == 0, "%s: %s found in nothing",
		      path, f->name);
		id = btfi_types_add_func(t, f->name, f->ext, f->ret, f->pnames, f->ptypes, f->psizes, f->n);
		if (!CHECK(id > 0 && pid > 0, "%s: add_func(%s) over an empty base = %d", path, f->name, id))
			continue;
		CHECK(eq(&c, btf__type_by_id(split, id)->type, btf__type_by_id(pahole, pid)->type, 0),
		      "%s (empty base): %s: %s", path, f->name, c.why);
		CHECK(btfi_types_find_func(t, f->name, f->pnames, f->n) == id, "%s: %s not found after add",
		      path, f->name);
	}
	check_unique(path, split);
	check_reparse(path, "empty base", split, empty);
	printf("  over an empty base: %u types\n  accepted differences (both bases): %u float as INT in pahole, "
	       "%u char bit, %u nameless shells, %u FWD for a struct/union, %u enums without values\n",
	       btf__type_cnt(split) - 1, d.float_as_int, d.char_bit, d.shell, d.fwd, d.enum_novals);
	/* what the fixture must have exercised */
	CHECK(d.shell > 0 && d.fwd > 0 && d.enum_novals > 0, "%s: fixture shapes missing", path);
out:
	btfi_types_free(t);
	btf__free(split);
	btf__free(empty);
	btf__free(pahole);
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FIXTURES") ?: "build/fixtures";
	int n = 0;

	for (int i = 1; i < argc; i++, n++)
		one(argv[i]);
	if (argc == 1) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[4096];

			if (strncmp(e->d_name, "types-", 6) || strchr(e->d_name, '.'))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			one(path);
			n++;
		}
		if (d)
			closedir(d);
	}
	CHECK(n > 0, "no types-* fixture in %s (make fixtures)", dir);
	return check_done();
}
