// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - ELF files, their build-ids and symbols, address spaces, and
 * the kernel through /proc/kcore (image.h). Built only with elfutils
 * (LIBDW=1: libelf and libdw).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

#include "image.h"

/* A function's extent, found once through dwfl. */
struct sym_range {
	uint64_t lo, hi;		/* [lo, hi) in the file's vaddrs */
	const char *name;		/* NULL: no symbol there */
};

struct img_file {
	struct img_cache *c;
	char *path;			/* as recorded */
	char *found;			/* the file opened; NULL: refused */
	char *why;			/* refused: why */
	uint8_t bid[IMG_BUILD_ID_MAX];
	unsigned int bid_len;
	const uint8_t *map;		/* the whole file, read-only */
	uint64_t size;
	Elf *elf;
	int machine;
	GElf_Phdr *load;		/* PT_LOAD program headers */
	size_t nload;
	Dwfl *dwfl;			/* symbols: opened on first use */
	Dwfl_Callbacks *cb;		/* dwfl keeps a pointer to it */
	Dwfl_Module *mod;
	bool dwfl_failed;
	struct sym_range *syms;		/* sorted by lo */
	size_t nsyms, syms_cap;
	struct sym_range *plt;		/* PLT stubs, "name@plt", sorted */
	size_t nplt;
	bool plt_done;
	char **names;			/* copies of symbol names (dwfl's may move) */
	size_t nnames, names_cap;
};

struct ksym {
	uint64_t addr;
	char *name;
};

struct img_kernel {
	int fd;				/* /proc/kcore */
	GElf_Phdr *load;
	size_t nload;
	struct ksym *syms;		/* /proc/kallsyms, text, sorted */
	size_t nsyms;
};

