// SPDX-License-Identifier: GPL-2.0
/*
 * spool_read_test - fxtctl_spool_next() hands out a region read out of the
 * spool and checked in our memory: what the file's owner writes into it
 * afterwards (a region's sizes grown past the file, the file cut) changes
 * nothing of it.  Before, the spool was mapped shared, and the sizes
 * checked were read again from the file.  A sparse spool of 1 GiB costs
 * the memory of its one region, and a region larger than libfxtrace
 * writes, or whose sizes wrap around, is not read.  fxtctl_write_buffer() writes a region
 * only when its check finished: not when the check runs out of memory,
 * nor when it would take more than its memory budget.  Only a regular
 * file is opened: not a FIFO (nor a device) at the name.  Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxt.h>

#include "fxtctl.h"

#define PAGE		FXTRACE_BUFFER_PAGE_SIZE
#define DURABLE		PAGE
#define ROLLING		PAGE
#define REGION		(2 * PAGE + DURABLE + 2 * ROLLING)
#define MARK		0x5a

static int tests, failed;

static __attribute__((format(printf, 2, 3)))
void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed |= !ok;
}

/* One task buffer's region: header page, control page, data of MARK. */
static void region(unsigned char *r, __u64 durable_size)
{
	struct fxtrace_buffer_header *hdr = (void *)r;

	memset(r, 0, 2 * PAGE);
	memset(r + 2 * PAGE, MARK, REGION - 2 * PAGE);
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->kind = FXTRACE_BUFFER_TASK;
	hdr->id = 7;
	hdr->data_offset = 2 * PAGE;
	hdr->durable_size = durable_size;
	hdr->rolling_size = ROLLING;
}

/*
 * A region of one durable part whose clean records make a checking reader
 * allocate: for each of `providers` providers, its info record and one
 * string in each block of 256 string indices, some 2 KiB of records for
 * some 770 KiB of string tables.  Returns the region's size.
 */
static size_t table_region(unsigned char *r, unsigned int providers)
{
	struct fxtrace_buffer_header *hdr = (void *)r;
	struct fxtrace_buffer_control *ctl = (void *)(r + PAGE);
	__u64 *w = (__u64 *)(r + 2 * PAGE);
	unsigned int p, index;
	size_t n = 0, size;

	for (p = 1; p <= providers; p++) {
		n += fxt_write_provider_info(w + n, p, "", 0);
		for (index = 1; index <= FXT_STRING_INDEX_MAX; index += 256)
			n += fxt_write_string(w + n, (__u16)index, "x", 1);
	}
	size = (n * 8 + PAGE - 1) / PAGE * PAGE;
	memset(r, 0, 2 * PAGE);
	memset((char *)w + n * 8, 0, size - n * 8);
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->kind = FXTRACE_BUFFER_TASK;
	hdr->id = 8;
	hdr->data_offset = 2 * PAGE;
	hdr->durable_size = size;
	ctl->durable_committed = n * 8;
	return 2 * PAGE + size;
}

static __u64 committed(const unsigned char *r)
{
	const struct fxtrace_buffer_control *ctl = (const void *)(r + PAGE);

	return ctl->durable_committed;
}

/*
 * fxtctl_write_buffer() of the spool's first region to out, in a child
 * whose address space ends room bytes past what it has (0: no limit): its
 * return value, or -EFAULT if the child did not say.
 */
static int write_limited(const char *spool, int out, size_t room)
{
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0;
	uint64_t errors;
	struct rlimit rl;
	unsigned long pages;
	int status, ret;
	FILE *f;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -EFAULT;
	if (!pid) {
		if (fxtctl_spool_open(&sp, spool) ||
		    fxtctl_spool_next(&sp, &offset, &b) != 1)
			_exit(1);
		f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(1);
		fclose(f);
		rl.rlim_cur = pages * sysconf(_SC_PAGESIZE) + room;
		rl.rlim_max = rl.rlim_cur;
		if (room && setrlimit(RLIMIT_AS, &rl))
			_exit(1);
		ret = fxtctl_write_buffer(out, &b, &errors);
		_exit((unsigned char)ret);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -EFAULT;
	return (signed char)WEXITSTATUS(status);
}

/*
 * fxtctl_spool_next() of the spool's first region in a child whose address
 * space ends 64 MiB past what it has: its return value, or -EFAULT.
 */
static int next_limited(const char *spool)
{
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0;
	struct rlimit rl;
	unsigned long pages;
	int status;
	FILE *f;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -EFAULT;
	if (!pid) {
		f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(1);
		fclose(f);
		rl.rlim_cur = pages * sysconf(_SC_PAGESIZE) + (64 << 20);
		rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_AS, &rl) || fxtctl_spool_open(&sp, spool))
			_exit(1);
		_exit((unsigned char)fxtctl_spool_next(&sp, &offset, &b));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -EFAULT;
	return (signed char)WEXITSTATUS(status);
}

