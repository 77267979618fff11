/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtctl.h - the controller side of /dev/fxtrace (libfxtctl.a): session
 * ioctls, packets and read-only buffer mappings, for fxtrace-drain, the
 * `fxtrace` command and the tests.
 *
 * Functions return 0 or a negative errno.  A buffer's committed bytes are
 * found with fxtctl_buffer_spans(); what a producer wrote is untrusted:
 * every offset is clamped here, and the records themselves must still be
 * validated (fxt_reader.h) after they are copied out of the mapping.
 */
#ifndef FXTCTL_H
#define FXTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <linux/fxtrace.h>

struct fxtctl_buffer {
	__u32 id;
	__u32 kind;			/* enum fxtrace_buffer_kind */
	const struct fxtrace_buffer_header *hdr;
	const struct fxtrace_buffer_control *ctl;
	const unsigned char *data;
	size_t map_size;
};

struct fxtctl {
	int fd;
	const struct fxtrace_session_page *page;
	struct fxtctl_buffer *bufs;	/* mapped buffers, by id */
	size_t nbufs, cap;
};

/* One run of committed bytes inside a buffer's mapping. */
struct fxtctl_span {
	const unsigned char *ptr;
	size_t len;
	__u64 wrap;			/* rolling halves: the wrap they hold */
	bool durable;
};

int fxtctl_open(struct fxtctl *c);
/*
 * For a message after "/dev/fxtrace: strerror(-err)" when fxtctl_open()
 * failed: what to do about it, or "".
 */
const char *fxtctl_open_refusal(int err);
void fxtctl_close(struct fxtctl *c);

int fxtctl_init(struct fxtctl *c, const struct fxtrace_config *cfg);
int fxtctl_start(struct fxtctl *c, unsigned int disposition);
int fxtctl_stop(struct fxtctl *c);
int fxtctl_terminate(struct fxtctl *c);
int fxtctl_adopt(struct fxtctl *c);
/* Writers drop and count until resumed: buffers hold still for a copy. */
int fxtctl_pause(struct fxtctl *c);
int fxtctl_resume(struct fxtctl *c);
/*
 * The session clock now, in its ticks: CLOCK_MONOTONIC ns, or the TSC
 * extrapolated from the session page's (tsc, monotonic) reference pair.
 */
uint64_t fxtctl_now(const struct fxtctl *c);

/*
 * Read up to n packets; blocks when none is queued unless the fd is
 * O_NONBLOCK (then -EAGAIN).  Returns the count or -errno.
 */
ssize_t fxtctl_read_packets(struct fxtctl *c, struct fxtrace_packet *pkts,
			    size_t n);
/* Acknowledge a SAVE_BUFFER packet. */
int fxtctl_ack(struct fxtctl *c, const struct fxtrace_packet *save);

/* Map buffer id read-only (once); NULL with errno set on failure. */
struct fxtctl_buffer *fxtctl_buffer(struct fxtctl *c, __u32 id);
/* Unmap and release a retired buffer. */
int fxtctl_release(struct fxtctl *c, __u32 id);

/*
 * The committed bytes of b in reading order: the durable part, then the
 * rolling halves from wrap `from_wrap` on (the older first).  Offsets come
 * from the header for kernel buffers and from the producer's control page,
 * clamped, for task buffers.  Returns the number of spans.
 */
#define FXTCTL_SPANS_MAX	3	/* the durable part and both halves */
unsigned int fxtctl_buffer_spans(const struct fxtctl_buffer *b,
				 __u64 from_wrap,
				 struct fxtctl_span spans[FXTCTL_SPANS_MAX]);

/*
 * A copy of b's committed bytes (fxtctl_buffer_spans() from from_wrap)
 * after an FXT magic record: a trace of its own, not validated.  Returns
 * malloc()ed memory and its length in *len, or NULL.
 */
unsigned char *fxtctl_buffer_copy(const struct fxtctl_buffer *b,
				  __u64 from_wrap, size_t *len);

/*
 * Write b's committed bytes (after a magic record, a trace of their own)
 * to fd, without the magic, if they decode with no error; a buffer that
 * does not is left out and *errors says how many errors it had.  Returns
 * 1 written, 0 left out, or -errno, nothing written: -ENOMEM when the
 * check could not finish, -ENOBUFS when it would take more memory than a
 * real buffer's could (4 bytes a byte of b's, at least 256 MiB): b is
 * crafted, and may be left out too.
 */
int fxtctl_write_buffer(int fd, const struct fxtctl_buffer *b,
			uint64_t *errors);

/*
 * The half a SAVE_BUFFER packet asks for, with the length the kernel
 * recorded when the request was made (clamped).
 */
struct fxtctl_span fxtctl_save_span(const struct fxtctl_buffer *b,
				    __u64 wrap);

/*
 * When the kernel queued the SAVE_BUFFER of half wrap (CLOCK_MONOTONIC ns),
 * or 0 when the header does not say: a module older than ABI 0.5, a
 * buffer of no module (a spool), or a half that is not the one requested
 * last.
 */
__u64 fxtctl_save_requested_ns(const struct fxtctl_buffer *b, __u64 wrap);

/*
 * The largest data area (durable part and both halves) of a spool region:
 * libfxtrace's largest buffer, FXTRACE_BUFFER_SIZE=1024M.  A region that
 * says it is larger is not one, and is not read: in a sparse file it
 * would cost that much memory and nothing on disk.
 */
#define FXTCTL_SPOOL_DATA_MAX	(1ULL << 30)

/*
 * A spool: libfxtrace's user-only buffers in a file (OUTPUT.spool), one
 * region per thread with the layout of a per-task buffer (header page,
 * control page, data).  It outlives a crashed process.
 */
struct fxtctl_spool {
	int fd;
	size_t size;			/* of the file when opened */
	unsigned char *region;		/* our copy of the last region read */
	size_t region_size;
};

/*
 * path opened O_RDONLY or O_RDWR (flags' access mode) if it is a regular
 * file, and then the very file looked at (*st): a file descriptor, or
 * -errno.  -EINVAL when path is not a regular file, which is then not
 * opened at all (a device's open may act); -ELOOP when it is a symbolic
 * link and flags has O_NOFOLLOW; -ENOENT without /proc, through which the
 * file looked at is reopened.
 */
int fxtctl_open_regular(const char *path, int flags, struct stat *st);
/* sp reading fd, a regular file of size bytes, which sp now owns. */
void fxtctl_spool_init(struct fxtctl_spool *sp, int fd, size_t size);
/* 0, or fxtctl_open_regular()'s -errno. */
int fxtctl_spool_open(struct fxtctl_spool *sp, const char *path);
void fxtctl_spool_close(struct fxtctl_spool *sp);
/*
 * The region at *offset, copied out of the file and checked, as a
 * read-only task buffer valid until the next call or the close, and
 * *offset moved past it.  Returns 1, 0 at the end, -ENOMEM, or -EINVAL
 * when the bytes at *offset are not a region (nothing after them is
 * trusted).
 */
int fxtctl_spool_next(struct fxtctl_spool *sp, size_t *offset,
		      struct fxtctl_buffer *b);

#endif /* FXTCTL_H */
