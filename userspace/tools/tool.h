/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the tracebuf tool: the subcommands
 * and small helpers. tracebuf.c defines the command-line helpers, dump.c
 * the capture opening and the JSON writer.
 */
#ifndef TRACEBUF_TOOL_H
#define TRACEBUF_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Subcommands: argv[0] is the subcommand name; they return the exit status. */
int cmd_record(int argc, char **argv);	/* record.c */
int cmd_dump(int argc, char **argv);	/* dump.c */
int cmd_decode(int argc, char **argv);	/* decode.c */
int cmd_export(int argc, char **argv);	/* decode.c */

/* Exit statuses shared by every subcommand. */
#define TB_EXIT_OK	0
#define TB_EXIT_FAIL	1	/* the operation failed, or trace was lost */
#define TB_EXIT_USAGE	2	/* bad command line */

/* ---- tracebuf.c: command line ------------------------------------------ */

/*
 * "tracebuf: WHAT 'ARG'" and the "Try 'tracebuf help'" line on stderr;
 * returns TB_EXIT_USAGE.
 */
int tb_usage_error(const char *what, const char *arg);

/*
 * After getopt_long() returned c ('?' or ':', with opterr = 0 and an
 * optstring starting with ':'): report the unknown option or the missing
 * argument as tb_usage_error() does; returns TB_EXIT_USAGE.
 */
int tb_bad_option(char **argv, int c);

/* Before a subcommand's getopt_long() loop: full reset, opterr = 0. */
void tb_getopt_reset(void);

/* The device node the library opens ($TRACEBUF_DEVICE or /dev/tracebuf). */
const char *tb_device_path(void);

/*
 * The configuration string on stderr, indented by two spaces, then a line
 * with ^~~~ under the bytes [off, off + len) (unprintable bytes show as
 * '?', one column each).
 */
void tb_print_caret(const char *config, uint32_t off, uint32_t len);

/* ---- dump.c: captures and JSON --------------------------------------------- */

struct tracebuf_capture;

/* The capture directory (docs/capture-format.md): its description file. */
#define TB_CAPTURE_META	"meta.json"

/*
 * Open the capture in dir with libtracebuf's reader, which checks that it
 * adds up (docs/capture-format.md, "Checks"): every problem on stderr as
 * "tracebuf: CMD: DIR: ...", then, for a capture that does not add up,
 * "... the capture does not add up (N problems above): not WHAT". flags
 * and cpu as in struct tracebuf_capture_opts. 0, or the negative errno of
 * tracebuf_capture_open(3) (everything already said).
 */
int tb_capture_open(const char *cmd, const char *dir, unsigned int flags, unsigned int cpu,
		    const char *what, struct tracebuf_capture **cap);
/* tracebuf_capture_opts.on_problem of tb_capture_open(). */
void tb_capture_problem(void *ctx, const char *message);

/*
 * Write len bytes at s as a JSON string, quotes included: " and \
 * escaped, control bytes, NUL and bytes >= 0x7f as \u00XX (read as
 * Latin-1, so the output is ASCII and valid whatever the input).
 */
void tb_json_str(FILE *f, const char *s, size_t len);

#endif /* TRACEBUF_TOOL_H */
