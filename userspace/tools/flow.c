// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - instructions, calls and timelines from the decoders (flow.h).
 *
 * Per thread (a thread of -1, CPU-wide trace, is one per CPU): its call
 * stack (at most FLOW_MAX_FRAMES kept; deeper calls are counted so that
 * the returns match), the class and end of its last instruction, and
 * whether a call or a return is waiting for the next instruction to say
 * where it went. Memory: the threads' stacks, nothing per instruction.
 *
 * Asynchronous transfers: when a thread's next instruction is not where
 * its last one leads (after an instruction that is not a branch, or a
 * system call), or the decoder says so (flow_async), the thread was
 * interrupted: if the target is where an earlier signal frame would
 * resume, it is the return from that signal (sigreturn); else it is a
 * new entry (a signal handler), pushed as a frame.
 *
 * Disassembly (--insn): Capstone (Debian's libcapstone-dev) when built
 * with it (CAPSTONE=1), for x86_64 and AArch64.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elf.h>

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "flow.h"
#include "obuf.h"
#include "perfetto.h"
#include "tool.h"

#define FLOW_MAX_FRAMES	1024	/* frames kept per thread */
#define FLOW_MAX_RESUME	16	/* signal frames waiting for their sigreturn */
#define FLOW_INDENT_MAX	40	/* indentation levels shown */
#define IC_SIZE		16384	/* --insn: lines' tails cached per (space, address) */
#define IC_TEXT		232

const char *const flow_class_names[FLOW_NR_CLASSES] = {
	"other", "jump", "cond", "call", "return", "far_call", "far_return", "far_jump",
};

struct frame {
	const char *name;		/* the symbol, or synth */
	const char *binary;		/* recorded path, or NULL */
	uint64_t entry;
	uint64_t start;			/* ns */
	bool signal;
	char synth[40];			/* "0x401000" when there is no symbol */
};

struct resume {
	uint64_t ip;			/* where the interrupted code resumes */
	unsigned int size;		/* the interrupted instruction's size (restarts) */
};

struct thr {
	int32_t key, pid, tid;
	unsigned int cpu;
	struct frame *frames;
	size_t depth;			/* frames on the stack (may exceed what is kept) */
	size_t cap;
	bool need_root;			/* the next instruction starts a root frame */
	bool pending_call;
	uint64_t call_from;
	bool pending_ret;
	uint64_t ret_from;
	bool have_last;
	uint64_t last_ip, last_next;	/* the last instruction and where it leads if sequential */
	unsigned int last_size;
	enum flow_class last_cls;
	bool async_next;		/* the decoder reported the next as asynchronous */
	struct resume resume[FLOW_MAX_RESUME];
	size_t nresume;
	uint64_t last_time;
	bool named;
	uint64_t insns;
};

/* The part of an --insn line that only depends on the code at an address. */
struct icache {
	const struct img_space *space;
	uint64_t ip;
	uint16_t len;			/* 0: empty */
	char text[IC_TEXT];
};

struct flow {
	struct flow_opts o;
	struct obuf ob;			/* o.out, buffered */
	struct thr **thr;
	size_t nthr, cap;
	struct icache *ic;		/* [IC_SIZE], --insn only */
	struct thr *cur;
	const struct sb_chunk *chunk;
	struct img_space *space;
	uint64_t insns, errors, calls, lost;
	struct pf pf;
	uint64_t done_bytes, chunk_base;
	struct timespec last_progress;
	unsigned int progress_tick;
	bool progress_shown;
#ifdef HAVE_CAPSTONE
	csh cs;
	cs_insn *csi;
	bool cs_ok;
#endif
};

static void *xrealloc(void *p, size_t n, size_t size)
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

int flow_new(const struct flow_opts *o, struct flow **out)
{
	struct flow *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->o = *o;
	f->ob.f = o->out;
	if (o->mode == FLOW_INSN) {
		f->ic = calloc(IC_SIZE, sizeof(*f->ic));
		if (!f->ic) {
			free(f);
			return -ENOMEM;
		}
	}
	if (o->mode == FLOW_PERFETTO)
		pf_begin(&f->pf, &f->ob);
#ifdef HAVE_CAPSTONE
	if (o->disasm && o->mode == FLOW_INSN) {
		cs_arch arch = o->machine == EM_AARCH64 ? CS_ARCH_ARM64 : CS_ARCH_X86;
		cs_mode mode = o->machine == EM_AARCH64 ? CS_MODE_ARM : CS_MODE_64;

		if (cs_open(arch, mode, &f->cs) == CS_ERR_OK) {
			f->csi = cs_malloc(f->cs);
			f->cs_ok = f->csi != NULL;
		}
	}
#endif
	*out = f;
	return 0;
}

void flow_free(struct flow *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nthr; i++) {
		free(f->thr[i]->frames);
		free(f->thr[i]);
	}
	free(f->thr);
	free(f->ic);
#ifdef HAVE_CAPSTONE
	if (f->csi)
		cs_free(f->csi, 1);
	if (f->cs_ok || f->csi)
		cs_close(&f->cs);
#endif
	free(f);
}

