/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf_map() and tracebuf_unmap() against the fake mmap in fake_mmap.c,
 * which answers as the module would: what the library asks of mmap(), how
 * it checks the control page, and the session state it leaves behind.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"
#include "fake_mmap.h"

static size_t page;

/* The control page of a fresh ring of 'data_size' bytes. */
static void module_ctl(uint64_t data_size, uint64_t tail)
{
	struct tracebuf_ctl *c = &fake_mmap.ctl;

	memset(c, 0, sizeof(*c));
	c->abi_version = TRACEBUF_ABI_VERSION;
	c->ctl_size = sizeof(*c);
	c->page_size = (uint32_t)page;
	c->data_offset = page;
	c->data_size = data_size;
	c->clock_id = 1;
	c->data_head = tail;
	c->data_tail = tail;
}

static void open_session(struct tracebuf_session *s)
{
	CHECK_EQ(tracebuf_open(s, 0), 0);
}

static void check_unmapped_state(const struct tracebuf_session *s)
{
	CHECK(s->ctl == NULL);
	CHECK(s->data == NULL);
	CHECK_EQ(s->data_size, 0);
	CHECK_EQ(s->map_len, 0);
	CHECK_EQ(s->tail, 0);
	CHECK_EQ(s->map_flags, 0);
	CHECK_EQ(s->ring_err, 0);
}

static void check_map(unsigned int flags, uint64_t data_size)
{
	struct tracebuf_session s;
	unsigned int calls, unmaps;
	size_t len = page + 2 * (size_t)data_size;
	void *ret;

	open_session(&s);
	check_unmapped_state(&s);
	module_ctl(data_size, 3 * data_size + 24);
	calls = fake_mmap.calls;
	CHECK_EQ(tracebuf_map(&s, data_size, flags), 0);
	CHECK_EQ(fake_mmap.calls, calls + 1);
	ret = fake_mmap.last_ret;
	CHECK(fake_mmap.last_addr == NULL);
	CHECK_EQ(fake_mmap.last_len, len);
	CHECK_EQ(fake_mmap.last_prot, flags & TRACEBUF_MAP_READONLY ? PROT_READ :
				      PROT_READ | PROT_WRITE);
	CHECK_EQ(fake_mmap.last_flags, MAP_SHARED);
	CHECK_EQ(fake_mmap.last_fd, s.fd);
	CHECK_EQ(fake_mmap.last_off, 0);

	CHECK((void *)s.ctl == ret);
	CHECK(s.data == (unsigned char *)ret + page);
	CHECK_EQ(s.data_size, data_size);
	CHECK_EQ(s.map_len, len);
	CHECK_EQ(s.tail, 3 * data_size + 24);
	CHECK_EQ(s.map_flags, flags);
	CHECK_EQ(s.ring_err, 0);
	CHECK(tracebuf_peek(&s) == NULL);
	CHECK_EQ(tracebuf_unread(&s), 0);
	s.ctl->data_head += 64;
	CHECK_EQ(tracebuf_unread(&s), 64);

	/* Once per session. */
	CHECK_EQ(tracebuf_map(&s, data_size, flags), -EBUSY);
	CHECK_EQ(fake_mmap.calls, calls + 1);
	CHECK((void *)s.ctl == ret);

	/* Unmap what was mapped, once. */
	unmaps = fake_mmap.munmap_calls;
	tracebuf_unmap(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 1);
	CHECK(fake_mmap.munmap_addr == ret);
	CHECK_EQ(fake_mmap.munmap_len, len);
	check_unmapped_state(&s);
	CHECK(s.fd >= 0);
	tracebuf_unmap(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 1);
	CHECK(tracebuf_peek(&s) == NULL);

	/* Mapped again, then closed: close unmaps. */
	CHECK_EQ(tracebuf_map(&s, data_size, flags), 0);
	ret = fake_mmap.last_ret;
	tracebuf_close(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 2);
	CHECK(fake_mmap.munmap_addr == ret);
	CHECK_EQ(fake_mmap.munmap_len, len);
	check_unmapped_state(&s);
	CHECK_EQ(s.fd, -1);
	tracebuf_close(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 2);
}

/* A control page that does not describe the mapping: undone, -EPROTO. */
static void check_bad_ctl(int what)
{
	struct tracebuf_session s;
	unsigned int unmaps = fake_mmap.munmap_calls;
	uint64_t size = 2 * page;

	open_session(&s);
	module_ctl(size, 0);
	switch (what) {
	case 0:
		fake_mmap.ctl.abi_version = TRACEBUF_ABI_VERSION + 1;
		break;
	case 1:
		fake_mmap.ctl.abi_version = 0;
		break;
	case 2:
		fake_mmap.ctl.data_size = size / 2;
		break;
	case 3:
		fake_mmap.ctl.data_size = 0;
		break;
	case 4:
		fake_mmap.ctl.data_offset = 2 * page;
		break;
	}
	CHECK_EQ(tracebuf_map(&s, size, 0), -EPROTO);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps + 1);
	CHECK(fake_mmap.munmap_addr == fake_mmap.last_ret);
	CHECK_EQ(fake_mmap.munmap_len, page + 2 * size);
	check_unmapped_state(&s);

	/* The session is still usable. */
	module_ctl(size, 0);
	CHECK_EQ(tracebuf_map(&s, size, 0), 0);
	CHECK(s.ctl != NULL);
	tracebuf_close(&s);
}

static void check_mmap_fails(void)
{
	struct tracebuf_session s;
	unsigned int unmaps = fake_mmap.munmap_calls;

	open_session(&s);
	module_ctl(page, 0);
	fake_mmap.err = ENOMEM;
	CHECK_EQ(tracebuf_map(&s, page, 0), -ENOMEM);
	fake_mmap.err = EBUSY;
	CHECK_EQ(tracebuf_map(&s, page, 0), -EBUSY);
	fake_mmap.err = 0;
	CHECK_EQ(fake_mmap.munmap_calls, unmaps);
	check_unmapped_state(&s);
	tracebuf_close(&s);
	CHECK_EQ(fake_mmap.munmap_calls, unmaps);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	fake_mmap.emulate = 1;

	check_map(0, page);
	check_map(0, 16 * page);
	check_map(TRACEBUF_MAP_READONLY, 4 * page);
	check_bad_ctl(0);
	check_bad_ctl(1);
	check_bad_ctl(2);
	check_bad_ctl(3);
	check_bad_ctl(4);
	check_mmap_fails();
	return check_done();
}
