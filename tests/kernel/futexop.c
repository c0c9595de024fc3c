// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * futexop N M: N futex(FUTEX_WAKE_OP) calls with a valid operation (add 1
 * to the second word) and M with an operation the kernel does not know
 * (ENOSYS), then prints "futexop pid P ok N enosys M". In Debian's 6.1
 * futex_wake_op holds double_unlock_hb (inlined) at its end (line 315,
 * the calls that did the operation) and after a failed operation (line
 * 262), where GCC copied the unlock onto each way out of the retry loop
 * around the operation; the ENOSYS way is such a copy. A trace of
 * double_unlock_hb must give one event per call, N + M. Built static.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int f1, f2;

int main(int argc, char **argv)
{
	int n, m, ok = 0, nosys = 0;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	m = atoi(argv[2]);
	for (int i = 0; i < n; i++)
		ok += syscall(SYS_futex, &f1, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1L, &f2,
			      FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)) >= 0;
	for (int i = 0; i < m; i++)
		nosys += syscall(SYS_futex, &f1, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1L, &f2,
				 7 << 28) < 0 && errno == ENOSYS;
	printf("futexop pid %d ok %d enosys %d\n", (int)getpid(), ok, nosys);
	return 0;
}
