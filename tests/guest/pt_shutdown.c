// SPDX-License-Identifier: GPL-2.0
/*
 * Power the guest off while every CPU traces (issue: nothing stopped
 * tracing on reboot or kexec, so a CPU kept TraceEn and wrote into pages
 * the next kernel owns).
 *
 * This is a final test (plan argument @final): guest-init runs it after
 * every other test and after TB-DONE, and it does not return. It starts
 * an Intel PT session on every online CPU, checks that each one traces,
 * keeps the files open and calls reboot(RB_POWER_OFF). The kernel then
 * runs the reboot notifiers with every CPU online (kernel/reboot.c,
 * kernel_shutdown_prepare(); restart and kexec call the same chain from
 * kernel_restart_prepare()): tracebuf's stops every session, and the
 * emulator's, last in the chain, prints "tb_ptemu: shutdown: clean" or a
 * VIOLATION per CPU still tracing. The harness (run-guest.sh) passes this
 * test only if the console shows "TB-ARMED pt_shutdown", then every
 * "TB-EXPECT pt_shutdown <text>" text on a later line, then the kernel's
 * "reboot: Power down".
 */
#include <sys/reboot.h>

#include "ptcap.h"

#define MAX_CPUS	8

int main(void)
{
	struct sess x[MAX_CPUS];
	int on[MAX_CPUS];
	int n = 0, cpu, ncpu, i;

	if (!HAVE_PT)
		return 77;
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_ptemu"))
		return 1;
	/* 1 MiB of AUX at 16 KiB/s: no ring fills (and stalls) before the reboot. */
	TBT_CHECK(write_file(EMU "/rate", "16") == 0, "emulator rate: %s", strerror(errno));
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		if (sess_open(&x[n], cpu, 65536, 256 * PAGE, 0, 16384)) {
			TBT_CHECK(0, "cpu%d: session: %s", cpu, strerror(errno));
			continue;
		}
		if (ioctl(x[n].s.fd, TRACEBUF_IOC_ENABLE)) {
			TBT_CHECK(0, "cpu%d: enable: %s", cpu, strerror(errno));
			continue;
		}
		on[n++] = cpu;
	}
	/*
	 * Tracing now, and it stays so: nobody consumes, and no ring fills.
	 * A drain cycle clears TraceEn for a moment on its CPU to read the
	 * output position (never trusted while TraceEn is set), so one read
	 * from here can fall in that window: a CPU passes once it is seen
	 * tracing within 2 s (x86_64-debug once read 0 after 50 ms).
	 */
	for (i = 0; i < n; i++) {
		int k;

		for (k = 0; k < 200 && emu_stat(on[i], "traceen") != 1; k++)
			msleep(10);
		TBT_CHECK(k < 200, "cpu%d: not tracing", on[i]);
	}
	if (n != ncpu || tbt_failures)
		return tbt_done();
	/* The harness looks for these on the console, in this order. */
	printf("TB-ARMED pt_shutdown %d CPUs tracing\n", n);
	printf("TB-EXPECT pt_shutdown tb_ptemu: shutdown: clean, %d CPUs checked\n", ncpu);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	TBT_CHECK(0, "reboot(RB_POWER_OFF) returned: %s", strerror(errno));
	return tbt_done();
}
