// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks and the kernel: per-task buffers (attach, streaming save requests,
 * retirement at thread exit) and the names of existing tasks at Start.
 */
#include <linux/cred.h>
#include <linux/compat.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/nsproxy.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>

#include <linux/fxt.h>

#include "fxtrace.h"

/*
 * The attaching identity of a file: a number given at its first ATTACH,
 * kept in its own mapping inode (main.c gives every open file one) and
 * never given again, so that a buffer kept attached after its file is
 * closed cannot be mistaken for a later file's at the same address
 * (fxt_lock held).
 */
static u64 fxt_file_id(struct file *file)
{
	static u64 fxt_last_file_id;
	struct inode *inode = file->f_mapping->host;

	lockdep_assert_held(&fxt_lock);
	if (!inode->i_private)
		inode->i_private = (void *)(uintptr_t)(++fxt_last_file_id);
	return (uintptr_t)inode->i_private;
}

/*
 * sched_process_exit: the thread writes no more.  Runs in the exiting
 * thread with preemption off and current->mm already gone.  The buffers
 * are retired under tasks_lock, which RELEASE must take before freeing
 * them.
 */
static void fxt_probe_process_exit(void *data, struct task_struct *task)
{
	struct fxt_session *s = data;
	struct hlist_node *tmp;
	struct fxt_buffer *buf;

	/* One buffer per file the thread attached through, in its bucket. */
	raw_spin_lock(&s->tasks_lock);
	hash_for_each_possible_safe(s->tasks, buf, tmp, task_node,
				    (unsigned long)task) {
		if (buf->task == task)
			fxt_buffer_retire_locked(buf);
	}
	raw_spin_unlock(&s->tasks_lock);
}

/* The tracepoint's prototype, checked at build time against its header. */
typedef void (*fxt_exit_probe_t)(void *data, struct task_struct *task);
static_assert(__same_type(&register_trace_sched_process_exit,
			  int (*)(fxt_exit_probe_t, void *)));

int fxt_task_probe_register(struct fxt_session *s)
{
	fxt_exit_probe_t probe = fxt_probe_process_exit;
	struct tracepoint *tp;
	int ret;

	tp = fxt_tracepoint_find("sched_process_exit");
	if (!tp)
		return -ENOENT;
	ret = tracepoint_probe_register(tp, probe, s);
	if (!ret)
		s->exit_tp = tp;
	return ret;
}

void fxt_task_probe_unregister(struct fxt_session *s)
{
	if (!s->exit_tp)
		return;
	tracepoint_probe_unregister(s->exit_tp, fxt_probe_process_exit, s);
	s->exit_tp = NULL;
	tracepoint_synchronize_unregister();
}

/*
 * What each user (fxt_current_owner(): a user's subordinate uids are that
 * user) holds in task buffers, module-wide: a session's share also counts
 * the buffers of terminated sessions that the user's mappings keep, so
 * that holding them across sessions does not add up.  Entries (charged to
 * the user's memory cgroup) live until unload.
 */
static DEFINE_HASHTABLE(fxt_users, 6);
DEFINE_SPINLOCK(fxt_users_lock);

static struct fxt_user *fxt_user_find(kuid_t uid)
{
	struct fxt_user *u;

	hash_for_each_possible(fxt_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid))
			return u;
	}
	return NULL;
}

/* What this user holds; made on first use. */
static struct fxt_user *fxt_user_get(kuid_t uid)
{
	struct fxt_user *u, *new;

	spin_lock(&fxt_users_lock);
	u = fxt_user_find(uid);
	spin_unlock(&fxt_users_lock);
	if (u)
		return u;
	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	new->uid = uid;
	spin_lock(&fxt_users_lock);
	u = fxt_user_find(uid);
	if (!u) {
		hash_add(fxt_users, &new->node, __kuid_val(uid));
		u = new;
		new = NULL;
	}
	spin_unlock(&fxt_users_lock);
	kfree(new);
	return u;
}

