// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `btfinline trace -k FUNC...`: the kernel half of the trace command. The
 * output, the BPF program and the event loop are cmd_trace.c's; this file
 * finds the inline info and the sites of the running kernel and attaches
 * kprobes. Also: folding of nested instances of the same function.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <bpf/libbpf.h>
#include "attach/attach_kernel.h"
#include "source/source.h"
#include "attach/kallsyms.h"
#include "trace_kernel.h"

struct trace_kernel {
	struct btfi_ksyms *ks;
	struct btfi_kblacklist bl;
	struct btfi_kskips skips;
};

int trace_kernel_open(const char *inline_btf, const char *base, struct trace_kernel **out,
		      struct btfinline **bi)
{
	BTFI_OPTS(btfi_ksyms_opts, kso);
	BTFI_OPTS(btfi_source_opts, so, .inline_btf = inline_btf, .base = base);
	struct trace_kernel *tk;
	int err;

	*out = NULL;
	*bi = NULL;
	tk = calloc(1, sizeof(*tk));
	if (!tk)
		return -ENOMEM;
	err = btfi_source_open(BTFI_TARGET_KERNEL, NULL, &so, bi, NULL);
	if (!err)
		err = btfi_ksyms_load(&kso, &tk->ks);
	if (err) {
		btfinline__free(*bi);
		*bi = NULL;
		trace_kernel_close(tk);
		return err;
	}
	btfi_kblacklist_load(NULL, &tk->bl);
	*out = tk;
	return 0;
}

void trace_kernel_close(struct trace_kernel *tk)
{
	if (!tk)
		return;
	btfi_ksyms_free(tk->ks);
	btfi_kblacklist_free(&tk->bl);
	free(tk);
}

int trace_kernel_collect(struct trace_kernel *tk, struct btfinline *bi, const char *func,
			 bool no_entry, enum btfinline_policy policy, struct btfi_site_list *sl)
{
	struct btfi_kskips sk = { 0 };
	int err;

	err = btfi_collect_ksites(bi, tk->ks, &tk->bl, func, no_entry, NULL, NULL, NULL, sl, &sk);
	if (!err && sk.nmissed && policy != BTFI_BEST_EFFORT) {
		fprintf(stderr, "btfinline: kernel: %s: %zu site%s cannot be probed, calls there would "
			"be missed, refusing (--best-effort to attach the others): %s\n", func,
			sk.nmissed, sk.nmissed > 1 ? "s" : "", sk.text);
		return -ENOTSUP;
	}
	if (!err && sk.n)
		fprintf(stderr, "btfinline: kernel: %s: %zu site%s skipped: %s\n", func, sk.n,
			sk.n > 1 ? "s" : "", sk.text);
	return err;
}

/* Each kprobe holds a perf event fd and a BPF link fd. */
static void raise_nofile(size_t nsites)
{
	struct rlimit r;
	rlim_t need = 2 * nsites + 64;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= need)
		return;
	if (r.rlim_max < need)
		r.rlim_max = need;	/* root may raise the hard limit */
	r.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &r)) {
		getrlimit(RLIMIT_NOFILE, &r);
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int trace_kernel_attach(struct trace_kernel *tk, struct bpf_program *prog,
			const struct btfi_site_list *sl, enum btfinline_policy policy,
			struct btfinline_link **link)
{
	BTFI_OPTS(btfi_attach_core_opts, co, .policy = policy, .kernel = true);
	struct btfi_kskips sk = { 0 };
	double t0 = now_s();
	int err;

	raise_nofile(sl->cnt);
	err = btfi_attach_ksites(prog, sl->sites, sl->cnt,
				 btfi_ksyms_kaslr_delta(tk->ks, BTFI_X86_64_LINK_TEXT), &tk->bl, &co, link, &sk);
	if (err)
		return err;
	if (sk.n)
		fprintf(stderr, "btfinline: kernel: %zu site%s refused by the kernel, skipped: %s\n",
			sk.n, sk.n > 1 ? "s" : "", sk.text);
	fprintf(stderr, "btfinline: kernel: %zu kprobes attached in %.3f s\n",
		btfinline_link__cnt(*link), now_s() - t0);
	return 0;
}

/* ---- nested instances ---- */

#define FOLD_SLOTS 1024

struct fold_slot {
	uint32_t tid;
	bool used;
	const char *func;
	char caller[96];
	uint64_t off;
	uint32_t nargs;
	int32_t err[BTFI_MAX_ARGS];
	uint64_t val[BTFI_MAX_ARGS];
};

struct trace_fold {
	struct fold_slot s[FOLD_SLOTS];
};

struct trace_fold *fold_new(void)
{
	return calloc(1, sizeof(struct trace_fold));
}

void fold_free(struct trace_fold *f)
{
	free(f);
}

/* "caller+0xOFF" -> caller, off */
static bool split_label(const char *label, char *caller, size_t len, uint64_t *off)
{
	const char *plus = strrchr(label, '+');
	char *end;

	if (!plus || plus == label || (size_t)(plus - label) >= len || strncmp(plus, "+0x", 3))
		return false;
	*off = strtoull(plus + 3, &end, 16);
	if (*end)
		return false;
	memcpy(caller, label, plus - label);
	caller[plus - label] = 0;
	return true;
}

bool fold_hit(struct trace_fold *f, uint32_t tid, const char *func, const char *label,
	      uint32_t nargs, const int32_t *err, const void *val)
{
	struct fold_slot *p = &f->s[tid % FOLD_SLOTS], cur = { .tid = tid, .used = true, .func = func };
	uint32_t same = 0;
	bool fold;

	if (nargs > BTFI_MAX_ARGS)
		nargs = BTFI_MAX_ARGS;
	if (!split_label(label, cur.caller, sizeof(cur.caller), &cur.off)) {
		p->used = false;	/* an entry hit ends any chain */
		return false;
	}
	cur.nargs = nargs;
	for (uint32_t k = 0; k < nargs; k++) {
		cur.err[k] = err[k];
		memcpy(&cur.val[k], (const char *)val + k * 16, 8);
	}
	fold = p->used && p->tid == tid && !strcmp(p->func, func) &&
	       !strcmp(p->caller, cur.caller) && cur.off > p->off && p->nargs == nargs;
	for (uint32_t k = 0; fold && k < nargs; k++) {
		if (p->err[k] || cur.err[k])
			continue;	/* not located at one of the two */
		if (p->val[k] != cur.val[k])
			fold = false;
		same++;
	}
	if (fold && !same)
		fold = false;	/* no argument to tell: keep both */
	*p = cur;		/* a chain of nested levels folds into the first */
	return fold;
}
