// SPDX-License-Identifier: GPL-2.0
/*
 * Trace buffers (the Fuchsia tracing system design's "Buffering Modes",
 * Documentation/uapi.rst): a kernel-owned header page,
 * a producer-owned control page and the data area (a durable part and two
 * rolling halves), their mappings, and the kernel's own writer.
 *
 * The ordering contract of a buffer.  Every field has one writer:
 *
 *  - data: the buffer's writer.  CPU buffers: the kernel writer, on its
 *    CPU with interrupts off (fxt_kbuf_reserve() to fxt_kbuf_commit());
 *    the KERNEL buffer: the same under names_lock; TASK buffers: the
 *    producer thread (libfxtrace), through its PRODUCER mapping.
 *  - control page (TASK buffers): the producer, its committed offsets,
 *    wrap_count, dropped_records and start_seq.  The kernel only reads it,
 *    and trusts nothing there: fxt_buffer_snapshot() clamps it.
 *  - header page: the kernel.  The layout at allocation; for CPU and
 *    KERNEL buffers the live committed offsets, wrap_count and counts, by
 *    the kernel writer; for TASK buffers a clamped copy of the control
 *    page, under tasks_lock; requested_wraps and state; saved_wraps on the
 *    controller's behalf (BUFFER_SAVED, fxt_packet_ack() in packet.c).
 *  - The drainer (the controller: libfxtctl's fxtctl_buffer_spans() and
 *    fxtctl_save_span(), fxtrace-drain) only reads, through READER
 *    mappings; a producer reads its own header page.
 *
 * Each pair below is a release store that publishes what its writer wrote
 * before it and the acquire load after which a reader may read that.  The
 * barriers in kmod/, user/control/ and libfxtrace name their pair.
 *
 *  [commit]  The writer stores a record's words, then store-releases the
 *	part's committed offset (fxt_kbuf_commit(); libfxtrace's commit()).
 *	A reader load-acquires the offset, then reads the data up to it.
 *  [wrap]  Moving to the other half, the writer stores 0 to that half's
 *	committed offset, then store-releases wrap_count (fxt_kbuf_switch();
 *	libfxtrace's reserve()).  A reader load-acquires wrap_count before
 *	the committed offsets, so the half it takes for the current one
 *	never has the length of its previous use.  A reader that copies a
 *	half the writer may reuse meanwhile (circular mode) loads wrap_count
 *	again after the copy and drops the half if it moved (libfxtrace's
 *	copy_halves()), or copies while the session is paused.
 *  [saved]  The controller copies a half it was asked to save, then
 *	writes BUFFER_SAVED; fxt_packet_ack() store-releases saved_wraps.
 *	The writer load-acquires saved_wraps before it reuses a half
 *	(fxt_kbuf_switch(); libfxtrace's reserve()), so it never overwrites
 *	bytes the controller has not copied yet.
 *  [snapshot]  fxt_buffer_snapshot() load-acquires the control page's
 *	committed offsets (pairing with [commit] of the producer), writes
 *	them into the header, then smp_wmb() orders that copy before the
 *	packet (SAVE_BUFFER, BUFFER_RETIRED, STOPPED) or state announcing it.
 *	The packet queue's lock carries the order to the controller, whose
 *	read() of the packet comes before its load-acquire of the header's
 *	offsets.
 *  [retired]  The final header is written, then state is store-released
 *	as RETIRED (fxt_buffer_retire_locked()); a reader that load-acquires
 *	state RETIRED reads final offsets.  The drainer learns of it from
 *	the BUFFER_RETIRED packet, ordered as in [snapshot].
 *  [clear]  A Start's disposition resets the header of a CPU buffer
 *	whose writers are idle (fxt_buffer_clear(), under tasks_lock against
 *	an acknowledgment in flight), then smp_wmb() orders that before the
 *	session page says STARTED and before the STARTED packet; no kernel
 *	writer runs until the probes are registered after.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/personality.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <linux/fxt.h>

#include "compat.h"
#include "fxtrace.h"

/*
 * The area's header and control pages are FXTRACE_BUFFER_PAGE_SIZE bytes
 * and mapped as pages of this machine, so the two sizes must agree.
 */
static_assert(FXTRACE_BUFFER_PAGE_SIZE == PAGE_SIZE);
static_assert(sizeof(struct fxtrace_buffer_header) <= FXTRACE_BUFFER_PAGE_SIZE);
static_assert(sizeof(struct fxtrace_buffer_control) <= FXTRACE_BUFFER_PAGE_SIZE);

/*
 * The last buffer id a session may give; ids are never reused, so a
 * session that reaches it refuses new buffers (-EOVERFLOW).  Writable by
 * root so that tests can reach the end.
 */
static unsigned int buffer_id_max = U32_MAX;
module_param(buffer_id_max, uint, 0644);
MODULE_PARM_DESC(buffer_id_max, "last buffer id of a session");