/* Unload: no buffer is left. */
void fxt_users_free(void)
{
	struct hlist_node *tmp;
	struct fxt_user *u;
	int bkt;

	hash_for_each_safe(fxt_users, bkt, tmp, u, node) {
		hash_del(&u->node);
		kfree(u);
	}
}

static s64 fxt_monotonic_offset(void)
{
#ifdef CONFIG_TIME_NS
	return timespec64_to_ns(&current->nsproxy->time_ns->offsets.monotonic);
#else
	return 0;
#endif
}

/*
 * How many generations below the filter's process a process may be and
 * still attach.  The walk runs under RCU, as long as the caller's
 * ancestry, which any user can make as long as its process limit lets it
 * (a chain of clone()s): the bound keeps each ATTACH short.  Yama's
 * task_is_descendant() walks without one, but only on ptrace attach;
 * libfxtrace attaches once per thread.  Real process trees (an init, a
 * login, a shell, make's recursion) are tens of generations deep.
 */
#define FXT_ATTACH_GENERATIONS_MAX	1024

/*
 * Whether the session traces the calling process: any without a pid
 * filter; with one, the filter's process and its descendants (a command's
 * children, as perf's inherited counters follow them), by the chain of
 * real parents as it is now, so a child whose parent exited, reparented
 * to a subreaper or init, is not traced, nor one more than
 * FXT_ATTACH_GENERATIONS_MAX generations below.  As with Yama's ptrace
 * scope, the chain is read under RCU.  Without it, every process that
 * uses libfxtrace (root's daemons too) would write into a trace asked for
 * one process.
 */
static bool fxt_attach_traced(const struct fxt_session *s)
{
	struct task_struct *leader, *walker;
	bool traced = false;
	int generation;

	if (!s->filter_pid)
		return true;
	rcu_read_lock();
	leader = pid_task(s->filter_pid, PIDTYPE_TGID);
	walker = current;
	for (generation = 0; leader && walker->pid > 0 &&
	     generation <= FXT_ATTACH_GENERATIONS_MAX; generation++) {
		if (!thread_group_leader(walker))
			walker = READ_ONCE(walker->group_leader);
		if (walker == leader) {
			traced = true;
			break;
		}
		walker = rcu_dereference(walker->real_parent);
	}
	rcu_read_unlock();
	return traced;
}

/*
 * Whether the calling thread may attach through the file whose id is
 * file_id: 0, -EEXIST when it has its buffer through that file in this
 * process image, -EMFILE when it has FXTRACE_ATTACH_FILES_MAX through
 * others (each copy of libfxtrace in a process opens its own file: the
 * bound keeps one thread from attaching without limit).
 * With retire, the thread's buffers of an image before an exec are
 * retired (that image writes no more); without, they are not counted.
 */
static int fxt_attach_check(struct fxt_session *s, u64 file_id, bool retire)
{
	struct hlist_node *tmp;
	struct fxt_buffer *buf;
	u32 held = 0;
	int ret = 0;

	raw_spin_lock(&s->tasks_lock);
	hash_for_each_possible_safe(s->tasks, buf, tmp, task_node,
				    (unsigned long)current) {
		if (buf->task != current)
			continue;
		if (buf->mm != current->mm) {
			if (retire)
				fxt_buffer_retire_locked(buf);
			continue;
		}
		if (buf->file_id == file_id)
			ret = -EEXIST;
		held++;
	}
	raw_spin_unlock(&s->tasks_lock);
	if (!ret && held >= FXTRACE_ATTACH_FILES_MAX)
		ret = -EMFILE;
	return ret;
}

