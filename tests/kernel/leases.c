// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * leases FILE N: N times opens FILE read-only and, with fcntl(F_SETLEASE),
 * takes a read lease, takes it again, upgrades it to a write lease and
 * gives it up; prints "leases pid P n N changes C" (C: the calls that
 * changed an existing lease, each one lease_modify(): F_RDLCK again,
 * F_WRLCK, F_UNLCK). GCC copied lease_modify()'s inlined
 * locks_wake_up_blocks() onto the three ways of lease_clear_pending()'s
 * switch on the new type; the F_UNLCK way's copy had no probe on its path
 * (scan.c entry_copies()). Built static.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const int types[] = { F_RDLCK, F_RDLCK, F_WRLCK, F_UNLCK };
	int n, changes = 0, fd;

	if (argc != 3)
		return 2;
	fd = open(argv[1], O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || close(fd))
		return 2;
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0)
			return 1;
		for (int k = 0; k < 4; k++) {
			if (fcntl(fd, F_SETLEASE, types[k])) {
				perror("F_SETLEASE");
				return 1;
			}
			changes += k > 0;
		}
		close(fd);
	}
	printf("leases pid %d n %d changes %d\n", (int)getpid(), n, changes);
	return 0;
}
