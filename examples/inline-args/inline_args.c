// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A user of libbtfinline outside its tree (built with `pkg-config --cflags
 * --libs btfinline` only): list the inline sites of FUNC in BIN and where
 * each argument is there, then run CMD with this program's own BPF program
 * attached at every site and print the arguments of each call.
 *
 *   inline_args BIN FUNC -- CMD [ARGS]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <btfinline.h>
#include "inline_args.h"
#include "inline_args.skel.h"

struct ctx {
	const char *func;
	const char *names[MAX_ARGS];
	uint32_t sizes[MAX_ARGS];	/* bytes, for btfi_loc_snprintf's casts */
	int nnames;
};

/* Parameter names and sizes of FUNC from its prototype in the BTF view. */
static void param_names(struct btfinline *bi, uint32_t func_id, struct ctx *c)
{
	const struct btf *btf = btfinline__btf(bi);
	const struct btf_type *t = btf ? btf__type_by_id(btf, func_id) : NULL;
	const struct btf_param *p;

	if (!t || !btf_is_func(t) || !(t = btf__type_by_id(btf, t->type)) || !btf_is_func_proto(t))
		return;
	p = btf_params(t);
	for (c->nnames = 0; c->nnames < btf_vlen(t) && c->nnames < MAX_ARGS; c->nnames++) {
		int sz = btf__resolve_size(btf, p[c->nnames].type);

		c->names[c->nnames] = btf__name_by_offset(btf, p[c->nnames].name_off);
		c->sizes[c->nnames] = sz > 0 ? sz : 0;
	}
}

static int list_sites(struct btfinline *bi, struct ctx *c)
{
	const struct btfinline_site *s;
	struct btfi_loc locs[MAX_ARGS];
	size_t n = btfinline__func_sites(bi, c->func, &s);

	printf("%s: %zu inline site%s\n", c->func, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		uint64_t base = 0;
		int nargs = btfinline__site_locs(bi, &s[i], locs, MAX_ARGS);
		int cond = btfinline__sec_cond(bi, s[i].secno);

		if (nargs < 0)
			return nargs;
		if (i == 0)
			param_names(bi, s[i].func_id, c);
		btfinline__sec_addr(bi, s[i].secno, &base);
		printf("  %s+0x%x 0x%llx", btfinline__sec_name(bi, s[i].secno), s[i].offset,
		       (unsigned long long)(base + s[i].offset));
		/* a branch into the body: a call only when the condition holds */
		if (cond > 0)
			printf(" if %s", btfi_cc_str(cond - 1));
		putchar(':');
		for (int a = 0; a < nargs && a < MAX_ARGS; a++) {
			char loc[64];

			btfi_loc_snprintf(loc, sizeof(loc), &locs[a], a < c->nnames ? c->sizes[a] : 0);
			printf(" %s=%s", a < c->nnames ? c->names[a] : "?", loc);
		}
		putchar('\n');
	}
	return 0;
}

static int on_hit(void *vctx, void *data, size_t size)
{
	const struct ctx *c = vctx;
	const struct hit *h = data;

	printf("%s %s pid %u:", c->func, h->entry ? "entry" : "inline", h->pid);
	for (int a = 0; a < h->nargs && a < MAX_ARGS; a++) {
		printf(" %s=", a < c->nnames ? c->names[a] : "?");
		if (h->err[a])
			printf("?(%d)", h->err[a]);
		else
			printf("%lld", (long long)h->val[a]);
	}
	putchar('\n');
	return 0;
}

static bool only_entry(void *ctx, const struct btfinline_site *site)
{
	return site == NULL;
}

static char logged[512];

static void keep_log(void *ctx, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

int main(int argc, char **argv)
{
	struct btfinline_link *inl = NULL, *ent = NULL;
	struct inline_args_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct btfinline *bi = NULL;
	struct ctx c = { 0 };
	int go[2], child, status, err, ret = 1;
	char bin[PATH_MAX];

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: %s BIN FUNC -- CMD [ARGS]\n", argv[0]);
		return 2;
	}
	c.func = argv[2];
	/* libbpf looks a relative uprobe path up in $PATH: make it absolute. */
	if (!realpath(argv[1], bin)) {
		fprintf(stderr, "inline_args: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = btfinline__open(bin, NULL, &bi);	/* logs "FILE: problem" */
	if (err)
		return 1;
	if (list_sites(bi, &c))
		goto out;

	skel = inline_args_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "inline_args: loading the BPF program: %s\n", strerror(errno));
		goto out;
	}
	/* The child waits until the probes are in, then runs CMD. */
	if (pipe(go) || (child = fork()) < 0) {
		perror("inline_args");
		goto out;
	}
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[4], &argv[4]);
		_exit(127);
	}
	close(go[0]);

	BTFI_OPTS(btfinline_attach_opts, ao, .bi = bi, .no_entry = true);
	inl = btfinline_attach_uprobe(skel->progs.on_inline, child, bin, c.func, &ao);
	BTFI_OPTS(btfinline_attach_opts, eo, .bi = bi, .filter = only_entry,
		  .log = { .fn = keep_log });
	ent = btfinline_attach_uprobe(skel->progs.on_entry, child, bin, c.func, &eo);
	if (!ent && errno != ENOENT)	/* ENOENT: no out-of-line copy */
		fprintf(stderr, "inline_args: %s\n", logged);
	printf("attached: %zu inline, %zu entry\n", inl ? btfinline_link__cnt(inl) : 0,
	       ent ? btfinline_link__cnt(ent) : 0);
	fflush(stdout);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.hits), on_hit, &c, NULL);
	if ((!inl && !ent) || !rb) {
		close(go[1]);		/* the child reads EOF and exits */
		waitpid(child, &status, 0);
		goto out;
	}
	if (write(go[1], "g", 1) != 1)
		perror("inline_args");
	close(go[1]);
	while (waitpid(child, &status, WNOHANG) == 0)
		ring_buffer__poll(rb, 100);
	ring_buffer__consume(rb);
	ret = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
out:
	ring_buffer__free(rb);
	btfinline_link__destroy(ent);
	btfinline_link__destroy(inl);
	inline_args_bpf__destroy(skel);
	btfinline__free(bi);
	return ret;
}
