// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kattach BLOB OFF LEN: the public btfinline_attach_kprobe() on its own
 * (not the CLI): attach the trace program at every site of ksys_fallocate
 * with inline info from BLOB (base: the running kernel's BTF), call
 * fallocate(fd, 0, OFF, LEN) on a tmpfs file, print each event's values:
 *   hit nargs=4 fd=3 mode=0 offset=OFF len=LEN
 * then detach and print the probe count. Runs in the qemu VM.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "btfinline.h"
#include "../../src/bpf/trace.h"
#include "trace.skel.h"

static int on_event(void *ctx, void *data, size_t size)
{
	const struct btfi_trace_event *ev = data;

	(void)ctx;
	if (size < sizeof(*ev))
		return 0;
	printf("hit nargs=%u", ev->nargs);
	for (unsigned k = 0; k < ev->nargs && k < 4; k++)
		printf(" %s=%lld", (const char *[]){ "fd", "mode", "offset", "len" }[k],
		       ev->err[k] ? -1LL : (long long)ev->val[k][0]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	BTFI_OPTS(btfinline_open_opts, oo, .base_path = "/sys/kernel/btf/vmlinux");
	struct btfinline_link *link;
	struct ring_buffer *rb;
	struct trace_bpf *skel;
	struct btfinline *bi;
	int fd;

	if (argc != 4)
		return 2;
	if (btfinline__open(argv[1], &oo, &bi))
		return 1;
	skel = trace_bpf__open();
	if (!skel)
		return 1;
	bpf_program__set_autoload(skel->progs.btfi_empty, false);
	if (trace_bpf__load(skel))
		return 1;
	{
		BTFI_OPTS(btfinline_attach_opts, ao, .bi = bi);

		link = btfinline_attach_kprobe(skel->progs.btfi_trace, "ksys_fallocate", &ao);
	}
	if (!link) {
		perror("btfinline_attach_kprobe");
		return 1;
	}
	printf("probes=%zu\n", btfinline_link__cnt(link));
	fd = open("/tmp/kattach", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || fallocate(fd, 0, atoll(argv[2]), atoll(argv[3])))
		perror("fallocate");
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (rb)
		ring_buffer__consume(rb);
	ring_buffer__free(rb);
	btfinline_link__destroy(link);
	trace_bpf__destroy(skel);
	btfinline__free(bi);
	close(fd);
	printf("done\n");
	return 0;
}