struct img_cache {
	struct img_opts o;
	struct img_file **files;
	size_t n, cap;
	unsigned int refused;
	struct img_kernel *kernel;
	bool kernel_tried;
	const char *kernel_why;
	char kernel_msg[256];
	char *debuginfo_path;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void *xrealloc_arr(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		p = NULL;
	else
		p = realloc(p, n && size ? n * size : 1);
	if (!p) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

static void hex(char *out, const uint8_t *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

int img_cache_new(const struct img_opts *o, struct img_cache **c)
{
	struct img_cache *ic;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	ic = xcalloc(1, sizeof(*ic));
	ic->o = *o;
	/* Separate debug files: under the sysroot's /usr/lib/debug too. */
	if (o->sysroot)
		ic->debuginfo_path = xasprintf("-.debug:%s/usr/lib/debug:/usr/lib/debug",
					       o->sysroot);
	else
		ic->debuginfo_path = xstrdup("-.debug:/usr/lib/debug");
	*c = ic;
	return 0;
}

static void file_free(struct img_file *f)
{
	size_t i;

	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->cb);
	if (f->elf)
		elf_end(f->elf);
	if (f->map)
		munmap((void *)f->map, f->size);
	for (i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	free(f->syms);
	free(f->plt);
	free(f->load);
	free(f->path);
	free(f->found);
	free(f->why);
	free(f);
}

static void kernel_free(struct img_kernel *k)
{
	size_t i;

	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	for (i = 0; i < k->nsyms; i++)
		free(k->syms[i].name);
	free(k->syms);
	free(k->load);
	free(k);
}

void img_cache_free(struct img_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		file_free(c->files[i]);
	free(c->files);
	kernel_free(c->kernel);
	free(c->debuginfo_path);
	free(c);
}

unsigned int img_refused(const struct img_cache *c)
{
	return c->refused;
}

const char *img_path(const struct img_file *f)
{
	return f->path;
}

const char *img_found(const struct img_file *f)
{
	return f->found;
}

int img_machine(const struct img_file *f)
{
	return f->machine;
}

uint64_t img_size(const struct img_file *f)
{
	return f->size;
}

/*
 * Open candidate path as f's ELF file: 0; 1 when it does not exist; -1
 * when it exists but cannot be used (*why set, allocated).
 */
static int try_open(struct img_file *f, const char *cand, char **why)
{
	const void *bid = NULL;
	ssize_t blen;
	struct stat st;
	GElf_Ehdr eh;
	size_t i, nph;
	void *map;
	Elf *elf;
	int fd;

	fd = open(cand, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		*why = xasprintf("%s: %s", cand, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		*why = xasprintf("%s: not a regular file with contents", cand);
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*why = xasprintf("%s: mmap: %s", cand, strerror(errno));
		return -1;
	}
	elf = elf_memory(map, (size_t)st.st_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		*why = xasprintf("%s: not an ELF file", cand);
		goto bad;
	}
	blen = dwelf_elf_gnu_build_id(elf, &bid);
	if (f->bid_len) {
		char want[2 * IMG_BUILD_ID_MAX + 1], got[2 * IMG_BUILD_ID_MAX + 1];

		hex(want, f->bid, f->bid_len);
		if (blen <= 0) {
			*why = xasprintf("%s has no build-id, the capture recorded %s", cand, want);
			goto bad;
		}
		if ((size_t)blen != f->bid_len || memcmp(bid, f->bid, f->bid_len)) {
			hex(got, bid, blen > IMG_BUILD_ID_MAX ? IMG_BUILD_ID_MAX : (unsigned int)blen);
			*why = xasprintf("%s has build-id %s, the capture recorded %s (another "
					 "build of the file)", cand, got, want);
			goto bad;
		}
	}
	if (elf_getphdrnum(elf, &nph) < 0) {
		*why = xasprintf("%s: no program headers", cand);
		goto bad;
	}
	f->load = xcalloc(nph, sizeof(*f->load));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->load[f->nload++] = ph;
	}
	f->map = map;
	f->size = (uint64_t)st.st_size;
	f->elf = elf;
	f->machine = eh.e_machine;
	f->found = xstrdup(cand);
	return 0;
bad:
	if (elf)
		elf_end(elf);
	munmap(map, (size_t)st.st_size);
	return -1;
}

/* The vDSO's copy in the capture: the configured name, else vdso*. */
static int open_vdso(struct img_cache *c, struct img_file *f, char **why)
{
	const char *name = c->o.vdso ? c->o.vdso : "vdso.so";
	char *cand, *first_why = NULL;
	struct dirent *de;
	DIR *d;
	int r;

	if (!c->o.capdir)
		return 1;
	cand = xasprintf("%s/%s", c->o.capdir, name);
	r = try_open(f, cand, why);
	free(cand);
	if (r <= 0)
		return r;
	/* Several copies (several vDSOs): the one with the build-id. */
	d = opendir(c->o.capdir);
	if (!d)
		return 1;
	r = 1;
	while (r && (de = readdir(d)) != NULL) {
		char *w = NULL;

		if (strncmp(de->d_name, "vdso", 4))
			continue;
		cand = xasprintf("%s/%s", c->o.capdir, de->d_name);
		r = try_open(f, cand, &w);
		free(cand);
		if (r < 0 && !first_why)
			first_why = w;
		else
			free(w);
		if (r < 0)
			r = 1;
	}
	closedir(d);
	if (r && first_why) {
		*why = first_why;
		return -1;
	}
	free(first_why);
	return r;
}

struct img_file *img_get(struct img_cache *c, const char *path, const uint8_t *bid,
			 unsigned int bid_len, const char **why)
{
	struct img_file *f;
	char *w = NULL, *cand;
	size_t i;
	int r = 1;

	if (bid_len > IMG_BUILD_ID_MAX)
		bid_len = IMG_BUILD_ID_MAX;
	for (i = 0; i < c->n; i++) {
		f = c->files[i];
		if (!strcmp(f->path, path) && f->bid_len == bid_len &&
		    (!bid_len || !memcmp(f->bid, bid, bid_len))) {
			*why = f->why;
			return f->found ? f : NULL;
		}
	}
	f = xcalloc(1, sizeof(*f));
	f->c = c;
	f->path = xstrdup(path);
	if (bid_len)
		memcpy(f->bid, bid, bid_len);
	f->bid_len = bid_len;
	if (!strcmp(path, "[vdso]")) {
		r = open_vdso(c, f, &w);
		if (r > 0)
			w = xasprintf("[vdso]: the capture has no copy of the vDSO (%s/%s)",
				      c->o.capdir ? c->o.capdir : ".",
				      c->o.vdso ? c->o.vdso : "vdso.so");
	} else if (path[0] != '/') {
		w = xasprintf("%s: not a file (an anonymous or special mapping)", path);
		r = -1;
	} else {
		if (c->o.sysroot) {
			cand = xasprintf("%s%s", c->o.sysroot, path);
			r = try_open(f, cand, &w);
			free(cand);
		}
		if (r > 0 || (r < 0 && c->o.sysroot)) {
			char *w2 = NULL;
			int r2 = try_open(f, path, &w2);

			if (r2 == 0) {
				free(w);
				w = NULL;
				r = 0;
			} else if (r > 0) {
				r = r2;
				w = w2;
			} else {
				free(w2);
			}
		}
		if (r > 0)
			w = xasprintf("%s: not found%s%s", path,
				      c->o.sysroot ? " (nor under --sysroot " : "",
				      c->o.sysroot ? c->o.sysroot : "");
		if (r > 0 && c->o.sysroot) {
			char *w2 = xasprintf("%s)", w);

			free(w);
			w = w2;
		}
	}
	if (r) {
		f->why = xasprintf("%s: its code is not decoded", w);
		free(w);
		c->refused++;
		if (!c->o.quiet)
			fprintf(stderr, "tracebuf: %s: %s\n", c->o.cmd, f->why);
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->files = xrealloc_arr(c->files, c->cap, sizeof(*c->files));
	}
	c->files[c->n++] = f;
	*why = f->why;
	return f->found ? f : NULL;
}

size_t img_read(const struct img_file *f, uint64_t off, void *buf, size_t len)
{
	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = (size_t)(f->size - off);
	memcpy(buf, f->map + off, len);
	return len;
}

/* ---- symbols ------------------------------------------------------------ */

static bool file_vaddr(const struct img_file *f, uint64_t off, uint64_t *va)
{
	size_t i;

	for (i = 0; i < f->nload; i++) {
		const GElf_Phdr *p = &f->load[i];

		if (off >= p->p_offset && off - p->p_offset < p->p_filesz) {
			*va = p->p_vaddr + (off - p->p_offset);
			return true;
		}
	}
	return false;
}

static bool open_dwfl(struct img_cache *c, struct img_file *f)
{
	static const Dwfl_Callbacks cb_tmpl = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl_Callbacks *cb;

	if (f->dwfl || f->dwfl_failed)
		return f->dwfl != NULL;
	/* dwfl keeps the pointer: one per file, freed with it. */
	cb = xcalloc(1, sizeof(*cb));
	*cb = cb_tmpl;
	f->cb = cb;
	cb->debuginfo_path = &c->debuginfo_path;
	f->dwfl = dwfl_begin(cb);
	if (f->dwfl) {
		dwfl_report_begin(f->dwfl);
		/* ET_DYN at base 0 with its p_vaddr: module addresses are file vaddrs. */
		f->mod = dwfl_report_elf(f->dwfl, f->path, f->found, -1, 0, true);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	if (!f->mod) {
		if (f->dwfl)
			dwfl_end(f->dwfl);
		f->dwfl = NULL;
		f->dwfl_failed = true;
	}
	return f->dwfl != NULL;
}

static const char *keep_name_plt(struct img_file *f, const char *name)
{
	if (f->nnames == f->names_cap) {
		f->names_cap = f->names_cap ? 2 * f->names_cap : 64;
		f->names = xrealloc_arr(f->names, f->names_cap, sizeof(*f->names));
	}
	f->names[f->nnames] = xstrdup(name);
	return f->names[f->nnames++];
}

/* A copy of a symbol's name without its version ("memcpy@@GLIBC_2.14"). */
static const char *keep_name(struct img_file *f, const char *name)
{
	char *at;

	if (f->nnames == f->names_cap) {
		f->names_cap = f->names_cap ? 2 * f->names_cap : 64;
		f->names = xrealloc_arr(f->names, f->names_cap, sizeof(*f->names));
	}
	f->names[f->nnames] = xstrdup(name);
	at = strchr(f->names[f->nnames], '@');
	if (at && at != f->names[f->nnames])
		*at = 0;
	return f->names[f->nnames++];
}

/*
 * PLT stubs have no symbol: name them "function@plt" from .rela.plt, as
 * objdump and perf do. x86_64: 16-byte stubs in .plt.sec (IBT), else in
 * .plt after its 16-byte header; AArch64: 16-byte stubs in .plt after its
 * 32-byte header; one per .rela.plt entry, in order.
 */
static void plt_names(struct img_file *f)
{
	Elf_Scn *scn = NULL, *rela = NULL, *plt = NULL, *plt_sec = NULL;
	GElf_Shdr rsh, psh, dsh;
	Elf_Data *rd, *dd;
	size_t shstrndx, i, n;
	uint64_t base, stride = 16;

	f->plt_done = true;
	if (elf_getshdrstrndx(f->elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".rela.plt"))
			rela = scn;
		else if (!strcmp(name, ".plt"))
			plt = scn;
		else if (!strcmp(name, ".plt.sec"))
			plt_sec = scn;
	}
	if (!rela || !(plt || plt_sec) || !gelf_getshdr(rela, &rsh) || !rsh.sh_entsize)
		return;
	if (plt_sec && f->machine == EM_X86_64) {
		gelf_getshdr(plt_sec, &psh);
		base = psh.sh_addr;
	} else if (plt) {
		gelf_getshdr(plt, &psh);
		base = psh.sh_addr + (f->machine == EM_AARCH64 ? 32 : 16);
	} else {
		return;
	}
	if (f->machine != EM_X86_64 && f->machine != EM_AARCH64)
		return;
	rd = elf_getdata(rela, NULL);
	dd = NULL;
	if (rsh.sh_link) {
		Elf_Scn *ds = elf_getscn(f->elf, rsh.sh_link);

		if (ds && gelf_getshdr(ds, &dsh))
			dd = elf_getdata(ds, NULL);
	}
	n = rsh.sh_size / rsh.sh_entsize;
	if (!rd || !n || n > 1000000)
		return;
	f->plt = xcalloc(n, sizeof(*f->plt));
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name = NULL;
		char buf[256];

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		if (dd && GELF_R_SYM(r.r_info) && gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			name = elf_strptr(f->elf, dsh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;	/* IRELATIVE: no name */
		snprintf(buf, sizeof(buf), "%s@plt", name);
		f->plt[f->nplt].lo = base + stride * i;
		f->plt[f->nplt].hi = base + stride * (i + 1);
		f->plt[f->nplt++].name = keep_name_plt(f, buf);
	}
}

/* The index of the first range with lo > va. */
static size_t sym_upper(const struct img_file *f, uint64_t va)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].lo <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void sym_insert(struct img_file *f, size_t at, uint64_t lo, uint64_t hi, const char *name)
{
	if (f->nsyms == f->syms_cap) {
		f->syms_cap = f->syms_cap ? 2 * f->syms_cap : 64;
		f->syms = xrealloc_arr(f->syms, f->syms_cap, sizeof(*f->syms));
	}
	memmove(&f->syms[at + 1], &f->syms[at], (f->nsyms - at) * sizeof(*f->syms));
	f->syms[at] = (struct sym_range){ .lo = lo, .hi = hi, .name = name };
	f->nsyms++;
}

const char *img_sym(struct img_file *f, uint64_t off, uint64_t *soff)
{
	uint64_t va, lo, hi;
	const char *name;
	GElf_Off so = 0;
	GElf_Sym sym;
	Dwarf_Addr bias = 0;
	size_t at;

	if (!file_vaddr(f, off, &va))
		return NULL;
	at = sym_upper(f, va);
	if (at && va < f->syms[at - 1].hi) {
		if (f->syms[at - 1].name)
			*soff = va - f->syms[at - 1].lo;
		return f->syms[at - 1].name;
	}
	if (!f->plt_done)
		plt_names(f);
	if (f->nplt) {
		size_t lo = 0, hi = f->nplt;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (f->plt[mid].lo <= va)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && va < f->plt[lo - 1].hi) {
			sym_insert(f, at, f->plt[lo - 1].lo, f->plt[lo - 1].hi, f->plt[lo - 1].name);
			*soff = va - f->plt[lo - 1].lo;
			return f->plt[lo - 1].name;
		}
	}
	if (!open_dwfl(f->c, f))
		return NULL;
	dwfl_module_getelf(f->mod, &bias);
	name = dwfl_module_addrinfo(f->mod, va + bias, &so, &sym, NULL, NULL, NULL);
	if (!name || !*name) {
		/* Nothing: remember this one address. */
		sym_insert(f, at, va, va + 1, NULL);
		return NULL;
	}
	lo = va - so;
	hi = lo + sym.st_size;
	if (hi <= va)
		hi = va + 1;		/* a symbol without a size: this far */
	if (at && f->syms[at - 1].lo == lo) {
		/* The same symbol seen before without reaching here. */
		if (f->syms[at - 1].hi < hi)
			f->syms[at - 1].hi = hi;
		*soff = so;
		return f->syms[at - 1].name;
	}
	if (at < f->nsyms && f->syms[at].lo < hi)
		hi = f->syms[at].lo;	/* never overlap the next range */
	if (at && f->syms[at - 1].hi > lo)
		lo = f->syms[at - 1].hi;
	sym_insert(f, at, lo, hi, keep_name(f, name));
	*soff = so;
	return f->syms[at].name;
}

int img_elf_segments(struct img_file *f, bool have_base, uint64_t base, struct img_map **maps,
		     size_t *n)
{
	GElf_Ehdr eh;
	size_t i, added = 0;

	if (!gelf_getehdr(f->elf, &eh))
		return -1;
	if (eh.e_type != ET_DYN)
		have_base = false;
	for (i = 0; i < f->nload; i++) {
		const GElf_Phdr *p = &f->load[i];
		struct img_map *m;

		if (!(p->p_flags & PF_X) || !p->p_filesz)
			continue;
		*maps = xrealloc_arr(*maps, *n + 1, sizeof(**maps));
		m = &(*maps)[(*n)++];
		memset(m, 0, sizeof(*m));
		m->start = (have_base ? base : 0) + p->p_vaddr;
		m->end = m->start + p->p_filesz;
		m->pgoff = p->p_offset;
		m->f = f;
		m->path = f->path;
		added++;
	}
	return added ? 0 : -1;
}

/* ---- address spaces ----------------------------------------------------- */

static struct img_map *space_find(struct img_space *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	if (s->last < s->n && addr >= s->maps[s->last].start && addr < s->maps[s->last].end)
		return &s->maps[s->last];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < s->maps[lo - 1].end) {
		s->last = lo - 1;
		return &s->maps[lo - 1];
	}
	return NULL;
}

static size_t kernel_read(struct img_kernel *k, uint64_t addr, void *buf, size_t len);
static const char *kernel_sym(struct img_kernel *k, uint64_t addr, uint64_t *soff);

size_t img_space_read(struct img_space *s, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	if (addr >= IMG_KERNEL_START)
		return s->kernel ? kernel_read(s->kernel, addr, buf, len) : 0;
	while (done < len) {
		struct img_map *m = space_find(s, addr + done);
		uint64_t n, got;

		if (!m || !m->f)
			break;
		n = m->end - (addr + done);
		if (n > len - done)
			n = len - done;
		got = img_read(m->f, m->pgoff + (addr + done - m->start), (uint8_t *)buf + done,
			       (size_t)n);
		done += got;
		if (got < n)
			break;
	}
	return done;
}

int img_space_where(struct img_space *s, uint64_t addr, struct img_where *w)
{
	struct img_map *m;

	memset(w, 0, sizeof(*w));
	if (addr >= IMG_KERNEL_START) {
		w->kernel = true;
		w->binary = "[kernel]";
		if (s->kernel)
			w->sym = kernel_sym(s->kernel, addr, &w->soff);
		return 0;
	}
	m = space_find(s, addr);
	if (!m)
		return -1;
	w->binary = m->path;
	w->why = m->why;
	w->soff = m->pgoff + (addr - m->start);
	if (m->f) {
		uint64_t so;

		w->sym = img_sym(m->f, w->soff, &so);
		if (w->sym)
			w->soff = so;
	}
	return 0;
}

const char *img_space_why(struct img_space *s, uint64_t addr, char *buf, size_t len)
{
	struct img_map *m;

	if (addr >= IMG_KERNEL_START) {
		snprintf(buf, len, "kernel address 0x%" PRIx64 ": %s", addr,
			 s->kernel ? "not in /proc/kcore" : "the kernel is not decoded");
		return buf;
	}
	m = space_find(s, addr);
	if (!m) {
		snprintf(buf, len, "nothing was mapped at 0x%" PRIx64 " in the process", addr);
		return buf;
	}
	if (!m->f) {
		snprintf(buf, len, "0x%" PRIx64 " is in %s", addr, m->why ? m->why : m->path);
		return buf;
	}
	snprintf(buf, len, "0x%" PRIx64 " in %s is past the end of the file", addr, m->path);
	return buf;
}

/* ---- the kernel ---------------------------------------------------------- */

/* The running kernel's build-id from /sys/kernel/notes, as hex. */
static bool running_kernel_build_id(char *out, size_t len)
{
	uint8_t buf[4096];
	ssize_t n;
	size_t off = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		if (namesz > 64 || descsz > 64 || off + ((namesz + 3) & ~3u) + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + off, "GNU", 4) &&
		    2 * descsz < len) {
			hex(out, buf + off + 4, descsz);
			return true;
		}
		off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
	}
	return false;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void read_kallsyms(struct img_kernel *k)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (k->nsyms == cap) {
			cap = cap ? 2 * cap : 4096;
			k->syms = xrealloc_arr(k->syms, cap, sizeof(*k->syms));
		}
		k->syms[k->nsyms].addr = addr;
		k->syms[k->nsyms++].name = xstrdup(name);
	}
	fclose(f);
	if (k->nsyms > 1)
		qsort(k->syms, k->nsyms, sizeof(*k->syms), ksym_cmp);
}

