// SPDX-License-Identifier: GPL-2.0-only
// snappy_work.cc - the workload of snappy in tests/dwarf/realcode.sh:
// compresses and uncompresses text-like, repetitive and random-looking
// buffers through the C++ and C interfaces, the same each run.
#include <cstdio>
#include <string>
#include <sys/uio.h>

#include "snappy-c.h"
#include "snappy.h"

static std::string input(int kind, size_t n)
{
	std::string s;
	unsigned x = 12345;
	static const char *words[] = {"leveldb ", "snappy ", "compress ", "the ", "of ", "block "};
	while (s.size() < n) {
		x = x * 1103515245 + 12345;
		if (kind == 0)
			s += words[(x >> 16) % 6];
		else if (kind == 1)
			s += std::string(1 + (x >> 16) % 40, 'a' + (x >> 24) % 3);
		else
			s += static_cast<char>(x >> 16);
	}
	s.resize(n);
	return s;
}

int main()
{
	long total = 0;
	int bad = 0;
	for (int kind = 0; kind < 3; kind++) {
		for (size_t n : {100, 5000, 70000}) {
			std::string in = input(kind, n), packed, back;
			snappy::Compress(in.data(), in.size(), &packed);
			bad += !snappy::IsValidCompressedBuffer(packed.data(), packed.size());
			bad += !snappy::Uncompress(packed.data(), packed.size(), &back) || back != in;
			total += packed.size();
			char out[70000];
			size_t len = sizeof out;
			bad += snappy_uncompress(packed.data(), packed.size(), out, &len) != SNAPPY_OK ||
			       len != n;
			struct iovec iov[2] = {{out, n / 2}, {out + n / 2, n - n / 2}};
			bad += !snappy::RawUncompressToIOVec(packed.data(), packed.size(), iov, 2);
		}
	}
	std::string big = input(0, 200000), packed;
	size_t c = snappy::Compress(big.data(), big.size(), &packed);
	std::printf("snappy_work: %ld %zu %d\n", total, c, bad);
	return bad != 0;
}
