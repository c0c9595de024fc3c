/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * x86-64 instruction facts, from capstone: where alignment padding ends
 * (scan: a probe on padding runs once, not per call) and whether a uprobe
 * may sit on an instruction (attach: find the one site the kernel would
 * refuse before it refuses the whole function).
 */
#ifndef BTFI_INSN_H
#define BTFI_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btfi_insn_dec;

struct btfi_insn {
	uint32_t len;		/* bytes; 0: not an instruction capstone knows */
	bool nop;		/* a no-op of any length (padding) */
	/* Why x86 uprobes refuse it (arch/x86/kernel/uprobes.c, is_prefix_bad:
	 * ES/CS/DS/SS segment-override and LOCK prefixes), NULL if they take it. */
	const char *uprobe_refusal;
};

/* 0 or -ENOMEM/-EINVAL (capstone could not start). */
int btfi_insn_dec_new(struct btfi_insn_dec **out);
void btfi_insn_dec_free(struct btfi_insn_dec *d);
/* Decode the instruction at code[0..len) (at address addr); 0, or -EINVAL
 * if it is not one (out->len = 0). */
int btfi_insn_decode(struct btfi_insn_dec *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct btfi_insn *out);

#endif
