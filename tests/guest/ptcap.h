/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the guest tests that trace with the Intel PT emulator: a
 * session with its AUX ring, consuming AUX records into a capture
 * directory /tmp/cap/NAME (aux.bin, spans.txt with span and config lines,
 * emu.txt) that the host decodes with tests/host/ptcheck, and the
 * emulator's debugfs statistics and knobs.
 */
#ifndef PTCAP_H
#define PTCAP_H

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include <libtracebuf.h>
#include "tbtest.h"

#define PAGE		4096UL
#ifdef __x86_64__
#define HAVE_PT		1	/* the emulator exists for x86_64 only */
#else
#define HAVE_PT		0
#endif
#define EMU		"/sys/kernel/debug/tb_ptemu"
#define CPU		1

struct sess {
	struct tracebuf_session s;
	unsigned char *aux;
	uint64_t aux_size;
	uint64_t aux_off;
	uint64_t aux_tail;	/* bytes consumed */
	int ro;
	/* what the data ring told us */
	uint64_t spans, published, truncated, overwrite, collision, lost, configs, etms;
	uint64_t partial;	/* spans flagged PARTIAL */
	uint64_t watch;		/* a span ended exactly here: watch_hit */
	int watch_hit;
	uint64_t lost_atleast;	/* LOST records whose count is a lower bound */
	uint64_t next;		/* expected aux_offset of the next span */
	uint64_t last_gen;	/* generation of the last CONFIG record */
	FILE *cap_aux, *cap_spans;
};

static inline void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static inline unsigned long long emu_stat(int cpu, const char *key)
{
	char path[128], k[64];
	unsigned long long v, r = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), EMU "/cpu%d/stats", cpu);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	while (fscanf(f, "%63s %llu", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

static inline int emu_knob(int cpu, const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), EMU "/cpu%d/%s", cpu, knob);
	return write_file(path, val);
}

static inline int set_online(int cpu, int on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, on ? "1" : "0");
}

static inline int setup(struct tracebuf_session *s, const char *backend, int cpu,
		 uint64_t aux_wm)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .cpu = cpu,
				     .aux_watermark = aux_wm };
	int ret;

	snprintf(su.backend, sizeof(su.backend), "%s", backend);
	ret = tracebuf_open(s, 0);
	return ret ? ret : tracebuf_setup(s, &su);
}

/* Returns 0 or -errno, like mmap's failure. */
static inline int map_aux(struct sess *x, uint64_t size, int ro)
{
	void *p;

	x->aux_off = PAGE + 2 * x->s.data_size;
	x->s.ctl->aux_offset = x->aux_off;
	x->s.ctl->aux_size = size;
	p = mmap(NULL, size, PROT_READ | (ro ? 0 : PROT_WRITE), MAP_SHARED,
		 x->s.fd, x->aux_off);
	if (p == MAP_FAILED)
		return -errno;
	x->aux = p;
	x->aux_size = size;
	x->ro = ro;
	x->aux_tail = x->s.ctl->aux_head;
	x->next = x->aux_tail;
	return 0;
}

static inline int sess_open(struct sess *x, int cpu, uint64_t data, uint64_t aux, int ro,
		     uint64_t wm)
{
	memset(x, 0, sizeof(*x));
	if (setup(&x->s, "intel_pt", cpu, wm) || tracebuf_map(&x->s, data, 0))
		return -1;
	return map_aux(x, aux, ro) ? -1 : 0;
}

static inline void sess_close(struct sess *x)
{
	if (x->aux)
		munmap(x->aux, x->aux_size);
	x->aux = NULL;
	tracebuf_close(&x->s);
	if (x->cap_aux)
		fclose(x->cap_aux);
	if (x->cap_spans)
		fclose(x->cap_spans);
	x->cap_aux = x->cap_spans = NULL;
}

static inline void cap_open(struct sess *x, const char *name)
{
	char path[128];

	mkdir("/tmp/cap", 0755);
	snprintf(path, sizeof(path), "/tmp/cap/%s", name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "/tmp/cap/%s/aux.bin", name);
	x->cap_aux = fopen(path, "w");
	snprintf(path, sizeof(path), "/tmp/cap/%s/spans.txt", name);
	x->cap_spans = fopen(path, "w");
	TBT_CHECK(x->cap_aux && x->cap_spans, "capture files for %s", name);
}

static inline void cap_emu(const char *name, unsigned long long start,
		    unsigned long long end, unsigned long long dropped, int snapshot)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/cap/%s/emu.txt", name);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "ptw_start %llu\nptw_end %llu\nptw_dropped %llu\n", start, end, dropped);
	fclose(f);
	if (snapshot) {
		snprintf(path, sizeof(path), "/tmp/cap/%s/snapshot", name);
		f = fopen(path, "w");
		if (f)
			fclose(f);
	}
}

/* Drain the data ring; copy and release every AUX span it describes. */
static inline void consume(struct sess *x)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(&x->s)) != NULL) {
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;
			uint64_t i;

			x->spans++;
			x->published += a->aux_size;
			if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
				x->truncated++;
			if (a->flags & TRACEBUF_AUX_F_OVERWRITE)
				x->overwrite++;
			if (a->flags & TRACEBUF_AUX_F_COLLISION)
				x->collision++;
			if (a->flags & TRACEBUF_AUX_F_PARTIAL)
				x->partial++;
			if (!x->ro) {
				TBT_CHECK(a->aux_offset == x->next,
					  "span at %llu, expected %llu",
					  (unsigned long long)a->aux_offset,
					  (unsigned long long)x->next);
				TBT_CHECK(a->aux_offset + a->aux_size <=
					  x->aux_tail + x->aux_size,
					  "span beyond the consumer's tail");
			}
			x->next = a->aux_offset + a->aux_size;
			if (x->watch && x->next == x->watch)
				x->watch_hit = 1;
			if (x->cap_aux && a->aux_size) {
				/* At most two pieces: the ring is mapped once. */
				for (i = 0; i < a->aux_size; ) {
					uint64_t at = (a->aux_offset + i) & (x->aux_size - 1);
					uint64_t n = a->aux_size - i;

					if (n > x->aux_size - at)
						n = x->aux_size - at;
					fwrite(x->aux + at, 1, n, x->cap_aux);
					i += n;
				}
				fprintf(x->cap_spans, "span %llu %llu %llu\n",
					(unsigned long long)a->aux_offset,
					(unsigned long long)a->aux_size,
					(unsigned long long)a->flags);
			}
			if (!x->ro) {
				x->aux_tail = a->aux_offset + a->aux_size;
				tracebuf_smp_store_release(&x->s.ctl->aux_tail, x->aux_tail);
			}
		} else if (r->hdr.type == TRACEBUF_REC_CONFIG) {
			const struct tracebuf_rec_config *c = (const void *)r;

			x->configs++;
			x->last_gen = c->generation;
			if (x->cap_spans)
				fprintf(x->cap_spans, "config %llu %s\n",
					(unsigned long long)c->generation, (const char *)(c + 1));
		} else if (r->hdr.type == TRACEBUF_REC_ETM) {
			x->etms++;
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			const struct tracebuf_rec_lost *l = (const void *)r;

			x->lost += l->count;
			if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
				x->lost_atleast++;
		}
		tracebuf_advance(&x->s, r);
	}
}

#endif /* PTCAP_H */
