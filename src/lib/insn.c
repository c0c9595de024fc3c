// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* x86-64 instruction facts through capstone (insn.h). */
#include <errno.h>
#include <stdlib.h>
#include <capstone/capstone.h>
#include "insn.h"

struct btfi_insn_dec {
	csh h;
	cs_insn *insn;
};

int btfi_insn_dec_new(struct btfi_insn_dec **out)
{
	struct btfi_insn_dec *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK) {
		free(d);
		return -EINVAL;
	}
	cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->h);
	if (!d->insn) {
		cs_close(&d->h);
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void btfi_insn_dec_free(struct btfi_insn_dec *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->h);
	free(d);
}

int btfi_insn_decode(struct btfi_insn_dec *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct btfi_insn *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	const cs_x86 *x;

	*out = (struct btfi_insn){ 0 };
	if (!cs_disasm_iter(d->h, &p, &n, &a, d->insn))
		return -EINVAL;
	x = &d->insn->detail->x86;
	out->len = d->insn->size;
	out->nop = d->insn->id == X86_INS_NOP;
	if (x->prefix[0] == X86_PREFIX_LOCK)
		out->uprobe_refusal = "lock prefix";
	else if (x->prefix[1] == X86_PREFIX_CS || x->prefix[1] == X86_PREFIX_DS ||
		 x->prefix[1] == X86_PREFIX_ES || x->prefix[1] == X86_PREFIX_SS)
		out->uprobe_refusal = "segment-override prefix";
	return 0;
}
