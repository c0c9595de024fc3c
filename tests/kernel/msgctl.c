// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * msgctl ID CMD: the msgctl system call with that queue id and command and
 * no buffer. Debian's 6.1 has no ksys_msgctl symbol: GCC folded its
 * `version` argument (IPC_64 from every caller but the compat one) into
 * ksys_msgctl.constprop.0, whose entry trace -k ksys_msgctl probes with the
 * clone's own locations (msqid, cmd, buf in rdi, rsi, rdx; version the
 * constant). An unknown id fails with EINVAL after the call. Built static.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long ret;

	if (argc != 3)
		return 2;
	ret = syscall(SYS_msgctl, atoi(argv[1]), atoi(argv[2]), NULL);
	printf("msgctl: %ld\n", ret);
	return 0;
}
