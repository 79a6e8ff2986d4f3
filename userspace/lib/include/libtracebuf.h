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

#include <tracebuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One open /dev/tracebuf. Public so that the inline ring helpers added with
 * the mmap interface can reach the ring state without a call. Callers only
 * read 'fd' and 'flags'.
 */
struct tracebuf_session {
	int fd;			/* -1 when not open */
	unsigned int flags;	/* TRACEBUF_OPEN_* given to tracebuf_open() */
	void *reserved_ptr[6];	/* mmap ring state, added later; zero */
};

/* tracebuf_open() flags */
#define TRACEBUF_OPEN_NONBLOCK	(1U << 0)	/* open with O_NONBLOCK */

int tracebuf_open(struct tracebuf_session *s, unsigned int flags);
void tracebuf_close(struct tracebuf_session *s);

int tracebuf_get_info(struct tracebuf_session *s, struct tracebuf_info *info,
		      struct tracebuf_backend_desc *backends,
		      unsigned int max_backends);

const char *tracebuf_version(void);
const char *tracebuf_strerror(int err);
const char *tracebuf_backend_name(unsigned int id);

#ifdef __cplusplus
}
#endif

#endif /* LIBTRACEBUF_H */
