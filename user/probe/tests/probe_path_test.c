// SPDX-License-Identifier: GPL-2.0
/*
 * probe_path_test.c - a uprobe's and a USDT probe's PATH is the file it
 * named when the probe was added: DIR/prog is a copy of TARGET (the probe
 * tests' target) when fxtprobe_add() reads the specs, then another program
 * (REPLACEMENT, without the symbol or the USDT note) is renamed over it
 * before fxtprobe_open() attaches, as whoever may write DIR could do
 * between libbpf's open of the path and the kernel's.  Both probes must
 * attach, to the file added: DIR/orig, a hard link to it, run for COUNT
 * iterations, gives COUNT hits of each.  Root, in the guest.  Prints TAP.
 *
 *	probe_path_test TARGET REPLACEMENT DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxtprobe.h"

#define COUNT 10

static int n, failed;

static void result(bool ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, what);
	if (!ok)
		failed = 1;
}

/* Copy the file at from to a new file to, mode 0755: 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got = 0;
	int in, out, ret = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while (!ret && (got = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)got) != got)
			ret = -EIO;
	if (got < 0)
		ret = -errno;
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

static void on_error(void *ctx, const char *spec, int err, const char *reason)
{
	(void)ctx;
	printf("# %s: cannot attach (%d): %s\n", spec, err, reason);
}

static int ignore_records(void *ctx, const void *bytes, size_t len)
{
	(void)ctx;
	(void)bytes;
	(void)len;
	return 0;
}

/* Run path COUNT with its output discarded: its exit status, or -1. */
static int run(const char *path)
{
	char count[16];
	pid_t pid;
	int status;

	snprintf(count, sizeof(count), "%d", COUNT);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execl(path, path, count, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char prog[4096], orig[4096], next[4096], spec[2][4200], what[256];
	char err[512] = "";
	struct fxtprobe *set;
	int ret, events = 0, got;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: probe_path_test TARGET REPLACEMENT DIR\n");
		return 2;
	}
	snprintf(prog, sizeof(prog), "%s/prog", argv[3]);
	snprintf(orig, sizeof(orig), "%s/orig", argv[3]);
	snprintf(next, sizeof(next), "%s/next", argv[3]);
	if (mkdir(argv[3], 0700) || copy_file(argv[1], prog) ||
	    link(prog, orig) || copy_file(argv[2], next)) {
		perror("probe_path_test: setting up");
		return 1;
	}
	snprintf(spec[0], sizeof(spec[0]),
		 "uprobe:%s:fxtprobe_target_work i=arg0:s64", prog);
	snprintf(spec[1], sizeof(spec[1]), "usdt:%s:fxtprobe_test:tick",
		 prog);
	set = fxtprobe_new();
	if (!set)
		return 1;
	for (i = 0; i < 2; i++) {
		ret = fxtprobe_add(set, spec[i], err, sizeof(err));
		snprintf(what, sizeof(what), "fxtprobe_add %s: 0 (%d)",
			 i ? "usdt" : "uprobe", ret);
		result(!ret, what);
	}
	/* What a writer of DIR can do between the add and the attach. */
	ret = rename(next, prog);
	result(!ret, "REPLACEMENT renamed over DIR/prog after the add");
	ret = fxtprobe_open(set, NULL, on_error, NULL, err, sizeof(err));
	if (ret < 0)
		printf("# fxtprobe_open: %s\n", err);
	snprintf(what, sizeof(what),
		 "both probes attach to the file added (%d attached)", ret);
	result(ret == 2 && fxtprobe_attached(set, 0) &&
	       fxtprobe_attached(set, 1), what);
	ret = run(orig);
	snprintf(what, sizeof(what), "DIR/orig %d exits 0 (%d)", COUNT, ret);
	result(!ret, what);
	/* The ring holds every event once the target has exited. */
	while ((got = fxtprobe_consume(set, ignore_records, NULL)) > 0)
		events += got;
	snprintf(what, sizeof(what),
		 "DIR/orig's %d iterations hit both probes: %d events, %d expected",
		 COUNT, events, 2 * COUNT);
	result(events == 2 * COUNT, what);
	ret = run(prog);
	snprintf(what, sizeof(what), "REPLACEMENT runs (%d)", ret);
	result(ret == 0, what);
	got = fxtprobe_consume(set, ignore_records, NULL);
	snprintf(what, sizeof(what),
		 "DIR/prog, now REPLACEMENT, hits nothing (%d events)", got);
	result(got == 0, what);
	fxtprobe_close(set);
	unlink(orig);
	unlink(prog);
	rmdir(argv[3]);
	printf("1..%d\n", n);
	return failed;
}
