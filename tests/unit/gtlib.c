// SPDX-License-Identifier: GPL-2.0
/*
 * gtlib - the shared library of the known test program gtprog.c: the
 * program calls into it through its PLT (libgtlib.so, built by
 * tests/unit/Makefile for the native ground-truth test).
 */
int gt_lib_mix(int x);

/* Not inlined: a call of its own inside the library. */
__attribute__((noinline)) static int gt_lib_step(int x)
{
	return x % 7 ? 3 * x + 1 : x / 7;
}

int gt_lib_mix(int x)
{
	int i;

	for (i = 0; i < 4; i++)
		x = gt_lib_step(x);
	return x;
}
