// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Target of test_attach_uprobe's refused-site case: per loop iteration,
 * one instruction x86 uprobes refuse (a CS-prefixed nop, as compilers pad
 * before loop heads) and two they take (a plain instruction, and an
 * FS-prefixed load, which they allow). Runs argv[1] iterations. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		__asm__ volatile(".globl padnop\npadnop: nopw %%cs:0x0(%%rax,%%rax,1)\n"
				 ".globl plain\nplain: xor %%eax, %%eax\n"
				 ".globl fsload\nfsload: mov %%fs:0x28, %%rax\n" ::: "rax", "memory");
	return 0;
}
