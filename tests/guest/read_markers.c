// SPDX-License-Identifier: GPL-2.0
/*
 * User markers (contents, order, errors) and read(2): whole records, a
 * short buffer gets -EINVAL and loses nothing, O_NONBLOCK on empty gets
 * -EAGAIN, a blocking read waits for the watermark; the same with compact
 * records (TRACEBUF_SETUP_F_COMPACT).
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <libtracebuf.h>
#include "tbtest.h"

static void markers_mmap(void)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU };
	struct tracebuf_user_marker m;
	const struct tracebuf_record *r;
	struct tracebuf_session s;
	char big[TRACEBUF_USER_MARKER_MAX + 1];
	uint64_t i, n = 0;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(&s, 0) || tracebuf_setup(&s, &su) || tracebuf_map(&s, 65536, 0)) {
		TBT_CHECK(0, "session");
		return;
	}
	for (i = 0; i < 100; i++) {
		char text[32];
		int len = snprintf(text, sizeof(text), "marker %llu", (unsigned long long)i);

		TBT_CHECK(tracebuf_user_marker(&s, 1000 + i, text, len) == 0, "marker %llu", (unsigned long long)i);
	}
	TBT_CHECK(tracebuf_user_marker(&s, 7, NULL, 0) == 0, "empty marker");
	while ((r = tracebuf_peek(&s))) {
		const struct tracebuf_rec_user *u = (const void *)r;
		char text[32];

		if (n < 100) {
			int len = snprintf(text, sizeof(text), "marker %llu", (unsigned long long)n);

			TBT_CHECK(r->hdr.type == TRACEBUF_REC_USER && u->cookie == 1000 + n &&
				  u->len == (uint32_t)len && !memcmp(u + 1, text, len) &&
				  r->hdr.size == ((sizeof(*u) + len + 7) & ~7u),
				  "marker %llu wrong", (unsigned long long)n);
		} else {
			TBT_CHECK(u->cookie == 7 && u->len == 0 && r->hdr.size == sizeof(*u), "empty marker wrong");
		}
		TBT_CHECK(r->time > 0 && r->cpu < 8192, "prefix");
		n++;
		tracebuf_advance(&s, r);
	}
	TBT_CHECK(n == 101, "%llu markers read", (unsigned long long)n);
	TBT_CHECK(s.ctl->records_written == 101, "records_written %llu",
		  (unsigned long long)s.ctl->records_written);

	memset(big, 'x', sizeof(big));
	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.len = TRACEBUF_USER_MARKER_MAX + 1;
	m.data_ptr = (uintptr_t)big;
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_USER_MARKER, &m), EINVAL);
	m.len = 8;
	m.flags = 1;
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_USER_MARKER, &m), EINVAL);
	m.flags = 0;
	m.reserved[1] = 1;
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_USER_MARKER, &m), EINVAL);
	m.reserved[1] = 0;
	m.data_ptr = 16;
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_USER_MARKER, &m), EFAULT);
	m.size = 8;
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_USER_MARKER, &m), EINVAL);
	TBT_CHECK(tracebuf_user_marker(&s, 1, big, TRACEBUF_USER_MARKER_MAX) == 0, "max marker");
	tracebuf_close(&s);
}

/*
 * Marker bytes are copied straight into the record with page faults off:
 * bytes in pages not yet mapped (a file's, faulted in on the retry) still
 * arrive whole, once; bytes that cannot be read are -EFAULT, and the
 * reserved record is discarded: neither delivered, written nor lost.
 */
