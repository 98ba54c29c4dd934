/* SPDX-License-Identifier: GPL-2.0-only */ /* libdlo.so.c: the library tests/progs/dlopener loads late (built as
 * tests/progs/libdlo.so by mk/progs-extra.mk). */
__attribute__((noipa)) int dlo_func(int i)
{
	return i + 100;
}