struct img_kernel *img_kernel(struct img_cache *c, const char *build_id, const char **why)
{
	char running[2 * IMG_BUILD_ID_MAX + 1];
	struct img_kernel *k;
	size_t i, nph;
	Elf *elf;
	int fd;

	if (c->kernel_tried) {
		*why = c->kernel_why;
		return c->kernel;
	}
	c->kernel_tried = true;
	*why = c->kernel_why = c->kernel_msg;
	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(c->kernel_msg, sizeof(c->kernel_msg),
			 "/proc/kcore cannot be read (%s): kernel addresses are not decoded",
			 strerror(errno));
		return NULL;
	}
	if (!build_id) {
		snprintf(c->kernel_msg, sizeof(c->kernel_msg),
			 "the capture does not say which kernel ran: kernel addresses are not "
			 "decoded");
		close(fd);
		return NULL;
	}
	if (!running_kernel_build_id(running, sizeof(running)) || strcmp(running, build_id)) {
		snprintf(c->kernel_msg, sizeof(c->kernel_msg),
			 "the running kernel is not the one that was traced (build-id %s): "
			 "kernel addresses are not decoded", build_id);
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph) < 0) {
		snprintf(c->kernel_msg, sizeof(c->kernel_msg),
			 "/proc/kcore is not readable as ELF: kernel addresses are not decoded");
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->fd = fd;
	k->load = xcalloc(nph, sizeof(*k->load));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			k->load[k->nload++] = ph;
	}
	elf_end(elf);
	read_kallsyms(k);
	c->kernel = k;
	c->kernel_why = NULL;
	*why = NULL;
	return k;
}

static size_t kernel_read(struct img_kernel *k, uint64_t addr, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < k->nload; i++) {
		const GElf_Phdr *p = &k->load[i];
		ssize_t n;

		if (addr < p->p_vaddr || addr - p->p_vaddr >= p->p_filesz)
			continue;
		if (len > p->p_filesz - (addr - p->p_vaddr))
			len = (size_t)(p->p_filesz - (addr - p->p_vaddr));
		n = pread(k->fd, buf, len, (off_t)(p->p_offset + (addr - p->p_vaddr)));
		return n > 0 ? (size_t)n : 0;
	}
	return 0;
}

static const char *kernel_sym(struct img_kernel *k, uint64_t addr, uint64_t *soff)
{
	size_t lo = 0, hi = k->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*soff = addr - k->syms[lo - 1].addr;
	return k->syms[lo - 1].name;
}