static void markers_fault(void)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU };
	const struct tracebuf_record *r;
	struct tracebuf_session s;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *p, pattern[4096];
	int fd, i, n = 0;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(&s, 0) || tracebuf_setup(&s, &su) || tracebuf_map(&s, 65536, 0)) {
		TBT_CHECK(0, "session");
		return;
	}
	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = (unsigned char)(i * 7 + 3);
	fd = open("/tmp/marker_src", O_RDWR | O_CREAT | O_TRUNC, 0600);
	TBT_CHECK(fd >= 0 && write(fd, pattern, sizeof(pattern)) == (ssize_t)sizeof(pattern) &&
		  write(fd, pattern, sizeof(pattern)) == (ssize_t)sizeof(pattern), "file");
	/* Not touched here: the first access to each page faults. */
	p = mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
	TBT_CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p == MAP_FAILED)
		return;
	/* Across the first two pages, neither mapped yet. */
	TBT_CHECK(tracebuf_user_marker(&s, 5, p + pg - 100, 200) == 0, "marker from unmapped pages");
	/* The third page is past the end of the file: SIGBUS to a reader, -EFAULT here. */
	TBT_CHECK(tracebuf_user_marker(&s, 6, p + 2 * pg - 8, 16) == -EFAULT,
		  "marker past the end of the file");
	TBT_CHECK(tracebuf_user_marker(&s, 7, p, 64) == 0, "marker from a mapped page");
	while ((r = tracebuf_peek(&s))) {
		const struct tracebuf_rec_user *u = (const void *)r;

		TBT_CHECK(r->hdr.type == TRACEBUF_REC_USER, "type %u", r->hdr.type);
		if (n == 0)
			TBT_CHECK(u->cookie == 5 && u->len == 200 &&
				  !memcmp(u + 1, pattern + (pg - 100) % sizeof(pattern), 100) &&
				  !memcmp((const char *)(u + 1) + 100, pattern, 100),
				  "first marker wrong (cookie %llu len %u)",
				  (unsigned long long)u->cookie, u->len);
		else
			TBT_CHECK(u->cookie == 7 && u->len == 64 && !memcmp(u + 1, pattern, 64),
				  "second marker wrong (cookie %llu)", (unsigned long long)u->cookie);
		n++;
		tracebuf_advance(&s, r);
	}
	TBT_CHECK(n == 2, "%d markers delivered, want 2", n);
	TBT_CHECK(s.ctl->records_written == 2 && s.ctl->records_lost == 0,
		  "records_written %llu, lost %llu", (unsigned long long)s.ctl->records_written,
		  (unsigned long long)s.ctl->records_lost);
	munmap(p, 3 * pg);
	close(fd);
	unlink("/tmp/marker_src");
	tracebuf_close(&s);
}

/* SETUP's NO_TIME: records carry time 0; without it, the clock. */
static void markers_no_time(void)
{
	const struct tracebuf_record *r;
	struct tracebuf_session s;
	int no_time, n;

	for (no_time = 0; no_time < 2; no_time++) {
		struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
					     .flags = no_time ? TRACEBUF_SETUP_F_NO_TIME : 0 };

		strcpy(su.backend, TRACEBUF_BACKEND_DATA);
		if (tracebuf_open(&s, 0) || tracebuf_setup(&s, &su) ||
		    tracebuf_map(&s, 65536, 0)) {
			TBT_CHECK(0, "session (no_time %d)", no_time);
			return;
		}
		for (n = 0; n < 3; n++)
			TBT_CHECK(tracebuf_user_marker(&s, n, "t", 1) == 0, "marker");
		n = 0;
		while ((r = tracebuf_peek(&s))) {
			TBT_CHECK(no_time ? r->time == 0 : r->time > 0, "no_time %d: time %llu",
				  no_time, (unsigned long long)r->time);
			TBT_CHECK(r->hdr.type == TRACEBUF_REC_USER && r->cpu < 8192, "prefix");
			n++;
			tracebuf_advance(&s, r);
		}
		TBT_CHECK(n == 3, "no_time %d: %d markers", no_time, n);
		tracebuf_close(&s);
	}
}

struct reader {
	int fd;
	ssize_t ret;
	char buf[4096];
};

static void *read_thread(void *arg)
{
	struct reader *r = arg;

	r->ret = read(r->fd, r->buf, sizeof(r->buf));
	return NULL;
}

