/* SPDX-License-Identifier: GPL-2.0-only */ /* libsdt_lib.so: a library with a USDT probe, perfrun:lib, behind a
 * semaphore (set by the tracer in each process that maps the library),
 * and perfrun:inl, a name its program sdt_multi also has (with a semaphore
 * too, as every probe of a file built with _SDT_HAS_SEMAPHORES has one, but
 * fired always). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short perfrun_lib_semaphore __attribute__((section(".probes")));
unsigned short perfrun_inl_semaphore __attribute__((section(".probes")));

void sdt_lib_tick(long i)
{
	if (perfrun_lib_semaphore)
		STAP_PROBE1(perfrun, lib, i);
	STAP_PROBE1(perfrun, inl, -i);
}