/*
 * The share of a session's task buffers and memory, and of a Start's room
 * for task names, that one user other than root and the session's owner
 * may hold, in percent.
 */
static unsigned int user_share_percent = 25;
module_param(user_share_percent, uint, 0444);
MODULE_PARM_DESC(user_share_percent,
		 "share of a session's task buffers, memory and names room one other user may hold, %");

static void fxt_area_free(struct fxt_buffer *buf)
{
	size_t i;

	if (buf->area)
		vunmap(buf->area);
	if (!buf->pages)
		return;
	/* A page a header mapping still holds goes when it is unmapped. */
	for (i = 0; i < buf->area_size >> PAGE_SHIFT; i++) {
		if (buf->pages[i])
			__free_page(buf->pages[i]);
	}
	kvfree(buf->pages);
}

/*
 * Pages, not vmalloc_user(): they are charged to the memory cgroup of the
 * caller, the task the buffer is made for (vmalloc_user() cannot take
 * __GFP_ACCOUNT on 6.1).  A cgroup over its memory.high throttles the
 * caller here for seconds at a time: a fatal signal ends it.
 */
static int fxt_area_alloc(struct fxt_buffer *buf)
{
	size_t i, n = buf->area_size >> PAGE_SHIFT;

	buf->pages = kvcalloc(n, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT);
	if (!buf->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		buf->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!buf->pages[i])
			return -ENOMEM;
		cond_resched();
	}
	buf->area = vmap(buf->pages, n, VM_MAP, PAGE_KERNEL);
	return buf->area ? 0 : -ENOMEM;
}

u64 fxt_user_share(u64 total)
{
	return max_t(u64, 1, div_u64(total * min(user_share_percent, 100U), 100));
}

/*
 * Charge a buffer to the session and, for task buffers, to its user
 * (acct_lock held).  Root and the users the session traces
 * (fxt_share_exempt()) are bound by the session's limits only; any other
 * user by its share of them: of the task buffers, and of the memory the
 * CPU buffers leave, which task buffers share.  Together, the users the
 * session does not trace, root among them, leave room for the kernel
 * buffer of a Start: root's daemons traced beside a non-root owner's
 * programs must not make the owner's next Start fail.  Which one the
 * buffer's user is, is decided here once and kept: the pid filter's
 * process may change its user or exit before the buffer is uncharged.
 */
static int fxt_charge(struct fxt_session *s, struct fxt_buffer *buf)
{
	struct fxt_user *u = buf->user;
	size_t size = buf->area_size;

	if (s->memory_used + size > s->memory_limit)
		return -ENOSPC;
	if (u) {
		bool other = !fxt_session_traces_user(s, u->uid);
		/* !fxt_share_exempt(), asking the filter's process once. */
		bool shared = other && !uid_eq(u->uid, GLOBAL_ROOT_UID);
		int ret = 0;

		if (s->task_buffers >= s->max_task_buffers)
			return -ENOSPC;
		/* u counts the user's buffers of every session. */
		spin_lock(&fxt_users_lock);
		if (shared &&
		    (u->task_buffers + 1 > fxt_user_share(s->max_task_buffers) ||
		     u->memory + size > fxt_user_share(s->task_memory)))
			ret = -EDQUOT;
		else if (other &&
			 s->others_memory + size + FXT_NAMES_RESERVE > s->task_memory)
			ret = -ENOSPC;
		if (!ret) {
			u->task_buffers++;
			u->memory += size;
		}
		spin_unlock(&fxt_users_lock);
		if (ret)
			return ret;
		s->task_buffers++;
		buf->other_user = other;
		if (other)
			s->others_memory += size;
	}
	s->memory_used += size;
	return 0;
}

static void fxt_uncharge(struct fxt_session *s, struct fxt_buffer *buf)
{
	struct fxt_user *u = buf->user;

	spin_lock(&s->acct_lock);
	if (u) {
		spin_lock(&fxt_users_lock);
		u->task_buffers--;
		u->memory -= buf->area_size;
		spin_unlock(&fxt_users_lock);
		s->task_buffers--;
		if (buf->other_user)
			s->others_memory -= buf->area_size;
	}
	s->memory_used -= buf->area_size;
	spin_unlock(&s->acct_lock);
}

/*
 * A new buffer, charged and allocated, not yet in the session (the
 * caller holds a reference on s; fxt_lock is not needed).  user: the user
 * a task buffer is charged to, NULL for kernel-written buffers.  A
 * producer allocates its buffer without fxt_lock, which everyone else
 * needs, because the allocation may be throttled (fxt_area_alloc()).
 */
