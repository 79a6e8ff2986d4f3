/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * libtracebuf - client library for the tracebuf kernel module.
 *
 * Conventions (as in liburing): functions return 0 or a non-negative value
 * on success and a negative errno on failure; errno is not used to report
 * errors. The session calls never allocate memory; the group
 * (tracebuf_group_new) and the capture reader (tracebuf_capture_open)
 * allocate what they need and give it back in tracebuf_group_free() and
 * tracebuf_capture_close().
 *
 * Extensible structs (ABI rules, as the kernel's): options the caller
 * passes start with 'size_t sz' (set it to sizeof the struct as the caller
 * knows it); a newer library reads an older caller's smaller struct with
 * defaults for what is missing, and refuses with -E2BIG non-zero bytes
 * past what it knows. Structs the library hands out (spans, capture
 * records) are the library's: never allocate or copy them; new members
 * are only ever added at their end. Handles (struct tracebuf_group,
 * struct tracebuf_capture, struct tracebuf_capture_iter) are opaque.
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
const char *tracebuf_sb_type_name(unsigned int type);

/*
 * An AUX span: the bytes one AUX record describes, handed out by the
 * group (tracebuf_group_add(3): straight from the AUX mapping, in up to two
 * parts when it wraps) and by the capture reader (tracebuf_capture_next(3):
 * from cpuN.aux, one part). Owned by the library, valid until the
 * callback returns or the next record is asked for.
 */
struct tracebuf_span {
	const struct tracebuf_rec_aux *rec;	/* the AUX record */
	uint64_t offset;	/* rec->aux_offset: free-running AUX position */
	uint64_t size;		/* rec->aux_size: bytes */
	uint64_t flags;		/* rec->flags: TRACEBUF_AUX_F_TRUNCATED, ... */
	/*
	 * Bytes published before this span that no AUX record describes (the
	 * record did not fit the data ring): not delivered, lost. Full-trace
	 * mode only (0 in snapshot mode, where spans overlap by design).
	 */
	uint64_t gap_bytes;
	/*
	 * Trace known lost just before this span: gap_bytes plus the counts
	 * of the LOST records with reason AUX_OVERRUN since the previous span
	 * (those records are handed out too); lost_at_least: one of the
	 * counts was a lower bound (TRACEBUF_LOST_F_AT_LEAST).
	 */
	uint64_t lost_bytes;
	unsigned int lost_at_least;
	unsigned int nr_parts;		/* 0 (size 0), 1, or 2 when it wraps */
	const void *part[2];		/* the bytes, part[0] then part[1] */
	size_t part_len[2];		/* part_len[0] + part_len[1] == size */
	/*
	 * The span's position in its stream of delivered AUX bytes: in a
	 * capture, its offset in cpuN.aux; in a group, the bytes of the
	 * session's earlier spans (where 'tracebuf record' writes it).
	 */
	uint64_t stream_offset;
};

/*
 * Consuming sessions without an event loop of one's own (libbpf's
 * ring_buffer style): add sessions to a group, poll it with a timeout,
 * and get a callback per record and per AUX span (tracebuf_group_new(3)).
 */
struct tracebuf_group;

struct tracebuf_group_opts {
	size_t sz;		/* sizeof(struct tracebuf_group_opts) */
};

/* tracebuf_group_ops.on_event(): what happened to a session. */
#define TRACEBUF_EV_ERROR	(1U << 0)	/* POLLERR: stopped (COLLISION, hardware error) */
#define TRACEBUF_EV_HANGUP	(1U << 1)	/* POLLHUP: it can produce nothing more */
#define TRACEBUF_EV_CORRUPT	(1U << 2)	/* corrupt data ring: consumer stopped */

struct tracebuf_group_ops {
	size_t sz;		/* sizeof(struct tracebuf_group_ops) */
	/* Every record but AUX records (LOST, CONFIG, USER, ETM, unknown types). */
	int (*on_record)(void *ctx, struct tracebuf_session *s,
			 const struct tracebuf_record *r);
	/* Every AUX record with its span; NULL: AUX records go to on_record. */
	int (*on_span)(void *ctx, struct tracebuf_session *s, const struct tracebuf_span *span);
	/* TRACEBUF_EV_*, once each; NULL: poll and consume return the errno. */
	int (*on_event)(void *ctx, struct tracebuf_session *s, unsigned int events);
};

int tracebuf_group_new(const struct tracebuf_group_opts *opts, struct tracebuf_group **group);
int tracebuf_group_add(struct tracebuf_group *g, struct tracebuf_session *s,
		       const struct tracebuf_group_ops *ops, void *ctx);
int tracebuf_group_add_fd(struct tracebuf_group *g, int fd,
			  int (*fn)(void *ctx, int fd, unsigned int events), void *ctx);
int tracebuf_group_poll(struct tracebuf_group *g, int timeout_ms);
int tracebuf_group_consume(struct tracebuf_group *g);
int tracebuf_group_consume_session(struct tracebuf_group *g, struct tracebuf_session *s);
int tracebuf_group_epoll_fd(const struct tracebuf_group *g);
void tracebuf_group_free(struct tracebuf_group *g);

/*
 * Reading a capture directory (docs/capture-format.md): meta.json,
 * cpuN.data, cpuN.aux. tracebuf_capture_open(3) checks that it adds up and
 * refuses it otherwise, naming every problem.
 */
struct tracebuf_capture;
struct tracebuf_capture_iter;

#define TRACEBUF_CAPTURE_FORMAT	1	/* the meta.json "format" this library reads */

/* tracebuf_capture_opts.flags */
#define TRACEBUF_CAPTURE_ONE_CPU	(1U << 0)	/* only the stream of .cpu */
#define TRACEBUF_CAPTURE_META_ONLY	(1U << 1)	/* meta.json only: no streams */

struct tracebuf_capture_opts {
	size_t sz;		/* sizeof(struct tracebuf_capture_opts) */
	unsigned int flags;	/* TRACEBUF_CAPTURE_* */
	unsigned int cpu;	/* with TRACEBUF_CAPTURE_ONE_CPU */
	/* Every problem found, one sentence each ("cpu0.aux has 90 bytes, ..."). */
	void (*on_problem)(void *ctx, const char *message);
	void *ctx;
};

/*
 * A record of the capture's sideband (docs/capture-format.md, "Sideband"):
 * a perf_event record (struct perf_event_header, <linux/perf_event.h>)
 * of one of the files meta.json's "sideband" lists, with the fields of
 * its sample_id trailer (perf_event_attr.sample_id_all) taken apart.
 * Handed out by tracebuf_capture_next(3) with TRACEBUF_ITER_SIDEBAND.
 */
struct tracebuf_sb_rec {
	const void *data;	/* the record: struct perf_event_header first (8-byte aligned) */
	uint32_t size;		/* header.size: bytes at data */
	uint32_t type;		/* header.type: PERF_RECORD_MMAP2, PERF_RECORD_COMM, ... */
	uint32_t misc;		/* header.misc */
	uint32_t fields;	/* TRACEBUF_SB_F_*: which of the trailer's fields it has */
	const void *body;	/* data + 8: the type's fields */
	uint32_t body_size;	/* their bytes, the trailer left out */
	uint32_t pid, tid;	/* PERF_SAMPLE_TID */
	uint64_t time;		/* PERF_SAMPLE_TIME: ns of meta.json "sideband.clock" */
	uint64_t id;		/* PERF_SAMPLE_IDENTIFIER, else PERF_SAMPLE_ID */
	uint32_t cpu;		/* PERF_SAMPLE_CPU */
	uint32_t reserved;
};

/* tracebuf_sb_rec.fields */
#define TRACEBUF_SB_F_TID	(1U << 0)
#define TRACEBUF_SB_F_TIME	(1U << 1)
#define TRACEBUF_SB_F_ID	(1U << 2)
#define TRACEBUF_SB_F_CPU	(1U << 3)

/* tracebuf_capture_rec.cpu of a sideband file that is no CPU's (proc.sb) */
#define TRACEBUF_CAPTURE_NO_CPU	(~0U)

/* A record handed out by tracebuf_capture_next(3). */
struct tracebuf_capture_rec {
	const struct tracebuf_record *r;	/* the record (r->hdr.size bytes, aligned); NULL: sb */
	const char *file;		/* the file it is in: "cpu0.data", "cpu0.sb" */
	unsigned int cpu;		/* the stream's CPU (N of cpuN.data), or TRACEBUF_CAPTURE_NO_CPU */
	unsigned int stream;		/* the stream's index (sideband: the file's in "files") */
	uint64_t offset;		/* byte offset of the record in the file */
	const struct tracebuf_span *span;	/* AUX records: the span; else NULL */
	const struct tracebuf_sb_rec *sb;	/* a sideband record (then r is NULL); else NULL */
};

/* tracebuf_capture_iter_opts.flags */
#define TRACEBUF_ITER_ONE_CPU	(1U << 0)	/* only the stream of .cpu */
#define TRACEBUF_ITER_SIDEBAND	(1U << 1)	/* the sideband's records too (rec->sb) */
#define TRACEBUF_ITER_SIDEBAND_ONLY (1U << 2)	/* only the sideband's records */

struct tracebuf_capture_iter_opts {
	size_t sz;		/* sizeof(struct tracebuf_capture_iter_opts) */
	unsigned int flags;	/* TRACEBUF_ITER_*; 0: every stream, merged by time */
	unsigned int cpu;	/* with TRACEBUF_ITER_ONE_CPU */
};

int tracebuf_capture_open(const char *dir, const struct tracebuf_capture_opts *opts,
			  struct tracebuf_capture **cap);
void tracebuf_capture_close(struct tracebuf_capture *cap);
int tracebuf_capture_complete(const struct tracebuf_capture *cap);
int tracebuf_capture_nr_streams(const struct tracebuf_capture *cap);
int tracebuf_capture_stream_cpu(const struct tracebuf_capture *cap, unsigned int stream);
int tracebuf_capture_stream_records(const struct tracebuf_capture *cap, unsigned int stream,
				    uint64_t *records);
int tracebuf_capture_aux(const struct tracebuf_capture *cap, unsigned int stream,
			 const void **data, uint64_t *len);
int tracebuf_capture_meta(const struct tracebuf_capture *cap, const char *path,
			  const char **json, size_t *len);
int tracebuf_capture_meta_u64(const struct tracebuf_capture *cap, const char *path,
			      uint64_t *value);
int tracebuf_capture_meta_bool(const struct tracebuf_capture *cap, const char *path,
			       int *value);
int tracebuf_capture_meta_str(const struct tracebuf_capture *cap, const char *path,
			      char *buf, size_t size);
int tracebuf_capture_iter_new(struct tracebuf_capture *cap,
			      const struct tracebuf_capture_iter_opts *opts,
			      struct tracebuf_capture_iter **it);
int tracebuf_capture_next(struct tracebuf_capture_iter *it,
			  const struct tracebuf_capture_rec **rec);
void tracebuf_capture_iter_free(struct tracebuf_capture_iter *it);

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
 *
 * A ring set up with TRACEBUF_SETUP_F_COMPACT (its control page has
 * TRACEBUF_CTL_F_COMPACT) holds struct tracebuf_crec records: consume it
 * with tracebuf_peek_compact() and tracebuf_advance_compact() in the same
 * way. tracebuf_peek() on it, or tracebuf_peek_compact() on a standard
 * ring, returns NULL and sets the error to -EPROTO.
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

/*
 * 0, or -EBADMSG once tracebuf_peek() met a record it cannot trust, or
 * -EPROTO once it was used on a ring of the other format.
 */
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
		if (s->ctl->flags & TRACEBUF_CTL_F_COMPACT) {
			s->ring_err = -EPROTO;	/* tracebuf_peek_compact() */
			return NULL;
		}
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

static inline void tracebuf_advance_compact(struct tracebuf_session *s,
					    const struct tracebuf_crec *r)
{
	s->tail += r->size;
	/* Pairs with the module's check for free space before it writes. */
	if (!(s->map_flags & TRACEBUF_MAP_READONLY))
		tracebuf_smp_store_release(&s->ctl->data_tail, s->tail);
}

/* tracebuf_peek() for a compact ring (TRACEBUF_SETUP_F_COMPACT). */
static inline const struct tracebuf_crec *tracebuf_peek_compact(struct tracebuf_session *s)
{
	if (!s->ctl || s->ring_err)
		return NULL;
	if (!(s->ctl->flags & TRACEBUF_CTL_F_COMPACT)) {
		s->ring_err = -EPROTO;	/* tracebuf_peek() */
		return NULL;
	}
	for (;;) {
		const struct tracebuf_crec *r;
		uint64_t head, avail;
		uint32_t size;

		/* Pairs with the module's publication of data_head. */
		head = tracebuf_smp_load_acquire(&s->ctl->data_head);
		avail = head - s->tail;
		if (!avail)
			return NULL;
		r = (const struct tracebuf_crec *)(const void *)
			(s->data + (s->tail & (s->data_size - 1)));
		/* Pairs with the module's commit, as in tracebuf_peek(). */
		if (tracebuf_smp_load_acquire(&r->commit) != tracebuf_commit_tag(s->tail))
			return NULL;
		size = r->size;
		if (size % 8 || size < sizeof(*r) || size > s->data_size || size > avail) {
			s->ring_err = -EBADMSG;
			return NULL;
		}
		if (r->type != TRACEBUF_CREC_SKIP)
			return r;
		tracebuf_advance_compact(s, r);
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

static inline const struct tracebuf_rec_switch *tracebuf_as_switch(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_SWITCH, struct tracebuf_rec_switch);
}

static inline const struct tracebuf_rec_task *tracebuf_as_task(const struct tracebuf_record *r)
{
	return TRACEBUF_AS_(r, TRACEBUF_REC_TASK, struct tracebuf_rec_task);
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

/* The same for compact records (tracebuf_peek_compact()). */
#define TRACEBUF_CAS_(rec, rtype, st) \
	((rec) && (rec)->type == (rtype) && (rec)->size >= sizeof(st) ? \
	 (const st *)(const void *)(rec) : (const st *)0)

static inline const struct tracebuf_crec_lost *tracebuf_cas_lost(const struct tracebuf_crec *r)
{
	return TRACEBUF_CAS_(r, TRACEBUF_REC_LOST, struct tracebuf_crec_lost);
}

static inline const struct tracebuf_crec_user *tracebuf_cas_user(const struct tracebuf_crec *r)
{
	const struct tracebuf_crec_user *u =
		TRACEBUF_CAS_(r, TRACEBUF_REC_USER, struct tracebuf_crec_user);

	return u && u->len <= u->r.size - sizeof(*u) ? u : (const struct tracebuf_crec_user *)0;
}

#ifdef __cplusplus
}
#endif

#endif /* LIBTRACEBUF_H */
