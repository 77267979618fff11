// SPDX-License-Identifier: GPL-2.0
/*
 * The packet protocol (the Fuchsia tracing system design's "Trace
 * Manager/Provider FIFO Protocol", Documentation/uapi.rst):
 * the kernel queues 16-byte packets for the controller, which reads them
 * from its fd and writes BUFFER_SAVED acknowledgements back.
 *
 * read() blocks unless O_NONBLOCK or IOCB_NOWAIT, and ->poll works, so
 * io_uring can read the fd without an io-wq thread.  A write never blocks.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "fxtrace.h"

/* Charged to the controller's memory cgroup, as the CPU buffers are. */
int fxt_packets_init(struct fxt_session *s, u32 capacity)
{
	s->pkts = kvcalloc(capacity, sizeof(*s->pkts), GFP_KERNEL_ACCOUNT);
	if (!s->pkts)
		return -ENOMEM;
	s->pkt_cap = capacity;
	return 0;
}

/*
 * Free the ring once nobody will read it: a terminated session lives on
 * while anyone maps one of its buffers, and its ring is most of what is
 * left of it (3 * 16 bytes per possible buffer).  A packet queued later,
 * which nothing does, would be counted lost.
 */
void fxt_packets_free(struct fxt_session *s)
{
	struct fxtrace_packet *pkts;

	raw_spin_lock_irq(&s->pkt_lock);
	pkts = s->pkts;
	s->pkts = NULL;
	s->pkt_cap = 0;
	s->pkt_count = 0;
	raw_spin_unlock_irq(&s->pkt_lock);
	kvfree(pkts);
}

/*
 * Queue a packet and wake the controller.  From probe context (IRQs may be
 * off, the rq lock may be held) the wakeup goes through irq_work, queued
 * only when someone waits.
 */
void fxt_packet_queue(struct fxt_session *s, u16 request, u16 data16,
		      u32 data32, u64 data64, bool from_probe)
{
	struct fxtrace_packet *pkt;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&s->pkt_lock, irqflags);
	if (s->pkt_count == s->pkt_cap) {
		s->lost_packets++;
	} else {
		pkt = &s->pkts[(s->pkt_head + s->pkt_count) % s->pkt_cap];
		pkt->request = request;
		pkt->data16 = data16;
		pkt->data32 = data32;
		pkt->data64 = data64;
		s->pkt_count++;
	}
	raw_spin_unlock_irqrestore(&s->pkt_lock, irqflags);

	if (!from_probe)
		wake_up_interruptible(&s->wq);
	else if (wq_has_sleeper(&s->wq))
		irq_work_queue(&this_cpu_ptr(s->wake)->work);
}

static bool fxt_packets_pending(struct fxt_session *s)
{
	return READ_ONCE(s->pkt_count) || READ_ONCE(s->terminated);
}

/*
 * Whether file may read the session's packets and acknowledge its save
 * requests now: it controls the session, or controlled it until it
 * terminated it (then it reads what was left).  A file that lost the role
 * (orphaned by a close in another thread, then adopted by another file)
 * must not take the new controller's packets or apply acknowledgments to
 * its session, whatever call it was in when the role went.
 */
static bool fxt_packet_reader(struct fxt_session *s, struct file *file)
{
	return fxt_is_controller(s, file) ||
	       /* [terminated] (session.c) */
	       (smp_load_acquire(&s->terminated) &&
		READ_ONCE(s->last_controller) == file &&
		fxt_in_controlling_image(s));
}

/*
 * Copy up to max queued packets without removing them; -EPERM when file
 * is no longer the reader.
 */
static int fxt_packets_peek(struct fxt_session *s, struct file *file,
			    struct fxtrace_packet *dst, u32 max)
{
	u32 i, n;

	raw_spin_lock_irq(&s->pkt_lock);
	if (!fxt_packet_reader(s, file)) {
		raw_spin_unlock_irq(&s->pkt_lock);
		return -EPERM;
	}
	n = min(max, s->pkt_count);
	for (i = 0; i < n; i++)
		dst[i] = s->pkts[(s->pkt_head + i) % s->pkt_cap];
	raw_spin_unlock_irq(&s->pkt_lock);
	return n;
}

