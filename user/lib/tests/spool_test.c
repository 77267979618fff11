// SPDX-License-Identifier: GPL-2.0
/*
 * User-only mode keeps its buffers in OUTPUT.spool: a process killed with
 * SIGKILL loses nothing it had written, and a clean exit writes OUTPUT and
 * removes the spool.  TAP output.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxt_reader.h"
#include "fxtctl.h"
#include "../../tests/tap.h"


#define MAIN_TICKS 300
#define OTHER_TICKS 200

static void ticks(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		TRACE_DURATION("app", "tick", FXT_ARG("i", i));
	}
}

static void *other_thread(void *arg)
{
	fxt_set_thread_name("other");
	ticks(OTHER_TICKS);
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

/* The child traces, reports its tids and is killed (or exits cleanly). */
static pid_t run_child(int report, bool crash)
{
	pid_t child, tids[2];
	pthread_t t;

	/* The child's exit() must not print the parent's buffered lines. */
	fflush(stdout);
	child = fork();
	if (child)
		return child;
	ticks(MAIN_TICKS);
	pthread_create(&t, NULL, other_thread, &tids[1]);
	pthread_join(t, NULL);
	tids[0] = (pid_t)syscall(SYS_gettid);
	if (write(report, tids, sizeof(tids)) != sizeof(tids))
		_exit(1);
	if (crash)
		kill(getpid(), SIGKILL);
	exit(0);
}

struct count {
	uint64_t tid;
	int begins, ends;
	bool named;
};

static int on_record(void *ctx, const struct fxt_record *rec)
{
	struct count *c = ctx;

	if (rec->type == FXT_REC_KOBJ && rec->subtype == FXT_KOBJ_THREAD &&
	    rec->id == c->tid)
		c->named = true;
	if (rec->type != FXT_REC_EVENT || rec->thread.tid != c->tid ||
	    !fxt_string_is(&rec->name, "tick"))
		return 0;
	if (rec->subtype == FXT_EVENT_DURATION_BEGIN)
		c->begins++;
	else if (rec->subtype == FXT_EVENT_DURATION_END)
		c->ends++;
	return 0;
}

/* Decode one spool region (magic + its spans) and count tid's ticks. */
static uint64_t decode_region(const struct fxtctl_buffer *b, struct count *c)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	size_t len;
	unsigned char *buf = fxtctl_buffer_copy(b, 0, &len);
	uint64_t problems;

	fxt_reader_read_buffer(r, buf, len, on_record, c);
	problems = fxt_reader_count(r, FXT_ERROR) + fxt_reader_count(r, FXT_WARNING);
	fxt_reader_free(r);
	free(buf);
	return problems;
}

