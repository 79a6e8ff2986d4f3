/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Internal header of libtracebuf. The library is built with
 * -fvisibility=hidden: only what the public header declares gets default
 * visibility, and libtracebuf.map then picks the exported set from that.
 */
#ifndef LIBTRACEBUF_LIB_H
#define LIBTRACEBUF_LIB_H

#pragma GCC visibility push(default)
#include "libtracebuf.h"
#pragma GCC visibility pop

#endif /* LIBTRACEBUF_LIB_H */
