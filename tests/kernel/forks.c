// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * forks N: fork()s N children that all live until the last is forked
 * (each waits on a pipe), then lets them exit and reaps them; prints
 * "forks pid P n N". Each fork() is one copy_process(), one inlined
 * dup_task_struct(). With N beyond the per-CPU cache of thread stacks
 * (two), alloc_thread_stack_node() goes on to __vmalloc_node_range(),
 * whose VMALLOC_START depends on pgtable_l5_enabled(): a static_cpu_has()
 * jump through .altinstr_aux. A probe on each of that jump's two ways
 * besides the one at dup_task_struct's start counted such a fork twice
 * (scan_cfg.c aux_branch()). Built static.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int p[2], n, made = 0;
	char c;

	if (argc != 2 || pipe(p))
		return 2;
	n = atoi(argv[1]);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (!pid) {
			close(p[1]);
			_exit(read(p[0], &c, 1) < 0);
		}
		made++;
	}
	close(p[1]);		/* EOF: every child's read returns */
	while (wait(NULL) > 0)
		;
	printf("forks pid %d n %d\n", (int)getpid(), made);
	return made == n ? 0 : 1;
}
