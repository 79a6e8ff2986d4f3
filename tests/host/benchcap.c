// SPDX-License-Identifier: GPL-2.0
/*
 * benchcap - a large per-task Intel PT capture for the decoder benchmark
 * (tests/harness/bench-decode.sh): the trace silicon would write for a
 * known loop, as much of it as asked for.
 *
 *   benchcap PROG MB DIR
 *
 * PROG is tests/host/benchprog.S assembled (static, not position-
 * independent, no libc): from "outer", eight direct calls of f (a loop of
 * 16 iterations, a return), a countdown loop around them, an indirect
 * call of g (a return) through a pointer, a jump back. Per iteration Intel
 * PT writes 145 TNT bits (f's loop branches and compressed returns, the
 * outer loop's branches, g's compressed return) packed into TNT.8 packets
 * and one TIP for the indirect call: 300 instructions, 9 calls. The capture (cpu0.data, cpu0.aux, meta.json,
 * a perf sideband with the MMAP2 of PROG and its build-id) holds MB MiB
 * of AUX data: one thread, switched out and in every 256 KiB (FUP +
 * TIP.PGD, then SWITCH OUT/IN, PSB+ and TIP.PGE), a PSB+ (with TSC and a
 * FUP of the IP) every 4 KiB, spans of 64 KiB, all at iteration
 * boundaries. Prints "bytes B insns I calls C".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <tracebuf.h>

#include "ptemu_gen.h"

#define PID		4242
#define RUN_BYTES	(256u << 10)
#define SPAN_BYTES	(64u << 10)
#define PSB_BYTES	(4u << 10)
#define INSNS_PER_ITER	300
#define CALLS_PER_ITER	9

static FILE *data_f, *aux_f;
static uint64_t data_bytes, records, spans, clk = 1000000000;
static uint8_t span[SPAN_BYTES + 4096];
static size_t nspan;
static uint64_t pos, since_psb, since_run, last_ip;
static uint32_t tnt_bits;
static unsigned int tnt_n;
static uint64_t sym_outer, sym_g;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void rec(void *r, uint32_t size, uint16_t type)
{
	struct tracebuf_record *h = r;

	h->hdr.size = (size + 7) & ~7u;
	h->hdr.type = type;
	h->hdr.flags = 0;
	h->commit = tracebuf_commit_tag(data_bytes);
	h->cpu = 0;
	h->time = clk;
	if (fwrite(r, 1, h->hdr.size, data_f) != h->hdr.size)
		die("cpu0.data");
	data_bytes += h->hdr.size;
	records++;
}

static void publish(void)
{
	struct tracebuf_rec_aux a;

	if (!nspan)
		return;
	memset(&a, 0, sizeof(a));
	a.aux_offset = pos - nspan;
	a.aux_size = nspan;
	rec(&a, sizeof(a), TRACEBUF_REC_AUX);
	if (fwrite(span, 1, nspan, aux_f) != nspan)
		die("cpu0.aux");
	spans++;
	nspan = 0;
}

static void emit(const uint8_t *b, size_t n)
{
	memcpy(span + nspan, b, n);
	nspan += n;
	pos += n;
	since_psb += n;
	since_run += n;
}

static void flush_tnt(void)
{
	uint8_t b;

	if (!tnt_n)
		return;
	ptgen_enc_tnt8(&b, tnt_bits, tnt_n);
	emit(&b, 1);
	tnt_bits = 0;
	tnt_n = 0;
}

static void tnt(bool t)
{
	tnt_bits = (tnt_bits << 1) | t;
	if (++tnt_n == 6)
		flush_tnt();
}

static void ip(uint8_t opc, uint64_t a)
{
	uint8_t b[PTGEN_IP_MAX_SIZE];
	unsigned int ipc = last_ip ? ptgen_ipc_best(a, last_ip) : PTGEN_IPC_SEXT48;

	flush_tnt();
	emit(b, ptgen_enc_ip(b, opc, ipc, a));
	last_ip = a;
}

static void psbplus(bool fup)
{
	uint8_t b[64];
	unsigned int n = 0;

	flush_tnt();
	n += ptgen_enc_psb(b);
	n += ptgen_enc_tsc(b + n, clk * 3);
	n += ptgen_enc_cbr(b + n, PTGEN_CBR_RATIO);
	if (fup)
		n += ptgen_enc_mode_exec64(b + n);
	emit(b, n);
	last_ip = 0;
	if (fup)
		ip(PTGEN_OPC_FUP, sym_outer);
	n = ptgen_enc_psbend(b);
	emit(b, n);
	since_psb = 0;
}

static void sw(uint32_t flags)
{
	struct tracebuf_rec_switch w;

	memset(&w, 0, sizeof(w));
	w.aux_offset = pos;
	w.pid = PID;
	w.tid = PID;
	w.flags = flags;
	rec(&w, sizeof(w), TRACEBUF_REC_SWITCH);
}

static void run_start(void)
{
	uint8_t b[2];

	clk += 1000;
	sw(0);
	psbplus(false);
	emit(b, ptgen_enc_mode_exec64(b));
	ip(PTGEN_OPC_TIP_PGE, sym_outer);
	since_run = 0;
}

static void run_end(void)
{
	ip(PTGEN_OPC_FUP, sym_outer);
	flush_tnt();
	{
		uint8_t b[PTGEN_IP_MAX_SIZE];

		emit(b, ptgen_enc_ip(b, PTGEN_OPC_TIP_PGD, PTGEN_IPC_SUPPRESSED, 0));
	}
	publish();
	clk += 1000;
	sw(TRACEBUF_SWITCH_F_OUT | TRACEBUF_SWITCH_F_PREEMPT);
}

static uint64_t symbol(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (gelf_getsym(d, (int)i, &s) &&
			    !strcmp(elf_strptr(e, sh.sh_link, s.st_name), name))
				return s.st_value;
		}
	}
	fprintf(stderr, "benchcap: no symbol %s\n", name);
	exit(2);
}

int main(int argc, char **argv)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t bid_size, r1;
		uint16_t r2;
		uint8_t bid[20];
		uint32_t prot, flags;
		char name[4096];
	} __attribute__((packed)) m;
	uint64_t tr[4] = { PID | (uint64_t)PID << 32, 0, 0, 1 };
	char path[4096], *prog;
	uint64_t want, iters = 0, text_lo = 0, text_hi = 0;
	struct perf_event_header h;
	const void *bid;
	size_t i, nph, body;
	uint8_t *buf;
	ssize_t blen;
	FILE *f;
	Elf *e;
	int fd;

	if (argc != 4)
		return 2;
	prog = realpath(argv[1], NULL);
	want = strtoull(argv[2], NULL, 0) << 20;
	if (!prog || !want || (mkdir(argv[3], 0755) && errno != EEXIST))
		die(argv[1]);
	elf_version(EV_CURRENT);
	fd = open(prog, O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		die(prog);
	sym_outer = symbol(e, "outer");
	sym_g = symbol(e, "g");
	elf_getphdrnum(e, &nph);
	memset(&m, 0, sizeof(m));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			text_lo = ph.p_vaddr & ~0xfffULL;
			text_hi = (ph.p_vaddr + ph.p_filesz + 0xfff) & ~0xfffULL;
			m.pgoff = ph.p_offset & ~0xfffULL;
		}
	}
	blen = dwelf_elf_gnu_build_id(e, &bid);
	if (blen > 0 && blen <= 20) {
		m.bid_size = (uint8_t)blen;
		memcpy(m.bid, bid, (size_t)blen);
	}
	elf_end(e);
	close(fd);

	/* The sideband: the program's code, mapped before anything ran. */
	snprintf(path, sizeof(path), "%s/cpu0.side", argv[3]);
	f = fopen(path, "w");
	if (!f)
		die(path);
	m.pid = m.tid = PID;
	m.addr = text_lo;
	m.len = text_hi - text_lo;
	m.prot = 5;
	m.flags = 2;
	snprintf(m.name, sizeof(m.name), "%s", prog);
	body = ((size_t)((char *)m.name - (char *)&m) + strlen(m.name) + 1 + 7) & ~(size_t)7;
	h.type = PERF_RECORD_MMAP2;
	h.misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	h.size = (uint16_t)(sizeof(h) + body + sizeof(tr));
	tr[1] = clk;
	buf = calloc(1, h.size);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &m, body);
	memcpy(buf + sizeof(h) + body, tr, sizeof(tr));
	if (fwrite(buf, 1, h.size, f) != h.size || fclose(f))
		die(path);
	free(buf);

	snprintf(path, sizeof(path), "%s/cpu0.data", argv[3]);
	data_f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.aux", argv[3]);
	aux_f = fopen(path, "w");
	if (!data_f || !aux_f)
		die(path);
	run_start();
	while (pos < want) {
		unsigned int k;

		/* One iteration from "outer". */
		for (k = 0; k < 8; k++) {
			unsigned int j;

			for (j = 0; j < 16; j++)
				tnt(j < 15);	/* f's loop */
			tnt(true);		/* f's return, compressed */
			tnt(k < 7);		/* jnz inner */
		}
		ip(PTGEN_OPC_TIP, sym_g);	/* call *fptr */
		tnt(true);			/* g's return, compressed */
		iters++;
		clk += 100;
		if (since_run >= RUN_BYTES) {
			run_end();
			run_start();
		} else if (since_psb >= PSB_BYTES) {
			psbplus(true);
		}
		if (nspan >= SPAN_BYTES)
			publish();
	}
	run_end();
	if (fclose(data_f) || fclose(aux_f))
		die("close");
	snprintf(path, sizeof(path), "%s/meta.json", argv[3]);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fprintf(f, "{\"format\": 1, \"tool_version\": \"benchcap\", \"module_version\": \"benchcap\", "
		"\"abi_version\": 1, \"backend\": \"intel_pt\", \"emulated\": true, \"page_size\": 4096, "
		"\"data_size\": 1048576, \"aux_size\": %u, \"snapshot\": false, \"clock\": "
		"\"CLOCK_MONOTONIC\", \"start_ns\": 1000000000, \"end_ns\": %" PRIu64 ", "
		"\"start_realtime\": 1700000000, \"config_requested\": null, \"command\": null, "
		"\"command_exit\": null, \"command_signal\": null, \"cpus\": [0], \"per_cpu\": {\"0\": "
		"{\"config\": \"branch=1,user=1,kernel=0,tsc=1,mtc=0,mtc_period=3,cyc=0,noretcomp=0\", "
		"\"generation\": 0, \"caps\": {\"cpuid_15\": [1, 30, 100000000, 0], \"family\": 6, "
		"\"model\": 85, \"stepping\": 4, \"max_nonturbo_ratio\": 30}, \"aux_bytes\": %" PRIu64
		", \"aux_spans\": %" PRIu64 ", \"aux_truncations\": 0, \"aux_collisions\": 0, "
		"\"aux_padding\": 0, \"records\": %" PRIu64 ", \"records_lost\": 0, \"aux_gap_bytes\": 0, "
		"\"data_bytes\": %" PRIu64 ", \"error\": null, \"aux_lost_bytes\": 0, "
		"\"aux_lost_at_least\": false}}, \"sideband\": {\"format\": \"perf\", \"sample_type\": %llu, "
		"\"files\": [\"cpu0.side\"]}, \"lost\": false, \"complete\": true}\n",
		SPAN_BYTES * 2, clk, pos, spans, records, data_bytes,
		(unsigned long long)(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				     PERF_SAMPLE_IDENTIFIER));
	if (fclose(f))
		die(path);
	printf("bytes %" PRIu64 " insns %" PRIu64 " calls %" PRIu64 "\n", pos,
	       iters * INSNS_PER_ITER, iters * CALLS_PER_ITER);
	free(prog);
	return 0;
}
