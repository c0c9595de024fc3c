// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF type (by DIE offset) -> BTF type id, for the prototypes of
 * functions that have no FUNC in the base. Types are looked up in base and
 * split by (kind, name) or (kind, target) through one hash index; only what
 * is missing is added to the split part (structs and unions as FWD: a
 * prototype needs their name, not their layout).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "encode/encode.h"
#include "dwarf/scan.h"
#include "log.h"

#define MAX_DEPTH 32

struct btfi_types {
	struct btf *btf;		/* split (base reachable through it) */
	Dwarf *const *dws;		/* by the file index in DIE keys */
	uint32_t ndws;
	uint64_t key_base;		/* file index of the type being converted */
	struct btfi_log log;
	const char *path;		/* the ELF, in messages */
	uint32_t *slots, nslots, n;	/* index: type id, 0 = empty */
	uint64_t *mkeys;		/* memo: DIE offset -> id + 1 */
	uint32_t *mvals, mcap, mn;
	int int_id;			/* "int", for array index types */
};

static uint64_t hstr(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool keyed_by_ref(int kind)
{
	return kind == BTF_KIND_PTR || kind == BTF_KIND_CONST || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_RESTRICT;
}

static bool indexed(int kind)
{
	switch (kind) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
		return true;
	default:
		return keyed_by_ref(kind);
	}
}

static uint32_t key_hash(int kind, const char *name, uint32_t ref)
{
	uint64_t h = keyed_by_ref(kind) ? ref * 0x9e3779b97f4a7c15ull : hstr(name);

	h ^= (uint64_t)kind * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static int index_put(struct btfi_types *t, uint32_t id);

static int index_grow(struct btfi_types *t)
{
	uint32_t *old = t->slots, oldn = t->nslots;

	t->nslots = t->nslots ? t->nslots * 2 : 1 << 16;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		t->nslots = oldn;
		return -ENOMEM;
	}
	t->n = 0;
	for (uint32_t i = 0; i < oldn; i++)
		if (old[i])
			index_put(t, old[i]);
	free(old);
	return 0;
}

static int index_put(struct btfi_types *t, uint32_t id)
{
	const struct btf_type *bt = btf__type_by_id(t->btf, id);
	int kind = btf_kind(bt);
	uint32_t j;

	if (!indexed(kind))
		return 0;
	if ((t->n + 1) * 2 > t->nslots && index_grow(t))
		return -ENOMEM;
	j = key_hash(kind, btf__name_by_offset(t->btf, bt->name_off), bt->type) & (t->nslots - 1);
	while (t->slots[j])
		j = (j + 1) & (t->nslots - 1);
	t->slots[j] = id;
	t->n++;
	return 0;
}

/* Calls fn for every id with this key until it returns nonzero. */
static int index_find(struct btfi_types *t, int kind, const char *name, uint32_t ref,
		      bool (*fn)(struct btfi_types *, uint32_t, const void *), const void *ctx)
{
	uint32_t j = key_hash(kind, name, ref) & (t->nslots - 1);

	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		uint32_t id = t->slots[j];
		const struct btf_type *bt = btf__type_by_id(t->btf, id);

		if (btf_kind(bt) != kind)
			continue;
		if (keyed_by_ref(kind) ? bt->type != ref
				       : strcmp(btf__name_by_offset(t->btf, bt->name_off), name ?: ""))
			continue;
		if (!fn || fn(t, id, ctx))
			return id;
	}
	return 0;
}

int btfi_types_reindex(struct btfi_types *t)
{
	uint32_t cnt = btf__type_cnt(t->btf);

	free(t->slots);
	t->slots = NULL;
	t->nslots = t->n = 0;
	while (t->nslots < cnt * 2 + 2)
		t->nslots = t->nslots ? t->nslots * 2 : 1 << 16;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	for (uint32_t id = 1; id < cnt; id++)
		if (index_put(t, id))
			return -ENOMEM;
	t->mn = 0;	/* ids may have moved: forget the DIE memo */
	if (t->mkeys)
		memset(t->mkeys, 0, t->mcap * sizeof(*t->mkeys));
	t->int_id = 0;
	return 0;
}