struct fxt_buffer *fxt_buffer_new(struct fxt_session *s, u32 kind,
				  u64 data_size, u64 durable_size,
				  struct fxt_user *user)
{
	struct fxtrace_buffer_header *hdr;
	size_t area_size = 2 * FXTRACE_BUFFER_PAGE_SIZE + data_size;
	struct fxt_buffer *buf;
	int ret;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	buf->area_size = area_size;
	buf->user = user;
	buf->session = s;
	spin_lock(&s->acct_lock);
	ret = fxt_charge(s, buf);
	spin_unlock(&s->acct_lock);
	if (ret) {
		kfree(buf);
		return ERR_PTR(ret);
	}
	ret = fxt_area_alloc(buf);
	if (ret) {
		fxt_buffer_discard(buf);
		return ERR_PTR(ret);
	}
	kref_init(&buf->ref);
	buf->hdr = buf->area;
	buf->ctl = buf->area + FXTRACE_BUFFER_PAGE_SIZE;
	buf->data = buf->area + 2 * FXTRACE_BUFFER_PAGE_SIZE;
	buf->kind = kind;
	atomic64_set(&buf->nmi_dropped, 0);

	hdr = buf->hdr;
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->kind = kind;
	hdr->mode = s->mode;
	hdr->cpu = ~0U;
	hdr->owner_uid = ~0U;
	hdr->data_offset = 2 * FXTRACE_BUFFER_PAGE_SIZE;
	hdr->durable_size = durable_size;
	hdr->rolling_size = round_down((data_size - durable_size) / 2, 8);
	return buf;
}

/* A new buffer that never was in the session. */
void fxt_buffer_discard(struct fxt_buffer *buf)
{
	fxt_uncharge(buf->session, buf);
	fxt_area_free(buf);
	kfree(buf);
}

/*
 * Give a new buffer its id and put it in the session (fxt_lock held).
 * Complete before it goes into the id map: an ack (fxt_packet_ack())
 * finds a buffer there under xa_lock alone, without fxt_lock, and reads
 * its header.
 */
int fxt_buffer_publish(struct fxt_session *s, struct fxt_buffer *buf)
{
	int ret;

	if (s->next_id >= buffer_id_max)
		return -EOVERFLOW;
	buf->id = s->next_id + 1;
	buf->hdr->id = buf->id;
	buf->hdr->start_seq = s->start_seq;
	ret = xa_insert(&s->bufs, buf->id, buf, GFP_KERNEL);
	if (ret)
		return ret;
	kref_get(&s->ref);
	s->next_id = buf->id;
	s->nr_buffers++;
	list_add_tail(&buf->node, &s->buffers);
	return 0;
}

/* A new buffer, in the session (fxt_lock held). */
struct fxt_buffer *fxt_buffer_alloc(struct fxt_session *s, u32 kind,
				    u64 data_size, u64 durable_size,
				    struct fxt_user *user)
{
	struct fxt_buffer *buf;
	int ret;

	if (s->next_id >= buffer_id_max)
		return ERR_PTR(-EOVERFLOW);
	buf = fxt_buffer_new(s, kind, data_size, durable_size, user);
	if (IS_ERR(buf))
		return buf;
	ret = fxt_buffer_publish(s, buf);
	if (ret) {
		fxt_buffer_discard(buf);
		return ERR_PTR(ret);
	}
	return buf;
}

/* Memory is uncharged here, when it is really freed, never before. */
static void fxt_buffer_free(struct kref *ref)
{
	struct fxt_buffer *buf = container_of(ref, struct fxt_buffer, ref);
	struct fxt_session *s = buf->session;

	fxt_uncharge(s, buf);
	if (buf->mm)
		mmdrop(buf->mm);
	put_pid(buf->tgid);
	fxt_area_free(buf);
	fxt_session_put(s);
	kfree(buf);
}

/* Drop a reference; process context (freeing may sleep). */
void fxt_buffer_put(struct fxt_buffer *buf)
{
	might_sleep();
	kref_put(&buf->ref, fxt_buffer_free);
}

/* The buffer with this id in the session (fxt_lock held). */
struct fxt_buffer *fxt_buffer_find(struct fxt_session *s, u32 id)
{
	return xa_load(&s->bufs, id);
}

/* Take a buffer off the session and drop the session's reference. */
void fxt_buffer_unlist(struct fxt_buffer *buf)
{
	struct fxt_session *s = buf->session;

	list_del(&buf->node);
	xa_erase(&s->bufs, buf->id);
	s->nr_buffers--;
	fxt_buffer_put(buf);
}

/*
 * Start the durable part with a provider-info and an initialization
 * record, so that the buffer read after a magic record is a whole trace.
 * In that order: announcing a provider resets its tick rate.  Nobody
 * writes the buffer yet.
 */
void fxt_buffer_write_prefix(struct fxt_buffer *buf, const char *name)
{
	u64 words[2 + 1 + FXT_PROVIDER_NAME_MAX / 8 + 1];
	u32 len = min_t(size_t, strlen(name), FXT_PROVIDER_NAME_MAX);
	u32 n;

	n = fxt_write_provider_info(words, buf->id, name, len);
	n += fxt_write_init(words + n, fxt_clock_ticks_per_second());
	memcpy(buf->data, words, n * sizeof(u64));
	buf->durable_pos = n * sizeof(u64);
	buf->hdr->durable_reserved = buf->durable_pos;
	buf->hdr->durable_committed = buf->durable_pos;
	if (buf->kind == FXTRACE_BUFFER_TASK)
		buf->ctl->durable_committed = buf->durable_pos;
}

