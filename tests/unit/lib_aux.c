/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AUX calls of libtracebuf against the fakes: tracebuf_map_aux() and
 * tracebuf_unmap_aux() with fake_mmap.c playing the module's mmap, the
 * inline AUX consumer, tracebuf_aux_copy(), and ENABLE/DISABLE/SNAPSHOT
 * and GET_CAPS with fake_ioctl.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"
#include "fake_ioctl.h"
#include "fake_mmap.h"

static size_t page;

static void module_ctl(uint64_t data_size)
{
	struct tracebuf_ctl *c = &fake_mmap.ctl;

	memset(c, 0, sizeof(*c));
	c->abi_version = TRACEBUF_ABI_VERSION;
	c->ctl_size = sizeof(*c);
	c->page_size = (uint32_t)page;
	c->data_offset = page;
	c->data_size = data_size;
}

static void open_mapped(struct tracebuf_session *s, uint64_t data_size, unsigned int flags)
{
	CHECK_EQ(tracebuf_open(s, 0), 0);
	module_ctl(data_size);
	CHECK_EQ(tracebuf_map(s, data_size, flags), 0);
}

static void check_aux_unmapped(const struct tracebuf_session *s)
{
	CHECK(s->aux == NULL);
	CHECK_EQ(s->aux_size, 0);
	CHECK_EQ(s->aux_tail, 0);
	CHECK_EQ(s->aux_flags, 0);
}

static void check_map_aux_args(void)
{
	static const uint64_t bad_pages[] = { 0, 3, 6, 7 };
	struct tracebuf_session s;
	unsigned int calls, i;

	CHECK_EQ(tracebuf_map_aux(NULL, page, 0), -EINVAL);
	tracebuf_unmap_aux(NULL);

	CHECK_EQ(tracebuf_open(&s, 0), 0);
	calls = fake_mmap.calls;
	/* No data mapping yet: the module's -ENXIO, without asking it. */
	CHECK_EQ(tracebuf_map_aux(&s, page, 0), -ENXIO);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_map_aux(&s, page, 0), -EBADF);

	open_mapped(&s, page, 0);
	calls = fake_mmap.calls;
	for (i = 0; i < sizeof(bad_pages) / sizeof(bad_pages[0]); i++)
		CHECK_EQ(tracebuf_map_aux(&s, bad_pages[i] * page, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, page / 2, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, page + 8, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, 2 * TRACEBUF_AUX_SIZE_MAX, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, UINT64_MAX, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, 1ULL << 63, 0), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, page, 1U << 1), -EINVAL);
	CHECK_EQ(tracebuf_map_aux(&s, page, ~0U), -EINVAL);
	CHECK_EQ(fake_mmap.calls, calls);
	check_aux_unmapped(&s);
	tracebuf_close(&s);

	/* A read-only control page cannot take aux_offset. */
	open_mapped(&s, page, TRACEBUF_MAP_READONLY);
	calls = fake_mmap.calls;
	CHECK_EQ(tracebuf_map_aux(&s, page, 0), -EPERM);
	CHECK_EQ(fake_mmap.calls, calls);
	tracebuf_close(&s);
}

