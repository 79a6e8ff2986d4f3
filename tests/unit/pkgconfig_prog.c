/* SPDX-License-Identifier: GPL-2.0 */
/* Built against an installed libtracebuf through pkg-config. */
#include <stdio.h>
#include <libtracebuf.h>

int main(void)
{
	printf("%s %d\n", tracebuf_version(), TRACEBUF_ABI_VERSION);
	return 0;
}
