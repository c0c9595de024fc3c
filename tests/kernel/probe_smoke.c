// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs inside the VM (tests/t_kernel_smoke.sh). Attaches probe_smoke.bpf.c
 * with src/lib/attach_kprobe.c at
 *   cookie 1: FUNC+0            (symbol + offset)
 *   cookie 2: FUNC+OFF          (symbol + offset, mid-function)
 *   cookie 3: ABS_LINK rebased  (absolute address: link address + KASLR slide)
 *   cookie 4: FUNC's address from /proc/kallsyms (absolute)
 * reads COUNT bytes from /dev/zero 3 times, prints what each probe saw, then
 * detaches and reads again (hits must not move). Then negative attaches and
 * the base-BTF check against each BTF file given.
 *
 * usage: probe_smoke FUNC OFF ABS_LINK LINK_TEXT COUNT [MATCHING_BTF [OTHER_BTF...]]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kallsyms.h"
#include "attach_kprobe.h"
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
