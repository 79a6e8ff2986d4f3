// SPDX-License-Identifier: GPL-2.0
/*
 * libgtplt.so - the shared library of tests/guest/gtplt/gtplt.c (built by
 * tests/harness/build-guest.sh, -nostdlib: it needs nothing itself). The
 * program calls gtplt_mix() through its PLT.
 */
int gtplt_mix(int x);

/* Not inlined: a call inside the library (a direct one: it is static). */
__attribute__((noinline)) static int gtplt_step(int x)
{
	return x % 7 ? 3 * x + 1 : x / 7;
}

int gtplt_mix(int x)
{
	int i;

	for (i = 0; i < 4; i++)
		x = gtplt_step(x);
	return x;
}
