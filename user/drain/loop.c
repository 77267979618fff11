// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain's io_uring loop.  One ring does all the waiting: packet
 * reads from the controller fd (the module completes them without an io-wq
 * thread), signalfd reads, BUFFER_SAVED acks, the probes' poll and the
 * progress tick.  A regular output file is written here with pwrite()
 * (write_all()); any other output (a pipe, a FIFO, a device) through the
 * ring, one write at a time, in order: a stream has no offsets, and a
 * write cut short by a full pipe must be finished before the next begins.
 *
 * The drainer keeps the flush watermark: the largest offset below which
 * every write has completed.  In a regular file it publishes it
 * (flush_mark.h) and acknowledges a save only once a published watermark
 * covers the save's bytes: a producer reuses a half only when its records
 * are in the file and would survive a kill of the drainer (`fxtrace
 * recover` cuts the file at the watermark).  A stream cannot be rewritten:
 * it carries no mark, and a save is acknowledged once its bytes are
 * written.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "drainer.h"

/* An SQE, after submitting what is queued when the ring is full. */
static struct io_uring_sqe *get_sqe(struct drain *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

	if (!sqe) {
		io_uring_submit(&d->ring);
		sqe = io_uring_get_sqe(&d->ring);
	}
	return sqe;
}

void submit_packet_read(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_read(sqe, d->c.fd, d->packets, sizeof(d->packets), 0);
	io_uring_sqe_set_data(sqe, &d->packets_op);
}

void submit_signal_read(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_read(sqe, d->sig_fd, &d->siginfo, sizeof(d->siginfo), 0);
	io_uring_sqe_set_data(sqe, &d->signal_op);
}

void submit_tick(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_timeout(sqe, &d->tick, 0, 0);
	io_uring_sqe_set_data(sqe, &d->tick_op);
}

void submit_probes_poll(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_poll_add(sqe, fxtprobe_epoll_fd(d->probes), POLLIN);
	io_uring_sqe_set_data(sqe, &d->probes_op);
}

/*
 * The probes' ring buffer reads as ready from the reserve of a record
 * (its producer position moves then), and the consume stops at a record
 * reserved and not yet submitted.  A BPF program preempted in between
 * (a uprobe's under PREEMPT_RT or preempt=full, where it runs with
 * migration disabled only) would keep the poll firing and the drainer
 * consuming nothing, at SCHED_FIFO (-r) on that program's CPU until RT
 * throttling: a wake-up that found nothing polls again a while later.
 */
void submit_probes_retry(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_timeout(sqe, &d->probes_retry, 0, 0);
	io_uring_sqe_set_data(sqe, &d->probes_retry_op);
}

static void queue_push(struct op_queue *q, struct write_op *w)
{
	w->next = NULL;
	*q->tail = w;
	q->tail = &w->next;
}

static struct write_op *queue_pop(struct op_queue *q)
{
	struct write_op *w = q->head;

	q->head = w->next;
	if (!q->head)
		q->tail = &q->head;
	return w;
}

static void free_write_op(struct drain *d, struct write_op *w)
{
	chunk_free(&w->chunk);
	free(w);
	d->live_ops--;
}

/* The rest of w's chunk, into the stream. */
static void submit_write(struct drain *d, struct write_op *w)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_write(sqe, d->out_fd, w->chunk.data + w->done,
			    (unsigned int)(w->chunk.len - w->done),
			    w->chunk.offset + w->done);
	io_uring_sqe_set_data(sqe, &w->write);
	d->inflight++;
	d->stream_busy = true;
}

/*
 * The next chunk into the stream, when none is on its way: two writes in
 * flight to a full pipe would interleave (one cut short, the other
 * written, then the first one's rest).  The first write op not written is
 * the next in the stream: advance() pops those written.
 */
static void submit_next_write(struct drain *d)
{
	struct write_op *w = d->writes.head;

	if (!d->stream_busy && !d->error && w && !w->written)
		submit_write(d, w);
}

