// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtctl: the controller side of /dev/fxtrace (fxtctl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxt.h>

#include "fxtctl.h"

static int ret_errno(int ret)
{
	return ret < 0 ? -errno : ret;
}

int fxtctl_open(struct fxtctl *c)
{
	void *page;

	memset(c, 0, sizeof(*c));
	c->fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED,
		    c->fd, FXTRACE_MMAP_SESSION);
	if (page == MAP_FAILED) {
		int err = -errno;

		close(c->fd);
		c->fd = -1;
		return err;
	}
	c->page = page;
	return 0;
}

const char *fxtctl_open_refusal(int err)
{
	switch (err) {
	case -ENOENT:
		return " (the module is not loaded: 'sudo insmod kmod/fxtrace.ko' in the source tree, or 'sudo modprobe fxtrace' where it is installed)";
	case -EACCES:
		return " (tracing needs CAP_PERFMON, or root)";
	}
	return "";
}

void fxtctl_close(struct fxtctl *c)
{
	size_t i;

	for (i = 0; i < c->nbufs; i++)
		munmap((void *)c->bufs[i].hdr, c->bufs[i].map_size);
	free(c->bufs);
	if (c->page)
		munmap((void *)c->page, FXTRACE_SESSION_MAP_SIZE);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

int fxtctl_init(struct fxtctl *c, const struct fxtrace_config *cfg)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_INIT, cfg));
}

int fxtctl_start(struct fxtctl *c, unsigned int disposition)
{
	struct fxtrace_start st = {
		.size = sizeof(st),
		.disposition = disposition,
	};

	return ret_errno(ioctl(c->fd, FXTRACE_IOC_START, &st));
}

int fxtctl_stop(struct fxtctl *c)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_STOP));
}

int fxtctl_terminate(struct fxtctl *c)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_TERMINATE));
}

int fxtctl_adopt(struct fxtctl *c)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_ADOPT));
}

int fxtctl_pause(struct fxtctl *c)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_PAUSE));
}

int fxtctl_resume(struct fxtctl *c)
{
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_RESUME));
}

/*
 * The session clock now, in its ticks: CLOCK_MONOTONIC ns, or the TSC
 * extrapolated from the session page's (tsc, monotonic) reference pair.
 */
uint64_t fxtctl_now(const struct fxtctl *c)
{
	const struct fxtrace_session_page *page = c->page;
	uint64_t mono, seq, ref_tsc = 0, ref_ns = 0;
	struct timespec ts;
	int tries;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (page->clock != FXTRACE_CLOCK_TSC)
		return mono;
	/*
	 * The kernel rewrites the pair once a second: a few tries suffice.
	 * A seqcount read, paired with fxt_clock_refresh()'s two smp_wmb().
	 */
	for (tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&page->ref_seq, __ATOMIC_ACQUIRE);
		ref_tsc = page->ref_tsc;
		ref_ns = page->ref_monotonic_ns;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) &&
		    seq == __atomic_load_n(&page->ref_seq, __ATOMIC_RELAXED))
			break;
	}
	if (mono <= ref_ns)
		return ref_tsc;
	return ref_tsc + (uint64_t)((unsigned __int128)(mono - ref_ns) *
				    page->ticks_per_second / 1000000000ULL);
}

ssize_t fxtctl_read_packets(struct fxtctl *c, struct fxtrace_packet *pkts,
			    size_t n)
{
	ssize_t r;

	do
		r = read(c->fd, pkts, n * sizeof(*pkts));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r / (ssize_t)sizeof(*pkts);
}

int fxtctl_ack(struct fxtctl *c, const struct fxtrace_packet *save)
{
	struct fxtrace_packet ack = *save;
	ssize_t r;

	ack.request = FXTRACE_PKT_BUFFER_SAVED;
	r = write(c->fd, &ack, sizeof(ack));
	if (r < 0)
		return -errno;
	return r == sizeof(ack) ? 0 : -EIO;
}

struct fxtctl_buffer *fxtctl_buffer(struct fxtctl *c, __u32 id)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = id };
	struct fxtctl_buffer *b;
	void *map;
	size_t i;

	for (i = 0; i < c->nbufs; i++)
		if (c->bufs[i].id == id)
			return &c->bufs[i];
	if (ioctl(c->fd, FXTRACE_IOC_BUFFER_INFO, &info))
		return NULL;
	if (info.id != id) {
		errno = ENOENT;
		return NULL;
	}
	if (c->nbufs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		b = realloc(c->bufs, cap * sizeof(*b));
		if (!b)
			return NULL;
		c->bufs = b;
		c->cap = cap;
	}
	map = mmap(NULL, info.reader_size, PROT_READ, MAP_SHARED, c->fd,
		   (off_t)info.reader_offset);
	if (map == MAP_FAILED)
		return NULL;
	b = &c->bufs[c->nbufs++];
	b->id = id;
	b->kind = info.kind;
	b->hdr = map;
	b->ctl = (const void *)((const char *)map + FXTRACE_BUFFER_PAGE_SIZE);
	b->data = (const unsigned char *)map + b->hdr->data_offset;
	b->map_size = info.reader_size;
	return b;
}

