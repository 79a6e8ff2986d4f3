// SPDX-License-Identifier: GPL-2.0
/*
 * The module cannot be unloaded while a file of /dev/tracebuf is open, and
 * unloads cleanly after the last close. A child process holding the file
 * (inherited across fork) pins it too.
 */
#include <signal.h>

#include "tbtest.h"

int main(void)
{
	int fd, ret;
	pid_t child;

	if (tbt_modprobe("tracebuf"))
		return 1;
	fd = open("/dev/tracebuf", O_RDWR);
	TBT_CHECK(fd >= 0, "open: %s", strerror(errno));

	ret = tbt_rmmod("tracebuf");
	TBT_CHECK(ret == -EWOULDBLOCK, "rmmod with an open file: %d", ret);
	TBT_CHECK(tbt_module_loaded("tracebuf"), "module gone while open");

	/* A forked child keeps the file, and so the module, alive. */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	close(fd);
	ret = tbt_rmmod("tracebuf");
	TBT_CHECK(ret == -EWOULDBLOCK, "rmmod while a child holds the file: %d", ret);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	ret = tbt_rmmod("tracebuf");
	TBT_CHECK(ret == 0, "rmmod after the last close: %d", ret);
	TBT_CHECK(!tbt_module_loaded("tracebuf"), "module still loaded");
	TBT_CHECK(access("/dev/tracebuf", F_OK) != 0, "/dev/tracebuf still there");

	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "reload");
	return tbt_done();
}
