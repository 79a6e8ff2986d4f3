// SPDX-License-Identifier: GPL-2.0
/*
 * 100 load/open/GET_INFO/close/unload cycles. Each must succeed; leaks are
 * caught by the kmemleak scan the guest runs after the last test (debug
 * kernel), and by the console scan everywhere.
 */
#include <sys/ioctl.h>

#include <tracebuf.h>
#include "tbtest.h"

#define CYCLES 100

int main(void)
{
	struct tracebuf_info info;
	int i, fd, ret;

	if (tbt_module_loaded("tracebuf"))
		TBT_CHECK(tbt_rmmod("tracebuf") == 0, "initial rmmod");
	for (i = 0; i < CYCLES && !tbt_failures; i++) {
		TBT_CHECK(tbt_modprobe("tracebuf") == 0, "cycle %d: modprobe", i);
		fd = open("/dev/tracebuf", O_RDWR);
		TBT_CHECK(fd >= 0, "cycle %d: open: %s", i, strerror(errno));
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info) == 0,
			  "cycle %d: GET_INFO: %s", i, strerror(errno));
		close(fd);
		ret = tbt_rmmod("tracebuf");
		TBT_CHECK(ret == 0, "cycle %d: rmmod: %d", i, ret);
	}
	printf("%d load/unload cycles\n", i);
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "final modprobe");
	return tbt_done();
}
