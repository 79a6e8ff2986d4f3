// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf - command-line front end to libtracebuf.
 *
 *   tracebuf <command> [options]
 *
 * Each command is one cmd_*() function with its own getopt_long() loop,
 * listed in 'commands' below. Exit status: 0 success, 1 the operation
 * failed, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libtracebuf.h>

#define EXIT_USAGE	2

static const char usage_text[] =
	"Usage: tracebuf <command> [options]\n"
	"\n"
	"Commands:\n"
	"  info [--json]   show the module version, ABI and trace backends\n"
	"  version         show the tool version (also --version)\n"
	"  help            show this help (also -h, --help)\n"
	"\n"
	"Environment:\n"
	"  TRACEBUF_DEVICE device node to use instead of " TRACEBUF_DEVICE "\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "tracebuf: %s '%s'\n", what, arg);
	fputs("Try 'tracebuf help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/*
 * Report what getopt_long() rejected. opterr is 0, so this is the only
 * message: an unknown short option is in optopt, anything else is the
 * argument getopt just stepped over.
 */
static int bad_option(char **argv, int c)
{
	char opt[3] = { '-', 0, 0 };
	const char *arg = argv[optind - 1];

	if (optopt) {
		opt[1] = (char)optopt;
		arg = opt;
	}
	return usage_error(c == ':' ? "missing argument for option" :
			   "unknown option", arg);
}

/* Start option parsing for a command; argv[0] is the command name. */
static void getopt_reset(void)
{
	optind = 0;	/* glibc: full reinitialisation */
	optopt = 0;
	opterr = 0;
}

/* The device the library opens, for messages. */
static const char *device_path(void)
{
	const char *path = secure_getenv("TRACEBUF_DEVICE");

	return path && *path ? path : TRACEBUF_DEVICE;
}

static int open_session(struct tracebuf_session *s)
{
	int ret = tracebuf_open(s, 0);

	if (ret < 0)
		fprintf(stderr, "tracebuf: cannot open %s: %s\n", device_path(),
			tracebuf_strerror(ret));
	return ret;
}

/* Print s as the body of a JSON string; bytes >= 0x80 read as Latin-1. */
static void json_string(const char *s, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The kernel NUL-terminates, but a fixed array is all we trust. */
static const char *desc_name(const struct tracebuf_backend_desc *d, int *len)
{
	*len = (int)strnlen(d->name, sizeof(d->name));
	if (*len)
		return d->name;
	*len = (int)strlen(tracebuf_backend_name(d->id));
	return tracebuf_backend_name(d->id);
}

static void print_info_text(const struct tracebuf_info *info,
			    const struct tracebuf_backend_desc *b, unsigned int n)
{
	unsigned int i;

	printf("module version: %.*s\n", (int)sizeof(info->module_version),
	       info->module_version);
	printf("abi version: %u\n", info->abi_version);
	printf("page size: %u\n", info->page_size);
	printf("nr_cpu_ids: %u\n", info->nr_cpu_ids);
	printf("tool version: %s\n", TRACEBUF_VERSION);
	if (!info->nr_backends) {
		printf("backends: none (no Intel PT or CoreSight hardware found, and no emulator loaded)\n");
		return;
	}
	printf("backends: %u\n", info->nr_backends);
	for (i = 0; i < n; i++) {
		int len;
		const char *name = desc_name(&b[i], &len);

		printf("  %.*s: id %u, flags 0x%x%s, nr_cpus %u, caps_size %u\n",
		       len, name, b[i].id, b[i].flags,
		       b[i].flags & TRACEBUF_BACKEND_F_EMULATED ? " (emulated)" : "",
		       b[i].nr_cpus, b[i].caps_size);
	}
}

static void print_info_json(const struct tracebuf_info *info,
			    const struct tracebuf_backend_desc *b, unsigned int n)
{
	unsigned int i;

	printf("{\"module_version\":");
	json_string(info->module_version, sizeof(info->module_version));
	printf(",\"abi_version\":%u,\"page_size\":%u,\"nr_cpu_ids\":%u,\"tool_version\":",
	       info->abi_version, info->page_size, info->nr_cpu_ids);
	json_string(TRACEBUF_VERSION, sizeof(TRACEBUF_VERSION));
	printf(",\"backends\":[");
	for (i = 0; i < n; i++) {
		int len;
		const char *name = desc_name(&b[i], &len);

		printf("%s{\"name\":", i ? "," : "");
		json_string(name, (size_t)len);
		printf(",\"id\":%u,\"flags\":%u,\"emulated\":%s,\"nr_cpus\":%u,\"caps_size\":%u}",
		       b[i].id, b[i].flags,
		       b[i].flags & TRACEBUF_BACKEND_F_EMULATED ? "true" : "false",
		       b[i].nr_cpus, b[i].caps_size);
	}
	printf("]}\n");
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tracebuf_backend_desc stack_backends[8];
	struct tracebuf_backend_desc *backends = stack_backends;
	unsigned int max = sizeof(stack_backends) / sizeof(stack_backends[0]);
	struct tracebuf_session s;
	struct tracebuf_info info;
	int json = 0, c, ret;

	getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option(argv, c);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);

	if (open_session(&s) < 0)
		return 1;
	ret = tracebuf_get_info(&s, &info, backends, max);
	if (ret == 0 && info.nr_backends > max) {
		/* More backends than fit on the stack: ask again for all. */
		max = info.nr_backends;
		backends = calloc(max, sizeof(*backends));
		ret = backends ? tracebuf_get_info(&s, &info, backends, max) : -ENOMEM;
	}
	tracebuf_close(&s);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: cannot get info from %s: %s\n",
			device_path(), tracebuf_strerror(ret));
		goto out;
	}
	if (info.abi_version != TRACEBUF_ABI_VERSION)
		fprintf(stderr, "tracebuf: warning: module ABI version %u, tool built for %u\n",
			info.abi_version, TRACEBUF_ABI_VERSION);

	if (json)
		print_info_json(&info, backends, info.nr_backends < max ? info.nr_backends : max);
	else
		print_info_text(&info, backends, info.nr_backends < max ? info.nr_backends : max);
out:
	if (backends != stack_backends)
		free(backends);
	return ret < 0 ? 1 : 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("tracebuf %s\n", TRACEBUF_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "info", cmd_info },
	{ "version", cmd_version },
	{ "--version", cmd_version },
	{ "help", cmd_help },
	{ "--help", cmd_help },
	{ "-h", cmd_help },
};

int main(int argc, char **argv)
{
	size_t i;
	int ret = -1;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			ret = commands[i].fn(argc - 1, argv + 1);
			break;
		}
	}
	if (ret < 0)
		return usage_error(argv[1][0] == '-' ? "unknown option" :
				   "unknown command", argv[1]);

	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebuf: write error: %s\n", strerror(errno));
		return 1;
	}
	return ret;
}
