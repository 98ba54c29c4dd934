/* SPDX-License-Identifier: GPL-2.0-only */ /* funcs_prog N: targets for bpftrace's builtin functions (tests/runtime/
 * funcs.test).  N times it calls
 *   stack8(1, 2, ..., 8)       the 7th and 8th arguments go on the stack
 *                              (sarg0 = 7, sarg1 = 8 at the entry)
 *   addrs(a, mac, ip)          a->v4 10.1.2.3 as 4 bytes, a->v6 2001:db8::1
 *                              as 16, a->mac and mac the MAC 00:1a:2b:3c:4d:5e,
 *                              ip 10.1.2.3 as inet_addr() gives it
 *   bytes(p, 6)                p = "ab\0\x01\xffz"
 * and prints what a trace must see.  The global `magic` (an unsigned int,
 * 0xfeedbeef) is a target for uaddr(). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

unsigned int magic = 0xfeedbeef;

__attribute__((noipa)) long stack8(long a, long b, long c, long d, long e, long f,
				   long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

struct net {
	unsigned char v4[4];
	unsigned char v6[16];
	unsigned char mac[6];
};

__attribute__((noipa)) int addrs(const struct net *a, const unsigned char *mac, unsigned int ip)
{
	return a->v4[0] + a->v6[0] + mac[0] + (int)(ip & 1);
}

__attribute__((noipa)) int bytes(const char *p, int n)
{
	return p[0] + n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	static const unsigned char mac[6] = { 0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e };
	struct net a = { { 10, 1, 2, 3 }, { 0 }, { 0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e } };
	static const char buf[6] = { 'a', 'b', 0, 1, (char)0xff, 'z' };
	long s = 0;

	inet_pton(AF_INET6, "2001:db8::1", a.v6);
	for (int i = 0; i < n; i++) {
		s += stack8(1, 2, 3, 4, 5, 6, 7, 8);
		s += addrs(&a, mac, inet_addr("10.1.2.3"));
		s += bytes(buf, 6);
	}
	fprintf(stderr, "stack8=36 v4=10.1.2.3 v6=2001:db8::1 mac=00:1A:2B:3C:4D:5E "
		"buf=ab\\x00\\x01\\xffz magic=%u calls=%d sum=%ld\n", magic, n, s);
	return 0;
}
