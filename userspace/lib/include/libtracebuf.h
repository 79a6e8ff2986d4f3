/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * libtracebuf - client library for the tracebuf kernel module.
 *
 * Conventions (as in liburing): functions return 0 or a non-negative value
 * on success and a negative errno on failure; errno is not used to report
 * errors. The library never allocates memory.
 */
#ifndef LIBTRACEBUF_H
#define LIBTRACEBUF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tracebuf.h>
#include <libtracebuf_barrier.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One open /dev/tracebuf. Public so that the inline ring helpers below
 * reach the ring state without a call. Callers read 'fd' and 'flags'; the
 * ring fields are set by tracebuf_map() and cleared by tracebuf_unmap(),
 * and are read by the inline helpers; nothing else writes them.
 */
struct tracebuf_session {
	int fd;			/* -1 when not open */
	unsigned int flags;	/* TRACEBUF_OPEN_* given to tracebuf_open() */

	/* The mapping at offset 0; NULL and 0 when not mapped. */
	struct tracebuf_ctl *ctl;	/* control page, start of the mapping */
	unsigned char *data;		/* data ring, mapped twice back to back */
	uint64_t data_size;		/* bytes, 2^n pages */
	size_t map_len;			/* page size + 2 * data_size */
	uint64_t tail;			/* bytes consumed: the cached data_tail */
	unsigned int map_flags;		/* TRACEBUF_MAP_* given to tracebuf_map() */
	int ring_err;			/* 0, or sticky -EBADMSG: corrupt ring */
	uint64_t reserved[4];		/* zero */
};

/* tracebuf_open() flags */
#define TRACEBUF_OPEN_NONBLOCK	(1U << 0)	/* open with O_NONBLOCK */

/* tracebuf_map() flags */
#define TRACEBUF_MAP_READONLY	(1U << 0)	/* PROT_READ: never store data_tail */

int tracebuf_open(struct tracebuf_session *s, unsigned int flags);
void tracebuf_close(struct tracebuf_session *s);

int tracebuf_get_info(struct tracebuf_session *s, struct tracebuf_info *info,
		      struct tracebuf_backend_desc *backends,
		      unsigned int max_backends);

int tracebuf_setup(struct tracebuf_session *s, const struct tracebuf_setup *setup);

int tracebuf_map(struct tracebuf_session *s, uint64_t data_size, unsigned int flags);
void tracebuf_unmap(struct tracebuf_session *s);

int tracebuf_wait(struct tracebuf_session *s, int timeout_ms);
int tracebuf_sigio_enable(struct tracebuf_session *s, int signo, pid_t owner_tid);
int tracebuf_sigio_disable(struct tracebuf_session *s);

int tracebuf_user_marker(struct tracebuf_session *s, uint64_t cookie,
			 const void *data, uint32_t len);
ssize_t tracebuf_read(struct tracebuf_session *s, void *buf, size_t len);

const char *tracebuf_version(void);
const char *tracebuf_strerror(int err);
const char *tracebuf_backend_name(unsigned int id);
const char *tracebuf_rec_type_name(unsigned int type);

/*
 * Consuming the mapped data ring: no system call, no allocation. One
 * consumer thread per session.
 *
 *	const struct tracebuf_record *r;
 *
 *	while ((r = tracebuf_peek(s)) != NULL) {
 *		handle(r);			(r->hdr.size bytes, contiguous)
 *		tracebuf_advance(s, r);
 *	}
 *	if (tracebuf_ring_error(s))
 *		... the ring is corrupt: stop ...
 */

/*
 * Bytes reserved in the ring and not yet consumed by this session. 0, not
 * a wrapped difference, should data_head momentarily read behind the tail.
 */
static inline uint64_t tracebuf_unread(const struct tracebuf_session *s)
{
	uint64_t n;

	if (!s->ctl)
		return 0;
	n = tracebuf_smp_load_acquire(&s->ctl->data_head) - s->tail;
	return (int64_t)n > 0 ? n : 0;
}

/* 0, or -EBADMSG once tracebuf_peek() met a record it cannot trust. */
static inline int tracebuf_ring_error(const struct tracebuf_session *s)
{
	return s->ring_err;
}

static inline void tracebuf_advance(struct tracebuf_session *s, const struct tracebuf_record *r)
{
	s->tail += r->hdr.size;
	/* Pairs with the module's check for free space before it writes. */
	if (!(s->map_flags & TRACEBUF_MAP_READONLY))
		tracebuf_smp_store_release(&s->ctl->data_tail, s->tail);
}

static inline const struct tracebuf_record *tracebuf_peek(struct tracebuf_session *s)
{
	for (;;) {
		const struct tracebuf_record *r;
		uint64_t head, avail;
		uint32_t size;

		if (!s->ctl || s->ring_err)
			return NULL;
		/* Pairs with the module's publication of data_head. */
		head = tracebuf_smp_load_acquire(&s->ctl->data_head);
		avail = head - s->tail;
		if (!avail)
			return NULL;
		r = (const struct tracebuf_record *)(const void *)
			(s->data + (s->tail & (s->data_size - 1)));
		/*
		 * Pairs with the module's commit: the record's other bytes are
		 * read after this. A stale tag (earlier lap) or zero: not yet.
		 */
		if (tracebuf_smp_load_acquire(&r->commit) != tracebuf_commit_tag(s->tail))
			return NULL;
		size = r->hdr.size;
		if (size % 8 || size < sizeof(*r) || size > s->data_size || size > avail) {
			s->ring_err = -EBADMSG;
			return NULL;
		}
		if (!(r->hdr.flags & TRACEBUF_REC_F_DISCARD))
			return r;
		tracebuf_advance(s, r);
	}
}

#ifdef __cplusplus
}
#endif

#endif /* LIBTRACEBUF_H */