/*
 * Apply a Start disposition to a kernel buffer whose writers are idle.
 * The controller's acknowledgments are not idle: fxt_packet_ack() checks
 * and moves saved_wraps under tasks_lock, and one that checked before the
 * reset and stored after it would let the writer reuse halves nobody saved.
 */
void fxt_buffer_clear(struct fxt_buffer *buf, u32 disposition)
{
	struct fxtrace_buffer_header *hdr = buf->hdr;

	hdr->start_seq = buf->session->start_seq;
	/* RETAIN keeps the rest, but start_seq too is ordered by [clear]. */
	if (disposition == FXTRACE_START_RETAIN)
		goto out;
	raw_spin_lock(&buf->session->tasks_lock);
	buf->rolling_pos = 0;
	buf->wrap = 0;
	buf->dropped = 0;
	atomic64_set(&buf->nmi_dropped, 0);
	hdr->rolling_committed[0] = 0;
	hdr->rolling_committed[1] = 0;
	hdr->wrap_count = 0;
	hdr->requested_wraps = 0;
	hdr->saved_wraps = 0;
	hdr->save_requested_ns = 0;
	hdr->dropped_records = 0;
	if (disposition == FXTRACE_START_CLEAR_ALL) {
		buf->durable_pos = hdr->durable_reserved;
		hdr->durable_committed = hdr->durable_reserved;
		hdr->flags &= ~FXTRACE_BUFFER_DURABLE_FULL;
	}
	raw_spin_unlock(&buf->session->tasks_lock);
out:
	smp_wmb(); /* [clear]: before the session page says STARTED */
}

/*
 * Ask the controller to save half wrap (streaming): the time of the
 * request, then the request, then the packet ([snapshot]: the packet
 * queue's lock orders both before the controller's read of the packet).
 * Any context: the kernel writer calls it with interrupts off.
 */
void fxt_buffer_request_save(struct fxt_buffer *buf, u64 wrap)
{
	struct fxtrace_buffer_header *hdr = buf->hdr;

	WRITE_ONCE(hdr->save_requested_ns, ktime_get_mono_fast_ns());
	WRITE_ONCE(hdr->requested_wraps, wrap + 1);
	fxt_packet_queue(buf->session, FXTRACE_PKT_SAVE_BUFFER, wrap & 1,
			 buf->id, wrap, true);
}

/* Move to the other rolling half, if the mode allows it now. */
static bool fxt_kbuf_switch(struct fxt_buffer *buf)
{
	struct fxtrace_buffer_header *hdr = buf->hdr;
	u64 wrap = buf->wrap;

	switch (hdr->mode) {
	case FXTRACE_MODE_ONESHOT:
		if (wrap)
			return false;
		break;
	case FXTRACE_MODE_STREAMING:
		/*
		 * The other half holds wrap - 1: it must have been saved.
		 * [saved]: pairs with fxt_packet_ack()'s release.
		 */
		if (smp_load_acquire(&hdr->saved_wraps) < wrap)
			return false;
		fxt_buffer_request_save(buf, wrap);
		break;
	}
	buf->wrap = wrap + 1;
	buf->rolling_pos = 0;
	WRITE_ONCE(hdr->rolling_committed[buf->wrap & 1], 0);
	/*
	 * [wrap]: readers see the emptied half before the wrap that selects
	 * it; pairs with their load-acquire of wrap_count.
	 */
	smp_store_release(&hdr->wrap_count, buf->wrap);
	return true;
}

/*
 * Publish a kernel buffer's drops in its header: the writer's and those
 * counted in NMI, which cannot write the header (the writer they
 * interrupted may be writing it).  Called by the writer at each drop of
 * its own, and once its writers are gone (fxt_events_unregister()), so
 * that NMI drops since the last such drop are not missing at Stop.
 */
void fxt_kbuf_sync_dropped(struct fxt_buffer *buf)
{
	WRITE_ONCE(buf->hdr->dropped_records,
		   buf->dropped + atomic64_read(&buf->nmi_dropped));
}

/* Count a record a kernel buffer did not take (its writer's lock held). */
void fxt_kbuf_drop(struct fxt_buffer *buf)
{
	buf->dropped++;
	fxt_kbuf_sync_dropped(buf);
}

/*
 * Reserve room for n words in a kernel buffer of this CPU.  On success
 * interrupts stay off until fxt_kbuf_commit(), so records are reserved and
 * timestamped in order; on failure the record is counted as dropped.  In
 * NMI nothing is written: the interrupted writer may be mid-record.
 */