uint64_t flow_insns(const struct flow *f)
{
	return f->insns;
}

uint64_t flow_errors(const struct flow *f)
{
	return f->errors;
}

uint64_t flow_calls(const struct flow *f)
{
	return f->calls;
}

bool flow_wants(const struct flow *f, const struct sb_chunk *c)
{
	if (f->o.tid >= 0 && c->tid != f->o.tid)
		return false;
	if (f->o.pid >= 0 && c->pid != f->o.pid)
		return false;
	if (c->time_end != UINT64_MAX && c->time_end < f->o.t_from)
		return false;
	if (c->time > f->o.t_to)
		return false;
	return true;
}

/* ---- output helpers --------------------------------------------------------- */

static bool in_range(const struct flow *f, uint64_t t)
{
	return t >= f->o.t_from && t <= f->o.t_to;
}

static void put_time(struct flow *f, uint64_t t)
{
	uint64_t z = f->o.t_zero;

	if (t >= z) {
		ob_dec_w(&f->ob, (t - z) / 1000000000, 6, ' ');
	} else {
		ob_chr(&f->ob, '-');
		ob_dec_w(&f->ob, (z - t) / 1000000000, 5, ' ');
		t = z + (z - t);
	}
	ob_chr(&f->ob, '.');
	ob_dec_w(&f->ob, (t - z) % 1000000000, 9, '0');
}

static void put_prefix(struct flow *f, const struct thr *t, uint64_t time)
{
	put_time(f, time);
	ob_str(&f->ob, " [");
	ob_dec(&f->ob, t->cpu);
	ob_str(&f->ob, "] ");
	ob_sdec(&f->ob, t->pid);
	ob_chr(&f->ob, '/');
	ob_sdec(&f->ob, t->tid);
	ob_chr(&f->ob, ' ');
}

static void json_head(struct flow *f, const struct thr *t, const char *type, uint64_t time)
{
	ob_str(&f->ob, "{\"type\": \"");
	ob_str(&f->ob, type);
	ob_str(&f->ob, "\", \"time\": ");
	ob_dec(&f->ob, time);
	ob_str(&f->ob, ", \"cpu\": ");
	ob_dec(&f->ob, t->cpu);
	ob_str(&f->ob, ", \"pid\": ");
	ob_sdec(&f->ob, t->pid);
	ob_str(&f->ob, ", \"tid\": ");
	ob_sdec(&f->ob, t->tid);
}

static void json_kv_str(struct flow *f, const char *key, const char *v)
{
	ob_str(&f->ob, ", \"");
	ob_str(&f->ob, key);
	ob_str(&f->ob, "\": ");
	if (v)
		ob_json_str(&f->ob, v);
	else
		ob_str(&f->ob, "null");
}

static void json_kv_hex(struct flow *f, const char *key, uint64_t v)
{
	ob_str(&f->ob, ", \"");
	ob_str(&f->ob, key);
	ob_str(&f->ob, "\": \"0x");
	ob_hex(&f->ob, v);
	ob_chr(&f->ob, '"');
}