/*
 * len bytes at offset of the output file, here and now: 0, or -errno.
 * For a regular file (d->write_inline): io_uring hands a buffered write
 * to an io-wq worker on 6.1 (only a file system with FMODE_BUF_WASYNC
 * takes it inline, tmpfs not), a thread switch each way for every save
 * and its flush mark, with the ack waiting behind them.
 */
static int write_all(struct drain *d, const void *data, size_t len,
		     uint64_t offset)
{
	ssize_t n;

	while (len) {
		n = pwrite(d->out_fd, data, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		data = (const char *)data + n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

void output_failed(struct drain *d, int err, uint64_t offset)
{
	if (!d->out_error) {
		d->out_error = err;
		d->out_error_offset = offset;
	}
	if (!d->error)
		d->error = err;
}

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct io_uring_sqe *submit_ack(struct drain *d, struct write_op *w)
{
	struct io_uring_sqe *sqe = get_sqe(d);
	const struct save_times *st = &w->times;
	uint64_t now = monotonic_ns(), waited = now - st->read;
	struct save_timing *t = &d->timing[w->kind];

	d->acked++;
	if (waited > d->ack_ns_max)
		d->ack_ns_max = waited;
	d->acked_slow += waited > ACK_SLOW_NS;
	/* The same clock, but the kernel's fast read may run a little ahead. */
	if (st->requested && st->requested <= st->read) {
		t->saves++;
		if (st->read - st->requested > t->read_ns_max)
			t->read_ns_max = st->read - st->requested;
		if (now - st->requested > t->ack_ns_max) {
			t->ack_ns_max = now - st->requested;
			t->slowest = *st;
		}
	}

	io_uring_prep_write(sqe, d->c.fd, &w->pkt, sizeof(w->pkt), 0);
	io_uring_sqe_set_data(sqe, &w->ack);
	d->inflight++;
	return sqe;
}

/*
 * Publish the watermark if it has grown, then acknowledge the saves it
 * covers: an ack goes out only once a mark covering its bytes is in the
 * file.  A stream carries no mark: what is written is in it, in order.
 */
static void publish(struct drain *d)
{
	uint64_t lo_ns, hi_ns;
	int ret;

	if (d->flushed > d->published && !d->error) {
		if (d->write_inline) {
			flush_mark_write(d->mark, d->flushed);
			output_window_ns(&d->out, &lo_ns, &hi_ns);
			window_mark_write(d->mark + FLUSH_MARK_WORDS, lo_ns, hi_ns);
			ret = write_all(d, d->mark, sizeof(d->mark),
					FLUSH_MARK_OFFSET);
			if (ret) {
				output_failed(d, ret, FLUSH_MARK_OFFSET);
				return;
			}
		}
		d->published = d->flushed;
	}
	/* Acks a published mark covers (a save's empty chunk: already). */
	if (!d->acks.head || d->acks.head->end > d->published)
		return;
	while (d->acks.head && d->acks.head->end <= d->published)
		submit_ack(d, queue_pop(&d->acks));
	/*
	 * Now, not after the other saves of this batch: the producer
	 * waits for it, and the other thread's save (filled at the
	 * same rate) often came in the same read.
	 */
	io_uring_submit(&d->ring);
}

/* Move the watermark past the writes done, in file order. */
static void advance(struct drain *d)
{
	struct write_op *w;

	while (d->writes.head && d->writes.head->written) {
		w = queue_pop(&d->writes);
		if (w->end > d->flushed)
			d->flushed = w->end;
		if (w->has_ack) {
			chunk_free(&w->chunk);
			queue_push(&d->acks, w);
		} else {
			free_write_op(d, w);
		}
	}
	publish(d);
}

/* Queue chunk (taken over) and, when save is set, the ack of that save. */
void queue_chunk(struct drain *d, struct chunk *chunk,
			const struct fxtrace_packet *save, uint64_t records)
{
	struct write_op *w;
	int ret;

	if (!chunk->len && !save) {
		chunk_free(chunk);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		/* The offset is taken: the watermark cannot pass it. */
		chunk_free(chunk);
		if (!d->error)
			d->error = -ENOMEM;
		return;
	}
	w->write.kind = OP_WRITE;
	w->ack.kind = OP_ACK;
	w->chunk = *chunk;
	/* An empty chunk's ack waits for everything queued before it. */
	w->start = chunk->len ? chunk->offset : d->out.offset;
	w->end = w->start + chunk->len;
	w->records = records;
	if (save) {
		w->has_ack = true;
		w->times = d->save;
		w->kind = d->save_kind;
		w->pkt = *save;
		w->pkt.request = FXTRACE_PKT_BUFFER_SAVED;
	}
	d->live_ops++;
	queue_push(&d->writes, w);
	if (!chunk->len) {
		w->written = true;
		w->times.written = w->times.judged;
	} else if (d->write_inline) {
		ret = write_all(d, w->chunk.data, w->chunk.len, w->chunk.offset);
		/* Failed: the watermark stays below it, and the loop ends. */
		if (ret)
			output_failed(d, ret, w->chunk.offset);
		w->written = !ret;
		w->times.written = monotonic_ns();
	}
	advance(d);
	if (!d->write_inline)
		submit_next_write(d);
}

static void on_write(struct drain *d, struct write_op *w, int res)
{
	d->inflight--;
	d->stream_busy = false;
	if (res > 0)
		w->done += (size_t)res;
	else if (res != -EAGAIN && res != -EINTR)
		output_failed(d, res ? res : -EIO, w->chunk.offset + w->done);
	if (w->done < w->chunk.len) {
		/* Short write: the rest again.  After an error it never is. */
		if (!d->error)
			submit_write(d, w);
		return;
	}
	w->written = true;
	w->times.written = monotonic_ns();
	advance(d);
	submit_next_write(d);
}

static void on_ack(struct drain *d, struct write_op *w, int res)
{
	struct drain_buffer *db;

	d->inflight--;
	if (res < 0) {
		db = output_find(&d->out, w->pkt.data32);
		/* A buffer released meanwhile (and forgotten) needs no ack. */
		if (db && !db->released)
			fprintf(stderr, "fxtrace-drain: ack of buffer %u wrap %llu: %s\n",
				w->pkt.data32, (unsigned long long)w->pkt.data64,
				strerror(-res));
	} else if (d->opt.verbose) {
		fprintf(stderr, "fxtrace-drain: saved buffer %u wrap %llu: %llu records at 0x%llx-0x%llx, flushed to 0x%llx\n",
			w->pkt.data32, (unsigned long long)w->pkt.data64,
			(unsigned long long)w->records,
			(unsigned long long)w->start,
			(unsigned long long)w->end,
			(unsigned long long)d->published);
	}
	free_write_op(d, w);
}

static void on_cqe(struct drain *d, struct io_uring_cqe *cqe)
{
	struct op *op = io_uring_cqe_get_data(cqe);
	int res = cqe->res, i;

	switch (op->kind) {
	case OP_PACKETS:
		if (res < 0 && res != -EINTR && res != -EAGAIN) {
			if (!d->error)
				d->error = res;
			return;
		}
		d->packets_read_ns = monotonic_ns();
		/* What producers wrote until now is inside the window. */
		output_set_now(&d->out, session_now(d));
		for (i = 0; i < res / (int)sizeof(struct fxtrace_packet); i++)
			on_packet(d, &d->packets[i]);
		if (d->state != FLUSHED)
			submit_packet_read(d);
		return;
	case OP_SIGNAL:
		if (res == sizeof(d->siginfo))
			on_signal(d);
		else if (res != -EINTR && res != -EAGAIN && !d->error)
			d->error = res < 0 ? res : -EIO;
		if (!d->error)
			submit_signal_read(d);
		return;
	case OP_WRITE:
		on_write(d, (struct write_op *)((char *)op -
						offsetof(struct write_op, write)),
			 res);
		return;
	case OP_ACK:
		on_ack(d, (struct write_op *)((char *)op -
					      offsetof(struct write_op, ack)),
		       res);
		return;
	case OP_TICK:
		if (d->progress)
			show_progress(d);
		/* The kernel refreshes the reference pair once a second too. */
		if (d->probes)
			probes_clock(d);
		if (d->state == RUNNING)
			submit_tick(d);
		return;
	case OP_PROBES:
		/* After the final flush, the probes' records are complete. */
		if (d->state == FLUSHED)
			return;
		if (res < 0 && res != -EINTR && res != -EAGAIN) {
			if (!d->error)
				d->error = res;
			return;
		}
		if (consume_probes(d) > 0)
			submit_probes_poll(d);
		else
			submit_probes_retry(d);
		return;
	case OP_PROBES_RETRY:
		if (d->state != FLUSHED)
			submit_probes_poll(d);
		return;
	}
}

/*
 * A trace on tmpfs is memory: the write that first reaches a page
 * allocates it, charges it and (init_on_alloc, Debian's default) zeroes
 * it, half of what a pwrite() of a saved half costs.  So while the
 * drainer has nothing else to do, it allocates the pages the next saves
 * will fill (fallocate() with FALLOC_FL_KEEP_SIZE: the file's size stays
 * that of its records), a step at a time, and stops as soon as a
 * completion is waiting: a save waits behind one step at most.  A
 * fallocate() that fails (a full tmpfs) ends it; the writes then
 * allocate their pages themselves, as on any other file system.
 */
#define RESERVE_STEP	(256ULL << 10)
#define RESERVE_AHEAD	(4ULL << 20)

static void reserve_ahead(struct drain *d)
{
	if (d->reserved < d->out.offset)
		d->reserved = d->out.offset;
	while (d->reserve && d->state == RUNNING &&
	       d->reserved < d->out.offset + RESERVE_AHEAD &&
	       !io_uring_cq_ready(&d->ring)) {
		if (fallocate(d->out_fd, FALLOC_FL_KEEP_SIZE,
			      (off_t)d->reserved, (off_t)RESERVE_STEP)) {
			/* A signal: the loop reads it, and this goes on after. */
			if (errno != EINTR)
				d->reserve = false;
			return;
		}
		d->reserved += RESERVE_STEP;
	}
}

int release_reserved(struct drain *d)
{
	struct stat st;

	if (!d->reserved)
		return 0;
	d->reserve = false;
	d->reserved = 0;
	/* Cut to its own size: tmpfs frees the pages past it. */
	if (fstat(d->out_fd, &st) || ftruncate(d->out_fd, st.st_size))
		return -errno;
	return 0;
}

int run_loop(struct drain *d)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int ret;

	while (!(d->state == FLUSHED && !d->live_ops && !d->inflight &&
		 d->published == d->flushed)) {
		if (d->error && !d->inflight)
			break;
		if (d->reserve) {
			/* What is queued (acks first) goes out before. */
			if (io_uring_sq_ready(&d->ring))
				io_uring_submit(&d->ring);
			reserve_ahead(d);
		}
		d->waiting_ns = monotonic_ns();
		ret = io_uring_submit_and_wait(&d->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;
		n = 0;
		io_uring_for_each_cqe(&d->ring, head, cqe) {
			on_cqe(d, cqe);
			n++;
		}
		io_uring_cq_advance(&d->ring, n);
		/* A fatal error: stop the session so that what is left is saved. */
		if (d->error && d->state == RUNNING)
			request_stop(d);
	}
	return d->error;
}

/* Write ops an error left behind. */
void free_queue(struct drain *d, struct op_queue *q)
{
	while (q->head)
		free_write_op(d, queue_pop(q));
}