u64 *fxt_kbuf_reserve(struct fxt_buffer *buf, u32 n, bool durable,
		      unsigned long *irqflags)
{
	struct fxtrace_buffer_header *hdr = buf->hdr;
	u64 bytes = (u64)n * sizeof(u64);
	u64 *dst;

	if (in_nmi()) {
		atomic64_inc(&buf->nmi_dropped);
		return NULL;
	}
	local_irq_save(*irqflags);
	if (READ_ONCE(buf->session->paused))
		goto drop;
	if (durable) {
		if (buf->durable_pos + bytes > hdr->durable_size) {
			WRITE_ONCE(hdr->flags,
				   hdr->flags | FXTRACE_BUFFER_DURABLE_FULL);
			goto drop;
		}
		dst = (u64 *)(buf->data + buf->durable_pos);
		buf->durable_pos += bytes;
		return dst;
	}
	if (bytes > hdr->rolling_size ||
	    (buf->rolling_pos + bytes > hdr->rolling_size &&
	     !fxt_kbuf_switch(buf)))
		goto drop;
	dst = (u64 *)(buf->data + hdr->durable_size +
		      (buf->wrap & 1) * hdr->rolling_size + buf->rolling_pos);
	buf->rolling_pos += bytes;
	return dst;
drop:
	fxt_kbuf_drop(buf);
	local_irq_restore(*irqflags);
	return NULL;
}

/* Publish the reserved record to readers. */
void fxt_kbuf_commit(struct fxt_buffer *buf, bool durable,
		     unsigned long irqflags)
{
	struct fxtrace_buffer_header *hdr = buf->hdr;

	if (durable) {
		/*
		 * [commit]: the record's bytes before the offset publishing
		 * them; pairs with the reader's load-acquire of the offset.
		 */
		smp_store_release(&hdr->durable_committed, buf->durable_pos);
	} else {
		/* [commit], the same for the current half. */
		smp_store_release(&hdr->rolling_committed[buf->wrap & 1],
				  buf->rolling_pos);
	}
	local_irq_restore(irqflags);
}

bool fxt_kbuf_write(struct fxt_buffer *buf, const u64 *words, u32 n,
		    bool durable)
{
	unsigned long irqflags;
	u64 *dst;

	dst = fxt_kbuf_reserve(buf, n, durable, &irqflags);
	if (!dst)
		return false;
	memcpy(dst, words, n * sizeof(u64));
	fxt_kbuf_commit(buf, durable, irqflags);
	return true;
}

/* A committed offset of a control page, clamped to its part. */
static u64 fxt_ctl_committed(const u64 *offset, u64 limit)
{
	/*
	 * [snapshot]: pairs with the producer's [commit] release, so that the
	 * bytes it covers are visible to whoever the header is announced to.
	 */
	u64 value = smp_load_acquire(offset);

	return round_down(min(value, limit), 8);
}

/* Copy a task buffer's control page into its header, clamped. */
void fxt_buffer_snapshot(struct fxt_buffer *buf)
{
	struct fxtrace_buffer_control *ctl = buf->ctl;
	struct fxtrace_buffer_header *hdr = buf->hdr;

	WRITE_ONCE(hdr->durable_committed,
		   fxt_ctl_committed(&ctl->durable_committed,
				     hdr->durable_size));
	WRITE_ONCE(hdr->rolling_committed[0],
		   fxt_ctl_committed(&ctl->rolling_committed[0],
				     hdr->rolling_size));
	WRITE_ONCE(hdr->rolling_committed[1],
		   fxt_ctl_committed(&ctl->rolling_committed[1],
				     hdr->rolling_size));
	WRITE_ONCE(hdr->wrap_count, READ_ONCE(ctl->wrap_count));
	WRITE_ONCE(hdr->dropped_records, READ_ONCE(ctl->dropped_records));
	WRITE_ONCE(hdr->start_seq, READ_ONCE(ctl->start_seq));
	smp_wmb(); /* [snapshot]: before a packet or state announcing it */
}

/*
 * The owner will write no more: tell the controller, once (tasks_lock
 * held, so BUFFER_FULL cannot change the header or queue a save request
 * meanwhile).  The header is final before FXT_BUF_RETIRED is set, and
 * RELEASE tests that bit under tasks_lock, so the buffer outlives this.
 */
void fxt_buffer_retire_locked(struct fxt_buffer *buf)
{
	struct fxt_session *s = buf->session;

	lockdep_assert_held(&s->tasks_lock);
	if (test_bit(FXT_BUF_RETIRED, &buf->flags))
		return;
	if (buf->task) {
		hash_del(&buf->task_node);
		buf->task = NULL;
	}
	if (buf->kind == FXTRACE_BUFFER_TASK)
		fxt_buffer_snapshot(buf);
	/* [retired]: the final offsets before the state saying so. */
	smp_store_release(&buf->hdr->state, FXTRACE_BUFFER_RETIRED);
	set_bit(FXT_BUF_RETIRED, &buf->flags);
	if (!READ_ONCE(s->terminated))
		fxt_packet_queue(s, FXTRACE_PKT_BUFFER_RETIRED, 0, buf->id, 0,
				 true);
}

