// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ia32 RQTP RMTP: the 32-bit nanosleep_time32 system call (int $0x80, i386
 * number 162) from this 64-bit process, with RQTP/RMTP (hex, 32-bit) in
 * ebx/ecx and garbage in the upper halves of rbx/rcx. The kernel's ia32
 * wrapper truncates both to u32; in Debian's 6.1 GCC then describes the
 * inlined __do_sys_nanosleep_time32's rmtp as the low half of a wider
 * register (breg; const4u 0xffffffff; and): a tracer that reads the whole
 * register prints the garbage. The call fails with EFAULT (the pointers
 * are not mapped); the inline site runs before the copy. Built static.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long rq, rm, junk = 0xdeadbeefUL << 32;
	long ret;

	if (argc != 3)
		return 2;
	rq = strtoul(argv[1], NULL, 16) & 0xffffffffUL;
	rm = strtoul(argv[2], NULL, 16) & 0xffffffffUL;
	rq |= junk;
	rm |= junk;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(162L), "b"(rq), "c"(rm)
			 : "memory", "r8", "r9", "r10", "r11");
	printf("ia32 nanosleep_time32: %ld\n", ret);
	return 0;
}
