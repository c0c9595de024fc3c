// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * access NOEXEC N READONLY K J: N access(NOEXEC, X_OK) calls on a regular
 * file of a noexec mount (EACCES: path_noexec()), K access(READONLY, W_OK)
 * on a file of a read-only mount (EROFS) and J access(READONLY, F_OK)
 * (0), then prints "access pid P eacces N erofs K ok J". In Debian's 6.1
 * do_faccessat calls retry_estale(res, flags) (inlined) after each of
 * those lookups; GCC folded the call to a `jmp` out of the retry loop on
 * the EACCES and EROFS ways (the error is a constant there) and to
 * nothing on the res == 0 way. A trace of retry_estale must give N + K
 * events, none for the J. Built static.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n, k, j, eacces = 0, erofs = 0, ok = 0;

	if (argc != 6)
		return 2;
	n = atoi(argv[2]);
	k = atoi(argv[4]);
	j = atoi(argv[5]);
	for (int i = 0; i < n; i++)
		eacces += access(argv[1], X_OK) < 0 && errno == EACCES;
	for (int i = 0; i < k; i++)
		erofs += access(argv[3], W_OK) < 0 && errno == EROFS;
	for (int i = 0; i < j; i++)
		ok += access(argv[3], F_OK) == 0;
	printf("access pid %d eacces %d erofs %d ok %d\n", (int)getpid(), eacces, erofs, ok);
	return 0;
}
