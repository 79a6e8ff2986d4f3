// SPDX-License-Identifier: GPL-2.0
/*
 * taskprog - small known programs for the per-task tests (task_trace.c):
 * not a test itself (not in the plan). Each mode prints what the test
 * must find in the trace, one "key value" line each, on stdout.
 *
 *   taskprog spin MS [CPU]    spin MS milliseconds (pinned to CPU if given)
 *   taskprog threads N MS     N threads spinning MS each; "tid T" for each
 *   taskprog migrate MS       one thread moving CPU 0 -> 1 -> 0 with
 *                             sched_setaffinity(), MS on each; "cpu C" for
 *                             each CPU it ran on, "tid T"
 *   taskprog forkexec MS      fork a child that execs "taskprog spin MS";
 *                             spin meanwhile; "child P"; wait for it
 *   taskprog exit MS          spin MS, then _exit(0) from a spinning thread
 *                             while another thread still spins
 *   taskprog sleep MS         sleep MS (a process that does not run)
 *   taskprog exec MS PATH     spin MS, then exec "PATH spin MS"
 *   taskprog sideband DIR MS  for tool_task: a thread spinning; spin; map a
 *                             page of this program executable (a mapping
 *                             made late); copy /proc/self/maps to
 *                             DIR/maps.PID; fork a child that execs
 *                             "taskprog mapsonly DIR MS" (the same there);
 *                             wait for both; "child P"
 *   taskprog mapsonly DIR MS  spin MS/2, copy /proc/self/maps to DIR/maps.PID,
 *                             spin MS/2
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ms_arg;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Busy for ms milliseconds of wall time, with calls and branches. */
static volatile uint64_t sink;

static void spin(int ms)
{
	uint64_t end = now_ms() + ms, x = 1;
	unsigned int i;

	while (now_ms() < end)
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + (i & 1 ? 1442695040888963407ULL : 1);
	sink = x;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *thread_fn(void *arg __attribute__((unused)))
{
	printf("tid %d\n", gettid_());
	fflush(stdout);
	spin(ms_arg);
	return NULL;
}

/* /proc/self/maps to DIR/maps.PID, as the process sees itself now. */
static int save_maps(const char *dir)
{
	char path[256], buf[4096];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/maps.%d", dir, (int)getpid());
	in = open("/proc/self/maps", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return close(out);
}

static void *exit_fn(void *arg __attribute__((unused)))
{
	spin(ms_arg);
	_exit(0);	/* the other thread still spins */
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	int i, n, st;
	pid_t pid;

	if (argc < 3)
		return 2;
	ms_arg = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "spin")) {
		if (argc > 3)
			pin(atoi(argv[3]));
		printf("tid %d\n", gettid_());
		spin(ms_arg);
	} else if (!strcmp(argv[1], "threads") && argc > 3) {
		n = atoi(argv[2]);
		ms_arg = atoi(argv[3]);
		if (n < 1 || n > 16)
			return 2;
		for (i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, thread_fn, NULL))
				return 1;
		for (i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(argv[1], "migrate")) {
		printf("tid %d\n", gettid_());
		pin(0);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
		pin(1);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
		pin(0);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
	} else if (!strcmp(argv[1], "forkexec")) {
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "taskprog", "spin", argv[2], (char *)NULL);
			_exit(127);
		}
		printf("child %d\n", pid);
		spin(ms_arg);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	} else if (!strcmp(argv[1], "exit")) {
		if (pthread_create(&th[0], NULL, exit_fn, NULL))
			return 1;
		spin(10 * ms_arg);	/* ended by the other thread's _exit */
		return 1;
	} else if (!strcmp(argv[1], "exec") && argc > 3) {
		printf("tid %d\n", gettid_());
		spin(ms_arg);
		execl(argv[3], argv[3], "spin", argv[2], (char *)NULL);
		return 127;
	} else if (!strcmp(argv[1], "sideband") && argc > 3) {
		void *late;
		int fd;

		ms_arg = atoi(argv[3]);
		if (pthread_create(&th[0], NULL, thread_fn, NULL))
			return 1;
		spin(ms_arg / 2);
		/* An executable mapping made while traced. */
		fd = open("/proc/self/exe", O_RDONLY);
		late = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
						  fd, 0);
		if (late == MAP_FAILED)
			return 1;
		spin(ms_arg / 2);
		if (save_maps(argv[2]))
			return 1;
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "taskprog", "mapsonly", argv[2], argv[3], (char *)NULL);
			_exit(127);
		}
		printf("child %d\n", pid);
		pthread_join(th[0], NULL);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	} else if (!strcmp(argv[1], "mapsonly") && argc > 3) {
		ms_arg = atoi(argv[3]);
		spin(ms_arg / 2);
		if (save_maps(argv[2]))
			return 1;
		spin(ms_arg / 2);
	} else if (!strcmp(argv[1], "sleep")) {
		usleep(ms_arg * 1000);
	} else {
		return 2;
	}
	return 0;
}