/*
 * Remove n packets peeked, if file is still the reader (-EPERM: they stay
 * for the file that has the role now); none if the ring went meanwhile.
 */
static int fxt_packets_consume(struct fxt_session *s, struct file *file,
			       u32 n)
{
	int ret = 0;

	raw_spin_lock_irq(&s->pkt_lock);
	if (!fxt_packet_reader(s, file)) {
		ret = -EPERM;
	} else if (s->pkt_cap) {
		n = min(n, s->pkt_count);
		s->pkt_head = (s->pkt_head + n) % s->pkt_cap;
		s->pkt_count -= n;
	}
	raw_spin_unlock_irq(&s->pkt_lock);
	return ret;
}

/*
 * The session this file controls, or controlled until it terminated it,
 * with a reference, or NULL.  No fxt_lock: the file holds a reference to
 * its session until it is released, which cannot happen during one of its
 * own calls.  An earlier controller of an orphan that was adopted reads
 * nothing: the packets are the new controller's.
 */
static struct fxt_session *fxt_controller_get(struct file *file)
{
	struct fxt_session *s = READ_ONCE(file->private_data);

	if (!s || !fxt_packet_reader(s, file))
		return NULL;
	kref_get(&s->ref);
	return s;
}

ssize_t fxt_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct fxtrace_packet pkts[FXT_PACKET_BATCH];
	struct file *file = iocb->ki_filp;
	bool nowait = (iocb->ki_flags & IOCB_NOWAIT) ||
		      (file->f_flags & O_NONBLOCK);
	size_t want = min_t(size_t, iov_iter_count(to) / sizeof(pkts[0]),
			    FXT_PACKET_BATCH);
	size_t bytes, copied;
	struct fxt_session *s;
	ssize_t ret;
	int n;

	if (!want)
		return -EINVAL;
	s = fxt_controller_get(file);
	if (!s)
		return -EPERM;

again:
	if (nowait) {
		if (!mutex_trylock(&s->read_lock)) {
			ret = -EAGAIN;
			goto out_put;
		}
	} else if (mutex_lock_interruptible(&s->read_lock)) {
		ret = -ERESTARTSYS;
		goto out_put;
	}
	for (;;) {
		n = fxt_packets_peek(s, file, pkts, want);
		if (n < 0) {
			ret = n;
			goto out_unlock;
		}
		if (n || READ_ONCE(s->terminated))
			break;
		if (nowait) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		/* Also woken when the file loses the role (orphaned). */
		if (wait_event_interruptible(s->wq, fxt_packets_pending(s) ||
					     !fxt_packet_reader(s, file))) {
			ret = -ERESTARTSYS;
			goto out_unlock;
		}
	}
	/*
	 * No page fault under read_lock: one that the caller makes last (a
	 * userfaultfd or FUSE mapping) would keep the packets from the file
	 * that controls the session then.  The destination is faulted in
	 * without the lock, and the packets that fit in what could be are
	 * read then.  Faulting in proves nothing lasting (another thread may
	 * MADV_DONTNEED the buffer again at once), so each retry first ends
	 * the call for any signal, as the waits above do: nothing has been
	 * consumed, so -ERESTARTSYS restarts the read under SA_RESTART and
	 * is EINTR otherwise.  Only user memory can be faulted in: a short
	 * copy to a kernel iterator (io_uring's registered buffers) is final.
	 */
	pagefault_disable();
	copied = copy_to_iter(pkts, n * sizeof(pkts[0]), to);
	pagefault_enable();
	if (copied != n * sizeof(pkts[0])) {
		iov_iter_revert(to, copied);
		mutex_unlock(&s->read_lock);
		if (!user_backed_iter(to)) {
			ret = -EFAULT;
			goto out_put;
		}
		bytes = n * sizeof(pkts[0]);
		bytes -= fault_in_iov_iter_writeable(to, bytes);
		if (bytes < sizeof(pkts[0])) {
			ret = -EFAULT;
			goto out_put;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			goto out_put;
		}
		want = bytes / sizeof(pkts[0]);
		goto again;
	}
	/* Packets leave the queue only once they reached the caller. */
	ret = fxt_packets_consume(s, file, n);
	if (!ret)
		ret = copied;
