// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs inside the VM (tests/t_kernel_smoke.sh). Attaches probe_smoke.bpf.c
 * with src/lib/attach/attach_kprobe.c at
 *   cookie 1: FUNC+0            (symbol + offset)
 *   cookie 2: FUNC+OFF          (symbol + offset, mid-function)
 *   cookie 3: ABS_LINK rebased  (absolute address: link address + KASLR slide)
 *   cookie 4: FUNC's address from /proc/kallsyms (absolute)
 * reads COUNT bytes from /dev/zero 3 times, prints what each probe saw, then
 * detaches and reads again (hits must not move). Then negative attaches and
 * the base-BTF check against each BTF file given.
 *
 * usage: probe_smoke FUNC OFF ABS_LINK LINK_TEXT COUNT [MATCHING_BTF [OTHER_BTF...]]
 *
 * probe_smoke --many FILE LINK_TEXT: attach at every link-time address in
 * FILE (first word of each line, rebased), print the attach and detach
 * wall time and the number of failures (tests/kernel/bench-attach.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "attach/kallsyms.h"
#include "attach/attach_kprobe.h"
#include "probe_smoke.skel.h"

#define NREADS 3

struct hit {
	__u64 cnt, func_ip, ip, arg3;
};

static void do_reads(size_t count)
{
	static char buf[1 << 16];
	int fd = open("/dev/zero", O_RDONLY);

	for (int i = 0; i < NREADS; i++)
		if (read(fd, buf, count) != (ssize_t)count)
			perror("read");
	close(fd);
}

static void dump_hits(struct probe_smoke_bpf *skel, const char *tag)
{
	int fd = bpf_map__fd(skel->maps.hits);

	for (__u32 k = 1; k <= 4; k++) {
		struct hit h;

		if (bpf_map_lookup_elem(fd, &k, &h))
			memset(&h, 0, sizeof(h));
		printf("%s cookie=%u hits=%llu func_ip=0x%llx ip=0x%llx arg3=%llu\n", tag, k,
		       (unsigned long long)h.cnt, (unsigned long long)h.func_ip,
		       (unsigned long long)h.ip, (unsigned long long)h.arg3);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int many(const char *file, uint64_t link_text)
{
	struct probe_smoke_bpf *skel;
	struct btfi_ksyms *ks;
	struct bpf_link **links = NULL;
	size_t n = 0, cap = 0, ok = 0, i;
	uint64_t *addrs = NULL;
	char line[256];
	double t0, t1, t2, t3;
	int *pfds;
	FILE *f;
	int pmu;

	BTFI_OPTS(btfi_ksyms_opts, kopts);
	t0 = now();
	if (btfi_ksyms_load(&kopts, &ks))
		return 1;
	printf("kallsyms load %.3fs\n", now() - t0);
	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			addrs = realloc(addrs, cap * sizeof(*addrs));
			if (!addrs)
				return 1;
		}
		addrs[n++] = strtoull(line, NULL, 0) + btfi_ksyms_kaslr_delta(ks, link_text);
	}
	fclose(f);
	links = calloc(n + 1, sizeof(*links));
	skel = probe_smoke_bpf__open_and_load();
	if (!skel || !links)
		return 1;
	{	/* two fds per site: what a tracer of many sites must allow */
		struct rlimit rl;

		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	pfds = calloc(n + 1, sizeof(*pfds));
	pmu = btfi_kprobe_pmu_type(NULL);
	/* Phases timed apart: kprobe creation (perf_event_open) and BPF
	 * attach (link create), then detach. */
	t0 = now();
	for (i = 0; i < n; i++) {
		BTFI_OPTS(btfi_kprobe_opts, o, .pmu_type = pmu);

		pfds[i] = btfi_kprobe_open(NULL, addrs[i], &o);
	}
	t1 = now();
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = i + 1);

		if (pfds[i] < 0)
			continue;
		links[i] = bpf_program__attach_perf_event_opts(skel->progs.smoke, pfds[i], &po);
		if (links[i])
			ok++;
		else
			close(pfds[i]);
	}
	t2 = now();
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	t3 = now();
	printf("many sites=%zu attached=%zu failed=%zu attach=%.3fs (perf_event_open %.3fs, "
	       "bpf link %.3fs) detach=%.3fs\n", n, ok, n - ok, t2 - t0, t1 - t0, t2 - t1, t3 - t2);
	free(pfds);
	probe_smoke_bpf__destroy(skel);
	btfi_ksyms_free(ks);
	free(addrs);
	free(links);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[4] = {};
	struct probe_smoke_bpf *skel;
	struct btfi_ksyms *ks;
	const struct btfi_ksym *fsym, *at;
	uint64_t off, abs_link, link_text, abs_rt;
	size_t count;
	int64_t delta;
	int err, pmu, i;

	if (argc == 4 && !strcmp(argv[1], "--many"))
		return many(argv[2], strtoull(argv[3], NULL, 0));
	if (argc < 6) {
		fprintf(stderr, "usage: %s FUNC OFF ABS_LINK LINK_TEXT COUNT [BTF...]\n", argv[0]);
		return 2;
	}
	off = strtoull(argv[2], NULL, 0);
	abs_link = strtoull(argv[3], NULL, 0);
	link_text = strtoull(argv[4], NULL, 0);
	count = strtoull(argv[5], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);

	BTFI_OPTS(btfi_ksyms_opts, kopts);
	if (btfi_ksyms_load(&kopts, &ks))
		return 1;
	delta = btfi_ksyms_kaslr_delta(ks, link_text);
	abs_rt = abs_link + delta;
	printf("text=0x%llx delta=0x%llx\n", (unsigned long long)btfi_ksyms_text(ks),
	       (unsigned long long)delta);
	if (btfi_ksyms_by_name(ks, argv[1], &fsym) != 1) {
		fprintf(stderr, "probe_smoke: %s: not a unique kernel symbol\n", argv[1]);
		return 1;
	}
	at = btfi_ksyms_by_addr(ks, abs_rt);
	printf("func=%s addr=0x%llx abs=0x%llx abs_in=%s+0x%llx\n", argv[1],
	       (unsigned long long)fsym->addr, (unsigned long long)abs_rt,
	       at ? at->name : "?", at ? (unsigned long long)(abs_rt - at->addr) : 0ULL);

	skel = probe_smoke_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->target_tgid = getpid();
	if ((err = probe_smoke_bpf__load(skel))) {
		fprintf(stderr, "probe_smoke: load: %s\n", strerror(-err));
		return 1;
	}
	printf("loaded\n");
	pmu = btfi_kprobe_pmu_type(NULL);
	{
		BTFI_OPTS(btfi_kprobe_opts, o, .pmu_type = pmu);
		struct { const char *sym; uint64_t off; } t[4] = {
			{ argv[1], 0 }, { argv[1], off }, { NULL, abs_rt }, { NULL, fsym->addr },
		};

		for (i = 0; i < 4; i++) {
			o.bpf_cookie = i + 1;
			err = btfi_kprobe_attach(skel->progs.smoke, t[i].sym, t[i].off, &o, &links[i]);
			printf("attach cookie=%d rc=%d\n", i + 1, err);
		}
	}
	do_reads(count);
	dump_hits(skel, "attached");
	for (i = 0; i < 4; i++)
		bpf_link__destroy(links[i]);
	do_reads(count);
	dump_hits(skel, "detached");

	/* Negative cases: each must fail with one logged line. */
	{
		BTFI_OPTS(btfi_kprobe_opts, o, .bpf_cookie = 9);
		struct bpf_link *l;

		err = btfi_kprobe_attach(skel->progs.smoke, NULL, abs_rt + 1, &o, &l);
		printf("bad-addr rc=%d\n", err);
		err = btfi_kprobe_attach(skel->progs.smoke, "btfi_no_such_function", 0, &o, &l);
		printf("bad-sym rc=%d\n", err);
	}
	for (i = 6; i < argc; i++) {
		struct btf *b = btf__parse_raw(argv[i]);

		if (!b) {
			printf("btf %s: parse error %d\n", argv[i], -errno);
			continue;
		}
		err = btfi_check_base_matches(b, NULL, NULL);
		printf("base-check %s rc=%d\n", argv[i], err);
		btf__free(b);
	}
	probe_smoke_bpf__destroy(skel);
	btfi_ksyms_free(ks);
	return 0;
}
