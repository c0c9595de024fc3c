// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * selectfds K: K select(2) calls with a zero timeout and empty sets, call
 * i passing the read, write and except sets where bits 0, 1, 2 of i are
 * set (NULL where not), then prints
 *   selectfds pid P in ADDR N out ADDR N ex ADDR N
 * each set's user address and how many calls passed it. In Debian's 6.1
 * core_sys_select's get_fd_set() copies a set only when the pointer is
 * not NULL, and GCC enters copy_from_user's body for the write and except
 * sets by the caller's `jne` on the pointer (sites on a branch): a trace
 * of copy_from_user must give N events with from = ADDR for each set, and
 * none for a NULL one, though the jne runs for every call. Built static.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	fd_set s[3];
	int k, n[3] = { 0 };

	if (argc != 2)
		return 2;
	k = atoi(argv[1]);
	for (int i = 0; i < k; i++) {
		struct timeval tv = { 0, 0 };

		memset(s, 0, sizeof(s));
		for (int j = 0; j < 3; j++)
			n[j] += !!(i & (1 << j));
		if (syscall(SYS_select, 1, (i & 1) ? &s[0] : NULL, (i & 2) ? &s[1] : NULL,
			    (i & 4) ? &s[2] : NULL, &tv) != 0) {
			perror("select");
			return 1;
		}
	}
	printf("selectfds pid %d in %p %d out %p %d ex %p %d\n", (int)getpid(), (void *)&s[0], n[0],
	       (void *)&s[1], n[1], (void *)&s[2], n[2]);
	return 0;
}
