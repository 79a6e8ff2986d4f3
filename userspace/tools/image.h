/* SPDX-License-Identifier: GPL-2.0 */
/*
 * image.h - the code a trace ran through, for the instruction decoders
 * (ptdec.c: libipt, csdec.c: OpenCSD) and their output (flow.c).
 *
 * An img_file is an ELF file opened from the path the sideband recorded
 * (looked up under --sysroot first; "[vdso]" is the copy in the capture)
 * and checked against the recorded build-id: a file that is missing, is
 * not ELF or has another build-id is refused once, with a message naming
 * it, and the code it would have provided is "not mapped" for the
 * decoders (they report it and resume at the next synchronisation
 * point). Its bytes are read from a read-only mapping of the file, its
 * symbols through elfutils (libdw's dwfl: .symtab, else a separate debug
 * file found by build-id or .gnu_debuglink, else .dynsym), cached per
 * function.
 *
 * An img_space is what one process had mapped at one time: executable
 * mappings (start, end, file offset, file), sorted, not overlapping. The
 * decoders read code through it; the output asks it which binary and
 * symbol an address is in.
 *
 * The kernel: with kernel trace, and only when the caller can read
 * /proc/kcore and the capture says which kernel ran (the build-id of the
 * running kernel, /sys/kernel/notes, must equal it), kernel addresses are
 * read from /proc/kcore and named from /proc/kallsyms; otherwise they
 * are reported as not decoded, with the reason (img_kernel()).
 */
#ifndef TRACEBUF_IMAGE_H
#define TRACEBUF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMG_BUILD_ID_MAX	20	/* perf's mmap2 build-id field */

struct img_cache;
struct img_file;
struct img_kernel;

struct img_opts {
	const char *cmd;		/* "decode", "export": for messages */
	const char *sysroot;		/* NULL, or a directory recorded paths are looked up in first */
	const char *capdir;		/* the capture directory (the vDSO's copy) */
	const char *vdso;		/* the vDSO's copy, relative to capdir; NULL: "vdso.so" */
	bool quiet;			/* no messages (counted only) */
};

int img_cache_new(const struct img_opts *o, struct img_cache **c);
void img_cache_free(struct img_cache *c);

/*
 * The file recorded as path, with that build-id (bid_len 0: none
 * recorded, not checked). NULL when it cannot be used: why names the
 * file and the problem (valid while the cache lives); the message is
 * printed on stderr the first time.
 */
struct img_file *img_get(struct img_cache *c, const char *path, const uint8_t *bid,
			 unsigned int bid_len, const char **why);

const char *img_path(const struct img_file *f);		/* as recorded */
const char *img_found(const struct img_file *f);	/* the file opened */
int img_machine(const struct img_file *f);		/* EM_X86_64, EM_AARCH64, ... */
/* The file's size in bytes. */
uint64_t img_size(const struct img_file *f);
/* Up to len bytes at file offset off: the number read (0 past the end). */
size_t img_read(const struct img_file *f, uint64_t off, void *buf, size_t len);
/*
 * The symbol whose code holds file offset off: its name (valid while the
 * cache lives) and *soff, off's distance from its start; NULL if none.
 */
const char *img_sym(struct img_file *f, uint64_t off, uint64_t *soff);
/* Files refused (missing, not ELF, build-id mismatch). */
unsigned int img_refused(const struct img_cache *c);

/* One executable mapping of a process. */
struct img_map {
	uint64_t start, end;		/* [start, end) */
	uint64_t pgoff;			/* file offset of start */
	struct img_file *f;		/* NULL: refused (why says why) */
	const char *path;		/* as recorded */
	const char *why;
};

/* A process's executable mappings at one time. */
struct img_space {
	struct img_map *maps;		/* sorted by start, not overlapping */
	size_t n;
	size_t last;			/* the mapping last found */
	struct img_kernel *kernel;	/* NULL: kernel addresses are not decoded */
};

/* What an address is. */
struct img_where {
	const char *binary;		/* recorded path; NULL: nothing mapped there */
	const char *sym;		/* NULL: no symbol */
	uint64_t soff;			/* offset into sym, else into binary (file offset) */
	bool kernel;
	const char *why;		/* binary refused: why */
};

/*
 * The executable PT_LOAD segments of f as mappings appended to *maps
 * (reallocated), placed at base (ET_DYN: base + p_vaddr; without
 * have_base, and for ET_EXEC, at p_vaddr). 0, or -1 when it has none.
 */
int img_elf_segments(struct img_file *f, bool have_base, uint64_t base, struct img_map **maps,
		     size_t *n);

/* Bytes of code at [addr, addr + len): the number read, from the start. */
size_t img_space_read(struct img_space *s, uint64_t addr, void *buf, size_t len);
/* Fills w for addr; 0, or -1 when nothing is mapped there. */
int img_space_where(struct img_space *s, uint64_t addr, struct img_where *w);
/* Why there is no code at addr: a sentence (static storage, or the cache's). */
const char *img_space_why(struct img_space *s, uint64_t addr, char *buf, size_t len);

/*
 * The kernel, for captures with kernel trace: NULL with *why set (the
 * reason kernel addresses are not decoded) unless /proc/kcore is
 * readable and the running kernel's build-id equals build_id (hex, the
 * capture's record of the kernel that ran; NULL: not recorded).
 */
struct img_kernel *img_kernel(struct img_cache *c, const char *build_id, const char **why);
/* Kernel addresses start here (x86_64 and arm64: the upper half). */
#define IMG_KERNEL_START	0xffff000000000000ULL

#endif /* TRACEBUF_IMAGE_H */