void fxt_buffer_retire(struct fxt_buffer *buf)
{
	struct fxt_session *s = buf->session;

	raw_spin_lock(&s->tasks_lock);
	fxt_buffer_retire_locked(buf);
	raw_spin_unlock(&s->tasks_lock);
}

static bool fxt_buffer_retired(struct fxt_buffer *buf)
{
	struct fxt_session *s = buf->session;
	bool retired;

	raw_spin_lock(&s->tasks_lock);
	retired = test_bit(FXT_BUF_RETIRED, &buf->flags);
	raw_spin_unlock(&s->tasks_lock);
	return retired;
}

/* ---- mappings ---------------------------------------------------------- */

static void fxt_vm_open(struct vm_area_struct *vma)
{
	struct fxt_buffer *buf = vma->vm_private_data;

	kref_get(&buf->ref);
}

static void fxt_vm_close(struct vm_area_struct *vma)
{
	struct fxt_buffer *buf = vma->vm_private_data;

	/*
	 * munmap, exec or exit of the producer's process.  Only the mapping
	 * mmap() made counts: a copy a refused mremap() made and unmaps
	 * again does not retire the buffer.  The pointer may be stale (the
	 * producer's VMA freed, its memory reused for this one): then the
	 * buffer is retired already, and retiring it again does nothing.
	 */
	if (READ_ONCE(buf->producer_vma) == vma)
		fxt_buffer_retire(buf);
	fxt_buffer_put(buf);
}

/* A split would leave two VMAs sharing one reference. */
static int fxt_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

/* Mappings do not move: the kernel would take the old one as an unmap. */
static int fxt_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct fxt_buffer_vm_ops = {
	.open = fxt_vm_open,
	.close = fxt_vm_close,
	.may_split = fxt_vm_may_split,
	.mremap = fxt_vm_mremap,
};

/*
 * The owner's mapping of its task buffer's header keeps that page (not
 * the buffer): its process's memory, in its RSS.  ADOPT zaps the headers
 * mapped through the former controller's file, this one too if the owner
 * mapped it through that file; the next access maps the page again.
 */
static void fxt_header_vm_open(struct vm_area_struct *vma)
{
	get_page(vma->vm_private_data);
}

static void fxt_header_vm_close(struct vm_area_struct *vma)
{
	put_page(vma->vm_private_data);
}

static vm_fault_t fxt_header_vm_fault(struct vm_fault *vmf)
{
	struct page *page = vmf->vma->vm_private_data;

	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct fxt_header_vm_ops = {
	.open = fxt_header_vm_open,
	.close = fxt_header_vm_close,
	.fault = fxt_header_vm_fault,
};

/*
 * Nothing executes trace memory, and a writable PRODUCER part mapped
 * executable would be shared W+X memory, which SELinux's execmem check
 * (anonymous and private mappings only) does not see.  PROT_EXEC fails
 * with EPERM, as on a noexec mount (do_mmap()), and without VM_MAYEXEC
 * mprotect() cannot add it (EACCES).
 *
 * A READ_IMPLIES_EXEC process (a 32-bit legacy binary without
 * PT_GNU_STACK, or personality(READ_IMPLIES_EXEC)) has VM_EXEC added to
 * every PROT_READ mapping; failing those would break its tracing for
 * what it never asked.  The implied exec is dropped instead, as do_mmap()
 * does on a noexec mount and mprotect() does without VM_MAYEXEC.  Here
 * it cannot be told from an explicit PROT_EXEC, which such a process
 * loses the same way.  vm_page_prot is set again because the pages are
 * inserted now, before mmap_region() sets it from the final vm_flags.
 */
static int fxt_mmap_noexec(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_EXEC) {
		if (!(current->personality & READ_IMPLIES_EXEC) ||
		    !(vma->vm_flags & VM_READ))
			return -EPERM;
		fxt_vma_clear_flags(vma, VM_EXEC);
		vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	}
	fxt_vma_clear_flags(vma, VM_MAYEXEC);
	return 0;
}

static int fxt_mmap_readonly(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	fxt_vma_clear_flags(vma, VM_MAYWRITE);
	return 0;
}

static int fxt_mmap_session(struct vm_area_struct *vma)
{
	int ret;

	if (vma->vm_end - vma->vm_start != FXTRACE_SESSION_MAP_SIZE)
		return -EINVAL;
	ret = fxt_mmap_readonly(vma);
	if (ret)
		return ret;
	/* The page lives as long as the module, which the mapping pins. */
	return remap_vmalloc_range(vma, fxt_page_area, 0);
}

/*
 * The process that attached the buffer, in the image that attached it:
 * tgid and mm are counted references, so neither can be a recycled one.
 */
