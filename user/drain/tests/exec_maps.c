// SPDX-License-Identifier: GPL-2.0
/*
 * exec_maps.so, preloaded into fxtrace-drain by pty_test.sh: the command's
 * child, as it execs the command (as USER by then), copies its
 * /proc/self/maps to the file $EXEC_MAPS, once (O_EXCL: not the command's
 * own execs): what of the drainer's memory it held until exec.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int execvp(const char *file, char *const argv[])
{
	int (*real)(const char *, char *const[]) =
		(int (*)(const char *, char *const[]))
		dlsym(RTLD_NEXT, "execvp");
	const char *path = getenv("EXEC_MAPS");
	char buf[4096];
	int in, out;
	ssize_t n;

	out = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) :
		     -1;
	if (out >= 0) {
		in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0 &&
		       write(out, buf, (size_t)n) == n)
			;
		if (in >= 0)
			close(in);
		close(out);
	}
	return real(file, argv);
}
