// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Field expressions of `trace 'FUNC arg->a.b'`: a member chain through
 * BTF, turned into a location change or BPF dereference steps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "trace_expr.h"

bool trace_is_char_ptr(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btfi_skip_mods(btf, &id);

	if (!t || !btf_is_ptr(t))
		return false;
	id = t->type;
	t = btfi_skip_mods(btf, &id);
	return t && btf_is_int(t) && t->size == 1;
}

/* Member `name` of composite type id (anonymous members searched too). */
static int find_member(const struct btf *btf, uint32_t id, const char *name,
		       uint32_t *off, uint32_t *mtype, int depth)
{
	const struct btf_type *t = btfi_skip_mods(btf, &id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return -ENOENT;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t boff = btf_member_bit_offset(t, i);

		if (btf_member_bitfield_size(t, i) || boff % 8)
			continue;
		if (mn && !strcmp(mn, name)) {
			*off = boff / 8;
			*mtype = m->type;
			return 0;
		}
		if ((!mn || !*mn) && !find_member(btf, m->type, name, off, mtype, depth + 1)) {
			*off += boff / 8;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Resolve `arg->a.b->c` against the parameter's type: adjusts the location
 * (a '.' into a struct passed in memory), fills the BPF field chain, and
 * gives the type of the printed value. Errors name the expression.
 */
int trace_resolve_expr(const struct btf *btf, const char *expr, const char **names,
		       uint32_t nparams, uint32_t proto_id, const struct btfi_loc *locs,
		       struct btfi_loc *loc, struct btfi_arg_extra *ex, struct tout *to,
		       bool want_str, char *err, size_t errlen)
{
	const struct btf_param *pp = btf_params(btf__type_by_id(btf, proto_id));
	char buf[256], *p, *tok;
	uint32_t cur, poff = 0;
	bool addr_mode = false;	/* the value is the address of a `cur` object + poff */
	int k;

	snprintf(buf, sizeof(buf), "%s", expr);
	p = buf + strcspn(buf, ".-");
	tok = strndup(buf, p - buf);
	for (k = 0; k < (int)nparams; k++)
		if (names[k] && !strcmp(names[k], tok))
			break;
	free(tok);
	if (k == (int)nparams) {
		snprintf(err, errlen, "'%s': no such argument", expr);
		return -ENOENT;
	}
	*loc = locs[k];
	memset(ex, 0, sizeof(*ex));
	memset(to, 0, sizeof(*to));
	snprintf(to->name, sizeof(to->name), "%s", expr);
	cur = pp[k].type;
	while (*p) {
		bool arrow = p[0] == '-' && p[1] == '>';
		const struct btf_type *t;
		uint32_t moff, mtype;
		char mname[64];
		size_t n;

		if (!arrow && *p != '.')
			goto bad;
		p += arrow ? 2 : 1;
		n = strcspn(p, ".-");
		if (!n || n >= sizeof(mname))
			goto bad;
		memcpy(mname, p, n);
		mname[n] = 0;
		p += n;
		t = btfi_skip_mods(btf, &cur);
		if (arrow) {
			if (!t || !btf_is_ptr(t))
				goto notptr;
			if (addr_mode) {	/* load the pointer first */
				if (ex->nsteps >= BTFI_MAX_STEPS)
					goto deep;
				ex->steps[ex->nsteps++] = (struct btfi_step){ .off = poff, .size = 8 };
			} else if (to->slice_off) {
				goto unsup;
			}
			cur = t->type;
			poff = 0;
			addr_mode = true;
		}
		if (find_member(btf, cur, mname, &moff, &mtype, 0)) {
			snprintf(err, errlen, "'%s': no member '%s'", expr, mname);
			return -ENOENT;
		}
		if (addr_mode) {
			poff += moff;
		} else if (loc->kind == BTFI_LOC_KMEM) {
			loc->off += moff;	/* struct passed in memory */
		} else if (loc->kind == BTFI_LOC_KREG_PAIR || loc->kind == BTFI_LOC_KREG) {
			to->slice_off += moff;	/* taken from the captured bytes */
		} else if (loc->kind != BTFI_LOC_NONE) {
			goto unsup;
		}
		cur = mtype;
	}
	{
		int64_t sz = btf__resolve_size(btf, cur);
		const struct btf_type *t = btfi_skip_mods(btf, &cur);
		bool char_arr = t && btf_is_array(t) && ({
			uint32_t e = btf_array(t)->type;
			const struct btf_type *et = btfi_skip_mods(btf, &e);
			et && btf_is_int(et) && et->size == 1; });

		if (sz < 0)
			sz = 0;
		if (addr_mode) {
			if (ex->nsteps >= BTFI_MAX_STEPS)
				goto deep;
			if (char_arr && sz > 16) {	/* address, then a string read */
				ex->steps[ex->nsteps++] = (struct btfi_step){ .off = poff, .size = 0 };
				ex->str = true;
			} else {
				ex->steps[ex->nsteps++] = (struct btfi_step){
					.off = poff, .size = sz > 16 ? 16 : sz,
					.is_signed = t && btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED) };
			}
		} else if (loc->kind == BTFI_LOC_KMEM && sz) {
			loc->size = sz;
		}
		to->type_id = cur;
		to->size = sz;
		if (want_str && trace_is_char_ptr(btf, cur)) {
			if (ex->nsteps < BTFI_MAX_STEPS && !to->slice_off)
				ex->str = true;
		}
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s': bad field expression", expr);
	return -EINVAL;
notptr:
	snprintf(err, errlen, "'%s': '->' on a non-pointer", expr);
	return -EINVAL;
deep:
	snprintf(err, errlen, "'%s': more than %d dereferences", expr, BTFI_MAX_STEPS);
	return -E2BIG;
unsup:
	snprintf(err, errlen, "'%s': field of a value in registers cannot be dereferenced", expr);
	return -EOPNOTSUPP;
}
