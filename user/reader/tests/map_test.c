// SPDX-License-Identifier: GPL-2.0
/*
 * map_test - fxt_reader_read_map(): a file cut while the reader has it
 * mapped stops the walk with -ENODATA at the record whose bytes are gone
 * (before, the reader died of SIGBUS); a SIGBUS that is not a fault in the
 * mapping still reaches the previous handler, which is put back; what
 * cannot be mapped is left to read(); records past the window are skipped
 * as when read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vectors.h"

/* An instant event with inline thread and empty category and name: 32 bytes. */
#define INSTANT_HEADER	(4 | 4 << 4)
#define INSTANTS	383	/* magic + 383 * 32 bytes: three pages */

static struct words trace;
static unsigned char bytes[sizeof(((struct words *)0)->w)];

static void build_trace(void)
{
	size_t i;

	trace.n = 0;
	put(&trace, spec_magic[0]);
	for (i = 0; i < INSTANTS; i++) {
		put(&trace, INSTANT_HEADER);
		put(&trace, 1000 + i);	/* timestamp */
		put(&trace, 10);	/* process koid */
		put(&trace, 11);	/* thread koid */
	}
}

/* A temporary file holding the trace, unlinked; its fd or -1. */
static int trace_file(void)
{
	char path[] = "/tmp/map_test.XXXXXX";
	size_t len = 8 * trace.n;
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	words_to_le(trace.w, trace.n, bytes);
	if (write(fd, bytes, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

struct cutter {
	int fd;
	uint64_t at_record;	/* cut when this record (0-based) arrives */
	off_t size;		/* to this size */
	uint64_t records;	/* records the callback saw */
	bool raise_bus;		/* send SIGBUS instead of cutting */
};

static int cut_file(void *ctx, const struct fxt_record *rec)
{
	struct cutter *c = ctx;

	(void)rec;
	if (c->records++ != c->at_record)
		return 0;
	if (c->raise_bus)
		raise(SIGBUS);
	else if (ftruncate(c->fd, c->size))
		return -errno;
	return 0;
}

static volatile sig_atomic_t other_bus;

static void on_other_bus(int sig)
{
	(void)sig;
	other_bus++;
}

static int install_other_bus(void)
{
	struct sigaction sa = { .sa_handler = on_other_bus };

	sigemptyset(&sa.sa_mask);
	other_bus = 0;
	return sigaction(SIGBUS, &sa, NULL);
}

static bool other_bus_installed(void)
{
	struct sigaction sa;

	return !sigaction(SIGBUS, NULL, &sa) && sa.sa_handler == on_other_bus;
}

/*
 * Cut to one page while record 10 is in hand: the 127 records after the
 * magic that end inside the page are walked; the one at 0xfe8 runs past
 * it, and its bytes are gone.
 */
static int test_cut_at_page(void)
{
	struct cutter c = { .at_record = 10, .size = 4096 };
	struct fxt_reader *r;
	int ret;

	build_trace();
	c.fd = trace_file();
	ASSERT_TRUE(c.fd >= 0);
	ASSERT_EQ(0, install_other_bus());
	r = fxt_reader_new(NULL, NULL);
	ASSERT_TRUE(r);
	ret = fxt_reader_read_map(r, c.fd, UINT64_MAX, cut_file, &c);
	ASSERT_EQ(-ENODATA, ret);
	ASSERT_EQ(0xfe8, fxt_reader_offset(r));
	ASSERT_EQ(128, fxt_reader_records(r));
	ASSERT_EQ(128, c.records);
	ASSERT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	ASSERT_TRUE(other_bus_installed());
	ASSERT_EQ(0, other_bus);
	fxt_reader_free(r);
	close(c.fd);
	return 0;
}

/*
 * Cut inside a page: the rest of the page reads as zeros (a header of size
 * 0 stops the walk), and the walk still ends with -ENODATA there.
 */
static int test_cut_inside_page(void)
{
	struct cutter c = { .at_record = 10, .size = 5000 };
	struct fxt_reader *r;

	build_trace();
	c.fd = trace_file();
	ASSERT_TRUE(c.fd >= 0);
	r = fxt_reader_new(NULL, NULL);
	ASSERT_TRUE(r);
	ASSERT_EQ(-ENODATA, fxt_reader_read_map(r, c.fd, UINT64_MAX, cut_file,
						&c));
	ASSERT_EQ(5000, fxt_reader_offset(r));
	ASSERT_EQ(1 + (5000 - 8) / 32, fxt_reader_records(r));
	fxt_reader_free(r);
	close(c.fd);
	return 0;
}

/* A SIGBUS sent, not a fault in the mapping: the previous handler's. */
static int test_other_sigbus(void)
{
	struct cutter c = { .at_record = 10, .raise_bus = true };
	struct fxt_reader *r;

	build_trace();
	c.fd = trace_file();
	ASSERT_TRUE(c.fd >= 0);
	ASSERT_EQ(0, install_other_bus());
	r = fxt_reader_new(NULL, NULL);
	ASSERT_TRUE(r);
	ASSERT_EQ(0, fxt_reader_read_map(r, c.fd, UINT64_MAX, cut_file, &c));
	ASSERT_EQ(1, other_bus);
	ASSERT_EQ(1 + INSTANTS, fxt_reader_records(r));
	ASSERT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	ASSERT_TRUE(other_bus_installed());
	fxt_reader_free(r);
	close(c.fd);
	return 0;
}

/* Fault on a page of a file of its own cut under its mapping. */
static void *fault_elsewhere(void *arg)
{
	char path[] = "/tmp/map_test.XXXXXX";
	int fd = mkstemp(path);
	volatile const char *p;

	(void)arg;
	unlink(path);
	if (fd < 0 || ftruncate(fd, 4096))
		_exit(2);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0))
		_exit(2);
	return (void *)(uintptr_t)p[0];	/* SIGBUS */
}

static int fault_in_thread(void *ctx, const struct fxt_record *rec)
{
	pthread_t t;

	(void)ctx;
	(void)rec;
	if (pthread_create(&t, NULL, fault_elsewhere, NULL) ||
	    pthread_join(t, NULL))
		_exit(2);
	return 0;
}

/*
 * Another thread's fault during the walk is not the walk's: it gets the
 * default disposition (the process dies of SIGBUS), rather than returning
 * to the faulting load forever (the alarm ends that).
 */
static int test_other_thread_fault(void)
{
	struct fxt_reader *r;
	int status, fd;
	pid_t pid;

	build_trace();
	fflush(stdout);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		signal(SIGBUS, SIG_DFL);
		alarm(10);
		fd = trace_file();
		r = fxt_reader_new(NULL, NULL);
		if (fd < 0 || !r)
			_exit(2);
		fxt_reader_read_map(r, fd, UINT64_MAX, fault_in_thread, NULL);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGBUS, WTERMSIG(status));
	return 0;
}

