// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public attach API with real uprobes: btfinline_attach_uprobe() on the
 * encoded gcc shapes fixture, with the CLI's BPF program (trace.bpf.c),
 * both with per-site uprobes and (kernel permitting) one uprobe_multi link.
 * Checks the probe count, the filter, all-or-none vs best-effort, the
 * argument values of scale(v, k) from the ring buffer (the fixture calls
 * scale(n + i, 3)) and that destroying the link drops every spec.
 * Needs root, $FIXTURES and $BTFINLINE (tests/run.sh sets them); else skips.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "btfinline.h"
#include "attach/attach.h"
#include "../../src/bpf/trace.h"
#include "trace.skel.h"
#include "check.h"

static char logged[1024];

static void log_fn(void *ctx, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

struct got { int n; long v[8], k[8]; int err[8]; };

static int on_event(void *ctx, void *data, size_t size)
{
	struct got *g = ctx;
	const struct btfi_trace_event *ev = data;

	if (g->n < 8) {
		g->v[g->n] = ev->val[0][0];
		g->k[g->n] = ev->val[1][0];
		g->err[g->n] = ev->err[0] || ev->err[1] || ev->nargs != 2;
	}
	g->n++;
	return 0;
}

static bool no_entry(void *ctx, const struct btfinline_site *s)
{
	(*(int *)ctx)++;
	return s != NULL;
}

static int run(const char *bin, const char *arg)
{
	int st, pid = fork();

	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int nspecs(int map_fd)
{
	__u64 key, next;
	int n = 0, err;

	for (err = bpf_map_get_next_key(map_fd, NULL, &key); !err;
	     err = bpf_map_get_next_key(map_fd, &key, &next), key = next)
		n++;
	return n;
}

static void round_trip(const char *enc, bool multi)
{
	BTFI_OPTS(btfinline_attach_opts, ao, .log = { .fn = log_fn });
	struct trace_bpf *skel = trace_bpf__open();
	struct btfinline_link *link;
	struct ring_buffer *rb;
	struct got g = { 0 };
	int calls = 0, specs_fd;
	const char *mode = multi ? "multi" : "per-site";

	if (!skel) {
		CHECK(0, "open skeleton: %s", strerror(errno));
		return;
	}
	bpf_program__set_autoload(skel->progs.btfi_empty, false);
	if (multi)
		bpf_program__set_expected_attach_type(skel->progs.btfi_trace, BTFI_TRACE_UPROBE_MULTI);
	if (trace_bpf__load(skel)) {
		CHECK(0, "%s: load: %s", mode, strerror(errno));
		trace_bpf__destroy(skel);
		return;
	}
	specs_fd = bpf_map__fd(skel->maps.btfi_specs);

	/* scale: one inline site in main + the out-of-line copy */
	link = btfinline_attach_uprobe(skel->progs.btfi_trace, -1, enc, "scale", &ao);
	CHECK(link && btfinline_link__cnt(link) == 2, "%s: scale: %zu probes, want 2 (%s)", mode,
	      btfinline_link__cnt(link), logged);
	CHECK(nspecs(specs_fd) == 2, "%s: %d specs, want 2", mode, nspecs(specs_fd));
	btfinline_link__destroy(link);
	CHECK(nspecs(specs_fd) == 0, "%s: %d specs after destroy", mode, nspecs(specs_fd));

	/* all-or-none: gcc's outer has no location for a and c */
	logged[0] = 0;
	link = btfinline_attach_uprobe(skel->progs.btfi_trace, -1, enc, "outer", &ao);
	CHECK(!link && errno == ENOENT && strstr(logged, "outer main+0x") && strstr(logged, "refusing"),
	      "%s: outer all-or-none: link %p errno %d (%s)", mode, (void *)link, errno, logged);
	ao.policy = BTFI_BEST_EFFORT;
	link = btfinline_attach_uprobe(skel->progs.btfi_trace, -1, enc, "outer", &ao);
	CHECK(link && btfinline_link__cnt(link) == 1, "%s: outer best-effort", mode);
	btfinline_link__destroy(link);
	ao.policy = BTFI_ALL_OR_NONE;

	/* filter: inline sites only; values from a real run */
	ao.filter = no_entry;
	ao.filter_ctx = &calls;
	link = btfinline_attach_uprobe(skel->progs.btfi_trace, -1, enc, "scale", &ao);
	CHECK(link && btfinline_link__cnt(link) == 1 && calls == 2,
	      "%s: filtered: %zu probes, filter called %d times", mode, btfinline_link__cnt(link), calls);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &g, NULL);
	CHECK(rb && run(enc, "5") == 0, "%s: run", mode);
	if (rb)
		ring_buffer__consume(rb);
	CHECK(g.n == 5, "%s: %d events, want 5", mode, g.n);
	for (int i = 0; i < 5 && i < g.n; i++)
		CHECK(!g.err[i] && g.v[i] == 5 + i && g.k[i] == 3,
		      "%s: call %d: v=%ld k=%ld err=%d, want v=%d k=3", mode, i, g.v[i], g.k[i], g.err[i], 5 + i);
	btfinline_link__destroy(link);
	ring_buffer__free(rb);
	CHECK(nspecs(specs_fd) == 0, "%s: %d specs after destroy", mode, nspecs(specs_fd));
	trace_bpf__destroy(skel);
}

static int count_events(void *ctx, void *data, size_t size)
{
	(*(int *)ctx)++;
	return 0;
}

/* Symbol value of `name` in bin, via nm (an independent reader). */
static unsigned long long nm_addr(const char *bin, const char *name)
{
	char cmd[4096], line[256];
	unsigned long long a = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm '%s'", bin);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char t, nm[200];
		unsigned long long v;

		if (sscanf(line, "%llx %c %199s", &v, &t, nm) == 3 && !strcmp(nm, name))
			a = v;
	}
	if (f)
		pclose(f);
	return a;
}

