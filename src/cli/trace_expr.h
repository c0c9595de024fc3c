/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `trace 'FUNC EXPR...'`: argument field expressions resolved against BTF. */
#ifndef BTFI_TRACE_EXPR_H
#define BTFI_TRACE_EXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "attach/attach.h"

struct btf;

struct tout {			/* one printed value */
	char name[64];
	uint32_t type_id;	/* 0: integer of size/is_signed */
	uint32_t size;
	bool is_signed;
	uint8_t slice_off;	/* '.' into a by-value struct held in registers */
	bool str;		/* BPF read a string for it (ev->str) */
};

/* Pointer to a 1-byte integer (char *, const u8 *, ...). */
bool trace_is_char_ptr(const struct btf *btf, uint32_t id);
/*
 * Resolve `arg->a.b->c` against the parameter's type (proto_id; names and
 * locs of its nparams parameters): adjusts the location (a '.' into a
 * struct passed in memory), fills the BPF field chain, and gives the type
 * of the printed value. want_str: read a char pointer's string. Errors:
 * negative errno, err says what in the expression.
 */
int trace_resolve_expr(const struct btf *btf, const char *expr, const char **names,
		       uint32_t nparams, uint32_t proto_id, const struct btfi_loc *locs,
		       struct btfi_loc *loc, struct btfi_arg_extra *ex, struct tout *to,
		       bool want_str, char *err, size_t errlen);
#endif