/* A pipe is not mapped: -ENODEV, nothing read, nothing reported. */
static int test_pipe(void)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	int p[2];

	ASSERT_TRUE(r);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(8, write(p[1], bytes, 8));
	ASSERT_EQ(-ENODEV, fxt_reader_read_map(r, p[0], UINT64_MAX, NULL,
					       NULL));
	ASSERT_EQ(0, fxt_reader_records(r));
	ASSERT_EQ(0, fxt_reader_offset(r));
	close(p[0]);
	close(p[1]);
	fxt_reader_free(r);
	return 0;
}

/* An empty file, maybe a procfs one, is left to read() too. */
static int test_empty(void)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	int fd;

	ASSERT_TRUE(r);
	trace.n = 0;
	fd = trace_file();
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(-ENODEV, fxt_reader_read_map(r, fd, UINT64_MAX, NULL, NULL));
	close(fd);
	fd = open("/proc/self/stat", O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(-ENODEV, fxt_reader_read_map(r, fd, UINT64_MAX, NULL, NULL));
	close(fd);
	ASSERT_EQ(0, fxt_reader_records(r));
	fxt_reader_free(r);
	return 0;
}

/* The limit: the first len bytes only, the rest as if absent. */
static int test_limit(void)
{
	static struct diags d;
	struct fxt_reader *r;
	int fd;

	build_trace();
	fd = trace_file();
	ASSERT_TRUE(fd >= 0);
	memset(&d, 0, sizeof(d));
	r = fxt_reader_new(collect_diag, &d);
	ASSERT_TRUE(r);
	ASSERT_EQ(0, fxt_reader_read_map(r, fd, 8 + 32 * 3 + 16, NULL, NULL));
	ASSERT_EQ(4, fxt_reader_records(r));
	ASSERT_STR("0x000068: error: truncated: the event record needs 32 bytes; the input ends after 16\n",
		   d.text);
	fxt_reader_free(r);
	close(fd);
	return 0;
}