int btfi_types_check_base(const struct btf *base, const char *what, const struct btfi_log *log)
{
	uint32_t cnt = btf__type_cnt(base);

	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(base, id);
		uint32_t vlen = btf_vlen(t), bad_name = 0, bad_id = 0;

		if (!btf__name_by_offset(base, t->name_off))
			bad_name = 1;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		case BTF_KIND_FUNC_PROTO:
			bad_id = t->type >= cnt;
			break;
		case BTF_KIND_ARRAY:
			bad_id = btf_array(t)->type >= cnt || btf_array(t)->index_type >= cnt;
			break;
		default:
			break;
		}
		for (uint32_t i = 0; i < vlen && !bad_name && !bad_id; i++) {
			if (btf_is_composite(t)) {
				bad_name = !btf__name_by_offset(base, btf_members(t)[i].name_off);
				bad_id = btf_members(t)[i].type >= cnt;
			} else if (btf_is_func_proto(t)) {
				bad_name = !btf__name_by_offset(base, btf_params(t)[i].name_off);
				bad_id = btf_params(t)[i].type >= cnt;
			} else if (btf_is_enum(t)) {
				bad_name = !btf__name_by_offset(base, btf_enum(t)[i].name_off);
			} else if (btf_is_enum64(t)) {
				bad_name = !btf__name_by_offset(base, btf_enum64(t)[i].name_off);
			} else if (btf_is_datasec(t)) {
				bad_id = btf_var_secinfos(t)[i].type >= cnt;
			}
		}
		if (bad_name || bad_id) {
			btfi_err(log, "%s: base BTF type [%u]: %s out of range", what, id,
				 bad_name ? "name offset" : "type id");
			return -EINVAL;
		}
	}
	return 0;
}