static void read_api(void)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .data_size = 16384,
				     .data_watermark = 4 * 40 };
	struct tracebuf_session s;
	struct reader rd;
	char buf[4096];
	pthread_t th;
	ssize_t n;
	int i;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(&s, TRACEBUF_OPEN_NONBLOCK) || tracebuf_setup(&s, &su)) {
		TBT_CHECK(0, "session");
		return;
	}
	TBT_ERRNO(read(s.fd, buf, sizeof(buf)), EAGAIN);
	for (i = 0; i < 3; i++)
		TBT_CHECK(tracebuf_user_marker(&s, i, NULL, 0) == 0, "marker");
	/* Too small for one record: -EINVAL, nothing consumed. */
	TBT_ERRNO(read(s.fd, buf, 39), EINVAL);
	/* Room for two and a half: two whole records. */
	n = read(s.fd, buf, 100);
	TBT_CHECK(n == 80, "read %zd, want 80", n);
	TBT_CHECK(((struct tracebuf_rec_user *)buf)->cookie == 0 &&
		  ((struct tracebuf_rec_user *)(buf + 40))->cookie == 1, "order");
	n = read(s.fd, buf, sizeof(buf));
	TBT_CHECK(n == 40 && ((struct tracebuf_rec_user *)buf)->cookie == 2, "third: %zd", n);
	TBT_ERRNO(read(s.fd, buf, sizeof(buf)), EAGAIN);

	/* Blocking: waits for the watermark (4 records), not just any data. */
	fcntl(s.fd, F_SETFL, 0);
	rd.fd = s.fd;
	rd.ret = -2;
	pthread_create(&th, NULL, read_thread, &rd);
	for (i = 0; i < 3; i++)
		TBT_CHECK(tracebuf_user_marker(&s, 10 + i, NULL, 0) == 0, "marker");
	usleep(300000);
	TBT_CHECK(rd.ret == -2, "blocking read returned below the watermark: %zd", rd.ret);
	TBT_CHECK(tracebuf_user_marker(&s, 13, NULL, 0) == 0, "marker");
	pthread_join(th, NULL);
	TBT_CHECK(rd.ret == 160, "blocking read got %zd, want 160", rd.ret);
	TBT_CHECK(s.ctl == NULL, "library mapped a read() session");
	tracebuf_close(&s);
}

/*
 * Compact records (TRACEBUF_SETUP_F_COMPACT): the 8-byte prefix, markers
 * through the mapping (tracebuf_peek_compact()) and through read(), a
 * discarded marker skipped, LOST records in the compact layout, a blocking
 * read woken at the watermark, and the standard iterator refusing the ring.
 */