bool fxt_is_owner(struct fxt_buffer *buf)
{
	return buf->kind == FXTRACE_BUFFER_TASK &&
	       buf->tgid == task_tgid(current) && buf->mm == current->mm;
}

/* Check a buffer mapping and return the page of the area it starts at. */
static int fxt_mmap_check(struct file *file, struct vm_area_struct *vma,
			  struct fxt_buffer *buf, unsigned int part)
{
	size_t len = vma->vm_end - vma->vm_start;
	bool controller = fxt_is_controller(buf->session, file);

	switch (part) {
	case FXTRACE_MMAP_HEADER:
		if (!controller && !fxt_is_owner(buf))
			return -EACCES;
		if (len != FXTRACE_BUFFER_PAGE_SIZE)
			return -EINVAL;
		return fxt_mmap_readonly(vma);
	case FXTRACE_MMAP_PRODUCER:
		if (!fxt_is_owner(buf) || test_bit(FXT_BUF_RETIRED, &buf->flags))
			return -EACCES;
		if (len != buf->area_size - FXTRACE_BUFFER_PAGE_SIZE)
			return -EINVAL;
		if (test_and_set_bit(FXT_BUF_MAPPED, &buf->flags))
			return -EBUSY;
		/* Not inherited by fork, and VM_IO so MADV_DOFORK cannot undo it. */
		fxt_vma_set_flags(vma, VM_DONTCOPY | VM_IO);
		/*
		 * Parts are 256 MiB apart: the largest buffer's producer part
		 * (FXTRACE_BUFFER_SIZE_MAX of data) would reach one page into
		 * the READER part's offsets, and ADOPT's revocation of READER
		 * mappings (unmap_mapping_range()) would zap its last page.
		 * Its VMA's offset is that of the area's first page instead,
		 * as if mapped from the header on: the part ends where the
		 * READER part starts, and no revocation covers it.
		 */
		vma->vm_pgoff--;
		return 1;
	case FXTRACE_MMAP_READER:
		if (!controller)
			return -EACCES;
		if (len != buf->area_size)
			return -EINVAL;
		return fxt_mmap_readonly(vma);
	}
	return -EINVAL;
}

/*
 * A mapping ADOPT revokes (a READER part, the header of a buffer the
 * mapping process does not own) as PFN mappings (VM_PFNMAP | VM_IO,
 * special PTEs): get_user_pages() refuses them, so no pipe (vmsplice())
 * or other page reference can outlive their revocation at ADOPT
 * (fxt_revoke_former_readers()) and show the adopter's data.  The VMA's
 * buffer reference keeps the pages.
 *
 * One vmf_insert_pfn() a page, not remap_pfn_range(): on x86 a remap
 * covering the whole VMA (a one-page HEADER) marks it VM_PAT, a flag the
 * revocation's zap clears without this mm's mmap_lock, so a racing
 * mprotect() can set it again on a VMA left without PTEs, and the later
 * munmap() warns in the PAT code.  An inserted PFN is never tracked so.
 */
static int fxt_insert_pfns(struct vm_area_struct *vma, struct page **pages)
{
	unsigned long addr;
	vm_fault_t ret;

	fxt_vma_set_flags(vma, VM_PFNMAP | VM_IO);
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vmf_insert_pfn(vma, addr, page_to_pfn(*pages++));
		if (ret != VM_FAULT_NOPAGE)
			goto undo;
	}
	return 0;
undo:
	/*
	 * A PFN entry holds no page reference, and fxt_mmap() drops the
	 * buffer's when this fails: a RELEASE from another thread could free
	 * the pages before the failed mmap() unmaps the VMA, while its other
	 * threads can still read them.  Zap what was inserted now, as
	 * remap_pfn_range() does on failure ("A partial pfn range mapping
	 * is dangerous").
	 */
	zap_vma_ptes(vma, vma->vm_start, addr - vma->vm_start);
	return ret == VM_FAULT_OOM ? -ENOMEM : -EFAULT;
}

