/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One hit, from inline_args.bpf.c to inline_args.c. */
#ifndef INLINE_ARGS_H
#define INLINE_ARGS_H

#define MAX_ARGS 6

struct hit {
	__u32 pid;
	__u32 entry;		/* 1: the out-of-line entry, 0: an inline site */
	__s32 nargs;		/* bpf_inline_arg_cnt() */
	__s32 err[MAX_ARGS];	/* bpf_inline_arg()'s return */
	__s64 val[MAX_ARGS];
};

#endif
