/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Event record shared by trace.bpf.c and the CLI (cmd_trace.c). */
#ifndef BTFI_TRACE_H
#define BTFI_TRACE_H
#include "btfinline.bpf.h"

#define BTFI_STR_LEN	64

struct btfi_trace_event {
	__u64 ts;			/* bpf_ktime_get_ns */
	__u64 tag;			/* spec->user: the CLI's site index */
	__u32 pid, tid;
	__u32 nargs;
	__u32 has_str;			/* some arg carries a string */
	__u64 ret;			/* an entry's return address, else 0 */
	__u64 ip;			/* an entry's: the hit's instruction pointer */
	__s32 err[BTFI_MAX_ARGS];	/* 0, -ENOENT (no location), read error */
	__u64 val[BTFI_MAX_ARGS][2];
	char str[BTFI_MAX_ARGS][BTFI_STR_LEN];
};
#endif