/* Give the calling thread buf, new, as its buffer through file_id. */
static int fxt_attach(struct fxt_session *s, struct fxt_buffer *buf,
		      u64 file_id, struct fxtrace_attach *at)
{
	char name[TASK_COMM_LEN + 16];
	char comm[TASK_COMM_LEN];
	int ret;

	lockdep_assert_held(&fxt_lock);
	/* fxt_lock: no other attach of this thread can come in between. */
	ret = fxt_attach_check(s, file_id, true);
	if (ret)
		return ret;

	ret = fxt_buffer_publish(s, buf);
	if (ret)
		return ret;
	buf->hdr->pid = task_tgid_nr(current);
	buf->hdr->tid = task_pid_nr(current);
	/* The user its share is charged to: the two cannot disagree. */
	buf->hdr->owner_uid = from_kuid(&init_user_ns, buf->user->uid);
	get_task_comm(comm, current);
	BUILD_BUG_ON(sizeof(buf->hdr->comm) != TASK_COMM_LEN);
	memcpy(buf->hdr->comm, comm, sizeof(buf->hdr->comm));
	snprintf(name, sizeof(name), "%s %u", comm, buf->hdr->tid);
	fxt_buffer_write_prefix(buf, name);
	buf->ctl->start_seq = s->start_seq;

	buf->tgid = get_pid(task_tgid(current));
	mmgrab(current->mm);
	buf->mm = current->mm;
	buf->file_id = file_id;
	raw_spin_lock(&s->tasks_lock);
	buf->task = current;
	hash_add(s->tasks, &buf->task_node, (unsigned long)current);
	raw_spin_unlock(&s->tasks_lock);
	fxt_packet_queue(s, FXTRACE_PKT_BUFFER_ADDED, FXTRACE_BUFFER_TASK,
			 buf->id, 0, false);

	at->buffer_id = buf->id;
	at->pid = buf->hdr->pid;
	at->tid = buf->hdr->tid;
	at->header_offset = FXTRACE_MMAP_OFFSET(buf->id, FXTRACE_MMAP_HEADER);
	at->header_size = FXTRACE_BUFFER_PAGE_SIZE;
	at->producer_offset = FXTRACE_MMAP_OFFSET(buf->id,
						  FXTRACE_MMAP_PRODUCER);
	at->producer_size = buf->area_size - FXTRACE_BUFFER_PAGE_SIZE;
	at->monotonic_offset = fxt_monotonic_offset();
	return 0;
}

/*
 * ATTACH's result struct, pinned before anything is created.  A sibling
 * thread may munmap() or mprotect() the struct while the buffer is made:
 * a copy_to_user() after the buffer is in the session would then fail
 * with the buffer left behind (the caller's next ATTACH: EEXIST).  The
 * result goes to the pinned pages instead, as O_DIRECT reads do.
 */
struct fxt_attach_out {
	struct page *pages[2];
	unsigned long addr;
	size_t len;
	int nr_pages;
};

static int fxt_attach_out_pin(struct fxt_attach_out *out, void __user *argp,
			      size_t len)
{
	unsigned long addr = (unsigned long)argp;
	int pinned;

	out->addr = addr;
	out->len = len;
	out->nr_pages = ((addr + len - 1) >> PAGE_SHIFT) - (addr >> PAGE_SHIFT) + 1;
	/* fxt_get_sized() keeps len within a page: two pages at most. */
	if (WARN_ON_ONCE(out->nr_pages > ARRAY_SIZE(out->pages)))
		return -EFAULT;
	pinned = pin_user_pages_fast(addr & PAGE_MASK, out->nr_pages,
				     FOLL_WRITE, out->pages);
	if (pinned == out->nr_pages)
		return 0;
	if (pinned > 0)
		unpin_user_pages(out->pages, pinned);
	return -EFAULT;
}

/* Write src, len bytes, to the pinned struct and unpin it. */
static void fxt_attach_out_write(struct fxt_attach_out *out, const void *src)
{
	size_t offset = offset_in_page(out->addr), done = 0;
	int i;

	for (i = 0; i < out->nr_pages; i++) {
		size_t n = min_t(size_t, out->len - done, PAGE_SIZE - offset);

		memcpy_to_page(out->pages[i], offset, src + done, n);
		done += n;
		offset = 0;
	}
	unpin_user_pages_dirty_lock(out->pages, out->nr_pages, true);
}

