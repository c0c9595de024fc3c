// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The CLI's program: at each attached site, evaluate every argument and
 * send one event, or only count hits (--count). */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include "btfinline.bpf.h"
#include "trace.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile int count_only = 0;

#define RB_BYTES	(1 << 22)
#define RB_WAKE_BYTES	(RB_BYTES / 4)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RB_BYTES);
} events SEC(".maps");

/* site tag -> hits (--count) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BTFI_SPECS_MAX);
	__type(key, __u64);
	__type(value, __u64);
} counts SEC(".maps");

__u64 dropped = 0;

SEC("uprobe")
int btfi_trace(struct pt_regs *ctx)
{
	const struct btfi_site_spec *spec;
	struct btfi_trace_event *ev;
	__u64 id, cookie, one = 1, *cnt;
	__u32 i;

	cookie = bpf_get_attach_cookie(ctx);
	spec = bpf_map_lookup_elem(&btfi_specs, &cookie);
	/* A branch site that does not go into the body this time: no call. */
	if (!spec || !__btfi_is_call(ctx, spec))
		return 0;
	if (count_only) {
		cnt = bpf_map_lookup_elem(&counts, &spec->user);
		if (cnt)
			__sync_fetch_and_add(cnt, 1);
		else
			bpf_map_update_elem(&counts, &spec->user, &one, BPF_NOEXIST);
		return 0;
	}
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	ev->ts = bpf_ktime_get_ns();
	ev->tag = spec->user;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->nargs = spec->nargs;
	ev->has_str = 0;
	ev->ip = 0;
	if (!__btfi_ret(ctx, spec, &ev->ret))
		__btfi_reg(ctx, 16, &ev->ip);
	for (i = 0; i < BTFI_MAX_ARGS; i++) {
		const struct btfi_arg_spec *a = &spec->args[i];

		if (i >= spec->nargs)
			break;
		ev->err[i] = __btfi_eval(ctx, spec, a, ev->val[i]);
		ev->str[i][0] = 0;
		if (a->str && !ev->err[i]) {
			ev->has_str = 1;
			if (spec->flags & BTFI_SPEC_KERNEL)
				bpf_probe_read_kernel_str(ev->str[i], BTFI_STR_LEN, (void *)ev->val[i][0]);
			else
				bpf_probe_read_user_str(ev->str[i], BTFI_STR_LEN, (void *)ev->val[i][0]);
		}
	}
	/* A wakeup per event costs an irq_work + IPI per hit (as much as the
	 * uprobe itself in a VM): wake the reader only when a quarter of the
	 * ring is used; it also drains on its poll timeout. */
	bpf_ringbuf_submit(ev, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= RB_WAKE_BYTES ?
			   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}

/* Never set: keeps btfi_specs among btfi_empty's maps (the attach core
 * finds the spec map through the program) in a branch the verifier
 * removes, since rodata is frozen. */
const volatile int never = 0;

/* Bench baseline: a bare uprobe with an empty program. */
SEC("uprobe")
int btfi_empty(struct pt_regs *ctx)
{
	__u64 key = 0;

	if (never)
		bpf_map_lookup_elem(&btfi_specs, &key);
	return 0;
}
