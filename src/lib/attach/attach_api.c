// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public attach calls, uprobe and kprobe, on one skeleton: opts and
 * log, the inline info (given or opened), the function's sites, the
 * policy, the attach. Only finding the info, collecting sites and
 * attaching differ (struct target).
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "attach/attach.h"
#include "attach/attach_kernel.h"
#include "log.h"
#include "opts.h"
#include "source/source.h"

struct target {
	const char *what;		/* for messages: the binary or "kernel" */
	const char *needs;		/* the arguments it cannot do without */
	int (*open)(struct target *t, const struct btfi_log *log, struct btfinline **bi);
	int (*collect)(struct target *t, struct btfinline *bi, const char *func, bool no_entry,
		       btfinline_site_filter_fn filter, void *filter_ctx,
		       const struct btfi_log *log, struct btfi_site_list *sl);
	int (*attach)(struct target *t, struct bpf_program *prog, const struct btfi_site_list *sl,
		      struct btfi_attach_core_opts *co, struct btfinline_link **link);
	void (*done)(struct target *t, const char *func, const struct btfi_log *log);
};

static struct btfinline_link *attach_func(struct bpf_program *prog, const char *func,
					  const struct btfinline_attach_opts *opts, struct target *t)
{
	BTFI_OPTS(btfi_attach_core_opts, co);
	struct btfinline *given = OPTS_GET(opts, bi, NULL), *bi = given;
	struct btfi_site_list sl = { 0 };
	struct btfinline_link *link = NULL;
	struct btfi_log log = { 0 };
	int err;

	if (OPTS_HAS(opts, log))
		log = opts->log;
	if (!OPTS_VALID(opts, btfinline_attach_opts, &log)) {
		errno = EINVAL;
		return NULL;
	}
	if (!prog || !func || !t->what) {
		btfi_err(&log, "attach: %s are required", t->needs);
		errno = EINVAL;
		return NULL;
	}
	if (!bi && (err = t->open(t, &log, &bi)))
		goto out;
	err = t->collect(t, bi, func, OPTS_GET(opts, no_entry, false), OPTS_GET(opts, filter, NULL),
			 OPTS_GET(opts, filter_ctx, NULL), &log, &sl);
	if (err)
		goto out;
	co.policy = OPTS_GET(opts, policy, BTFI_ALL_OR_NONE);
	co.log = log;
	err = t->attach(t, prog, &sl, &co, &link);
	if (!err && t->done)
		t->done(t, func, &log);
out:
	btfi_site_list_free(&sl);
	if (bi != given)
		btfinline__free(bi);
	if (err)
		errno = -err;
	return err ? NULL : link;
}

/* ---- uprobes: a binary's .BTF.inline ---- */

struct utarget {
	struct target t;
	int pid;
};

static int u_open(struct target *t, const struct btfi_log *log, struct btfinline **bi)
{
	BTFI_OPTS(btfi_source_opts, so, .log = *log, .build = true);

	return btfi_source_open(BTFI_TARGET_USER, t->what, &so, bi, NULL);
}

static int u_collect(struct target *t, struct btfinline *bi, const char *func, bool no_entry,
		     btfinline_site_filter_fn filter, void *filter_ctx,
		     const struct btfi_log *log, struct btfi_site_list *sl)
{
	return btfi_collect_sites(bi, t->what, NULL, func, no_entry, filter, filter_ctx, log, sl);
}

static int u_attach(struct target *t, struct bpf_program *prog, const struct btfi_site_list *sl,
		    struct btfi_attach_core_opts *co, struct btfinline_link **link)
{
	return btfi_attach_sites(prog, ((struct utarget *)t)->pid, t->what, sl->sites, sl->cnt,
				 co, link);
}

struct btfinline_link *btfinline_attach_uprobe(struct bpf_program *prog, int pid,
					       const char *binary, const char *func,
					       const struct btfinline_attach_opts *opts)
{
	struct utarget u = { { binary, "program, binary and function", u_open, u_collect, u_attach, NULL },
			     pid };

	return attach_func(prog, func, opts, &u.t);
}

/* ---- kprobes: the running kernel ---- */

struct ktarget {
	struct target t;
	struct btfi_ksyms *ks;
	struct btfi_kblacklist bl;
	struct btfi_kskips skips;
};

static int k_open(struct target *t, const struct btfi_log *log, struct btfinline **bi)
{
	/* as trace -k: sysfs, else the cache, else built from the DWARF */
	BTFI_OPTS(btfi_source_opts, so, .log = *log, .build = true);

	return btfi_source_open(BTFI_TARGET_KERNEL, NULL, &so, bi, NULL);
}

static int k_collect(struct target *t, struct btfinline *bi, const char *func, bool no_entry,
		     btfinline_site_filter_fn filter, void *filter_ctx,
		     const struct btfi_log *log, struct btfi_site_list *sl)
{
	struct ktarget *k = (struct ktarget *)t;
	BTFI_OPTS(btfi_ksyms_opts, kso, .log = *log);
	int err = btfi_ksyms_load(&kso, &k->ks);

	if (err)
		return err;
	btfi_kblacklist_load(NULL, &k->bl);
	return btfi_collect_ksites(bi, k->ks, NULL, &k->bl, func, no_entry, filter, filter_ctx, log, sl,
				   &k->skips);
}

static int k_attach(struct target *t, struct bpf_program *prog, const struct btfi_site_list *sl,
		    struct btfi_attach_core_opts *co, struct btfinline_link **link)
{
	struct ktarget *k = (struct ktarget *)t;

	co->kernel = true;
	return btfi_attach_ksites(prog, sl->sites, sl->cnt,
				  btfi_ksyms_kaslr_delta(k->ks, BTFI_X86_64_LINK_TEXT), &k->bl, co,
				  link, &k->skips);
}

static void k_done(struct target *t, const char *func, const struct btfi_log *log)
{
	struct ktarget *k = (struct ktarget *)t;

	if (k->skips.n)
		btfi_info(log, "kernel: %s: %zu site%s skipped: %s", func, k->skips.n,
			  k->skips.n > 1 ? "s" : "", k->skips.text);
}

struct btfinline_link *btfinline_attach_kprobe(struct bpf_program *prog, const char *func,
					       const struct btfinline_attach_opts *opts)
{
	struct ktarget k = { .t = { "kernel", "program and function", k_open, k_collect, k_attach,
				  k_done } };
	struct btfinline_link *link = attach_func(prog, func, opts, &k.t);
	int err = errno;

	btfi_kblacklist_free(&k.bl);
	btfi_ksyms_free(k.ks);
	errno = err;
	return link;
}