long fxt_ioctl_attach(struct file *file, void __user *argp)
{
	struct fxtrace_attach at;
	struct fxt_attach_out out;
	struct fxt_user *user = NULL;
	struct fxt_session *s;
	struct fxt_buffer *buf;
	u64 size = 0, file_id = 0;
	u32 at_size;
	int ret;

	ret = fxt_get_sized(&at, sizeof(at), FXTRACE_ATTACH_SIZE_V0, argp,
			    &at_size);
	if (ret)
		return ret;
	/* Everything but the size is output. */
	if (memchr_inv((u8 *)&at + sizeof(at.size), 0,
		       sizeof(at) - sizeof(at.size)))
		return -EINVAL;
	/* 32-bit producers are not supported: the mmap offsets need 64 bits. */
	if (in_compat_syscall())
		return -EOPNOTSUPP;
	/* Fail before attaching if the result cannot be returned. */
	ret = fxt_attach_out_pin(&out, argp, min_t(size_t, at_size, sizeof(at)));
	if (ret)
		return ret;
	at.size = at_size;

	mutex_lock(&fxt_lock);
	s = fxt_session;
	if (s) {
		file_id = fxt_file_id(file);
		ret = fxt_attach_check(s, file_id, false);
	}
	if (s && !ret) {
		kref_get(&s->ref);
		size = s->task_buffer_size;
		user = fxt_user_get(fxt_current_owner());
	}
	mutex_unlock(&fxt_lock);
	if (!s) {
		unpin_user_pages(out.pages, out.nr_pages);
		return -ENOENT;
	}
	if (ret) {
		unpin_user_pages(out.pages, out.nr_pages);
		return ret;
	}
	/*
	 * Without fxt_lock: the walk is as long as the caller's ancestry,
	 * which the caller chooses.  The reference keeps s->filter_pid.
	 */
	if (!fxt_attach_traced(s)) {
		ret = -EPERM;
		goto out_put;
	}
	if (!user) {
		ret = -ENOMEM;
		goto out_put;
	}
	/*
	 * The pages without fxt_lock: whoever makes this allocation slow
	 * (memory.high) must not stall every other user of the module.
	 */
	buf = fxt_buffer_new(s, FXTRACE_BUFFER_TASK, size,
			     fxtrace_durable_size(size), user);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto out_put;
	}
	mutex_lock(&fxt_lock);
	/* Terminated meanwhile: the reference kept s, not its place. */
	ret = fxt_session == s ? fxt_attach(s, buf, file_id, &at) : -ENOENT;
	mutex_unlock(&fxt_lock);
	if (ret)
		fxt_buffer_discard(buf);
out_put:
	fxt_session_put(s);
	if (ret)
		unpin_user_pages(out.pages, out.nr_pages);
	else
		fxt_attach_out_write(&out, &at);
	return ret;
}

/* A streaming producer filled a rolling half and asks for it to be saved. */
long fxt_ioctl_buffer_full(void __user *argp)
{
	struct fxtrace_buffer_full full;
	struct fxtrace_buffer_header *hdr;
	struct fxt_session *s;
	struct fxt_buffer *buf;
	u32 size;
	int ret;

	ret = fxt_get_sized(&full, sizeof(full), FXTRACE_BUFFER_FULL_SIZE_V0,
			    argp, &size);
	if (ret)
		return ret;
	mutex_lock(&fxt_lock);
	s = fxt_session;
	buf = s ? fxt_buffer_find(s, full.buffer_id) : NULL;
	if (!buf) {
		ret = -ENOENT;
		goto out;
	}
	hdr = buf->hdr;
	if (!fxt_is_owner(buf)) {
		ret = -EACCES;
		goto out;
	}
	/* Not while it retires: a retired header is final. */
	raw_spin_lock(&s->tasks_lock);
	if (s->mode != FXTRACE_MODE_STREAMING ||
	    test_bit(FXT_BUF_RETIRED, &buf->flags) ||
	    full.wrap != hdr->requested_wraps ||
	    hdr->requested_wraps != hdr->saved_wraps) {
		ret = -EINVAL;
	} else {
		fxt_buffer_snapshot(buf);
		fxt_buffer_request_save(buf, full.wrap);
	}
	raw_spin_unlock(&s->tasks_lock);
out:
	mutex_unlock(&fxt_lock);
	return ret;
}