static void check_map_aux(unsigned int flags, uint64_t data_size, uint64_t aux_size)
{
	const uint64_t head = 5 * aux_size + 100;
	struct tracebuf_session s;
	unsigned char buf[64];
	unsigned int calls, unmaps;
	void *data_map, *ret;
	uint64_t i;

	open_mapped(&s, data_size, 0);
	data_map = s.ctl;
	check_aux_unmapped(&s);
	s.ctl->aux_head = head;
	s.ctl->aux_tail = head;
	calls = fake_mmap.calls;
	CHECK_EQ(tracebuf_map_aux(&s, aux_size, flags), 0);
	CHECK_EQ(fake_mmap.calls, calls + 1);
	ret = fake_mmap.last_ret;
	CHECK(fake_mmap.last_addr == NULL);
	CHECK_EQ(fake_mmap.last_len, aux_size);
	CHECK_EQ(fake_mmap.last_prot, flags & TRACEBUF_MAP_READONLY ? PROT_READ :
				      PROT_READ | PROT_WRITE);
	CHECK_EQ(fake_mmap.last_flags, MAP_SHARED);
	CHECK_EQ(fake_mmap.last_fd, s.fd);
	CHECK_EQ(fake_mmap.last_off, page + 2 * data_size);
	/* Written to the control page before mmap: the first legal offset. */
	CHECK_EQ(s.ctl->aux_offset, page + 2 * data_size);
	CHECK_EQ(s.ctl->aux_size, aux_size);
	CHECK(s.aux == ret);
	CHECK_EQ(s.aux_size, aux_size);
	CHECK_EQ(s.aux_tail, head);
	CHECK_EQ(s.aux_flags, flags);
	/* The data mapping is untouched. */
	CHECK((void *)s.ctl == data_map);
	CHECK_EQ(s.map_flags, 0);

	/* Once. */
	CHECK_EQ(tracebuf_map_aux(&s, aux_size, flags), -EBUSY);
	CHECK_EQ(fake_mmap.calls, calls + 1);

	/* The inline consumer. */
	CHECK_EQ(tracebuf_aux_head(&s), head);
	s.ctl->aux_head = head + 300;
	CHECK_EQ(tracebuf_aux_head(&s), head + 300);
	CHECK(tracebuf_aux_ptr(&s, 0) == s.aux);
	CHECK(tracebuf_aux_ptr(&s, aux_size) == s.aux);
	CHECK(tracebuf_aux_ptr(&s, head) == s.aux + 100);
	CHECK(tracebuf_aux_ptr(&s, 3 * aux_size - 1) == s.aux + aux_size - 1);
	tracebuf_aux_release(&s, head + 200);
	CHECK_EQ(s.aux_tail, head + 200);
	CHECK_EQ(s.ctl->aux_tail, flags & TRACEBUF_MAP_READONLY ? head : head + 200);

	/* Copies: whole, wrapping, clamped to the ring, and refused. */
	for (i = 0; i < aux_size; i++)
		s.aux[i] = (unsigned char)(i * 7 + 1);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(tracebuf_aux_copy(&s, aux_size + 10, 20, buf), 20);
	for (i = 0; i < 20; i++)
		CHECK_EQ(buf[i], (unsigned char)((10 + i) * 7 + 1));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(tracebuf_aux_copy(&s, 4 * aux_size - 24, 64, buf), 64);
	for (i = 0; i < 64; i++)
		CHECK_EQ(buf[i], (unsigned char)(((aux_size - 24 + i) % aux_size) * 7 + 1));
	{
		unsigned char *big = malloc(2 * aux_size);

		CHECK(big != NULL);
		if (big) {
			memset(big, 0xee, 2 * aux_size);
			CHECK_EQ(tracebuf_aux_copy(&s, 3, 2 * aux_size, big), aux_size);
			CHECK_EQ(big[0], (unsigned char)(3 * 7 + 1));
			CHECK_EQ(big[aux_size - 1], (unsigned char)(2 * 7 + 1));
			CHECK_EQ(big[aux_size], 0xee);
			free(big);
		}
	}
	CHECK_EQ(tracebuf_aux_copy(&s, 0, 0, buf), 0);
	CHECK_EQ(tracebuf_aux_copy(&s, 0, 8, NULL), 0);
	CHECK_EQ(tracebuf_aux_copy(NULL, 0, 8, buf), 0);

	/* tracebuf_unmap_aux(): the AUX area only. */
	unmaps = fake_mmap.munmap_calls;
	tracebuf_unmap_aux(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 1);
	CHECK(fake_mmap.munmap_addr == ret);
	CHECK_EQ(fake_mmap.munmap_len, aux_size);
	check_aux_unmapped(&s);
	CHECK((void *)s.ctl == data_map);
	tracebuf_unmap_aux(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 1);
	CHECK_EQ(tracebuf_aux_head(&s), 0);
	CHECK(tracebuf_aux_ptr(&s, 0) == NULL);
	tracebuf_aux_release(&s, 5);
	CHECK_EQ(s.aux_tail, 0);
	CHECK_EQ(tracebuf_aux_copy(&s, 0, 8, buf), 0);

	/* tracebuf_unmap(): the AUX area first, then the data mapping. */
	CHECK_EQ(tracebuf_map_aux(&s, aux_size, flags), 0);
	ret = fake_mmap.last_ret;
	tracebuf_unmap(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 3);
	CHECK(fake_mmap.munmap_addr == data_map);
	check_aux_unmapped(&s);
	CHECK(s.ctl == NULL);

	/* tracebuf_close() too. */
	module_ctl(data_size);
	CHECK_EQ(tracebuf_map(&s, data_size, 0), 0);
	CHECK_EQ(tracebuf_map_aux(&s, aux_size, flags), 0);
	tracebuf_close(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 5);
	check_aux_unmapped(&s);
	CHECK_EQ(s.fd, -1);
}

static void check_map_aux_fails(void)
{
	struct tracebuf_session s;
	unsigned int unmaps;

	open_mapped(&s, page, 0);
	unmaps = fake_mmap.munmap_calls;
	fake_mmap.err = ENOMEM;
	CHECK_EQ(tracebuf_map_aux(&s, 4 * page, 0), -ENOMEM);
	fake_mmap.err = ENODEV;
	CHECK_EQ(tracebuf_map_aux(&s, 4 * page, TRACEBUF_MAP_READONLY), -ENODEV);
	fake_mmap.err = 0;
	CHECK_EQ(fake_mmap.munmap_calls, unmaps);
	check_aux_unmapped(&s);
	/* Still usable. */
	CHECK_EQ(tracebuf_map_aux(&s, 4 * page, 0), 0);
	CHECK(s.aux != NULL);
	tracebuf_close(&s);
}

