// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * keysites FILE N M L: N mprotect() calls, M ftruncate(FILE) calls and L
 * mlock() calls, then prints "keysites pid P mprotect N ftruncate M mlock
 * L". In Debian's 6.1 do_mprotect_pkey's and do_mlock's inlined
 * mmap_write_lock_killable begin with the mmap_lock tracepoint's static
 * key, and do_sys_ftruncate's sb_start_write with percpu_down_read's
 * might_sleep() static call: instructions kprobes refuse (-EINVAL). Their
 * probes are moved off them (scan_cfg.c settle(): past the key's
 * tracepoint call in do_mprotect_pkey, back to the instruction before it
 * in do_mlock, with mm where it is at the key): a trace of both must give
 * one event per call there, the same mm in both functions. Built static.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n, m, l, fd, changed = 0, truncated = 0, locked = 0;
	char *page;

	if (argc != 5)
		return 2;
	n = atoi(argv[2]);
	m = atoi(argv[3]);
	l = atoi(argv[4]);
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || page == MAP_FAILED)
		return 1;
	for (int i = 0; i < n; i++)
		changed += mprotect(page, 4096, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ) == 0;
	for (int i = 0; i < m; i++)
		truncated += ftruncate(fd, 4096 * (i + 1)) == 0;
	for (int i = 0; i < l; i++)
		locked += mlock(page, 4096) == 0;
	close(fd);
	printf("keysites pid %d mprotect %d ftruncate %d mlock %d\n", (int)getpid(), changed,
	       truncated, locked);
	return 0;
}
