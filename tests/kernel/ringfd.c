// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfd K: sets up K io_uring rings and registers their fds with the
 * task in one io_uring_register(IORING_REGISTER_RING_FDS) call, each at
 * offset -1 (the kernel takes the first free slot), then prints "ringfd
 * pid P fds F1,F2,... slots S1,S2,...". In Debian's 6.1,
 * io_ring_add_registered_fd(tctx, fd, start, end) is inlined into
 * io_ringfd_register and its body is the slot search loop, entered by a
 * branch of the caller's: the k-th registration walks k slots. A trace
 * must give K events (one per call, fd = Fk, end = 16), not one per slot
 * walked (K(K+1)/2). Built static; raw system calls (no liburing).
 */
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct io_uring_rsrc_update up[16];
	struct io_uring_params par;
	int k = argc == 2 ? atoi(argv[1]) : 0, n, fd0 = -1;

	if (k < 1 || k > 16)
		return 2;
	memset(up, 0, sizeof(up));
	for (int i = 0; i < k; i++) {
		memset(&par, 0, sizeof(par));
		if ((n = syscall(__NR_io_uring_setup, 1, &par)) < 0) {
			perror("io_uring_setup");
			return 1;
		}
		if (fd0 < 0)
			fd0 = n;
		up[i].offset = -1U;
		up[i].data = n;
	}
	n = syscall(__NR_io_uring_register, fd0, IORING_REGISTER_RING_FDS, up, k);
	if (n != k) {
		fprintf(stderr, "io_uring_register: %d of %d\n", n, k);
		return 1;
	}
	printf("ringfd pid %d fds ", (int)getpid());
	for (int i = 0; i < k; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)up[i].data);
	printf(" slots ");
	for (int i = 0; i < k; i++)
		printf("%s%u", i ? "," : "", up[i].offset);
	printf("\n");
	return 0;
}