/* ---- names of the tasks that exist at Start ---------------------------- */

static void fxt_write_task_name(struct fxt_buffer *buf, struct task_struct *t,
				unsigned int obj_type, u64 koid, u64 process)
{
	u64 words[16];
	char comm[TASK_COMM_LEN];
	u32 n;

	get_task_comm(comm, t);
	n = fxt_write_kobj_name(words, obj_type, koid, comm, strlen(comm),
				process);
	fxt_kbuf_write(buf, words, n, true);
}

/*
 * The task whose pid is the first from *nr on in the initial namespace, and
 * *nr moved past it; NULL after the last (rcu_read_lock held).  A walk by
 * number, as /proc's readdir walks tgids, keeps nothing of the task it
 * stopped at, so it may leave RCU between any two tasks, unlike
 * for_each_process_thread(), whose cursor is only valid inside one read-side
 * critical section.
 */
static struct task_struct *fxt_next_task(pid_t *nr)
{
	struct task_struct *t;
	struct pid *pid;

	while ((pid = find_ge_pid(*nr, &init_pid_ns))) {
		*nr = pid_nr(pid) + 1;
		t = pid_task(pid, PIDTYPE_PID);
		if (t)
			return t;
	}
	return NULL;
}

/*
 * Between two tasks of a walk: a walk of every task is as long as the
 * system has threads (pid_max is 4M), which on a kernel without
 * preemption must not hold the CPU nor an RCU grace period that long.
 */
static void fxt_walk_resched(void)
{
	if (!need_resched())
		return;
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
}

/*
 * The KERNEL buffer of a Start: a kernel-object record per process and
 * thread that exists, sized from the task count, then, while the session
 * runs, the names kernel:task gives new and renamed tasks (one buffer, so
 * that a reader meets a thread's names in the order they were given).
 * Tasks created meanwhile beyond the slack are dropped and counted in the
 * header (fxt_lock held).
 */
int fxt_write_kernel_names(struct fxt_session *s, u64 start_seq)
{
	const u32 slack = 64;
	struct task_struct *t;
	struct fxt_buffer *buf;
	u64 per_task, size, left;
	u32 tasks = 0;
	pid_t nr;

	rcu_read_lock();
	for (nr = 1; fxt_next_task(&nr); fxt_walk_resched())
		tasks++;
	rcu_read_unlock();

	/* A process record and a thread record per task at most. */
	per_task = sizeof(u64) * (fxt_kobj_name_words(TASK_COMM_LEN - 1, 0) +
				  fxt_kobj_name_words(TASK_COMM_LEN - 1, 1));
	size = PAGE_ALIGN(PAGE_SIZE + (tasks + slack) * per_task) +
	       FXT_NAMES_ROOM;
	buf = fxt_buffer_alloc(s, FXTRACE_BUFFER_KERNEL, size, size, NULL);
	/*
	 * Other users' buffers leave the smallest one room: it takes the
	 * names it can, and counts the others dropped.
	 */
	if (IS_ERR(buf) && PTR_ERR(buf) == -ENOSPC)
		buf = fxt_buffer_alloc(s, FXTRACE_BUFFER_KERNEL,
				       FXT_NAMES_MIN_DATA, FXT_NAMES_MIN_DATA,
				       NULL);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	buf->hdr->start_seq = start_seq;
	fxt_buffer_write_prefix(buf, "kernel");
	fxt_packet_queue(s, FXTRACE_PKT_BUFFER_ADDED, FXTRACE_BUFFER_KERNEL,
			 buf->id, 0, false);

	rcu_read_lock();
	for (nr = 1; (t = fxt_next_task(&nr)); fxt_walk_resched()) {
		if (thread_group_leader(t))
			fxt_write_task_name(buf, t, FXT_KOBJ_PROCESS,
					    task_tgid_nr(t), 0);
		fxt_write_task_name(buf, t, FXT_KOBJ_THREAD, task_pid_nr(t),
				    task_tgid_nr(t));
	}
	rcu_read_unlock();
	memset(s->names_users, 0, sizeof(s->names_users));
	s->names_others = 0;
	/*
	 * The smallest buffer (other users hold the memory) has no room past
	 * the dump: the dump takes part of the room itself, and the traced
	 * users' quarter is kept of what it left.
	 */
	left = buf->hdr->durable_size - buf->durable_pos;
	s->names_others_room = left > FXT_NAMES_TRACED_ROOM ?
		min_t(u64, FXT_NAMES_OTHERS_ROOM, left - FXT_NAMES_TRACED_ROOM) : 0;
	s->names = buf;
	return 0;
}