/* Run build/bin/fxtrace recover, found from this test's own path. */
static int recover(const char *spool)
{
	char self[4096], tool[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;
	pid_t pid;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	/* $(B)/test/lib/spool_test -> $(B)/bin/fxtrace */
	snprintf(tool, sizeof(tool), "%s/../../bin/fxtrace", dirname(self));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(tool, "fxtrace", "recover", spool, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Begin+end pairs of tid in a whole trace file; -1 on a decode problem. */
static int count_in_trace(const char *path, pid_t tid)
{
	struct count c = { .tid = (uint64_t)tid };
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	if (r && fd >= 0 && !fxt_reader_read_fd(r, fd, on_record, &c) &&
	    !fxt_reader_count(r, FXT_ERROR) && !fxt_reader_count(r, FXT_WARNING) &&
	    c.begins == c.ends && c.named)
		ret = c.begins;
	if (fd >= 0)
		close(fd);
	fxt_reader_free(r);
	return ret;
}

/* fxtctl_spool_next() on the first region, its header_size made size. */
static int first_region_with_header_size(const char *spool, __u32 size)
{
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0;
	int fd, k;

	fd = open(spool, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	k = pwrite(fd, &size, sizeof(size),
		   offsetof(struct fxtrace_buffer_header, header_size)) ==
	    sizeof(size) ? 0 : -EIO;
	close(fd);
	if (k || fxtctl_spool_open(&sp, spool))
		return -EIO;
	k = fxtctl_spool_next(&sp, &offset, &b);
	fxtctl_spool_close(&sp);
	return k;
}

int main(void)
{
	char out[] = "/tmp/fxtrace-spool-test-XXXXXX", spool[64];
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	pid_t child, tids[2];
	int pipefd[2], status, fd, k, regions = 0;
	size_t offset = 0;

	fd = mkstemp(out);
	if (fd < 0 || pipe(pipefd))
		return 1;
	close(fd);
	unlink(out);
	snprintf(spool, sizeof(spool), "%s.spool", out);
	setenv("FXTRACE_OUTPUT", out, 1);
	setenv("FXTRACE_BUFFER_SIZE", "64K", 1);

	child = run_child(pipefd[1], true);
	EXPECT_EQ(sizeof(tids), read(pipefd[0], tids, sizeof(tids)));
	tap_result("child reported");
	waitpid(child, &status, 0);
	if (EXPECT_TRUE(WIFSIGNALED(status))) {
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
	}
	tap_result("child killed");
	EXPECT_EQ(-1, access(out, F_OK));
	EXPECT_EQ(0, access(spool, F_OK));
	tap_result("no trace written, the spool is there");

	EXPECT_EQ(0, fxtctl_spool_open(&sp, spool));
	tap_result("spool opens");
	while ((k = fxtctl_spool_next(&sp, &offset, &b)) == 1) {
		struct count c = { .tid = b.hdr->tid };
		uint64_t problems = decode_region(&b, &c);
		int want = b.hdr->tid == (__u32)tids[0] ? MAIN_TICKS : OTHER_TICKS;

		regions++;
		EXPECT_EQ((__u32)child, b.hdr->pid);
		tap_result("region %d: pid %u", regions,
			   b.hdr->pid);
		/* No module charged it to a user: not root's 0. */
		EXPECT_EQ(sizeof(struct fxtrace_buffer_header), b.hdr->header_size);
		EXPECT_EQ(~0U, b.hdr->owner_uid);
		EXPECT_EQ(0, b.hdr->reserved);
		tap_result("region %d: header_size %u, owner_uid %#x", regions,
			   b.hdr->header_size, b.hdr->owner_uid);
		/* Fuchsia's split (ABI 0.6): a sixteenth of 64 KiB is durable. */
		EXPECT_EQ(4096, b.hdr->durable_size);
		EXPECT_EQ(30720, b.hdr->rolling_size);
		tap_result("region %d: durable part %llu, halves %llu", regions,
			   (unsigned long long)b.hdr->durable_size,
			   (unsigned long long)b.hdr->rolling_size);
		EXPECT_EQ(0, problems);
		tap_result("region %d decodes with no error or warning",
			   regions);
		EXPECT_EQ(want, c.begins);
		EXPECT_EQ(want, c.ends);
		tap_result("region %d (tid %u): %d begins, %d ends == %d", regions,
			   b.hdr->tid, c.begins, c.ends, want);
		EXPECT_TRUE(c.named);
		tap_result("region %d names its thread", regions);
	}
	EXPECT_EQ(0, k);
	EXPECT_EQ(2, regions);
	tap_result("two regions, then the end (%d)", k);
	fxtctl_spool_close(&sp);

	/*
	 * A spool left by a libfxtrace of ABI 0.3 or 0.4 (a header of 152
	 * bytes, without save_requested_ns) is read; a header too short for
	 * the fields the reader uses, or longer than its page, is not.
	 */
	EXPECT_EQ(1, first_region_with_header_size(spool, 152));
	EXPECT_EQ(-EINVAL, first_region_with_header_size(spool, 151));
	EXPECT_EQ(-EINVAL, first_region_with_header_size(spool, FXTRACE_BUFFER_PAGE_SIZE + 1));
	EXPECT_EQ(1, first_region_with_header_size(spool, sizeof(struct fxtrace_buffer_header)));
	tap_result("header_size: 152 and %zu read, 151 and %d refused",
		   sizeof(struct fxtrace_buffer_header), (int)FXTRACE_BUFFER_PAGE_SIZE + 1);

	/* fxtrace recover makes the spool a trace: OUT next to OUT.spool. */
	EXPECT_EQ(0, recover(spool));
	tap_result("fxtrace recover %s exits 0", spool);
	EXPECT_EQ(MAIN_TICKS, count_in_trace(out, tids[0]));
	EXPECT_EQ(OTHER_TICKS, count_in_trace(out, tids[1]));
	tap_result("the recovered trace decodes cleanly with all %d + %d pairs",
		   MAIN_TICKS, OTHER_TICKS);
	unlink(out);
	unlink(spool);

	/* A clean exit: the trace, and no spool. */
	child = run_child(pipefd[1], false);
	EXPECT_EQ(sizeof(tids), read(pipefd[0], tids, sizeof(tids)));
	tap_result("child reported");
	waitpid(child, &status, 0);
	if (EXPECT_TRUE(WIFEXITED(status))) {
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	tap_result("child exited");
	EXPECT_EQ(0, access(out, F_OK));
	EXPECT_EQ(-1, access(spool, F_OK));
	tap_result("the trace written, the spool removed");
	unlink(out);
	return tap_plan();
}
