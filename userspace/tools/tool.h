/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the tracebuf tool: the subcommands
 * and small helpers. tracebuf.c defines the command-line helpers, dump.c
 * the JSON helpers.
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

/* ---- capcheck.c: does a capture add up? ------------------------------- */

/*
 * Check the capture in dir (docs/capture-format.md, "Checks"): meta.json
 * against the cpuN files, the files against each other; only the CPU
 * 'only' when it is >= 0. Every problem is printed on stderr as
 * "tracebuf: CMD: DIR: ...". Returns the number of problems; *incomplete
 * is set when meta.json says the recording was interrupted (then only the
 * files are checked, not the counts).
 */
int tb_capture_check(const char *cmd, const char *dir, long only, int *incomplete);

/* ---- dump.c: JSON ------------------------------------------------------- */

/*
 * Write len bytes at s as a JSON string, quotes included: " and \
 * escaped, control bytes, NUL and bytes >= 0x7f as \u00XX (read as
 * Latin-1, so the output is ASCII and valid whatever the input).
 */
void tb_json_str(FILE *f, const char *s, size_t len);

/* 0 when text is one JSON object and nothing else but whitespace. */
int tb_json_object(const char *text, size_t len);

/*
 * A minimal reader for meta.json. A value is a span of the text: the
 * object, array, string (quotes included), number or literal. Returns 0
 * and the span of the member 'key' of the object at obj (the span of an
 * object value), -1 if there is no such member or the text is malformed.
 */
int tb_json_member(const char *obj, size_t objlen, const char *key,
		   const char **val, size_t *vallen);
/* The value as a number (integers exactly up to 2^64 - 1); -1 if not one. */
int tb_json_u64(const char *val, size_t len, uint64_t *out);
int tb_json_bool(const char *val, size_t len, int *out);	/* true/false */
/* A string value unescaped into buf (NUL-terminated, \u00XX -> byte). */
int tb_json_string(const char *val, size_t len, char *buf, size_t size);
/*
 * The n-th element (from 0) of the array at val; -1 past the end or if
 * malformed.
 */
int tb_json_index(const char *val, size_t len, size_t n, const char **elem,
		  size_t *elemlen);

/* The whole file in a malloc'ed buffer (NUL-terminated too); 0 or -errno. */
int tb_read_file(const char *path, unsigned char **buf, size_t *len);

#endif /* TRACEBUF_TOOL_H */