int fxt_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned int part = (off >> FXTRACE_MMAP_PART_SHIFT) &
			    ((1U << (FXTRACE_MMAP_ID_SHIFT - FXTRACE_MMAP_PART_SHIFT)) - 1);
	u32 id = off >> FXTRACE_MMAP_ID_SHIFT;
	struct fxt_buffer *buf;
	unsigned long npages;
	bool revocable;
	int first, ret;

	ret = fxt_mmap_noexec(vma);
	if (ret)
		return ret;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (!off)
		return fxt_mmap_session(vma);
	if (!id || (off & ((1ULL << FXTRACE_MMAP_PART_SHIFT) - 1)))
		return -EINVAL;

	mutex_lock(&fxt_lock);
	buf = fxt_session ? fxt_buffer_find(fxt_session, id) : NULL;
	if (!buf) {
		mutex_unlock(&fxt_lock);
		return -ENOENT;
	}
	first = fxt_mmap_check(file, vma, buf, part);
	if (first >= 0)
		kref_get(&buf->ref);
	mutex_unlock(&fxt_lock);
	if (first < 0)
		return first;

	/*
	 * Not under fxt_lock: the page tables are charged to the caller's
	 * memory cgroup, which may throttle it for seconds (memory.high),
	 * and everyone else's ioctls and mmaps would wait.  The reference
	 * keeps the pages.
	 */
	npages = vma_pages(vma);
	fxt_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	/*
	 * What only a controller maps (READER parts, and the header of a
	 * buffer its process does not own) ADOPT revokes from a former
	 * controller: PFN-mapped, so that no page reference outlives the
	 * revocation.
	 */
	revocable = part == FXTRACE_MMAP_READER ||
		    (part == FXTRACE_MMAP_HEADER && !fxt_is_owner(buf));
	if (revocable)
		ret = fxt_insert_pfns(vma, buf->pages + first);
	else
		ret = vm_insert_pages(vma, vma->vm_start, buf->pages + first,
				      &npages);
	if (ret) {
		/*
		 * No vm_ops yet.  fxt_insert_pfns() zapped its PFN entries;
		 * vm_insert_pages() took a reference on each page it
		 * inserted, which the failed mmap()'s unmap drops.
		 */
		if (part == FXTRACE_MMAP_PRODUCER)
			clear_bit(FXT_BUF_MAPPED, &buf->flags);
		fxt_buffer_put(buf);
		return ret;
	}
	/*
	 * The owner's header mapping keeps its page only, not the buffer: a
	 * producer's 4 KiB mapping would otherwise keep the whole area
	 * alive, out of the process's RSS and, after Terminate, of any
	 * session's limits.  A PFN mapping keeps the buffer, as a READER
	 * mapping of it could.
	 */
	if (!revocable && part == FXTRACE_MMAP_HEADER) {
		get_page(buf->pages[first]);
		vma->vm_private_data = buf->pages[first];
		vma->vm_ops = &fxt_header_vm_ops;
		fxt_buffer_put(buf);
		return 0;
	}
	vma->vm_private_data = buf;
	vma->vm_ops = &fxt_buffer_vm_ops;
	/*
	 * Read by fxt_vm_close() of any mapping of the buffer, under another
	 * mm's mmap_lock for a controller's READER part: hence WRITE_ONCE().
	 */
	if (part == FXTRACE_MMAP_PRODUCER)
		WRITE_ONCE(buf->producer_vma, vma);
	return 0;
}

/* ---- controller ioctls ------------------------------------------------- */

long fxt_ioctl_buffer_info(struct file *file, void __user *argp)
{
	struct fxtrace_buffer_info info;
	struct fxt_session *s;
	struct fxt_buffer *found;
	unsigned long index;
	u32 size;
	int ret;

	ret = fxt_get_sized(&info, sizeof(info), FXTRACE_BUFFER_INFO_SIZE_V0,
			    argp, &size);
	if (ret)
		return ret;
	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	if (!s) {
		ret = -EPERM;
		goto out;
	}
	index = info.id;
	found = xa_find(&s->bufs, &index, U32_MAX, XA_PRESENT);
	if (!found) {
		ret = -ENOENT;
		goto out;
	}
	info.id = found->id;
	info.kind = found->kind;
	info.state = fxt_buffer_retired(found) ? FXTRACE_BUFFER_RETIRED :
						 FXTRACE_BUFFER_ACTIVE;
	info.reader_offset = FXTRACE_MMAP_OFFSET(found->id,
						 FXTRACE_MMAP_READER);
	info.reader_size = found->area_size;
out:
	mutex_unlock(&fxt_lock);
	if (!ret && copy_to_user(argp, &info, min_t(size_t, size, sizeof(info))))
		ret = -EFAULT;
	return ret;
}

long fxt_ioctl_release_buffer(struct file *file, void __user *argp)
{
	struct fxtrace_buffer_ref ref;
	struct fxt_session *s;
	struct fxt_buffer *buf;
	u32 size;
	int ret;

	ret = fxt_get_sized(&ref, sizeof(ref), FXTRACE_BUFFER_REF_SIZE_V0,
			    argp, &size);
	if (ret)
		return ret;
	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	buf = s ? fxt_buffer_find(s, ref.id) : NULL;
	if (!s) {
		ret = -EPERM;
	} else if (!buf) {
		ret = -ENOENT;
	} else if (buf->kind == FXTRACE_BUFFER_CPU || !fxt_buffer_retired(buf)) {
		ret = -EBUSY;
	} else {
		/*
		 * Its memory stays charged while a mapping (the producer's
		 * too) holds it.
		 */
		if (buf->kind == FXTRACE_BUFFER_KERNEL)
			s->names_dropped -= READ_ONCE(buf->hdr->dropped_records);
		fxt_buffer_unlist(buf);
	}
	mutex_unlock(&fxt_lock);
	return ret;
}
