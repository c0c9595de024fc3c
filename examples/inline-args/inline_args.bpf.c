// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* At every site btfinline attached: the arguments of the inlined function,
 * read with bpf_inline_arg() wherever .BTF.inline says they are there. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <btfinline.bpf.h>
#include "inline_args.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} hits SEC(".maps");

static __always_inline int report(struct pt_regs *ctx, __u32 entry)
{
	struct hit *h;
	long v;

	/* A site on a branch fires on every pass: only some hits are calls. */
	if (bpf_inline_site_is_call(ctx) <= 0)
		return 0;
	h = bpf_ringbuf_reserve(&hits, sizeof(*h), 0);
	if (!h)
		return 0;
	h->pid = bpf_get_current_pid_tgid() >> 32;
	h->entry = entry;
	h->nargs = bpf_inline_arg_cnt(ctx);
	for (int i = 0; i < MAX_ARGS; i++) {
		h->err[i] = bpf_inline_arg(ctx, i, &v);
		h->val[i] = v;
	}
	bpf_ringbuf_submit(h, 0);
	return 0;
}

/* Two programs on one btfi_specs map, so that the output can say which
 * probe is the out-of-line entry: the attach call's filter splits them. */
SEC("uprobe")
int on_inline(struct pt_regs *ctx)
{
	return report(ctx, 0);
}

SEC("uprobe")
int on_entry(struct pt_regs *ctx)
{
	return report(ctx, 1);
}
