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
 * the AUX fields by tracebuf_map_aux() and tracebuf_unmap_aux(), and are
 * read by the inline helpers; nothing else writes them.
 *
 * The layout of this struct is not ABI-stable before libtracebuf 1.0:
 * code that embeds it must be built against the header of the library it
 * runs with. (Its size is kept: 88 bytes on 64-bit targets.)
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

	/* The AUX area (mapped once: spans may wrap); NULL and 0 when not mapped. */
	unsigned char *aux;		/* aux_size bytes at ctl->aux_offset */
	uint64_t aux_size;		/* bytes, 2^n pages */
	uint64_t aux_tail;		/* bytes consumed: the cached aux_tail */
	uint16_t aux_flags;		/* TRACEBUF_MAP_* given to tracebuf_map_aux() */

	/* Library-private, set by tracebuf_setup(): what the session traces. */
	uint16_t setup_backend;
	uint32_t setup_cpu;
};

/*
 * A session that is not open: tracebuf_close() and tracebuf_unmap() do
 * nothing on it. Use it for a session that may be closed before (or
 * without) tracebuf_open(); a zeroed one would have fd 0 (stdin).
 */
#define TRACEBUF_SESSION_INIT	{ .fd = -1 }

/* tracebuf_open() flags */
#define TRACEBUF_OPEN_NONBLOCK	(1U << 0)	/* open with O_NONBLOCK */

/* tracebuf_map() and tracebuf_map_aux() flags */
#define TRACEBUF_MAP_READONLY	(1U << 0)	/* PROT_READ: never store the tail */

/*
 * Why tracebuf_set_drv_config() refused a configuration string: the
 * kernel's answer, and a message for humans.
 */
#define TRACEBUF_CFG_MESSAGE_LEN	256

struct tracebuf_cfg_error {
	uint32_t offset;	/* byte offset of the offending token (KEY or KEY=VALUE) */
	uint32_t len;		/* its length in bytes */
	uint32_t reason;	/* enum tracebuf_cfg_reason; TRACEBUF_CFG_OK if none */
	uint64_t generation;	/* the configuration generation the kernel reported */
	char message[TRACEBUF_CFG_MESSAGE_LEN];	/* "<token>: <reason>...", or "" */
};

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

int tracebuf_map_aux(struct tracebuf_session *s, uint64_t aux_size, unsigned int flags);
void tracebuf_unmap_aux(struct tracebuf_session *s);
size_t tracebuf_aux_copy(const struct tracebuf_session *s, uint64_t pos, uint64_t len,
			 void *dst);

int tracebuf_enable(struct tracebuf_session *s);
int tracebuf_disable(struct tracebuf_session *s);
int tracebuf_snapshot(struct tracebuf_session *s);

int tracebuf_get_caps(struct tracebuf_session *s, const char *backend, unsigned int cpu,
		      void *caps, size_t size);

int tracebuf_list_drv_config(struct tracebuf_session *s, const char *backend,
			     unsigned int cpu, struct tracebuf_cfg_key_desc *keys,
			     unsigned int max);
int tracebuf_get_drv_config(struct tracebuf_session *s, char *buf, size_t len,
			    uint64_t *generation);
int tracebuf_set_drv_config(struct tracebuf_session *s, const char *config,
			    unsigned int flags, struct tracebuf_cfg_error *err);
const char *tracebuf_cfg_reason_name(unsigned int reason);

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

/*
 * Consuming the AUX area (after tracebuf_map_aux()): the hardware's bytes
 * in [s->aux_tail, tracebuf_aux_head(s)), free-running positions. The
 * area is mapped once, so a span may wrap: tracebuf_aux_copy() copies one
 * out whole.
 *
 *	uint64_t head = tracebuf_aux_head(s);
 *
 *	tracebuf_aux_copy(s, s->aux_tail, head - s->aux_tail, buf);
 *	tracebuf_aux_release(s, head);
 */

/* The kernel's aux_head; 0 when the AUX area is not mapped. */
static inline uint64_t tracebuf_aux_head(const struct tracebuf_session *s)
{
	if (!s->ctl || !s->aux)
		return 0;
	/* Pairs with the module's publication of aux_head. */
	return tracebuf_smp_load_acquire(&s->ctl->aux_head);
}

/* Where free-running AUX position pos is; NULL when not mapped. */
static inline const unsigned char *tracebuf_aux_ptr(const struct tracebuf_session *s,
						    uint64_t pos)
{
	if (!s->aux)
		return NULL;
	return s->aux + (pos & (s->aux_size - 1));
}

/*
 * Everything before pos has been read: hand it back to the hardware.
 * Read-only (snapshot) mappings only move the session's own aux_tail.
 */
static inline void tracebuf_aux_release(struct tracebuf_session *s, uint64_t pos)
{
	if (!s->aux)
		return;
	s->aux_tail = pos;
	/* Pairs with the module's check for free space before it traces on. */
	if (!(s->aux_flags & TRACEBUF_MAP_READONLY))
		tracebuf_smp_store_release(&s->ctl->aux_tail, pos);
}

/*
 * Typed views of a record (tracebuf_as_aux(3)): the record as its type's
 * struct, or NULL when r is NULL, of another type, or too short for that
 * struct; CONFIG and USER also when their text or data does not fit.
 */
#define TRACEBUF_AS_(rec, rtype, st) \
	((rec) && (rec)->hdr.type == (rtype) && (rec)->hdr.size >= sizeof(st) ? \
	 (const st *)(const void *)(rec) : (const st *)0)

static inline const struct tracebuf_rec_aux *tracebuf_as_aux(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_AUX, struct tracebuf_rec_aux);
}

static inline const struct tracebuf_rec_lost *tracebuf_as_lost(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_LOST, struct tracebuf_rec_lost);
}

static inline const struct tracebuf_rec_itrace_start *tracebuf_as_itrace_start(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_ITRACE_START, struct tracebuf_rec_itrace_start);
}

static inline const struct tracebuf_rec_etm *tracebuf_as_etm(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_ETM, struct tracebuf_rec_etm);
}

static inline const struct tracebuf_rec_config *tracebuf_as_config(const struct tracebuf_record *r)
{
	const struct tracebuf_rec_config *c =
		TRACEBUF_AS_(r, TRACEBUF_REC_CONFIG, struct tracebuf_rec_config);

	return c && c->len <= c->r.hdr.size - sizeof(*c) ? c : (const struct tracebuf_rec_config *)0;
}

static inline const struct tracebuf_rec_user *tracebuf_as_user(const struct tracebuf_record *r)
{
	const struct tracebuf_rec_user *u =
		TRACEBUF_AS_(r, TRACEBUF_REC_USER, struct tracebuf_rec_user);

	return u && u->len <= u->r.hdr.size - sizeof(*u) ? u : (const struct tracebuf_rec_user *)0;
}

#ifdef __cplusplus
}
#endif

#endif /* LIBTRACEBUF_H */
