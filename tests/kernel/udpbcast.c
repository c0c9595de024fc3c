// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * udpbcast N M: brings lo up, then N sendto() of a UDP datagram to
 * 127.0.0.1 and M to 127.255.255.255 (lo's broadcast address) from a
 * socket without SO_BROADCAST, which fail with EACCES; prints "udpbcast pid
 * P ok N eacces M". In Debian's 6.1 udp_sendmsg's inlined ip_rt_put(rt)
 * at `out:` is `mov ...,%rdi; call dst_release` on its ways there and a
 * lone `call dst_release` on the RTCF_BROADCAST way, where %rdi already
 * holds rt (scan_cfg.c lone_copy(), setup_then_call()): each sendto()
 * releases its route once, N + M events. Built static.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_to(int s, const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) == 1 ? 0 : errno;
}

int main(int argc, char **argv)
{
	struct ifreq ifr;
	int n, m, s, ok = 0, eacces = 0;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	m = atoi(argv[2]);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return 1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			perror("udpbcast: lo up");
	}
	for (int i = 0; i < n; i++)
		ok += send_to(s, "127.0.0.1") == 0;
	for (int i = 0; i < m; i++)
		eacces += send_to(s, "127.255.255.255") == EACCES;
	close(s);
	printf("udpbcast pid %d ok %d eacces %d\n", (int)getpid(), ok, eacces);
	return 0;
}
