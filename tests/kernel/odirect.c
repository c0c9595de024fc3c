// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * odirect r|w DEV BS COUNT: COUNT synchronous O_DIRECT reads (writes of
 * zeros) of BS bytes at consecutive offsets, from a page-aligned buffer.
 * busybox dd mallocs its buffer: when that is not 512-aligned the kernel
 * refuses O_DIRECT and dd silently falls back to buffered I/O (4 KiB page
 * cache requests), so the VM workload uses this instead. Built static.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long bs, cnt;
	void *buf;
	int fd, wr;

	if (argc != 5 || (strcmp(argv[1], "r") && strcmp(argv[1], "w"))) {
		fprintf(stderr, "usage: odirect r|w DEV BS COUNT\n");
		return 2;
	}
	wr = argv[1][0] == 'w';
	bs = atol(argv[3]);
	cnt = atol(argv[4]);
	if (bs <= 0 || bs % 512 || cnt <= 0 || posix_memalign(&buf, 4096, bs)) {
		fprintf(stderr, "odirect: bad size\n");
		return 2;
	}
	memset(buf, 0, bs);
	fd = open(argv[2], (wr ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	for (long i = 0; i < cnt; i++) {
		ssize_t n = wr ? pwrite(fd, buf, bs, i * bs) : pread(fd, buf, bs, i * bs);

		if (n != bs) {
			fprintf(stderr, "odirect: %s: %s at block %ld\n", argv[2],
				n < 0 ? "I/O error" : "short transfer", i);
			return 1;
		}
	}
	close(fd);
	return 0;
}
