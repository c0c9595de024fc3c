// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * preadv FILE N M: N preadv calls on FILE (a regular file: the success
 * path, vfs_readv) and M on a pipe (ESPIPE before any read), then prints
 * "preadv pid P ok N espipe M". In Debian's 6.1 __x64_sys_preadv holds one
 * inlined fdput whose body GCC copied onto both paths (0x61 and 0xb8 past
 * the symbol): a trace must give exactly one fdput event per call that got
 * a file, N + M. Built static.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/uio.h>

int main(int argc, char **argv)
{
	char buf[16];
	struct iovec iov = { buf, sizeof(buf) };
	int fd, p[2], n, m, ok = 0, sp = 0;

	if (argc != 4 || (fd = open(argv[1], O_RDONLY)) < 0 || pipe(p))
		return 2;
	n = atoi(argv[2]);
	m = atoi(argv[3]);
	for (int i = 0; i < n; i++)
		ok += preadv(fd, &iov, 1, i) >= 0;
	for (int i = 0; i < m; i++)
		sp += preadv(p[0], &iov, 1, 0) < 0;
	printf("preadv pid %d ok %d espipe %d\n", (int)getpid(), ok, sp);
	return 0;
}