int fxtctl_release(struct fxtctl *c, __u32 id)
{
	struct fxtrace_buffer_ref ref = { .size = sizeof(ref), .id = id };
	size_t i;

	for (i = 0; i < c->nbufs; i++) {
		if (c->bufs[i].id != id)
			continue;
		munmap((void *)c->bufs[i].hdr, c->bufs[i].map_size);
		c->bufs[i] = c->bufs[--c->nbufs];
		break;
	}
	return ret_errno(ioctl(c->fd, FXTRACE_IOC_RELEASE_BUFFER, &ref));
}

static __u64 clamp_offset(__u64 value, __u64 limit)
{
	return (value < limit ? value : limit) & ~7ULL;
}

/* Where part `offset` of the data area and its committed length are. */
static struct fxtctl_span span_at(const struct fxtctl_buffer *b,
				  __u64 offset, __u64 len, __u64 limit)
{
	struct fxtctl_span s = {
		.ptr = b->data + offset,
		.len = clamp_offset(len, limit),
	};

	return s;
}

unsigned int fxtctl_buffer_spans(const struct fxtctl_buffer *b,
				 __u64 from_wrap,
				 struct fxtctl_span spans[FXTCTL_SPANS_MAX])
{
	const struct fxtrace_buffer_header *hdr = b->hdr;
	bool task = b->kind == FXTRACE_BUFFER_TASK;
	__u64 durable_size = hdr->durable_size, rolling = hdr->rolling_size;
	__u64 committed[2], durable, wrap, w;
	unsigned int n = 0;

	/*
	 * The buffer's ordering contract (kmod/buffer.c): wrap_count first
	 * ([wrap], pairs with the writer's release of it), then the committed
	 * offsets ([commit], pairs with the writer's release of each): the
	 * data up to them is written.
	 */
	if (task) {
		wrap = __atomic_load_n(&b->ctl->wrap_count, __ATOMIC_ACQUIRE);
		committed[0] = __atomic_load_n(&b->ctl->rolling_committed[0],
					       __ATOMIC_ACQUIRE);
		committed[1] = __atomic_load_n(&b->ctl->rolling_committed[1],
					       __ATOMIC_ACQUIRE);
		durable = __atomic_load_n(&b->ctl->durable_committed,
					  __ATOMIC_ACQUIRE);
	} else {
		wrap = __atomic_load_n(&hdr->wrap_count, __ATOMIC_ACQUIRE);
		committed[0] = __atomic_load_n(&hdr->rolling_committed[0],
					       __ATOMIC_ACQUIRE);
		committed[1] = __atomic_load_n(&hdr->rolling_committed[1],
					       __ATOMIC_ACQUIRE);
		durable = __atomic_load_n(&hdr->durable_committed,
					  __ATOMIC_ACQUIRE);
	}
	spans[n] = span_at(b, 0, durable, durable_size);
	spans[n++].durable = true;
	if (!rolling)
		return n;
	/* Memory holds the halves of wraps wrap - 1 and wrap. */
	w = wrap ? wrap - 1 : 0;
	if (w < from_wrap)
		w = from_wrap;
	for (; w <= wrap && n < FXTCTL_SPANS_MAX; w++) {
		spans[n] = span_at(b, durable_size + (w & 1) * rolling,
				   committed[w & 1], rolling);
		spans[n++].wrap = w;
	}
	return n;
}

struct fxtctl_span fxtctl_save_span(const struct fxtctl_buffer *b,
				    __u64 wrap)
{
	const struct fxtrace_buffer_header *hdr = b->hdr;
	struct fxtctl_span s;

	/*
	 * [snapshot] (kmod/buffer.c): the SAVE_BUFFER packet read before this
	 * comes after the kernel's copy of the offset; the load-acquire pairs
	 * with the release that committed it.
	 */
	s = span_at(b, hdr->durable_size + (wrap & 1) * hdr->rolling_size,
		    __atomic_load_n(&hdr->rolling_committed[wrap & 1],
				    __ATOMIC_ACQUIRE),
		    hdr->rolling_size);
	s.wrap = wrap;
	return s;
}

__u64 fxtctl_save_requested_ns(const struct fxtctl_buffer *b, __u64 wrap)
{
	const struct fxtrace_buffer_header *hdr = b->hdr;

	if (hdr->header_size < offsetof(struct fxtrace_buffer_header,
					save_requested_ns) +
			       sizeof(hdr->save_requested_ns))
		return 0;
	/*
	 * [snapshot] (kmod/buffer.c): the packet read before this came after
	 * both stores; the time cannot change before this half is saved.
	 */
	if (__atomic_load_n(&hdr->requested_wraps, __ATOMIC_ACQUIRE) != wrap + 1)
		return 0;
	return __atomic_load_n(&hdr->save_requested_ns, __ATOMIC_RELAXED);
}

unsigned char *fxtctl_buffer_copy(const struct fxtctl_buffer *b,
				  __u64 from_wrap, size_t *len)
{
	const __u64 magic = FXT_MAGIC_WORD;
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	unsigned int n = fxtctl_buffer_spans(b, from_wrap, spans), i;
	size_t off = sizeof(magic);
	unsigned char *buf;

	*len = sizeof(magic);
	for (i = 0; i < n; i++)
		*len += spans[i].len;
	buf = malloc(*len);
	if (!buf)
		return NULL;
	memcpy(buf, &magic, sizeof(magic));
	for (i = 0; i < n; i++) {
		memcpy(buf + off, spans[i].ptr, spans[i].len);
		off += spans[i].len;
	}
	return buf;
}