static void markers_compact(void)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
				     .flags = TRACEBUF_SETUP_F_COMPACT };
	const struct tracebuf_crec *c;
	struct tracebuf_session s;
	struct reader rd;
	char big[TRACEBUF_USER_MARKER_MAX], buf[4096];
	uint64_t n = 0, lost = 0, i;
	pthread_t th;
	ssize_t got;
	int ret;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(&s, 0) || tracebuf_setup(&s, &su) || tracebuf_map(&s, 65536, 0)) {
		TBT_CHECK(0, "compact session");
		return;
	}
	TBT_CHECK(s.ctl->flags & TRACEBUF_CTL_F_COMPACT, "ctl flags %#x", s.ctl->flags);
	for (i = 0; i < 100; i++) {
		char text[32];
		int len = snprintf(text, sizeof(text), "marker %llu", (unsigned long long)i);

		TBT_CHECK(tracebuf_user_marker(&s, 1000 + i, text, len) == 0, "marker %llu",
			  (unsigned long long)i);
		if (i == 50)	/* reserved, then discarded: a SKIP record */
			TBT_CHECK(tracebuf_user_marker(&s, 1, (void *)16, 8) == -EFAULT,
				  "marker from a bad address");
	}
	memset(big, 'y', sizeof(big));
	TBT_CHECK(tracebuf_user_marker(&s, 2000, big, sizeof(big)) == 0, "max marker");
	while ((c = tracebuf_peek_compact(&s))) {
		const struct tracebuf_crec_user *u = tracebuf_cas_user(c);
		char text[32];
		int len = snprintf(text, sizeof(text), "marker %llu", (unsigned long long)n);

		if (n == 100)
			TBT_CHECK(u && u->cookie == 2000 && u->len == sizeof(big) &&
				  !memcmp(u + 1, big, sizeof(big)) &&
				  c->size == sizeof(*u) + sizeof(big), "max compact marker wrong");
		else
			TBT_CHECK(u && u->cookie == 1000 + n && u->len == (uint32_t)len &&
				  !memcmp(u + 1, text, len) &&
				  c->size == ((sizeof(*u) + len + 7) & ~7u) && sizeof(*u) == 24,
				  "compact marker %llu wrong (type %u size %u)",
				  (unsigned long long)n, c->type, c->size);
		n++;
		tracebuf_advance_compact(&s, c);
	}
	TBT_CHECK(tracebuf_ring_error(&s) == 0 && n == 101, "%llu compact markers, error %d",
		  (unsigned long long)n, tracebuf_ring_error(&s));
	TBT_CHECK(s.ctl->records_written == 101 && s.ctl->records_lost == 0,
		  "records_written %llu lost %llu", (unsigned long long)s.ctl->records_written,
		  (unsigned long long)s.ctl->records_lost);
	/* The standard iterator does not read compact records. */
	TBT_CHECK(tracebuf_user_marker(&s, 3, NULL, 0) == 0, "marker");
	TBT_CHECK(tracebuf_peek(&s) == NULL && tracebuf_ring_error(&s) == -EPROTO,
		  "tracebuf_peek() on a compact ring: error %d", tracebuf_ring_error(&s));
	tracebuf_close(&s);

	/* read(): compact records, whole; a SKIP never copied; LOST compact. */
	su.data_size = 4096;
	su.data_watermark = 4 * 24;
	if (tracebuf_open(&s, TRACEBUF_OPEN_NONBLOCK) || tracebuf_setup(&s, &su)) {
		TBT_CHECK(0, "compact read() session");
		return;
	}
	for (i = 0; i < 3; i++) {
		TBT_CHECK(tracebuf_user_marker(&s, i, NULL, 0) == 0, "marker");
		if (i == 1)
			TBT_CHECK(tracebuf_user_marker(&s, 9, (void *)16, 8) == -EFAULT, "bad marker");
	}
	TBT_ERRNO(read(s.fd, buf, 23), EINVAL);
	got = read(s.fd, buf, 60);
	TBT_CHECK(got == 48 && ((struct tracebuf_crec_user *)buf)->cookie == 0 &&
		  ((struct tracebuf_crec_user *)(buf + 24))->cookie == 1 &&
		  ((struct tracebuf_crec *)buf)->size == 24 &&
		  ((struct tracebuf_crec *)buf)->type == TRACEBUF_REC_USER, "compact read %zd", got);
	got = read(s.fd, buf, sizeof(buf));
	TBT_CHECK(got == 24 && ((struct tracebuf_crec_user *)buf)->cookie == 2,
		  "third compact record (after a SKIP): %zd", got);
	/* Fill the ring: the next marker after reading reports the loss. */
	for (i = 0; (ret = tracebuf_user_marker(&s, 100 + i, NULL, 0)) == 0; i++)
		;
	TBT_CHECK(ret == -ENOSPC && i == 4096 / 24,
		  "ring of 4096 holds %llu compact markers (%d)", (unsigned long long)i, ret);
	TBT_CHECK(tracebuf_user_marker(&s, 99, NULL, 0) == -ENOSPC, "second loss");
	n = 0;
	while ((got = read(s.fd, buf, sizeof(buf))) > 0)
		n += got / 24;
	TBT_CHECK(n == i, "read %llu compact markers of %llu", (unsigned long long)n,
		  (unsigned long long)i);
	TBT_CHECK(tracebuf_user_marker(&s, 5, NULL, 0) == 0, "marker after the loss");
	got = read(s.fd, buf, sizeof(buf));
	if (got == 48) {
		const struct tracebuf_crec_lost *l = (const void *)buf;

		lost = l->r.type == TRACEBUF_REC_LOST && l->r.size == sizeof(*l) &&
		       l->reason == TRACEBUF_LOST_RING_FULL && l->flags == 0 ? l->count : 0;
	}
	TBT_CHECK(got == 48 && lost == 2 &&
		  ((struct tracebuf_crec_user *)(buf + 24))->cookie == 5,
		  "compact LOST then marker: read %zd, lost %llu", got, (unsigned long long)lost);

	/* Blocking: the compact readiness waits for the watermark (4 records). */
	fcntl(s.fd, F_SETFL, 0);
	rd.fd = s.fd;
	rd.ret = -2;
	pthread_create(&th, NULL, read_thread, &rd);
	for (i = 0; i < 3; i++)
		TBT_CHECK(tracebuf_user_marker(&s, 10 + i, NULL, 0) == 0, "marker");
	usleep(300000);
	TBT_CHECK(rd.ret == -2, "compact: blocking read returned below the watermark: %zd",
		  rd.ret);
	TBT_CHECK(tracebuf_user_marker(&s, 13, NULL, 0) == 0, "marker");
	pthread_join(th, NULL);
	TBT_CHECK(rd.ret == 96, "compact: blocking read got %zd, want 96", rd.ret);
	tracebuf_close(&s);
}

int main(void)
{
	if (tbt_modprobe("tracebuf"))
		return 1;
	markers_mmap();
	markers_fault();
	markers_no_time();
	read_api();
	markers_compact();
	return tbt_done();
}
