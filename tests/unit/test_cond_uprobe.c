// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A site on a branch, end to end with a real uprobe: three specs by hand
 * at one jne of this binary (btfi_test_branch below, "if (x == 5) body"):
 * condition e (the branch falls into the body), ne, and none. The CLI's
 * BPF program (trace.bpf.c) must emit an event only when the condition
 * holds on the flags at the probe: 1 of 10 calls, 9, and all 10; the
 * argument read at the jcc is the call's. Needs root; else skips.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "btfinline.h"
#include "attach/attach.h"
#include "../../src/bpf/trace.h"
#include "trace.skel.h"
#include "check.h"

/* cmp sets ZF when x == 5; the jne at btfi_test_jcc then falls through
 * into the "body" (a call of it), else jumps past it. */
int btfi_test_branch(int x);
extern const char btfi_test_jcc[];
__asm__(".text\n"
	".globl btfi_test_branch\n"
	".type btfi_test_branch, @function\n"
	"btfi_test_branch:\n"
	"	cmpl $5, %edi\n"
	".globl btfi_test_jcc\n"
	"btfi_test_jcc:\n"
	"	jne 1f\n"
	"	movl %edi, %eax\n"
	"	ret\n"
	"1:	xorl %eax, %eax\n"
	"	ret\n"
	".size btfi_test_branch, .-btfi_test_branch\n");

enum { CC_E = 4, CC_NE = 5 };

struct got { int n[3]; long v[3][16]; int bad; };

static int on_event(void *ctx, void *data, size_t size)
{
	struct got *g = ctx;
	const struct btfi_trace_event *ev = data;

	if (ev->tag > 2 || ev->nargs != 1 || ev->err[0]) {
		g->bad++;
		return 0;
	}
	if (g->n[ev->tag] < 16)
		g->v[ev->tag][g->n[ev->tag]] = (long)ev->val[0][0];
	g->n[ev->tag]++;
	return 0;
}

static char logged[1024];
static void log_fn(void *ctx, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

int main(void)
{
	BTFI_OPTS(btfi_attach_core_opts, co, .policy = BTFI_ALL_OR_NONE, .log = { .fn = log_fn });
	int (*volatile fn)(int) = btfi_test_branch;
	struct btfi_loc x = { .kind = BTFI_LOC_KREG, .size = 4, .is_signed = 1, .reg = 5 };	/* %edi */
	const char *names[1] = { "x" };
	struct btfi_attach_site sites[3];
	struct btfi_elf_info ei = { 0 };
	struct btfinline_link *link = NULL;
	struct trace_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct got g = { 0 };
	char exe[4096];
	uint64_t vaddr = 0;
	ssize_t len;

	if (geteuid()) {
		printf("skip: needs root\n");
		return 77;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!CHECK(len > 0, "readlink: %s", strerror(errno)))
		return check_done();
	exe[len] = 0;
	if (!CHECK(!btfi_elf_info_load(exe, &ei, NULL), "load %s", exe))
		return check_done();
	for (size_t i = 0; i < ei.syms.n; i++)
		if (!strcmp(ei.syms.v[i].name, "btfi_test_branch"))
			vaddr = ei.syms.v[i].addr + (btfi_test_jcc - (const char *)btfi_test_branch);
	btfi_elf_info_free(&ei);
	if (!CHECK(vaddr, "no symbol btfi_test_branch in %s", exe))
		return check_done();

	for (int i = 0; i < 3; i++) {
		sites[i] = (struct btfi_attach_site){
			.func = "branch", .vaddr = vaddr, .tag = i, .nargs = 1, .locs = &x,
			.arg_names = names,
		};
		snprintf(sites[i].label, sizeof(sites[i].label), "btfi_test_branch+0x3");
	}
	sites[0].cond = 1 + CC_E;
	sites[1].cond = 1 + CC_NE;

	skel = trace_bpf__open();
	if (!CHECK(skel, "open skeleton: %s", strerror(errno)))
		return check_done();
	bpf_program__set_autoload(skel->progs.btfi_empty, false);
	if (!CHECK(!trace_bpf__load(skel), "load: %s", strerror(errno)))
		goto out;
	if (!CHECK(!btfi_attach_sites(skel->progs.btfi_trace, getpid(), exe, sites, 3, &co, &link),
		   "attach: %s", logged))
		goto out;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &g, NULL);
	if (!CHECK(rb, "ring buffer"))
		goto out;
	for (int i = 0; i < 10; i++)
		CHECK(fn(i) == (i == 5 ? 5 : 0), "branch(%d)", i);
	ring_buffer__consume(rb);

	CHECK(!g.bad, "%d events without the argument or of another tag", g.bad);
	CHECK(g.n[0] == 1 && g.v[0][0] == 5, "if e: %d events (first x=%ld), want 1 with x=5", g.n[0],
	      g.v[0][0]);
	CHECK(g.n[1] == 9, "if ne: %d events, want 9", g.n[1]);
	for (int i = 0, want = 0; i < g.n[1] && i < 9; i++, want++) {
		want += want == 5;
		CHECK(g.v[1][i] == want, "if ne: event %d x=%ld, want %d", i, g.v[1][i], want);
	}
	CHECK(g.n[2] == 10, "no condition: %d events, want 10", g.n[2]);
out:
	ring_buffer__free(rb);
	btfinline_link__destroy(link);
	trace_bpf__destroy(skel);
	return check_done();
}