/* Walk fd mapped and read with a window of `window` bytes; same report. */
static int same_as_read(int fd, size_t window, const char *expected)
{
	static struct diags mapped, read;
	struct fxt_reader *r;

	memset(&mapped, 0, sizeof(mapped));
	memset(&read, 0, sizeof(read));
	r = fxt_reader_new(collect_diag, &mapped);
	ASSERT_TRUE(r);
	fxt_reader_set_window_max(r, window);
	ASSERT_EQ(0, fxt_reader_read_map(r, fd, UINT64_MAX, NULL, NULL));
	fxt_reader_free(r);
	r = fxt_reader_new(collect_diag, &read);
	ASSERT_TRUE(r);
	fxt_reader_set_window_max(r, window);
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	ASSERT_EQ(0, fxt_reader_read_fd(r, fd, NULL, NULL));
	fxt_reader_free(r);
	ASSERT_STR(expected, mapped.text);
	ASSERT_STR(expected, read.text);
	return 0;
}

#define NOT_CHECKED(offset)						\
	"0x0000" offset ": warning: not-checked: event record of 32 bytes is larger than the reader's 24-byte window; skipped unchecked\n"

/* Records larger than the window: skipped mapped as they are when read. */
static int test_window(void)
{
	int fd;

	build_trace();
	fd = trace_file();
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(0, ftruncate(fd, 8 + 32 * 2));
	if (same_as_read(fd, 24, NOT_CHECKED("08") NOT_CHECKED("28")))
		return 1;
	/*
	 * The last record cut by the end: skipped, and truncated by the bytes
	 * it lacks (read() found it so only where its reads happened to end
	 * after the record's first bytes).
	 */
	close(fd);
	fd = trace_file();
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(0, ftruncate(fd, 8 + 32 * 2 + 8));
	if (same_as_read(fd, 24,
			 NOT_CHECKED("08") NOT_CHECKED("28") NOT_CHECKED("48")
			 "0x000048: error: truncated: the input ends 24 bytes before the end of the skipped event record\n"))
		return 1;
	close(fd);
	return 0;
}

static const struct tap_test tests[] = {
	{ "a file cut at a page while mapped: -ENODATA at the lost record", test_cut_at_page },
	{ "a file cut inside a page while mapped: -ENODATA", test_cut_inside_page },
	{ "a SIGBUS sent during the walk reaches the previous handler", test_other_sigbus },
	{ "another thread's SIGBUS during the walk is not caught", test_other_thread_fault },
	{ "a pipe is not mapped: -ENODEV", test_pipe },
	{ "a file of size 0 (procfs) is not mapped: -ENODEV", test_empty },
	{ "only the first len bytes are walked", test_limit },
	{ "records past the window are skipped as when read", test_window },
};

int main(void)
{
	return tap_run(tests, N_WORDS(tests));
}
