/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * The AUX area (what the trace hardware writes), starting and stopping
 * the hardware, and a backend's capabilities. Consuming the AUX area is
 * inline in libtracebuf.h (tracebuf_aux_head, _ptr, _release).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib.h"

#define TRACEBUF_MAP_AUX_ALL	(TRACEBUF_MAP_READONLY)

void tb_clear_aux(struct tracebuf_session *s)
{
	s->aux = NULL;
	s->aux_size = 0;
	s->aux_tail = 0;
	s->aux_flags = 0;
}

/* What the module accepts: 2^n pages, n >= 0, at most the maximum. */
static int tb_valid_aux_size(uint64_t aux_size, uint64_t page_size)
{
	return aux_size >= page_size && aux_size <= TRACEBUF_AUX_SIZE_MAX &&
	       aux_size <= SIZE_MAX && !(aux_size & (aux_size - 1)) &&
	       !(aux_size % page_size);
}

int tracebuf_map_aux(struct tracebuf_session *s, uint64_t aux_size, unsigned int flags)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int prot = PROT_READ;
	uint64_t offset;
	void *p;

	if (!s || (flags & ~TRACEBUF_MAP_AUX_ALL) || page_size <= 0)
		return -EINVAL;
	if (!tb_valid_aux_size(aux_size, (uint64_t)page_size))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;
	if (!s->ctl)
		return -ENXIO;		/* as the module: no data mapping yet */
	if (s->aux)
		return -EBUSY;
	/* The control page of a read-only mapping cannot take aux_offset. */
	if (s->map_flags & TRACEBUF_MAP_READONLY)
		return -EPERM;

	/* The first legal offset: right after the data mapping. */
	offset = (uint64_t)s->map_len;
	if ((off_t)offset < 0 || (uint64_t)(off_t)offset != offset)
		return -EOVERFLOW;
	/* Read by the module's mmap handler: the system call orders them. */
	s->ctl->aux_offset = offset;
	s->ctl->aux_size = aux_size;

	if (!(flags & TRACEBUF_MAP_READONLY))
		prot |= PROT_WRITE;
	p = mmap(NULL, (size_t)aux_size, prot, MAP_SHARED, s->fd, (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;

	s->aux = p;
	s->aux_size = aux_size;
	s->aux_flags = (uint16_t)flags;
	/* The module set aux_tail = aux_head for the new area. */
	s->aux_tail = tracebuf_smp_load_acquire(&s->ctl->aux_head);
	return 0;
}

void tracebuf_unmap_aux(struct tracebuf_session *s)
{
	if (!s || !s->aux)
		return;
	/* Stops the hardware first (the module's doing); nothing to retry. */
	munmap(s->aux, (size_t)s->aux_size);
	tb_clear_aux(s);
}

size_t tracebuf_aux_copy(const struct tracebuf_session *s, uint64_t pos, uint64_t len,
			 void *dst)
{
	size_t off, first, n;

	if (!s || !s->aux || !dst)
		return 0;
	/* The ring holds no more than aux_size bytes of any span. */
	if (len > s->aux_size)
		len = s->aux_size;
	n = (size_t)len;
	off = (size_t)(pos & (s->aux_size - 1));
	first = (size_t)s->aux_size - off;
	if (first > n)
		first = n;
	memcpy(dst, s->aux + off, first);
	memcpy((unsigned char *)dst + first, s->aux, n - first);
	return n;
}

static int tb_simple_ioctl(struct tracebuf_session *s, unsigned long req)
{
	if (!s)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;
	if (ioctl(s->fd, req, 0) < 0)
		return -errno;
	return 0;
}

int tracebuf_enable(struct tracebuf_session *s)
{
	return tb_simple_ioctl(s, TRACEBUF_IOC_ENABLE);
}

int tracebuf_disable(struct tracebuf_session *s)
{
	return tb_simple_ioctl(s, TRACEBUF_IOC_DISABLE);
}

int tracebuf_snapshot(struct tracebuf_session *s)
{
	return tb_simple_ioctl(s, TRACEBUF_IOC_SNAPSHOT);
}

int tracebuf_get_caps(struct tracebuf_session *s, const char *backend, unsigned int cpu,
		      void *caps, size_t size)
{
	struct tracebuf_caps_query q;
	size_t n;

	if (!s || (!caps && size))
		return -EINVAL;
	if (!backend)
		backend = TRACEBUF_BACKEND_AUTO;
	n = strnlen(backend, sizeof(q.backend));
	if (n >= sizeof(q.backend))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.cpu = cpu;
	memcpy(q.backend, backend, n);
	q.caps_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	q.caps_ptr = (uint64_t)(uintptr_t)caps;
	if (ioctl(s->fd, TRACEBUF_IOC_GET_CAPS, &q) < 0)
		return -errno;
	return q.caps_size > INT32_MAX ? INT32_MAX : (int)q.caps_size;
}
