/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace.ko internals: sessions, buffers and the packet queue.
 *
 * Locking:
 *  - fxt_lock (a mutex) serializes control operations: the ioctls (a
 *    producer's ATTACH and BUFFER_FULL too) and mmap.  Every operation
 *    under it is O(1), O(log n) or O(CPUs) but for the controller's own
 *    Start/Stop/Terminate.  Nothing touches user memory while holding it,
 *    because mmap() runs with mmap_lock held and takes fxt_lock inside
 *    it.  The controller's packet path (read, write, poll) never takes it.
 *  - session->bufs (an xarray) maps ids to buffers; its lock guards the
 *    lookups of acks, outside fxt_lock, against RELEASE and Terminate.
 *  - session->tasks_lock (raw: the sched_process_exit probe runs with
 *    preemption off, also on PREEMPT_RT) guards the task-to-buffer hash and
 *    every change of a task buffer's header: snapshots, save requests and
 *    retirement, which happens once and entirely under it.
 *  - session->pkt_lock (raw, IRQ-safe) guards the packet queue; probes take
 *    it with interrupts off.  It nests inside tasks_lock.
 *  - session->acct_lock guards what is charged: memory, task buffers, the
 *    per-user shares.  A buffer is uncharged when it is freed.
 *  - A kernel buffer's writer state is touched only on its CPU with
 *    interrupts off; a task buffer's data only by its producer.
 */
#ifndef _FXTRACE_INTERNAL_H
#define _FXTRACE_INTERNAL_H

#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <linux/fxtrace.h>

struct fxt_session;

/* Bits of fxt_buffer.flags. */
#define FXT_BUF_RETIRED		0	/* retirement done, header final */
#define FXT_BUF_MAPPED		1	/* the producer mapping was made */

/*
 * What one user holds in task buffers not freed yet, of every session (a
 * terminated session's that mappings keep too), for the per-user shares.
 * Module-wide, under fxt_users_lock; freed at unload.
 */
struct fxt_user {
	struct hlist_node node;		/* fxt_users */
	kuid_t uid;			/* fxt_current_owner() of its producers */
	u32 task_buffers;		/* not freed yet */
	u64 memory;			/* bytes of those */
};

struct fxt_buffer {
	struct kref ref;		/* session list + producer, reader maps */
	struct fxt_session *session;	/* counted reference */
	struct list_head node;		/* session->buffers, under fxt_lock */
	void *area;			/* vmap of pages: header, control, data */
	struct page **pages;		/* charged to the memcg of the caller */
	size_t area_size;
	struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	u8 *data;
	u32 id;
	u32 kind;
	unsigned long flags;

	/* Kernel writer (CPU and KERNEL buffers), IRQs off on one CPU. */
	u64 durable_pos;
	u64 rolling_pos;
	u64 wrap;
	u64 dropped;
	atomic64_t nmi_dropped;

	/* Task buffers: the owner, for identity checks only. */
	struct task_struct *task;	/* cleared at retirement */
	struct hlist_node task_node;	/* session->tasks */
	struct pid *tgid;		/* counted: the owning process */
	struct mm_struct *mm;		/* mmgrab()bed: its address is unique */
	u64 file_id;			/* of the file it was attached through */
	struct fxt_user *user;		/* charged with this buffer */
	bool other_user;		/* counted in session->others_memory */
	struct vm_area_struct *producer_vma;	/* the one producer mapping */
};

#define FXT_PACKET_BATCH	64
#define FXT_KPROBES_MAX		32
#define FXT_NAMES_ROOM		(256 << 10)	/* kernel:task names, bytes */
/*
 * Of the names room, what the users a session does not trace, root among
 * them, may fill together at most: they leave a quarter (as much as one
 * user's default share) to the names of the tasks the session was started
 * for, of what the Start's dump left (fxt_write_kernel_names()).
 */
#define FXT_NAMES_TRACED_ROOM	(FXT_NAMES_ROOM / 4)
#define FXT_NAMES_OTHERS_ROOM	(FXT_NAMES_ROOM - FXT_NAMES_TRACED_ROOM)
/*
 * The smallest kernel buffer a Start makes (its data: a page of prefix
 * and the room), with its two pages: memory other users' task buffers
 * leave free, so that they cannot keep a Start from having one.  In it the
 * dump of the tasks that exist takes part of the room itself: the others'
 * limit (names_others_room) is what the dump left less the traced users'
 * quarter, not FXT_NAMES_OTHERS_ROOM.
 */
#define FXT_NAMES_MIN_DATA	(PAGE_SIZE + FXT_NAMES_ROOM)
#define FXT_NAMES_RESERVE	(2 * FXTRACE_BUFFER_PAGE_SIZE + FXT_NAMES_MIN_DATA)
#define FXT_NAMES_USERS		64

/* What one user's tasks have written of a Start's names room. */
struct fxt_names_user {
	kuid_t uid;			/* fxt_current_owner() of its tasks */
	u32 bytes;
};

/* Wakes the controller from contexts that must not call wake_up(). */
struct fxt_wake {
	struct irq_work work;
	struct fxt_session *session;
};

struct fxt_session {
	struct kref ref;		/* fxt_session + controller + buffers */
	u32 state;			/* enum fxtrace_state */
	bool paused;			/* writers drop and count (snapshot) */
	bool terminated;
	struct file *controller;	/* NULL when orphaned */
	struct file *last_controller;	/* at Terminate: compared, not used */
	struct file *former_controller;	/* orphaned it, until released */
	kuid_t owner;			/* initializer's euid: control */
	kuid_t traced_owner;		/* its fxt_current_owner(): charges */
	u32 mode;
	u64 cpu_buffer_size;
	u64 task_buffer_size;
	u64 memory_limit;
	u64 task_memory;		/* memory_limit less the CPU buffers */
	u64 memory_used;
	u64 others_memory;		/* task buffers of users not traced */
	u32 max_task_buffers;
	u32 task_buffers;		/* not freed yet (acct_lock) */
	spinlock_t acct_lock;
	struct pid *filter_pid;		/* counted, NULL for none */
	struct pid *controller_tgid;	/* counted: the controlling process */
	struct mm_struct *controller_mm;	/* mmgrab()bed: in this image */
	u32 next_id;
	u32 nr_buffers;			/* in bufs */
	u64 names_dropped;		/* of retired, unreleased KERNEL buffers */
	u64 start_seq;
	struct list_head buffers;
	struct xarray bufs;		/* id -> buffer, as the list */
	struct fxt_buffer **cpu_buffers;	/* nr_cpu_ids, NULL if impossible */

	raw_spinlock_t tasks_lock;	/* tasks, fxt_buffer.task, retirement */
	DECLARE_HASHTABLE(tasks, 8);

	raw_spinlock_t pkt_lock;
	struct fxtrace_packet *pkts;	/* ring of pkt_cap packets */
	u32 pkt_cap;
	u32 pkt_head;
	u32 pkt_count;
	u64 lost_packets;
	struct mutex read_lock;		/* one reader at a time */
	wait_queue_head_t wq;
	struct fxt_wake __percpu *wake;

	/* The KERNEL buffer of this Start: task names, all CPUs, in order. */
	struct fxt_buffer *names;
	raw_spinlock_t names_lock;
	struct fxt_names_user names_users[FXT_NAMES_USERS];	/* names_lock */
	u32 names_others;		/* bytes of users not traced (names_lock) */
	u32 names_others_room;		/* their limit, set at Start */

	struct delayed_work clock_work;
	DECLARE_BITMAP(kprobes, FXT_KPROBES_MAX);	/* registered probes */
	struct tracepoint *exit_tp;	/* sched_process_exit, registered */
};

extern struct mutex fxt_lock;
extern spinlock_t fxt_users_lock;	/* inside acct_lock */
extern struct fxt_session *fxt_session;	/* under fxt_lock */
extern struct fxtrace_session_page *fxt_page;
extern void *fxt_page_area;
extern bool fxt_clock_is_tsc;		/* the clock of the session */

/* session.c */
int fxt_page_init(void);
void fxt_page_exit(void);
long fxt_ioctl_init(struct file *file, void __user *argp);
long fxt_ioctl_start(struct file *file, void __user *argp);
long fxt_ioctl_stop(struct file *file);
long fxt_ioctl_pause(struct file *file, bool pause);
long fxt_ioctl_terminate(struct file *file);
long fxt_ioctl_adopt(struct file *file);
long fxt_ioctl_session_info(void __user *argp);
long fxt_ioctl_category(void __user *argp);
long fxt_ioctl_category_name(void __user *argp);
int fxt_category_register(const char *name, kuid_t uid);
kuid_t fxt_current_owner(void);
bool fxt_session_traces_user(const struct fxt_session *s, kuid_t uid);
bool fxt_share_exempt(const struct fxt_session *s, kuid_t uid);
bool fxt_category_enabled(const char *name);
void fxt_controller_release(struct file *file);
void fxt_controller_flush(struct file *file);
bool fxt_in_controlling_image(struct fxt_session *s);
bool fxt_is_controller(struct fxt_session *s, struct file *file);
struct fxt_session *fxt_controlled(struct file *file);
void fxt_session_put(struct fxt_session *s);
void fxt_session_destroy_orphan(void);
u64 fxt_clock_ticks_per_second(void);

/* buffer.c */
struct fxt_buffer *fxt_buffer_new(struct fxt_session *s, u32 kind,
				  u64 data_size, u64 durable_size,
				  struct fxt_user *user);
void fxt_buffer_discard(struct fxt_buffer *buf);
int fxt_buffer_publish(struct fxt_session *s, struct fxt_buffer *buf);
struct fxt_buffer *fxt_buffer_alloc(struct fxt_session *s, u32 kind,
				    u64 data_size, u64 durable_size,
				    struct fxt_user *user);
bool fxt_is_owner(struct fxt_buffer *buf);
u64 fxt_user_share(u64 total);
void fxt_buffer_put(struct fxt_buffer *buf);
void fxt_buffer_write_prefix(struct fxt_buffer *buf, const char *name);
void fxt_buffer_clear(struct fxt_buffer *buf, u32 disposition);
u64 *fxt_kbuf_reserve(struct fxt_buffer *buf, u32 n, bool durable,
		      unsigned long *irqflags);
void fxt_kbuf_commit(struct fxt_buffer *buf, bool durable,
		     unsigned long irqflags);
bool fxt_kbuf_write(struct fxt_buffer *buf, const u64 *words, u32 n,
		    bool durable);
void fxt_kbuf_drop(struct fxt_buffer *buf);
void fxt_kbuf_sync_dropped(struct fxt_buffer *buf);
void fxt_buffer_snapshot(struct fxt_buffer *buf);
void fxt_buffer_request_save(struct fxt_buffer *buf, u64 wrap);
void fxt_buffer_retire(struct fxt_buffer *buf);
void fxt_buffer_retire_locked(struct fxt_buffer *buf);
struct fxt_buffer *fxt_buffer_find(struct fxt_session *s, u32 id);
void fxt_buffer_unlist(struct fxt_buffer *buf);
int fxt_mmap(struct file *file, struct vm_area_struct *vma);
long fxt_ioctl_buffer_info(struct file *file, void __user *argp);
long fxt_ioctl_release_buffer(struct file *file, void __user *argp);

/* task.c */
int fxt_task_probe_register(struct fxt_session *s);
void fxt_task_probe_unregister(struct fxt_session *s);
int fxt_write_kernel_names(struct fxt_session *s, u64 start_seq);
void fxt_names_retire(struct fxt_session *s);
void fxt_names_write(struct fxt_session *s, const u64 *words, u32 n);
long fxt_ioctl_attach(struct file *file, void __user *argp);
void fxt_users_free(void);
long fxt_ioctl_buffer_full(void __user *argp);

/* events.c */
struct tracepoint *fxt_tracepoint_find(const char *name);
int fxt_events_init(void);
int fxt_events_lookup(void);
void fxt_events_write_prefix(struct fxt_buffer *buf, unsigned int cpu);
int fxt_events_register(struct fxt_session *s);
void fxt_events_unregister(struct fxt_session *s);

/* packet.c */
int fxt_packets_init(struct fxt_session *s, u32 capacity);
void fxt_packets_free(struct fxt_session *s);
void fxt_packet_queue(struct fxt_session *s, u16 request, u16 data16,
		      u32 data32, u64 data64, bool from_probe);
ssize_t fxt_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t fxt_write_iter(struct kiocb *iocb, struct iov_iter *from);
__poll_t fxt_poll(struct file *file, struct poll_table_struct *wait);

/* main.c */
int fxt_get_sized(void *dst, size_t dst_size, size_t min_size,
		  const void __user *src, u32 *user_size);

#endif /* _FXTRACE_INTERNAL_H */