out_unlock:
	mutex_unlock(&s->read_lock);
out_put:
	fxt_session_put(s);
	return ret;
}

/*
 * Apply one BUFFER_SAVED: it must echo the outstanding SAVE_BUFFER.  Under
 * the id map's lock (RELEASE and Terminate erase under it) and tasks_lock
 * (ordered with retirement), never under fxt_lock, which producers can
 * hold.  saved_wraps is the controller's own record and moves after
 * retirement too: readers tell saved halves from those left by it.
 */
static int fxt_packet_ack(struct fxt_session *s, struct file *file,
			  const struct fxtrace_packet *pkt)
{
	struct fxtrace_buffer_header *hdr;
	struct fxt_buffer *buf;
	u64 wrap = pkt->data64;
	int ret = 0;

	if (pkt->request != FXTRACE_PKT_BUFFER_SAVED)
		return -EINVAL;
	xa_lock(&s->bufs);
	buf = xa_load(&s->bufs, pkt->data32);
	if (!buf) {
		xa_unlock(&s->bufs);
		return -EINVAL;
	}
	hdr = buf->hdr;
	raw_spin_lock(&s->tasks_lock);
	/*
	 * Control may have gone while the packets were copied in (a fault
	 * the caller makes last): no acknowledgment for whoever has it now.
	 */
	if (!fxt_is_controller(s, file))
		ret = -EPERM;
	else if (pkt->data16 != (wrap & 1) ||
		 READ_ONCE(hdr->requested_wraps) != wrap + 1 ||
		 READ_ONCE(hdr->saved_wraps) != wrap)
		ret = -EINVAL;
	else
		/*
		 * [saved] (buffer.c): the writer may reuse the half once it
		 * load-acquires this.
		 */
		smp_store_release(&hdr->saved_wraps, wrap + 1);
	raw_spin_unlock(&s->tasks_lock);
	xa_unlock(&s->bufs);
	return ret;
}

ssize_t fxt_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct fxtrace_packet pkts[FXT_PACKET_BATCH];
	struct file *file = iocb->ki_filp;
	size_t len = iov_iter_count(from);
	struct fxt_session *s;
	ssize_t done = 0;
	int ret = 0;
	u32 i, n;

	if (!len || len % sizeof(pkts[0]))
		return -EINVAL;
	s = fxt_controller_get(file);
	if (!s)
		return -EPERM;
	while (!ret && iov_iter_count(from)) {
		n = min_t(size_t, iov_iter_count(from) / sizeof(pkts[0]),
			  FXT_PACKET_BATCH);
		if (copy_from_iter(pkts, n * sizeof(pkts[0]), from) !=
		    n * sizeof(pkts[0])) {
			ret = -EFAULT;
			break;
		}
		for (i = 0; i < n && !ret; i++) {
			if (READ_ONCE(s->terminated))
				ret = -EINVAL;
			else if (!fxt_is_controller(s, file))
				ret = -EPERM;
			else
				ret = fxt_packet_ack(s, file, &pkts[i]);
			if (!ret)
				done += sizeof(pkts[0]);
		}
	}
	fxt_session_put(s);
	return done ?: ret;
}

__poll_t fxt_poll(struct file *file, struct poll_table_struct *wait)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;
	struct fxt_session *s;

	s = fxt_controller_get(file);
	if (!s)
		return mask | EPOLLERR;
	poll_wait(file, &s->wq, wait);
	if (READ_ONCE(s->pkt_count))
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (READ_ONCE(s->terminated))
		mask |= EPOLLHUP;
	fxt_session_put(s);
	return mask;
}