static size_t marked(const struct fxtctl_buffer *b)
{
	size_t i, n = 0;

	for (i = 0; i < DURABLE + 2 * ROLLING; i++)
		n += b->data[i] == MARK;
	return n;
}

int main(void)
{
	static unsigned char bytes[REGION], tables[2 * PAGE + (1 << 20)];
	struct fxtrace_buffer_header *hdr = (void *)bytes;
	char path[] = "/tmp/spool_read_test-XXXXXX";
	char out_path[] = "/tmp/spool_read_test-out-XXXXXX";
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0, size;
	char memfd_path[64];
	char event[4096] __attribute__((aligned(8)));
	int fd, out, memfd, ret, watch;
	ssize_t events;

	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	region(bytes, DURABLE);
	result(pwrite(fd, bytes, REGION, 0) == REGION, "a spool of one region");
	result(fxtctl_spool_open(&sp, path) == 0, "opened");
	ret = fxtctl_spool_next(&sp, &offset, &b);
	result(ret == 1, "its region is returned");

	/* The owner grows the sizes past the file, then cuts it. */
	region(bytes, 1ULL << 30);
	result(pwrite(fd, bytes, PAGE, 0) == PAGE && !ftruncate(fd, PAGE),
	       "the file changed after that");
	if (ret == 1) {
		result(b.id == 7 && b.hdr->durable_size == DURABLE &&
		       b.map_size == REGION, "the region keeps its sizes");
		result(marked(&b) == DURABLE + 2 * ROLLING,
		       "and its data");
	}
	result(fxtctl_spool_next(&sp, &offset, &b) == 0, "then the end");
	fxtctl_spool_close(&sp);

	/* 1 GiB of apparent size, one region of data. */
	region(bytes, DURABLE);
	result(!ftruncate(fd, 0) && pwrite(fd, bytes, REGION, 0) == REGION &&
	       !ftruncate(fd, 1LL << 30), "a sparse spool of 1 GiB");
	offset = 0;
	result(fxtctl_spool_open(&sp, path) == 0 &&
	       fxtctl_spool_next(&sp, &offset, &b) == 1 &&
	       marked(&b) == DURABLE + 2 * ROLLING, "its region is returned");
	result(fxtctl_spool_next(&sp, &offset, &b) == -EINVAL &&
	       sp.region_size <= REGION,
	       "then no region, in one region's memory");
	fxtctl_spool_close(&sp);

	/*
	 * A region larger than libfxtrace writes (1 GiB of data) is not one,
	 * and is not read: in a sparse spool it would cost that much memory.
	 * Before, any size the file had room for was allocated and read.
	 */
	region(bytes, 1ULL << 20);
	hdr->rolling_size = ((1ULL << 30) - (1ULL << 20)) / 2;
	result(!ftruncate(fd, 0) && pwrite(fd, bytes, PAGE, 0) == PAGE &&
	       !ftruncate(fd, (2 * PAGE + (1LL << 30)) * 2),
	       "a sparse spool of a region of 1 GiB of data, and room for more");
	ret = next_limited(path);
	result(ret == -ENOMEM,
	       "the region is read: -ENOMEM in 64 MiB (%d)", ret);
	hdr->durable_size += PAGE;
	result(pwrite(fd, bytes, PAGE, 0) == PAGE,
	       "one page more of data");
	ret = next_limited(path);
	result(ret == -EINVAL, "not a region: -EINVAL (%d)", ret);

	/*
	 * Sizes whose sum wraps around: 16 bytes of durable part and halves
	 * of 2^63 - 8 make 2^64 bytes of data, 0 in a size_t, in a file of
	 * 2^63 - 1 bytes (tmpfs has room: a memfd).  Before, that was a
	 * region of two pages whose header sized its data past them, and
	 * the spans of its data were read out of bounds.
	 */
	memfd = memfd_create("spool_read_test", MFD_CLOEXEC);
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	region(bytes, 16);
	hdr->rolling_size = (1ULL << 63) - 8;
	result(memfd >= 0 && pwrite(memfd, bytes, 2 * PAGE, 0) == 2 * PAGE &&
	       !ftruncate(memfd, INT64_MAX),
	       "a sparse spool of 2^63 - 1 bytes whose region's sizes wrap");
	offset = 0;
	ret = fxtctl_spool_open(&sp, memfd_path);
	if (!ret)
		ret = fxtctl_spool_next(&sp, &offset, &b);
	result(ret == -EINVAL, "not a region: -EINVAL (%d)", ret);
	fxtctl_spool_close(&sp);
	close(memfd);

	/*
	 * Out of memory while checking a region: nothing of it is written.
	 * Before, the check's -ENOMEM was not looked at, and a region whose
	 * check stopped short with no error yet was written, unchecked.
	 */
	out = mkstemp(out_path);
	size = table_region(tables, 64);
	result(out >= 0 && !ftruncate(fd, 0) &&
	       pwrite(fd, tables, size, 0) == (ssize_t)size,
	       "a region whose tables take 50 MiB");
	ret = write_limited(path, out, 16 << 20);
	result(ret == -ENOMEM, "out of memory checking it: -ENOMEM (%d)", ret);
	result(lseek(out, 0, SEEK_END) == 0, "and nothing written");
	ret = ftruncate(out, 0) || lseek(out, 0, SEEK_SET) ? -errno :
	      write_limited(path, out, 0);
	result(ret == 1 && lseek(out, 0, SEEK_END) == (off_t)committed(tables),
	       "with the memory, it is written (%d)", ret);

	/*
	 * A region whose tables would take 300 MiB, some 380 times its size:
	 * its check stops at the memory budget, and nothing is written.
	 * Before, the check had no budget: a crafted spool took memory
	 * hundreds of times its size, and a large one all there was.
	 */
	size = table_region(tables, 400);
	result(!ftruncate(fd, 0) &&
	       pwrite(fd, tables, size, 0) == (ssize_t)size &&
	       !ftruncate(out, 0) && !lseek(out, 0, SEEK_SET),
	       "a region of %zu KiB whose tables take 300 MiB", size >> 10);
	ret = write_limited(path, out, 0);
	result(ret == -ENOBUFS, "past the memory budget: -ENOBUFS (%d)", ret);
	result(lseek(out, 0, SEEK_END) == 0, "and nothing written");
	close(out);
	unlink(out_path);
	close(fd);
	unlink(path);

	/*
	 * A FIFO at the spool's name (its owner can put one there): refused
	 * at once.  Before, the open waited for a writer.
	 */
	result(!mkfifo(path, 0600), "a FIFO at the name");
	alarm(10);
	ret = fxtctl_spool_open(&sp, path);
	alarm(0);
	result(ret == -EINVAL && sp.fd == -1, "open: -EINVAL, not a wait (%d)",
	       ret);
	unlink(path);

	/*
	 * A symbolic link to a FIFO at the name, as to a device its owner
	 * cannot make: refused, and the FIFO not opened (no IN_OPEN; an
	 * O_PATH open makes none).  Before, it was opened and then refused:
	 * a device's open alone may act (a watchdog starts, a tape rewinds).
	 */
	result(!mkfifo(out_path, 0600) && !symlink(out_path, path),
	       "a symbolic link to a FIFO at the name");
	watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	result(watch >= 0 && inotify_add_watch(watch, out_path, IN_OPEN) >= 0,
	       "the FIFO's opens watched");
	ret = fxtctl_spool_open(&sp, path);
	result(ret == -EINVAL && sp.fd == -1, "open: -EINVAL (%d)", ret);
	events = read(watch, event, sizeof(event));
	result(events < 0 && errno == EAGAIN,
	       "and the FIFO was not opened (%zd bytes of inotify events)",
	       events);
	close(watch);
	unlink(path);
	unlink(out_path);
	printf("1..%d\n", tests);
	return failed;
}
