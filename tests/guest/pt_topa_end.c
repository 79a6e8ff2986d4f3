// SPDX-License-Identifier: GPL-2.0
/*
 * A write pointer parked on a ToPA END entry (issue 14 item 8), through
 * the emulator: tb_ptemu's cpuN/park_end writes PAD bytes up to the END
 * entry that closes the current table and leaves OUTPUT_MASK_PTRS on it
 * (the SDM does not say when END is followed; the emulator follows it only
 * when the next byte comes, and writes nothing more until TraceEn is
 * cleared), as perf's pt_update_head() expects silicon may. tracebuf's
 * tables: its AUX chunks are large, so the ring is one table whose END
 * links back to itself; the next table's first region is then the ring's
 * start.
 *
 * Checked, twice: the drain that finds the pointer on END (the PMI of an
 * INT region on the way, or the timer) publishes up to the end of the
 * ring and the session continues at the next table's first region
 * (offset 0) with no COLLISION, no error state; every byte is published
 * and the capture decodes on the host (ptcheck).
 */
#include "ptcap.h"

#define AUX	(64 * PAGE)	/* 8 chunks of 8 pages: 8 regions, then END */

static short revents(struct sess *x)
{
	struct pollfd p = { .fd = x->s.fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 ? p.revents : 0;
}

/* Consume until the published head is past byte `past`; bounded. */
static int consume_past(struct sess *x, uint64_t past)
{
	int i;

	for (i = 0; i < 500 && x->next <= past; i++) {
		msleep(10);
		consume(x);
	}
	return x->next > past;
}

int main(void)
{
	unsigned long long w0, p0, d0, parked;
	struct sess x;
	uint64_t lap;
	int i, round;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!HAVE_PT) {
		printf("no PT emulator on this architecture\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_ptemu"))
		return 1;
	TBT_CHECK(write_file(EMU "/rate", "256") == 0, "emulator rate");
	if (sess_open(&x, CPU, 65536, AUX, 0, 2 * PAGE)) {
		TBT_CHECK(0, "session");
		return tbt_done();
	}
	cap_open(&x, "topa_end");
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable: %s", strerror(errno));
	for (round = 0; round < 2; round++) {
		lap = (x.next / AUX + 1) * AUX;
		/*
		 * Out of the first region, so that STOP (on the region before
		 * the consumer's) is not on the last one; a drain restarts it.
		 */
		TBT_CHECK(consume_past(&x, lap - AUX + AUX / 8), "round %d: no trace", round);
		msleep(30);
		consume(&x);
		parked = emu_stat(CPU, "parked");
		for (i = 0; i < 100; i++) {
			if (emu_knob(CPU, "park_end", "1") == 0)
				break;
			/* Stalled (STOP ahead) or between restarts: try again. */
			msleep(10);
			consume(&x);
		}
		TBT_CHECK(emu_stat(CPU, "parked") == parked + 1, "round %d: park_end: %s", round,
			  strerror(errno));
		/* The drain publishes up to END: the ring's end, then goes on. */
		x.watch = lap;
		x.watch_hit = 0;
		TBT_CHECK(consume_past(&x, lap), "round %d: head %llu never passed %llu", round,
			  (unsigned long long)x.next, (unsigned long long)lap);
		TBT_CHECK(x.watch_hit, "round %d: no span ended at the END entry (%llu)", round,
			  (unsigned long long)lap);
		TBT_CHECK(!(revents(&x) & POLLERR) && x.collision == 0,
			  "round %d: error state (collisions %llu)", round,
			  (unsigned long long)x.collision);
		TBT_CHECK(x.s.ctl->flags & TRACEBUF_CTL_F_ENABLED, "round %d: not enabled", round);
	}
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");
	consume(&x);
	cap_emu("topa_end", p0, emu_stat(CPU, "ptw_seq"), emu_stat(CPU, "ptw_dropped") - d0, 0);
	printf("topa_end: %llu spans, %llu bytes published, emulator wrote %llu, parked %llu times\n",
	       (unsigned long long)x.spans, (unsigned long long)x.published,
	       emu_stat(CPU, "bytes_written") - w0, emu_stat(CPU, "parked"));
	TBT_CHECK(x.published == emu_stat(CPU, "bytes_written") - w0 + x.s.ctl->aux_padding,
		  "published %llu != written %llu + padding %llu", (unsigned long long)x.published,
		  emu_stat(CPU, "bytes_written") - w0, (unsigned long long)x.s.ctl->aux_padding);
	TBT_CHECK(x.lost == 0, "records lost");
	TBT_CHECK(emu_stat(CPU, "violations") == 0, "%llu emulator violations",
		  emu_stat(CPU, "violations"));
	sess_close(&x);
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	return tbt_done();
}
