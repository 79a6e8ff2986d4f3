// SPDX-License-Identifier: GPL-2.0
/*
 * Power the test guest off with an exit status the host can read.
 *
 * Both architectures end QEMU with exit code (status << 1) | 1, so that 0
 * (a panic with -no-reboot) can never be mistaken for success.
 * x86_64: write the status to QEMU's isa-debug-exit port (0xf4), which
 * applies that encoding itself. arm64: semihosting SYS_EXIT (QEMU started
 * with semihosting userspace=on), with the encoded status.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char code = argc > 1 ? (unsigned char)atoi(argv[1]) : 0;

#if defined(__x86_64__)
	int fd = open("/dev/port", O_WRONLY);

	if (fd < 0)
		return 1;
	if (pwrite(fd, &code, 1, 0xf4) != 1)
		return 1;
#elif defined(__aarch64__)
	/*
	 * SYS_EXIT with {ADP_Stopped_ApplicationExit, status}: QEMU exits with
	 * the status as given, so encode it as isa-debug-exit would.
	 */
	uint64_t block[2] = { 0x20026, ((uint64_t)code << 1) | 1 };
	register uint64_t x0 __asm__("x0") = 0x18;
	register uint64_t x1 __asm__("x1") = (uint64_t)block;

	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
#endif
	return 1;
}