int btfi_types_new(struct btf *split, Dwarf *const *dws, uint32_t ndws, const char *path,
		   const struct btfi_log *log, struct btfi_types **out)
{
	struct btfi_types *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	t->btf = split;
	t->dws = dws;
	t->ndws = ndws;
	t->path = path;
	if (log)
		t->log = *log;
	err = btfi_types_reindex(t);
	if (err) {
		btfi_types_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void btfi_types_free(struct btfi_types *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->mkeys);
	free(t->mvals);
	free(t);
}

static uint32_t *memo_slot(struct btfi_types *t, uint64_t key, bool *found)
{
	uint32_t mask = t->mcap - 1, i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	for (; t->mkeys[i]; i = (i + 1) & mask)
		if (t->mkeys[i] == key) {
			*found = true;
			return &t->mvals[i];
		}
	*found = false;
	return &t->mvals[i];
}

static void memo_ins(struct btfi_types *t, uint64_t key, uint32_t val)
{
	bool found;
	uint32_t *v = memo_slot(t, key, &found);

	if (!found) {
		t->mkeys[v - t->mvals] = key;
		t->mn++;
	}
	*v = val;
}

static int memo_put(struct btfi_types *t, uint64_t key, uint32_t id)
{
	if ((t->mn + 1) * 2 > t->mcap) {
		uint64_t *ok = t->mkeys;
		uint32_t *ov = t->mvals, ocap = t->mcap;

		t->mcap = t->mcap ? t->mcap * 2 : 4096;
		t->mkeys = calloc(t->mcap, sizeof(*t->mkeys));
		t->mvals = calloc(t->mcap, sizeof(*t->mvals));
		if (!t->mkeys || !t->mvals)
			return -ENOMEM;
		t->mn = 0;
		for (uint32_t i = 0; i < ocap; i++)
			if (ok[i])
				memo_ins(t, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	memo_ins(t, key, id);
	return 0;
}

static bool type_die(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static int conv(struct btfi_types *t, Dwarf_Die *die, int depth);

/* Target of a modifier/pointer/typedef DIE; 0 = void. */
static int conv_target(struct btfi_types *t, Dwarf_Die *die, int depth)
{
	Dwarf_Die td;

	if (!type_die(die, &td))
		return 0;
	return conv(t, &td, depth + 1);
}

static int add_ref(struct btfi_types *t, int kind, uint32_t ref)
{
	int id = index_find(t, kind, NULL, ref, NULL, NULL);

	if (id)
		return id;
	switch (kind) {
	case BTF_KIND_PTR: id = btf__add_ptr(t->btf, ref); break;
	case BTF_KIND_CONST: id = btf__add_const(t->btf, ref); break;
	case BTF_KIND_VOLATILE: id = btf__add_volatile(t->btf, ref); break;
	default: id = btf__add_restrict(t->btf, ref); break;
	}
	return id < 0 ? id : (index_put(t, id) ?: id);
}

static int int_type(struct btfi_types *t, const char *name, uint32_t size, int enc)
{
	int id = index_find(t, BTF_KIND_INT, name, 0, NULL, NULL);

	if (id)
		return id;
	if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
		size = 8;
	id = btf__add_int(t->btf, name, size, enc);
	return id < 0 ? id : (index_put(t, id) ?: id);
}

static int conv_base(struct btfi_types *t, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die) ?: "__unnamed_base";
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int size = dwarf_bytesize(die), id, e = 0;

	if (dwarf_attr(die, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if (enc == DW_ATE_float) {
		id = index_find(t, BTF_KIND_FLOAT, name, 0, NULL, NULL);
		if (id)
			return id;
		/* pahole before 1.21 (or without --btf_gen_floats) writes
		 * floating types as INTs of their name and size: use that. */
		id = index_find(t, BTF_KIND_INT, name, 0, NULL, NULL);
		if (id && size > 0 && btf__type_by_id(t->btf, id)->size == (uint32_t)size)
			return id;
		if (size == 2 || size == 4 || size == 8 || size == 12 || size == 16) {
			id = btf__add_float(t->btf, name, size);
			return id < 0 ? id : (index_put(t, id) ?: id);
		}
	}
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		e = BTF_INT_SIGNED;
	if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char)
		e |= BTF_INT_CHAR;
	if (enc == DW_ATE_boolean)
		e = BTF_INT_BOOL;
	return int_type(t, name, size > 0 ? size : 8, e);
}

static int conv_named(struct btfi_types *t, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);
	int size = dwarf_bytesize(die), id;

	if (tag == DW_TAG_enumeration_type) {
		if (name && ((id = index_find(t, BTF_KIND_ENUM, name, 0, NULL, NULL)) ||
			     (id = index_find(t, BTF_KIND_ENUM64, name, 0, NULL, NULL))))
			return id;
		id = btf__add_enum(t->btf, name, size > 0 ? size : 4);
		return id < 0 ? id : (index_put(t, id) ?: id);
	}
	if (!name) {
		/* Anonymous aggregate by value: a nameless, memberless shell. */
		id = tag == DW_TAG_union_type ? btf__add_union(t->btf, NULL, size > 0 ? size : 0)
					      : btf__add_struct(t->btf, NULL, size > 0 ? size : 0);
		return id;
	}
	id = index_find(t, tag == DW_TAG_union_type ? BTF_KIND_UNION : BTF_KIND_STRUCT, name, 0,
			NULL, NULL);
	if (id || (id = index_find(t, BTF_KIND_FWD, name, 0, NULL, NULL)))
		return id;
	id = btf__add_fwd(t->btf, name, tag == DW_TAG_union_type ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	return id < 0 ? id : (index_put(t, id) ?: id);
}

static int conv_array(struct btfi_types *t, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	Dwarf_Word n = 0;
	int elem = conv_target(t, die, depth);

	if (elem < 0)
		return elem;
	/* T x[2][8] is one ARRAY of 16 T, as pahole writes it: the product of
	 * every dimension (0 when one is unknown, or on overflow). */
	if (dwarf_child(die, &child) == 0) {
		n = 1;
		do {
			Dwarf_Word d = 0;

			if (dwarf_tag(&child) != DW_TAG_subrange_type)
				continue;
			if (dwarf_attr(&child, DW_AT_count, &a))
				dwarf_formudata(&a, &d);
			else if (dwarf_attr(&child, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &d))
				d++;
			n = d && n <= UINT32_MAX / d ? n * d : 0;
		} while (n && dwarf_siblingof(&child, &child) == 0);
	}
	if (!t->int_id && (t->int_id = int_type(t, "int", 4, BTF_INT_SIGNED)) < 0)
		return t->int_id;
	return btf__add_array(t->btf, t->int_id, elem, (uint32_t)n);
}

static int conv_proto(struct btfi_types *t, Dwarf_Die *die, int depth)
{
	int ret = conv_target(t, die, depth), ids[64], n = 0, id;
	const char *names[64];
	Dwarf_Die c;

	if (ret < 0)
		return ret;
	/* Resolve every parameter type first: btf__add_func_param appends to
	 * the last type added. */
	if (dwarf_child(die, &c) == 0) {
		do {
			int tag = dwarf_tag(&c);

			if (n == 64)
				break;
			if (tag == DW_TAG_formal_parameter) {
				names[n] = dwarf_diename(&c);
				ids[n] = conv_target(t, &c, depth);
				if (ids[n] < 0)
					return ids[n];
				n++;
			} else if (tag == DW_TAG_unspecified_parameters) {
				names[n] = NULL;
				ids[n++] = 0;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	id = btf__add_func_proto(t->btf, ret);
	for (int i = 0; id > 0 && i < n; i++) {
		int err = btf__add_func_param(t->btf, names[i], ids[i]);

		if (err)
			return err;
	}
	return id;
}

/* The DIE's key: its offset and its file's index. References stay in the
 * DIE's file, but for dwz's (DW_FORM_GNU_ref_alt): into the alternate file. */
static uint64_t die_key(struct btfi_types *t, Dwarf_Die *die)
{
	Dwarf *dw = dwarf_cu_getdwarf(die->cu);
	uint64_t fi = t->key_base >> BTFI_DIE_FILE_SHIFT;

	if (fi >= t->ndws || dw != t->dws[fi])
		for (fi = 0; fi < t->ndws && t->dws[fi] != dw; fi++)
			;
	return dwarf_dieoffset(die) | (fi < t->ndws ? fi << BTFI_DIE_FILE_SHIFT : t->key_base);
}

static int conv(struct btfi_types *t, Dwarf_Die *die, int depth)
{
	uint64_t off = die_key(t, die);
	bool found;
	uint32_t *v;
	int tag, id;

	if (depth > MAX_DEPTH)
		return 0;
	v = t->mcap ? memo_slot(t, off, &found) : NULL;
	if (v && found)
		return *v;
	tag = dwarf_tag(die);
	switch (tag) {
	case DW_TAG_base_type:
		id = conv_base(t, die);
		break;
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		/* Recursion through a pointer to itself ends at the depth limit. */
		id = conv_target(t, die, depth);
		id = id < 0 ? id : add_ref(t, BTF_KIND_PTR, id);
		break;
	case DW_TAG_const_type:
		id = conv_target(t, die, depth);
		id = id < 0 ? id : add_ref(t, BTF_KIND_CONST, id);
		break;
	case DW_TAG_volatile_type:
		id = conv_target(t, die, depth);
		id = id < 0 ? id : add_ref(t, BTF_KIND_VOLATILE, id);
		break;
	case DW_TAG_restrict_type:
		id = conv_target(t, die, depth);
		id = id < 0 ? id : add_ref(t, BTF_KIND_RESTRICT, id);
		break;
	case DW_TAG_atomic_type:
		id = conv_target(t, die, depth);
		break;
	case DW_TAG_typedef: {
		const char *name = dwarf_diename(die);

		id = name ? index_find(t, BTF_KIND_TYPEDEF, name, 0, NULL, NULL) : 0;
		if (!id) {
			id = conv_target(t, die, depth);
			if (id >= 0 && name) {
				id = btf__add_typedef(t->btf, name, id);
				if (id > 0 && index_put(t, id))
					id = -ENOMEM;
			}
		}
		break;
	}
	case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
		id = conv_named(t, die, tag);
		break;
	case DW_TAG_array_type:
		id = conv_array(t, die, depth);
		break;
	case DW_TAG_subroutine_type:
		id = conv_proto(t, die, depth);
		break;
	default:		/* unspecified_type (void), unknown: void */
		id = 0;
		break;
	}
	if (id < 0) {
		btfi_err(&t->log, "%s: cannot add BTF type for DIE 0x%llx: %s", t->path,
			 (unsigned long long)off, strerror(-id));
		return id;
	}
	if (memo_put(t, off, id))
		return -ENOMEM;
	return id;
}

int btfi_types_id(struct btfi_types *t, uint64_t die_off, uint32_t fallback_size)
{
	Dwarf_Die die;
	int id = 0;

	if (die_off) {
		uint64_t fi = die_off >> BTFI_DIE_FILE_SHIFT;
		Dwarf *dw = fi < t->ndws ? t->dws[fi] : NULL;
		Dwarf_Off off = die_off & ((1ull << BTFI_DIE_FILE_SHIFT) - 1);

		t->key_base = fi << BTFI_DIE_FILE_SHIFT;
		if (!dw || (!dwarf_offdie(dw, off, &die) && !dwarf_offdie_types(dw, off, &die))) {
			btfi_err(&t->log, "%s: no type DIE at 0x%llx", t->path, (unsigned long long)die_off);
			return -EINVAL;
		}
		id = conv(t, &die, 0);
	}
	/* A parameter needs a real type: 0 in a FUNC_PROTO means "...". */
	if (id == 0 && fallback_size)
		id = int_type(t, fallback_size == 8 ? "long unsigned int" : "unsigned int",
			      fallback_size == 8 ? 8 : 4, 0);
	return id;
}

struct fmatch {
	const char *const *names;
	uint32_t n;
};

static bool params_match(struct btfi_types *t, uint32_t id, const void *ctx)
{
	const struct fmatch *m = ctx;
	const struct btf_type *f = btf__type_by_id(t->btf, id);
	const struct btf_type *p = btf__type_by_id(t->btf, f->type);
	const struct btf_param *pp;
	uint32_t n;

	if (!p || !btf_is_func_proto(p))
		return false;
	n = btf_vlen(p);
	pp = btf_params(p);
	if (n && !pp[n - 1].name_off && !pp[n - 1].type)
		n--;	/* vararg */
	if (n != m->n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(btf__name_by_offset(t->btf, pp[i].name_off), m->names[i] ?: ""))
			return false;
	return true;
}

int btfi_types_find_func(struct btfi_types *t, const char *name, const char *const *pnames,
			 uint32_t n)
{
	struct fmatch m = { pnames, n };

	return index_find(t, BTF_KIND_FUNC, name, 0, params_match, &m);
}

int btfi_types_add_func(struct btfi_types *t, const char *name, bool global,
			uint64_t ret_off, const char *const *pnames, const uint64_t *ptypes,
			const uint32_t *psizes, uint32_t n)
{
	int ret, proto, id, *ids = calloc(n + 1, sizeof(*ids));

	if (!ids)
		return -ENOMEM;
	ret = btfi_types_id(t, ret_off, 0);
	for (uint32_t i = 0; ret >= 0 && i < n; i++)
		if ((ids[i] = btfi_types_id(t, ptypes[i], psizes[i] ?: 8)) < 0)
			ret = ids[i];
	if (ret < 0) {
		free(ids);
		return ret;
	}
	proto = btf__add_func_proto(t->btf, ret);
	for (uint32_t i = 0; proto > 0 && i < n; i++) {
		int err = btf__add_func_param(t->btf, pnames[i], ids[i]);

		if (err)
			proto = err;
	}
	free(ids);
	id = proto < 0 ? proto
		       : btf__add_func(t->btf, name, global ? BTF_FUNC_GLOBAL : BTF_FUNC_STATIC, proto);
	if (id < 0) {
		btfi_err(&t->log, "%s: cannot add FUNC '%s' (%u params): %s", t->path, name ?: "", n,
			 strerror(-id));
		return id;
	}
	return index_put(t, id) ?: id;
}