static void json_kv_dec(struct flow *f, const char *key, uint64_t v)
{
	ob_str(&f->ob, ", \"");
	ob_str(&f->ob, key);
	ob_str(&f->ob, "\": ");
	ob_dec(&f->ob, v);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static void indent(struct flow *f, size_t depth)
{
	size_t n = 2 * (depth < FLOW_INDENT_MAX ? depth : FLOW_INDENT_MAX);

	ob_room(&f->ob, n);
	memset(f->ob.b + f->ob.n, ' ', n);
	f->ob.n += n;
}

/* ---- threads ------------------------------------------------------------------- */

static struct thr *thr_of(struct flow *f, const struct sb_chunk *c)
{
	int32_t key = c->tid >= 0 ? c->tid : -1 - (int32_t)c->cpu;
	struct thr *t;
	size_t i;

	if (f->cur && f->cur->key == key)
		return f->cur;
	for (i = 0; i < f->nthr; i++)
		if (f->thr[i]->key == key)
			return f->thr[i];
	if (f->nthr == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->thr = xrealloc(f->thr, f->cap, sizeof(*f->thr));
	}
	t = xrealloc(NULL, 1, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->key = key;
	t->pid = c->pid;
	t->tid = c->tid;
	t->need_root = true;
	f->thr[f->nthr++] = t;
	return t;
}

static void frame_fill(struct flow *f, struct frame *fr, uint64_t ip)
{
	struct img_where w;

	memset(fr, 0, sizeof(*fr));
	fr->entry = ip;
	if (f->space && !img_space_where(f->space, ip, &w)) {
		fr->binary = w.binary;
		fr->name = w.sym;
		if (!fr->name) {
			snprintf(fr->synth, sizeof(fr->synth), "%s+0x%" PRIx64,
				 base_name(w.binary), w.soff);
			fr->name = fr->synth;
		}
	} else {
		snprintf(fr->synth, sizeof(fr->synth), "0x%" PRIx64, ip);
		fr->name = fr->synth;
	}
}

static struct frame *top(struct thr *t)
{
	if (!t->depth || t->depth > FLOW_MAX_FRAMES)
		return NULL;
	return &t->frames[t->depth - 1];
}

static void name_thread(struct flow *f, struct thr *t)
{
	const char *pc, *tc;
	char buf[64];

	if (t->named || f->o.mode != FLOW_PERFETTO)
		return;
	t->named = true;
	pc = t->pid >= 0 ? sb_comm(f->o.sb, t->pid) : NULL;
	tc = t->tid >= 0 ? sb_comm(f->o.sb, t->tid) : NULL;
	if (t->tid < 0) {
		snprintf(buf, sizeof(buf), "cpu %u (thread unknown)", t->cpu);
		pf_name(&f->pf, true, t->pid, t->tid, buf);
		pf_name(&f->pf, false, t->pid, t->tid, buf);
		return;
	}
	if (t->tid == t->pid || pc) {
		snprintf(buf, sizeof(buf), "%s", pc ? pc : "process");
		if (!pc)
			snprintf(buf, sizeof(buf), "pid %" PRId32, t->pid);
		pf_name(&f->pf, true, t->pid, t->pid, buf);
	}
	if (tc)
		snprintf(buf, sizeof(buf), "%s", tc);
	else
		snprintf(buf, sizeof(buf), "tid %" PRId32, t->tid);
	pf_name(&f->pf, false, t->pid, t->tid, buf);
}

/* A frame is entered at ip: how = "start", "call", "signal". */
static void push(struct flow *f, struct thr *t, uint64_t ip, uint64_t from, uint64_t time,
		 const char *how)
{
	struct frame fr, *dst = &fr;
	size_t depth = t->depth;

	if (t->depth < FLOW_MAX_FRAMES) {
		if (t->depth == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 16;
			t->frames = xrealloc(t->frames, t->cap, sizeof(*t->frames));
		}
		dst = &t->frames[t->depth];
	}
	frame_fill(f, dst, ip);
	dst->start = time;
	dst->signal = !strcmp(how, "signal");
	t->depth++;
	if (*how == 'c')
		f->calls++;
	if (f->o.mode != FLOW_CALLS || !in_range(f, time))
		return;
	if (f->o.json) {
		json_head(f, t, how, time);
		json_kv_dec(f, "depth", depth);
		json_kv_hex(f, "to", ip);
		if (*how != 's' || dst->signal)
			json_kv_hex(f, "from", from);
		json_kv_str(f, "sym", dst->name);
		json_kv_str(f, "binary", dst->binary);
		ob_str(&f->ob, "}\n");
		return;
	}
	put_prefix(f, t, time);
	indent(f, depth);
	ob_str(&f->ob, *how == 'c' ? "-> " : *how == 'j' ? "=> " : dst->signal ? "~> " : "");
	ob_str(&f->ob, dst->name);
	if (dst->binary) {
		ob_str(&f->ob, " (");
		ob_str(&f->ob, base_name(dst->binary));
		ob_chr(&f->ob, ')');
	}
	if (dst->signal)
		ob_str(&f->ob, " [signal]");
	ob_chr(&f->ob, '\n');
}

/* The top frame ends at time (a return, or the end of the flow when !ret). */
static void pop(struct flow *f, struct thr *t, uint64_t time, uint64_t from, bool ret)
{
	struct frame *fr = top(t);
	uint64_t dur;

	if (!t->depth)
		return;
	t->depth--;
	if (!fr)
		return;		/* deeper than kept: nothing to say */
	dur = time >= fr->start ? time - fr->start : 0;
	if (f->o.mode == FLOW_PERFETTO) {
		if (fr->start <= f->o.t_to && time >= f->o.t_from)
			pf_slice(&f->pf, t->pid, t->tid, fr->name, fr->binary, fr->entry,
				 fr->start - (fr->start >= f->o.t_zero ? f->o.t_zero : fr->start),
				 dur);
		return;
	}
	if (f->o.mode != FLOW_CALLS || !ret || !in_range(f, time))
		return;
	if (f->o.json) {
		json_head(f, t, "return", time);
		json_kv_dec(f, "depth", t->depth);
		json_kv_hex(f, "from", from);
		json_kv_str(f, "sym", fr->name);
		json_kv_dec(f, "duration", dur);
		ob_str(&f->ob, "}\n");
		return;
	}
	put_prefix(f, t, time);
	indent(f, t->depth);
	ob_str(&f->ob, "<- ");
	ob_str(&f->ob, fr->name);
	ob_str(&f->ob, "  ");
	ob_dec(&f->ob, dur);
	ob_str(&f->ob, " ns\n");
}

static void unwind(struct flow *f, struct thr *t, uint64_t time)
{
	while (t->depth)
		pop(f, t, time, 0, false);
	t->need_root = true;
	t->pending_call = t->pending_ret = false;
	t->have_last = false;
	t->nresume = 0;
}

/* ---- the decoders' calls ------------------------------------------------------- */

void flow_begin(struct flow *f, const struct sb_chunk *c, struct img_space *space)
{
	struct thr *t = thr_of(f, c);

	f->chunk = c;
	f->space = space;
	f->cur = t;
	f->chunk_base = f->done_bytes;
	t->cpu = c->cpu;
	if (c->pid >= 0)
		t->pid = c->pid;
	name_thread(f, t);
	if (f->o.mode == FLOW_INSN && f->o.json && c->run_start && c->tid >= 0 &&
	    in_range(f, c->time)) {
		/* The thread was switched in (its SWITCH IN record's time). */
		json_head(f, t, "run", c->time);
		ob_str(&f->ob, c->exec ? ", \"exec\": true}\n" : ", \"exec\": false}\n");
	}
	if (c->exec) {
		/* A new program: nothing of the old one's stack is left. */
		unwind(f, t, c->time);
		if (f->o.json) {
			if (f->o.mode == FLOW_CALLS && in_range(f, c->time)) {
				json_head(f, t, "exec", c->time);
				ob_str(&f->ob, "}\n");
			}
		} else if (f->o.mode != FLOW_PERFETTO && f->o.mode != FLOW_COUNT &&
			   in_range(f, c->time)) {
			put_prefix(f, t, c->time);
			ob_str(&f->ob, "# exec\n");
		}
	}
	if (c->lost_before)
		flow_lost(f, "trace lost before this part (truncated span, lost records or "
			  "bytes)", c->time);
	if (t->last_time < c->time)
		t->last_time = c->time;
}

/* What follows the time and thread in an --insn line: it depends on the code only. */
static size_t insn_tail(struct flow *f, const struct flow_insn *in, char *out, size_t len)
{
	struct img_where w;
	bool have = f->space && !img_space_where(f->space, in->ip, &w);
	char dis[200] = "", sym[512];
	FILE *m;
	size_t n = 0;
	char *buf = NULL;
	unsigned int i;

#ifdef HAVE_CAPSTONE
	if (f->cs_ok && in->size) {
		const uint8_t *code = in->raw;
		size_t sz = in->size;
		uint64_t a = in->ip;

		if (cs_disasm_iter(f->cs, &code, &sz, &a, f->csi))
			snprintf(dis, sizeof(dis), "%s%s%s", f->csi->mnemonic,
				 f->csi->op_str[0] ? " " : "", f->csi->op_str);
		else
			snprintf(dis, sizeof(dis), "(bad)");
	}
#endif
	m = open_memstream(&buf, &n);
	if (!m)
		return 0;
	if (f->o.json) {
		fprintf(m, ", \"ip\": \"0x%" PRIx64 "\", \"size\": %u, \"class\": \"%s\", "
			"\"bytes\": \"", in->ip, in->size, flow_class_names[in->cls]);
		for (i = 0; i < in->size && i < sizeof(in->raw); i++)
			fprintf(m, "%02x", in->raw[i]);
		fputs("\", \"binary\": ", m);
		if (have)
			tb_json_str(m, w.binary, strlen(w.binary));
		else
			fputs("null", m);
		fputs(", \"sym\": ", m);
		if (have && w.sym)
			tb_json_str(m, w.sym, strlen(w.sym));
		else
			fputs("null", m);
		if (have)
			fprintf(m, ", \"offset\": %" PRIu64, w.soff);
		if (dis[0]) {
			fputs(", \"insn\": ", m);
			tb_json_str(m, dis, strlen(dis));
		}
		fputs("}\n", m);
	} else {
		if (have && w.sym)
			snprintf(sym, sizeof(sym), "%s+0x%" PRIx64 " (%s)", w.sym, w.soff,
				 base_name(w.binary));
		else if (have)
			snprintf(sym, sizeof(sym), "(%s+0x%" PRIx64 ")", base_name(w.binary), w.soff);
		else
			snprintf(sym, sizeof(sym), "(unknown)");
		fprintf(m, "%16" PRIx64 "  %s%s%s\n", in->ip, sym, dis[0] ? "  " : "", dis);
	}
	if (fclose(m)) {
		free(buf);
		return 0;
	}
	if (n < len)
		memcpy(out, buf, n);
	else
		ob_mem(&f->ob, buf, n);		/* too long to keep: written now */
	free(buf);
	return n < len ? n : 0;
}

static void put_insn(struct flow *f, struct thr *t, const struct flow_insn *in)
{
	struct icache *c = &f->ic[(in->ip ^ (in->ip >> 14)) % IC_SIZE];

	if (f->o.json) {
		json_head(f, t, "insn", in->time);
		if (in->have_ts)
			json_kv_dec(f, "ts", in->ts);
	} else {
		put_prefix(f, t, in->time);
	}
	if (c->len && c->ip == in->ip && c->space == f->space) {
		ob_mem(&f->ob, c->text, c->len);
		return;
	}
	c->len = (uint16_t)insn_tail(f, in, c->text, sizeof(c->text));
	c->ip = in->ip;
	c->space = f->space;
	if (c->len)
		ob_mem(&f->ob, c->text, c->len);
}

/* The thread was interrupted at 'from' (where it would have resumed) and goes on at 'to'. */
static void async_to(struct flow *f, struct thr *t, uint64_t from, unsigned int size,
		     uint64_t to, uint64_t time)
{
	size_t i;

	t->pending_call = t->pending_ret = false;
	for (i = t->nresume; i > 0; i--) {
		const struct resume *r = &t->resume[i - 1];

		if (to == r->ip || (r->size && to == r->ip - r->size)) {
			/* The return from a signal: drop its frame if still open. */
			t->nresume = i - 1;
			/* A handler that did not return (sigreturn from inside it). */
			if (top(t) && top(t)->signal)
				pop(f, t, time, from, false);
			if (f->o.mode == FLOW_CALLS && in_range(f, time)) {
				if (f->o.json) {
					json_head(f, t, "sigreturn", time);
					json_kv_hex(f, "to", to);
					ob_str(&f->ob, "}\n");
				}
			}
			return;
		}
	}
	if (t->nresume < FLOW_MAX_RESUME) {
		t->resume[t->nresume].ip = from;
		t->resume[t->nresume++].size = size;
	}
	if (t->need_root) {
		push(f, t, to, from, time, "start");
		t->need_root = false;
		return;
	}
	push(f, t, to, from, time, "signal");
}

void flow_async(struct flow *f, uint64_t from, uint64_t to, uint64_t time)
{
	struct thr *t = f->cur;

	if (!t)
		return;
	t->async_next = true;
	if (f->o.mode == FLOW_INSN && in_range(f, time)) {
		if (f->o.json) {
			json_head(f, t, "async", time);
			json_kv_hex(f, "from", from);
			json_kv_hex(f, "to", to);
			ob_str(&f->ob, "}\n");
		} else {
			put_prefix(f, t, time);
			ob_str(&f->ob, "# interrupted at 0x");
			ob_hex(&f->ob, from);
			ob_str(&f->ob, ", resumes at 0x");
			ob_hex(&f->ob, to);
			ob_chr(&f->ob, '\n');
		}
	}
	if (!t->need_root)
		async_to(f, t, from, t->have_last ? t->last_size : 0, to, time);
}

/* Whether ip starts a function other than the one of t's top frame. */
static bool jumped_into(struct flow *f, struct thr *t, uint64_t ip)
{
	const struct frame *fr = top(t);
	struct img_where w;

	if (!f->space || img_space_where(f->space, ip, &w) || !w.sym || w.soff)
		return false;
	return !fr->name || strcmp(fr->name, w.sym);
}

void flow_insn(struct flow *f, const struct flow_insn *in)
{
	struct thr *t = f->cur;
	uint64_t time = in->time;

	if (!t)
		return;
	if (time < t->last_time)
		time = t->last_time;		/* never backwards within a thread */
	t->last_time = time;
	f->insns++;
	t->insns++;
	if (t->need_root) {
		push(f, t, in->ip, 0, time, "start");
		t->need_root = false;
		t->pending_call = t->pending_ret = false;
	} else if (t->async_next) {
		/* flow_async() did the frames. */
	} else if (t->have_last && in->ip != t->last_next &&
		   (t->last_cls == FLOW_OTHER || t->last_cls == FLOW_FAR_CALL ||
		    t->last_cls == FLOW_FAR_RET || t->last_cls == FLOW_FAR_JUMP)) {
		async_to(f, t, t->last_next, t->last_size, in->ip, time);
	} else if (t->pending_call) {
		push(f, t, in->ip, t->call_from, time, "call");
	} else if (t->have_last && t->last_cls == FLOW_JUMP && in->ip != t->last_next &&
		   top(t) && jumped_into(f, t, in->ip)) {
		/* A jump to another function's start (a tail call, a PLT stub's jump). */
		pop(f, t, time, t->last_ip, false);
		push(f, t, in->ip, t->last_ip, time, "jump");
	} else if (t->pending_ret && !t->depth) {
		/* Returned out of the first frame seen: into its caller. */
		push(f, t, in->ip, t->ret_from, time, "start");
	}
	t->async_next = false;
	t->pending_call = t->pending_ret = false;
	if (f->o.mode == FLOW_INSN && in_range(f, time))
		put_insn(f, t, in);
	switch (in->cls) {
	case FLOW_CALL:
		t->pending_call = true;
		t->call_from = in->ip;
		break;
	case FLOW_RET:
		pop(f, t, time, in->ip, true);
		t->pending_ret = true;
		t->ret_from = in->ip;
		break;
	default:
		break;
	}
	t->have_last = true;
	t->last_ip = in->ip;
	t->last_size = in->size;
	t->last_next = in->ip + in->size;
	t->last_cls = in->cls;
}

void flow_error(struct flow *f, uint64_t off, uint64_t ip, const char *msg)
{
	const struct sb_chunk *c = f->chunk;
	struct thr *t = f->cur;

	f->errors++;
	if (f->o.mode == FLOW_COUNT)
		return;
	if (f->o.mode == FLOW_PERFETTO) {
		if (t && in_range(f, t->last_time))
			pf_instant(&f->pf, t->pid, t->tid, "decode error",
				   t->last_time >= f->o.t_zero ? t->last_time - f->o.t_zero : 0);
		return;
	}
	if (f->o.json) {
		ob_str(&f->ob, "{\"type\": \"error\", \"cpu\": ");
		ob_dec(&f->ob, c ? c->cpu : 0);
		ob_str(&f->ob, ", \"pid\": ");
		ob_sdec(&f->ob, c ? c->pid : -1);
		ob_str(&f->ob, ", \"tid\": ");
		ob_sdec(&f->ob, c ? c->tid : -1);
		json_kv_dec(f, "offset", off);
		if (ip)
			json_kv_hex(f, "ip", ip);
		json_kv_str(f, "message", msg);
		ob_str(&f->ob, "}\n");
		return;
	}
	ob_str(&f->ob, "# error: cpu ");
	ob_dec(&f->ob, c ? c->cpu : 0);
	ob_str(&f->ob, " thread ");
	ob_sdec(&f->ob, c ? c->tid : -1);
	ob_str(&f->ob, " at cpu");
	ob_dec(&f->ob, c ? c->stream_cpu : 0);
	ob_str(&f->ob, ".aux offset 0x");
	ob_hex(&f->ob, off);
	if (ip) {
		ob_str(&f->ob, ", ip 0x");
		ob_hex(&f->ob, ip);
	}
	ob_str(&f->ob, ": ");
	ob_str(&f->ob, msg);
	ob_chr(&f->ob, '\n');
}

void flow_lost(struct flow *f, const char *why, uint64_t time)
{
	struct thr *t = f->cur;

	if (!t)
		return;
	f->lost++;
	if (time < t->last_time)
		time = t->last_time;
	unwind(f, t, t->last_time);
	if (f->o.mode == FLOW_PERFETTO) {
		if (in_range(f, time))
			pf_instant(&f->pf, t->pid, t->tid, "trace lost",
				   time >= f->o.t_zero ? time - f->o.t_zero : 0);
		return;
	}
	if (f->o.mode == FLOW_COUNT || !in_range(f, time))
		return;
	if (f->o.json) {
		json_head(f, t, "lost", time);
		json_kv_str(f, "reason", why);
		ob_str(&f->ob, "}\n");
		return;
	}
	put_prefix(f, t, time);
	ob_str(&f->ob, "# ");
	ob_str(&f->ob, why);
	ob_chr(&f->ob, '\n');
}

void flow_progress(struct flow *f, uint64_t bytes_done)
{
	struct timespec now;
	double dt;

	if (!f->o.progress || ++f->progress_tick % 16)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (double)(now.tv_sec - f->last_progress.tv_sec) +
	     (double)(now.tv_nsec - f->last_progress.tv_nsec) / 1e9;
	if (dt < 0.25)
		return;
	f->last_progress = now;
	f->progress_shown = true;
	fprintf(stderr, "\rtracebuf: %s: %5.1f%% of %" PRIu64 " MB of trace, %" PRIu64
		" instructions ", f->o.cmd,
		f->o.total_bytes ? 100.0 * (double)(f->chunk_base + bytes_done) /
				   (double)f->o.total_bytes : 0.0,
		f->o.total_bytes >> 20, f->insns);
}

void flow_end(struct flow *f)
{
	if (f->chunk)
		f->done_bytes = f->chunk_base + (f->chunk->end - f->chunk->begin);
	f->cur = NULL;
	f->chunk = NULL;
	f->space = NULL;
}

int flow_finish(struct flow *f)
{
	size_t i;

	for (i = 0; i < f->nthr; i++) {
		struct thr *t = f->thr[i];

		while (t->depth)
			pop(f, t, t->last_time, 0, false);
	}
	if (f->progress_shown)
		fputs("\r\033[K", stderr);
	if (f->o.mode == FLOW_PERFETTO)
		pf_end(&f->pf, f->o.dir ? f->o.dir : "", f->insns, f->errors);
	ob_flush(&f->ob);
	return f->ob.err || fflush(f->o.out) ? -EIO : 0;
}
