/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Memory ordering for the libtracebuf ring helpers, as GCC/Clang __atomic
 * builtins (the same approach as liburing's barrier.h). Included by
 * libtracebuf.h; usable on its own.
 *
 * tracebuf_smp_load_acquire(p)      loads *p; later loads and stores are
 *                                   not reordered before it
 * tracebuf_smp_store_release(p, v)  stores v to *p; earlier loads and
 *                                   stores are not reordered after it
 *
 * These pair with the module's smp_store_release()/smp_load_acquire() on
 * the same words of the control page and of each record (see the barrier
 * protocol in <tracebuf.h>). p must be naturally aligned.
 */
#ifndef LIBTRACEBUF_BARRIER_H
#define LIBTRACEBUF_BARRIER_H

#define tracebuf_smp_load_acquire(p) \
	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define tracebuf_smp_store_release(p, v) \
	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* LIBTRACEBUF_BARRIER_H */
