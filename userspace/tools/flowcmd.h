/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowcmd.h - the options and the run shared by decode --insn/--calls and
 * export --perfetto (flowcmd.c).
 */
#ifndef TRACEBUF_FLOWCMD_H
#define TRACEBUF_FLOWCMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flow.h"
#include "sideband.h"

#define TB_FLOW_MAX_ELFS	64

/* getopt_long values of the shared options. */
enum {
	TB_FLOW_OPT_PID = 0x100,	/* --pid N */
	TB_FLOW_OPT_TID,		/* --tid N */
	TB_FLOW_OPT_TIME,		/* --time FROM,TO (seconds from the capture's start) */
	TB_FLOW_OPT_SYSROOT,		/* --sysroot DIR */
	TB_FLOW_OPT_ELF,		/* --elf FILE[:ADDR] */
	TB_FLOW_OPT_NO_DISASM,		/* --no-disasm */
};

#define TB_FLOW_LONGOPTS \
	{ "pid", required_argument, NULL, TB_FLOW_OPT_PID }, \
	{ "tid", required_argument, NULL, TB_FLOW_OPT_TID }, \
	{ "time", required_argument, NULL, TB_FLOW_OPT_TIME }, \
	{ "sysroot", required_argument, NULL, TB_FLOW_OPT_SYSROOT }, \
	{ "elf", required_argument, NULL, TB_FLOW_OPT_ELF }, \
	{ "no-disasm", no_argument, NULL, TB_FLOW_OPT_NO_DISASM }

struct tb_flow_cli {
	int32_t pid, tid;		/* -1: all */
	bool have_time;
	uint64_t t_from, t_to;		/* ns from the capture's start */
	const char *sysroot;
	struct sb_elf elfs[TB_FLOW_MAX_ELFS];
	size_t nelfs;
	bool disasm;
};

struct tb_flow_result {
	uint64_t insns, calls, errors, bytes, chunks, cut;
	unsigned int refused;		/* image files refused */
	unsigned int problems;		/* sideband problems */
	bool incomplete;		/* "complete": false */
};

void tb_flow_cli_init(struct tb_flow_cli *c);
/* One shared option (opt: TB_FLOW_OPT_*): 0, or -1 with *bad the wrong argument. */
int tb_flow_cli_opt(struct tb_flow_cli *c, int opt, const char *arg, const char **bad);
void tb_flow_cli_free(struct tb_flow_cli *c);

/*
 * Decode dir's instruction trace into out as mode says. 0, or -errno
 * (everything already said on stderr); res holds the counts either way.
 */
int tb_flow_run(const char *cmd, const char *dir, enum flow_mode mode, bool json, FILE *out,
		const struct tb_flow_cli *cli, struct tb_flow_result *res);

#endif /* TRACEBUF_FLOWCMD_H */