static void check_trace_ioctls(void)
{
	struct tracebuf_session s;

	CHECK_EQ(tracebuf_enable(NULL), -EINVAL);
	CHECK_EQ(tracebuf_disable(NULL), -EINVAL);
	CHECK_EQ(tracebuf_snapshot(NULL), -EINVAL);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_enable(&s), 0);
	CHECK_EQ(fake_tb.enable_calls, 1);
	CHECK_EQ(tracebuf_snapshot(&s), 0);
	CHECK_EQ(fake_tb.snapshot_calls, 1);
	CHECK_EQ(tracebuf_disable(&s), 0);
	CHECK_EQ(fake_tb.disable_calls, 1);
	fake_tb.trace_err = EALREADY;
	CHECK_EQ(tracebuf_enable(&s), -EALREADY);
	fake_tb.trace_err = EBUSY;
	CHECK_EQ(tracebuf_enable(&s), -EBUSY);
	fake_tb.trace_err = ENXIO;
	CHECK_EQ(tracebuf_snapshot(&s), -ENXIO);
	fake_tb.trace_err = 0;
	CHECK_EQ(fake_tb.enable_calls, 3);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_enable(&s), -EBADF);
	CHECK_EQ(tracebuf_disable(&s), -EBADF);
	CHECK_EQ(tracebuf_snapshot(&s), -EBADF);
	CHECK_EQ(fake_tb.enable_calls, 3);
}

static void check_get_caps(void)
{
	const struct tracebuf_caps_query *q = &fake_tb.last_caps;
	struct tracebuf_pt_caps caps;
	struct tracebuf_session s;
	unsigned char small[8];
	unsigned int calls;

	CHECK_EQ(tracebuf_open(&s, 0), 0);
	calls = fake_tb.caps_calls;
	CHECK_EQ(tracebuf_get_caps(NULL, "intel_pt", 0, &caps, sizeof(caps)), -EINVAL);
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 0, NULL, sizeof(caps)), -EINVAL);
	CHECK_EQ(tracebuf_get_caps(&s, "0123456789abcdef", 0, &caps, sizeof(caps)), -EINVAL);
	CHECK_EQ(fake_tb.caps_calls, calls);

	fake_tb.nr_backends = 1;
	memset(&caps, 0xff, sizeof(caps));
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 3, &caps, sizeof(caps)), sizeof(caps));
	CHECK_EQ(q->size, sizeof(*q));
	CHECK_EQ(q->cpu, 3);
	CHECK(strcmp(q->backend, "intel_pt") == 0);
	CHECK_EQ(q->caps_size, sizeof(caps));
	CHECK(q->caps_ptr == (uint64_t)(uintptr_t)&caps);
	CHECK_EQ(q->reserved0, 0);
	CHECK(q->reserved[0] == 0 && q->reserved[1] == 0);
	CHECK_EQ(caps.family, 6);
	CHECK_EQ(caps.nr_addr_ranges, 2);
	CHECK(caps.reserved[0] == 0);

	/* A short buffer: what fits, and the kernel's size. */
	memset(small, 0, sizeof(small));
	CHECK_EQ(tracebuf_get_caps(&s, NULL, 0, small, sizeof(small)), sizeof(caps));
	CHECK(strcmp(q->backend, "auto") == 0);
	CHECK_EQ(q->caps_size, sizeof(small));
	CHECK_EQ(small[0], 1);
	CHECK_EQ(tracebuf_get_caps(&s, "", 0, NULL, 0), sizeof(caps));
	CHECK_EQ(q->caps_size, 0);
	CHECK(q->caps_ptr == 0);

	CHECK_EQ(tracebuf_get_caps(&s, "coresight", 0, &caps, sizeof(caps)), -ENODEV);
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 8, &caps, sizeof(caps)), -EINVAL);
	fake_tb.nr_backends = 0;
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 0, &caps, sizeof(caps)), -ENODEV);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 0, &caps, sizeof(caps)), -EBADF);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	fake_mmap.emulate = 1;

	check_map_aux_args();
	check_map_aux(0, page, page);
	check_map_aux(0, 4 * page, 16 * page);
	check_map_aux(TRACEBUF_MAP_READONLY, 2 * page, 8 * page);
	check_map_aux_fails();
	check_trace_ioctls();
	check_get_caps();
	return check_done();
}