/* One site uprobes refuse (issue 13, section 3): all-or-none names it and
 * attaches nothing; best-effort drops it and the others fire once per
 * iteration. */
static void refused_site(const char *bin, bool multi)
{
	BTFI_OPTS(btfi_attach_core_opts, co, .log = { .fn = log_fn });
	struct trace_bpf *skel = trace_bpf__open();
	struct btfi_attach_site s[3] = {
		{ .func = "padnop", .label = "padnop" },
		{ .func = "padnop", .label = "plain" },
		{ .func = "padnop", .label = "fsload" },
	};
	const char *mode = multi ? "multi" : "per-site";
	struct btfinline_link *link = NULL;
	struct ring_buffer *rb = NULL;
	int err, n = 0;

	if (!skel)
		return;
	bpf_program__set_autoload(skel->progs.btfi_empty, false);
	if (multi)
		bpf_program__set_expected_attach_type(skel->progs.btfi_trace, BTFI_TRACE_UPROBE_MULTI);
	if (trace_bpf__load(skel)) {
		CHECK(0, "%s: load: %s", mode, strerror(errno));
		trace_bpf__destroy(skel);
		return;
	}
	for (int i = 0; i < 3; i++)
		s[i].vaddr = nm_addr(bin, s[i].label);
	CHECK(s[0].vaddr && s[1].vaddr && s[2].vaddr, "%s: nm found the labels", mode);
	logged[0] = 0;
	err = btfi_attach_sites(skel->progs.btfi_trace, -1, bin, s, 3, &co, &link);
	CHECK(err == -ENOTSUP && !link && strstr(logged, "site padnop") &&
	      strstr(logged, "segment-override prefix"),
	      "%s: all-or-none: err %d (%s)", mode, err, logged);
	co.policy = BTFI_BEST_EFFORT;
	err = btfi_attach_sites(skel->progs.btfi_trace, -1, bin, s, 3, &co, &link);
	CHECK(!err && btfinline_link__cnt(link) == 2, "%s: best-effort: err %d, %zu probes (%s)", mode,
	      err, btfinline_link__cnt(link), logged);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), count_events, &n, NULL);
	CHECK(rb && run(bin, "4") == 0, "%s: run", mode);
	if (rb)
		ring_buffer__consume(rb);
	CHECK(n == 8, "%s: %d events from 2 sites x 4 iterations, want 8", mode, n);
	ring_buffer__free(rb);
	btfinline_link__destroy(link);
	trace_bpf__destroy(skel);
}

int main(void)
{
	const char *fx = getenv("FIXTURES"), *cli = getenv("BTFINLINE");
	char enc[] = "/tmp/btfi-attach-XXXXXX", cmd[4096];
	int fd;

	if (geteuid() || !fx || !cli) {
		printf("skip: needs root, FIXTURES and BTFINLINE\n");
		return 77;
	}
	fd = mkstemp(enc);
	if (fd < 0)
		return 1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s/shapes-gcc-dw5' -o '%s' >/dev/null", cli, fx, enc);
	if (system(cmd) || chmod(enc, 0755)) {
		fprintf(stderr, "FAIL: %s\n", cmd);
		unlink(enc);
		return 1;
	}
	round_trip(enc, false);
	if (btfi_uprobe_multi_supported())
		round_trip(enc, true);
	else
		printf("no uprobe_multi in this kernel: per-site only\n");
	unlink(enc);
	{
		char bin[] = "/tmp/btfi-padnop-XXXXXX";

		fd = mkstemp(bin);
		if (fd >= 0)
			close(fd);
		snprintf(cmd, sizeof(cmd), "cc -O1 -o '%s' tests/unit/data/padnop.c", bin);
		CHECK(fd >= 0 && !system(cmd), "build %s", cmd);
		refused_site(bin, false);
		if (btfi_uprobe_multi_supported())
			refused_site(bin, true);
		unlink(bin);
	}
	return check_done();
}