/* After Stop: the names buffer is complete (fxt_lock held, no probes). */
void fxt_names_retire(struct fxt_session *s)
{
	if (!s->names)
		return;
	fxt_buffer_retire(s->names);
	s->names_dropped += READ_ONCE(s->names->hdr->dropped_records);
	s->names = NULL;
}

/*
 * The room left for names after the Start's dump is shared as the memory
 * for task buffers is: the users the session traces may fill it; the
 * others, root among them, together all but the quarter kept for the
 * traced users' names (names_others_room), so that root's daemons,
 * forking and renaming with no malice, cannot leave a non-root owner's
 * threads unnamed; and any of them but root (fxt_share_exempt()) only its
 * share of the room, so that one user's forks and renames cannot push
 * everyone else's names out.  Users beyond the table share its last
 * entry (names_lock held).
 */
static bool fxt_names_charge(struct fxt_session *s, kuid_t uid, u32 bytes)
{
	struct fxt_names_user *u = s->names_users;

	if (fxt_session_traces_user(s, uid))
		return true;
	if (s->names_others + bytes > s->names_others_room)
		return false;
	/* !fxt_share_exempt(), asking the filter's process once. */
	if (!uid_eq(uid, GLOBAL_ROOT_UID)) {
		/* Claimed in order, never emptied before the next Start. */
		while (u < s->names_users + FXT_NAMES_USERS - 1 && u->bytes &&
		       !uid_eq(u->uid, uid))
			u++;
		if (u->bytes + bytes > fxt_user_share(FXT_NAMES_ROOM))
			return false;
		u->uid = uid;
		u->bytes += bytes;
	}
	s->names_others += bytes;
	return true;
}

/*
 * A kernel:task record into the session's names buffer, from any CPU,
 * charged to the user of the task that caused it (fork, exec, rename).
 */
void fxt_names_write(struct fxt_session *s, const u64 *words, u32 n)
{
	kuid_t uid = fxt_current_owner();
	unsigned long irqflags;

	/* names_lock is not NMI-safe: counted, as fxt_kbuf_reserve() does. */
	if (in_nmi()) {
		atomic64_inc(&s->names->nmi_dropped);
		return;
	}
	raw_spin_lock_irqsave(&s->names_lock, irqflags);
	/*
	 * Paused, the record is dropped: not charged, or root's daemons
	 * during a snapshot would take the others' room with names never
	 * written, and drop their names for the rest of the Start.
	 */
	if (!READ_ONCE(s->paused) && fxt_names_charge(s, uid, n * sizeof(u64)))
		fxt_kbuf_write(s->names, words, n, true);
	else
		fxt_kbuf_drop(s->names);
	raw_spin_unlock_irqrestore(&s->names_lock, irqflags);
}
