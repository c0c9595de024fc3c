// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Smoke test of the kernel attach path: one program on several kprobes,
 * told apart by the bpf cookie; records what each probe saw. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct hit {
	__u64 cnt;
	__u64 func_ip;		/* bpf_get_func_ip(): the kprobe's address */
	__u64 ip;		/* regs->ip: probe address + int3 size */
	__u64 arg3;		/* rdx: read()'s count at a function entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct hit);
} hits SEC(".maps");

const volatile __u32 target_tgid = 0;

SEC("kprobe")
int smoke(struct pt_regs *ctx)
{
	__u32 key = bpf_get_attach_cookie(ctx);
	struct hit *h;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	h = bpf_map_lookup_elem(&hits, &key);
	if (!h)
		return 0;
	__sync_fetch_and_add(&h->cnt, 1);
	h->func_ip = bpf_get_func_ip(ctx);
	h->ip = PT_REGS_IP(ctx);
	h->arg3 = PT_REGS_PARM3(ctx);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
