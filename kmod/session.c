// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: Initialize, Start, Stop, Terminate (as in the
 * fuchsia.tracing.provider FIDL protocol, Documentation/uapi.rst), the
 * controller role, orphaned sessions and the session page producers map.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/hashtable.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/stringhash.h>
#include <linux/xarray.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/vmalloc.h>
#include <asm/tsc.h>

#include "fxtrace.h"

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "trace clock: auto, tsc or monotonic");

static unsigned int memory_max_mb = 512;
module_param(memory_max_mb, uint, 0444);
MODULE_PARM_DESC(memory_max_mb, "largest memory limit of a session, MiB");

/* Serializes control operations; see fxtrace.h. */
DEFINE_MUTEX(fxt_lock);
struct fxt_session *fxt_session;
bool fxt_clock_is_tsc;
struct fxtrace_session_page *fxt_page;
void *fxt_page_area;

/* The session mapping: the page, the enable table, the category list. */
#define FXT_ENABLED_OFFSET	PAGE_SIZE
#define FXT_CATEGORIES_OFFSET	(2 * PAGE_SIZE)
#define FXT_CATEGORIES_ROOM	(FXTRACE_SESSION_MAP_SIZE - FXT_CATEGORIES_OFFSET)
#define FXT_DEFAULT_TASK_BUFFERS	1024

/*
 * Category slots one user other than root may register: the table lives as
 * long as the module, so no user may fill it for everybody.
 */
static unsigned int category_slots_per_user = 256;
module_param(category_slots_per_user, uint, 0444);
MODULE_PARM_DESC(category_slots_per_user,
		 "category slots one non-root user may register");

/*
 * The last slots only root and the users the running session traces may
 * take, so that their categories register even after other users (a
 * container's tenant holds many uids, a share each) filled the rest.
 */
#define FXT_CATEGORY_SLOTS_RESERVED	(FXTRACE_CATEGORY_SLOTS / 4)

/* Registered category names, slot by slot, and a hash of them (fxt_lock). */
static char (*fxt_slot_names)[FXTRACE_CATEGORY_MAX_LEN + 1];
static struct hlist_node *fxt_slot_nodes;
static DEFINE_HASHTABLE(fxt_slot_hash, 10);
static DEFINE_XARRAY(fxt_slot_users);	/* uid -> slots it registered */
static u32 fxt_slots_used;
static u64 fxt_next_session_id;

int fxt_page_init(void)
{
	BUILD_BUG_ON(FXT_CATEGORIES_ROOM <
		     FXTRACE_CATEGORIES_MAX * (FXTRACE_CATEGORY_MAX_LEN + 1));
	BUILD_BUG_ON(sizeof(struct fxtrace_session_page) > PAGE_SIZE);
	BUILD_BUG_ON(FXTRACE_CATEGORY_SLOTS > PAGE_SIZE);

	fxt_slot_names = kvcalloc(FXTRACE_CATEGORY_SLOTS,
				  sizeof(*fxt_slot_names), GFP_KERNEL);
	fxt_slot_nodes = kvcalloc(FXTRACE_CATEGORY_SLOTS,
				  sizeof(*fxt_slot_nodes), GFP_KERNEL);
	fxt_page_area = vmalloc_user(FXTRACE_SESSION_MAP_SIZE);
	if (!fxt_page_area || !fxt_slot_names || !fxt_slot_nodes) {
		fxt_page_exit();
		return -ENOMEM;
	}
	fxt_page = fxt_page_area;
	fxt_page->magic = FXTRACE_SESSION_MAGIC;
	fxt_page->abi_major = FXTRACE_ABI_MAJOR;
	fxt_page->abi_minor = FXTRACE_ABI_MINOR;
	fxt_page->state = FXTRACE_STATE_NONE;
	fxt_page->categories_offset = FXT_CATEGORIES_OFFSET;
	fxt_page->enabled_offset = FXT_ENABLED_OFFSET;
	return 0;
}

void fxt_page_exit(void)
{
	vfree(fxt_page_area);
	kvfree(fxt_slot_names);
	kvfree(fxt_slot_nodes);
	xa_destroy(&fxt_slot_users);
}

#define FXT_KERNEL_PREFIX	"kernel:"

static bool fxt_is_kernel_category(const char *name)
{
	return !strncmp(name, FXT_KERNEL_PREFIX, strlen(FXT_KERNEL_PREFIX));
}

/*
 * Whether the session's category list enables this name (fxt_lock held).
 * Kernel categories cost every task (syscalls take the slow path, probes
 * patch kernel text), so, like Perfetto's disabled-by-default categories,
 * only patterns that start with "kernel:" enable them: "*" and an empty
 * list mean every user category.
 */
static bool fxt_category_on(const char *name)
{
	const char *list = fxt_page_area + FXT_CATEGORIES_OFFSET;
	const char *end = list + fxt_page->categories_size;
	bool kernel = fxt_is_kernel_category(name);
	const char *glob;

	if (!fxt_page->categories_count)
		return !kernel;
	for (glob = list; glob < end; glob += strlen(glob) + 1) {
		if (kernel && !fxt_is_kernel_category(glob))
			continue;
		if (glob_match(glob, name))
			return true;
	}
	return false;
}

/* Whether events of this category are recorded now (fxt_lock held). */
bool fxt_category_enabled(const char *name)
{
	return fxt_page->state == FXTRACE_STATE_STARTED &&
	       fxt_category_on(name);
}

/*
 * Recompute the enable table and bump the generation, after a change of
 * state or categories (fxt_lock held).  Producers test their category's
 * byte on every event and re-read the page when the generation changes.
 */
static void fxt_page_publish(void)
{
	u8 *enabled = fxt_page_area + FXT_ENABLED_OFFSET;
	u32 i;

	for (i = 0; i < fxt_slots_used; i++)
		WRITE_ONCE(enabled[i], fxt_category_enabled(fxt_slot_names[i]));
	/*
	 * The fields before the generation producers compare: pairs with
	 * libfxtrace's load-acquire of generation before it reads the page.
	 */
	smp_wmb();
	WRITE_ONCE(fxt_page->generation, fxt_page->generation + 1);
}

/* ---- the clock --------------------------------------------------------- */

static bool fxt_tsc_usable(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz;
}

static int fxt_clock_choose(void)
{
	if (!strcmp(clock, "monotonic"))
		return FXTRACE_CLOCK_MONOTONIC;
	if (!strcmp(clock, "tsc"))
		return fxt_tsc_usable() ? FXTRACE_CLOCK_TSC : -EINVAL;
	if (strcmp(clock, "auto"))
		return -EINVAL;
	/* The TSC only where the hardware promises it ticks steadily. */
	if (fxt_tsc_usable() && boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		return FXTRACE_CLOCK_TSC;
	return FXTRACE_CLOCK_MONOTONIC;
}

u64 fxt_clock_ticks_per_second(void)
{
	return READ_ONCE(fxt_page->ticks_per_second);
}

/*
 * Take a (tsc, monotonic) pair for converting between the two clocks.  The
 * monotonic clock reads the TSC itself, between two reads of ours: the
 * middle of the tightest of a few brackets estimates its read best (the
 * first one may include a cache miss, or under QEMU a translation).
 */
static void fxt_clock_refresh(void)
{
	u64 before, after, ns, tsc = 0, mono = 0, width = U64_MAX;
	unsigned long irqflags;
	int i;

	local_irq_save(irqflags);
	for (i = 0; i < 4; i++) {
		before = rdtsc_ordered();
		ns = ktime_get_mono_fast_ns();
		after = rdtsc_ordered();
		if (after - before < width) {
			width = after - before;
			tsc = before + width / 2;
			mono = ns;
		}
	}
	local_irq_restore(irqflags);

	/*
	 * A seqcount: readers retry while ref_seq is odd or changed.  The two
	 * barriers pair with a reader's load-acquire of ref_seq before the
	 * pair and its acquire fence after it (fxtrace-drain, fxtprobe).
	 */
	WRITE_ONCE(fxt_page->ref_seq, fxt_page->ref_seq + 1);
	smp_wmb(); /* odd ref_seq before the pair */
	WRITE_ONCE(fxt_page->ref_tsc, tsc);
	WRITE_ONCE(fxt_page->ref_monotonic_ns, mono);
	smp_wmb(); /* the pair before the even ref_seq */
	WRITE_ONCE(fxt_page->ref_seq, fxt_page->ref_seq + 1);

	if (fxt_page->clock == FXTRACE_CLOCK_TSC && check_tsc_unstable())
		WRITE_ONCE(fxt_page->clock_flags,
			   fxt_page->clock_flags | FXTRACE_CLOCK_TSC_UNSTABLE);
}

static void fxt_clock_work(struct work_struct *work)
{
	struct fxt_session *s = container_of(to_delayed_work(work),
					     struct fxt_session, clock_work);

	fxt_clock_refresh();
	schedule_delayed_work(&s->clock_work, HZ);
}

/* ---- categories -------------------------------------------------------- */

static bool fxt_category_char_ok(char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '/' ||
	       c == '*' || c == '-';
}

/*
 * Check a packed list of NUL-terminated names; return how many there are
 * or -EINVAL.
 */
static int fxt_categories_check(const char *list, u32 size)
{
	u32 i, len = 0;
	int count = 0;

	if (size && list[size - 1] != '\0')
		return -EINVAL;
	for (i = 0; i < size; i++) {
		if (list[i] == '\0') {
			if (!len)
				return -EINVAL;
			if (++count > FXTRACE_CATEGORIES_MAX)
				return -EINVAL;
			len = 0;
			continue;
		}
		if (!fxt_category_char_ok(list[i]) ||
		    ++len > FXTRACE_CATEGORY_MAX_LEN)
			return -EINVAL;
	}
	return count;
}

/* Copy and check a category list from user space; *list is kfree()able. */
static int fxt_categories_get(u64 uptr, u32 size, char **list)
{
	char *buf;
	int count;

	*list = NULL;
	if (!size)
		return uptr ? -EINVAL : 0;
	if (!uptr || size > FXTRACE_CATEGORIES_MAX * (FXTRACE_CATEGORY_MAX_LEN + 1))
		return -EINVAL;
	buf = memdup_user(u64_to_user_ptr(uptr), size);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	count = fxt_categories_check(buf, size);
	if (count < 0) {
		kfree(buf);
		return count;
	}
	*list = buf;
	return count;
}

/*
 * Whom what a task does is charged to (a task buffer, a new category
 * slot, a task's name): its real uid (a set-user-ID root program runs for
 * its caller); in a user namespace that a user (not root) made, directly
 * or through nested ones, that user: the uids it maps into its namespaces
 * (its subordinate uids) share its shares, or one user would hold a share
 * per uid.  Namespaces root made (containers) keep one share per uid.
 */
static kuid_t fxt_cred_owner(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;

	if (ns == &init_user_ns)
		return cred->uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return uid_eq(ns->owner, GLOBAL_ROOT_UID) ? cred->uid : ns->owner;
}

kuid_t fxt_current_owner(void)
{
	return fxt_cred_owner(current_cred());
}

/*
 * Whether s traces uid's work: its initializer's (as charged, not its
 * euid), and that of the user the
 * process its pid filter names is charged to, as that process's
 * credentials say now (with sudo fxtrace record -u USER the command sets
 * USER's uid after the session started).  Events match the filter by
 * tgid (fxt_traced()), so the process is its leader's: a filter naming
 * another thread traces no one.
 */
bool fxt_session_traces_user(const struct fxt_session *s, kuid_t uid)
{
	struct task_struct *t;
	bool traced;

	if (uid_eq(uid, s->traced_owner))
		return true;
	if (!s->filter_pid)
		return false;
	rcu_read_lock();
	t = pid_task(s->filter_pid, PIDTYPE_TGID);
	traced = t && uid_eq(uid, fxt_cred_owner(__task_cred(t)));
	rcu_read_unlock();
	return traced;
}

/*
 * Whether uid is bound by s's limits only, not by a user's share of them:
 * the one rule for task buffers, the names room and the reserved category
 * slots.  Root is, as the kernel's quotas yield to it: it can kill any
 * session's controller and adopt the orphan, so a share would protect no
 * owner from it, only cut short the system's programs traced beside a
 * non-root owner's.  So are the users s traces (s NULL: no session,
 * none).  Root still leaves a Start its room (fxt_charge()) and the
 * traced users a part of the names room (fxt_names_charge()).
 */
bool fxt_share_exempt(const struct fxt_session *s, kuid_t uid)
{
	return uid_eq(uid, GLOBAL_ROOT_UID) ||
	       (s && fxt_session_traces_user(s, uid));
}

/*
 * The slot of a category name, registered for uid if new: its byte in the
 * enable table follows the session (fxt_lock held).  Returns the slot,
 * -ENOSPC when the table is full, or all but the reserved slots are taken
 * and uid may not take those, or -EDQUOT when uid (fxt_current_owner()),
 * not root, has category_slots_per_user slots already.
 */
int fxt_category_register(const char *name, kuid_t uid)
{
	u8 *enabled = fxt_page_area + FXT_ENABLED_OFFSET;
	u32 hash = full_name_hash(NULL, name, strlen(name));
	unsigned long mine = 0;
	struct hlist_node *node;
	void *entry;
	u32 i;

	hlist_for_each(node, &fxt_slot_hash[hash_min(hash, HASH_BITS(fxt_slot_hash))]) {
		i = node - fxt_slot_nodes;
		if (!strcmp(fxt_slot_names[i], name))
			return i;
	}
	i = fxt_slots_used;
	if (i == FXTRACE_CATEGORY_SLOTS ||
	    (i >= FXTRACE_CATEGORY_SLOTS - FXT_CATEGORY_SLOTS_RESERVED &&
	     !fxt_share_exempt(fxt_session, uid)))
		return -ENOSPC;
	/*
	 * Slots outlive sessions: the count exempts root alone, not the users
	 * a session traces, or a user traced once would keep the table.
	 */
	if (!uid_eq(uid, GLOBAL_ROOT_UID)) {
		entry = xa_load(&fxt_slot_users, __kuid_val(uid));
		mine = entry ? xa_to_value(entry) : 0;
		if (mine >= category_slots_per_user)
			return -EDQUOT;
		entry = xa_store(&fxt_slot_users, __kuid_val(uid),
				 xa_mk_value(mine + 1), GFP_KERNEL);
		if (xa_is_err(entry))
			return xa_err(entry);
	}
	strscpy(fxt_slot_names[i], name, sizeof(fxt_slot_names[i]));
	hash_add(fxt_slot_hash, &fxt_slot_nodes[i], hash);
	/* Publishes the name to fxt_ioctl_category_name(), which is lockless. */
	smp_store_release(&fxt_slots_used, i + 1);
	WRITE_ONCE(enabled[i], fxt_category_enabled(name));
	return i;
}

long fxt_ioctl_category(void __user *argp)
{
	char name[FXTRACE_CATEGORY_MAX_LEN + 1];
	struct fxtrace_category cat;
	u32 size, i;
	int ret;

	ret = fxt_get_sized(&cat, sizeof(cat), FXTRACE_CATEGORY_SIZE_V0, argp,
			    &size);
	if (ret)
		return ret;
	if (cat.index || cat.__reserved || !cat.name_len ||
	    cat.name_len > FXTRACE_CATEGORY_MAX_LEN)
		return -EINVAL;
	if (copy_from_user(name, u64_to_user_ptr(cat.name), cat.name_len))
		return -EFAULT;
	name[cat.name_len] = '\0';
	/* A name, not a glob. */
	for (i = 0; i < cat.name_len; i++) {
		if (!fxt_category_char_ok(name[i]) || name[i] == '*')
			return -EINVAL;
	}

	mutex_lock(&fxt_lock);
	ret = fxt_category_register(name, fxt_current_owner());
	mutex_unlock(&fxt_lock);
	if (ret < 0)
		return ret;
	cat.index = ret;
	if (copy_to_user(argp, &cat, min_t(size_t, size, sizeof(cat))))
		return -EFAULT;
	return 0;
}

/*
 * The name in a slot (FXTRACE_IOC_CATEGORY_NAME), for anyone: names are
 * not secret (anyone may register one, the enable table is world-readable)
 * and the lookup is O(1) without fxt_lock: a slot's name is written once,
 * before the release store of fxt_slots_used that publishes it.
 */
long fxt_ioctl_category_name(void __user *argp)
{
	const u8 *enabled = fxt_page_area + FXT_ENABLED_OFFSET;
	struct fxtrace_category_name cn;
	u32 size;
	int ret;

	BUILD_BUG_ON(sizeof(cn.name) <= FXTRACE_CATEGORY_MAX_LEN);
	ret = fxt_get_sized(&cn, sizeof(cn), FXTRACE_CATEGORY_NAME_SIZE_V0,
			    argp, &size);
	if (ret)
		return ret;
	/* Everything but size and index is output: input bytes are an error. */
	if (cn.name_len || cn.flags || memchr_inv(cn.name, 0, sizeof(cn.name)))
		return -EINVAL;
	if (cn.index >= FXTRACE_CATEGORY_SLOTS)
		return -ERANGE;
	/* Pairs with the release in fxt_category_register(). */
	if (cn.index >= smp_load_acquire(&fxt_slots_used))
		return -ENOENT;
	/* cn.name is all zero: the copy leaves the bytes past the NUL zero. */
	cn.name_len = strscpy(cn.name, fxt_slot_names[cn.index],
			      sizeof(cn.name));
	if (READ_ONCE(enabled[cn.index]))
		cn.flags = FXTRACE_CATEGORY_NAME_ENABLED;
	if (copy_to_user(argp, &cn, min_t(size_t, size, sizeof(cn))))
		return -EFAULT;
	return 0;
}

/* Append names to the session page's list (fxt_lock held, room checked). */
static void fxt_categories_add(const char *list, u32 size, int count)
{
	u32 used = fxt_page->categories_size;

	memcpy((char *)fxt_page_area + FXT_CATEGORIES_OFFSET + used, list, size);
	WRITE_ONCE(fxt_page->categories_size, used + size);
	WRITE_ONCE(fxt_page->categories_count,
		   fxt_page->categories_count + count);
}

/* ---- session lifetime -------------------------------------------------- */

static void fxt_session_free(struct kref *ref)
{
	struct fxt_session *s = container_of(ref, struct fxt_session, ref);

	xa_destroy(&s->bufs);
	put_pid(s->filter_pid);
	put_pid(s->controller_tgid);
	if (s->controller_mm)
		mmdrop(s->controller_mm);
	fxt_packets_free(s);
	free_percpu(s->wake);
	kfree(s->cpu_buffers);
	kfree(s);
}

void fxt_session_put(struct fxt_session *s)
{
	kref_put(&s->ref, fxt_session_free);
}

/*
 * Whether the caller is the process that initialized or adopted s, in the
 * image that did: tgid and mm are counted references, so neither can be a
 * recycled one.  An exec ends the role even for a descriptor that stays
 * open across it.
 */
bool fxt_in_controlling_image(struct fxt_session *s)
{
	return READ_ONCE(s->controller_tgid) == task_tgid(current) &&
	       READ_ONCE(s->controller_mm) == current->mm;
}

/*
 * Whether the caller controls s through file: the controller role belongs
 * to the open file in the process image that initialized or adopted the
 * session, not to a child that inherited the file (or a mapping of it),
 * nor to the program the process execs.
 */
bool fxt_is_controller(struct fxt_session *s, struct file *file)
{
	return READ_ONCE(s->controller) == file && fxt_in_controlling_image(s);
}

/* The session this file controls, or NULL (fxt_lock held). */
struct fxt_session *fxt_controlled(struct file *file)
{
	struct fxt_session *s = file->private_data;

	return s && fxt_is_controller(s, file) ? s : NULL;
}

static void fxt_become_controller(struct fxt_session *s, struct file *file)
{
	struct mm_struct *old_mm = s->controller_mm;
	struct pid *old = s->controller_tgid;

	WRITE_ONCE(s->controller_tgid, get_pid(task_tgid(current)));
	put_pid(old);
	mmgrab(current->mm);
	WRITE_ONCE(s->controller_mm, current->mm);
	if (old_mm)
		mmdrop(old_mm);
	WRITE_ONCE(s->controller, file);
	kref_get(&s->ref);
	file->private_data = s;
}

static void fxt_set_paused(struct fxt_session *s, bool paused)
{
	WRITE_ONCE(s->paused, paused);
	WRITE_ONCE(fxt_page->flags,
		   paused ? FXTRACE_SESSION_PAGE_PAUSED : 0);
}

static void fxt_session_stop(struct fxt_session *s)
{
	struct fxt_buffer *buf;
	u64 dropped = 0;

	s->state = FXTRACE_STATE_STOPPED;
	fxt_set_paused(s, false);
	WRITE_ONCE(fxt_page->state, FXTRACE_STATE_STOPPED);
	fxt_page_publish();
	/* No kernel probe runs after this, so none is mid-record. */
	fxt_events_unregister(s);
	fxt_names_retire(s);

	list_for_each_entry(buf, &s->buffers, node) {
		if (buf->kind != FXTRACE_BUFFER_TASK) {
			dropped += READ_ONCE(buf->hdr->dropped_records);
			continue;
		}
		/* A retired header is final. */
		raw_spin_lock(&s->tasks_lock);
		if (!test_bit(FXT_BUF_RETIRED, &buf->flags))
			fxt_buffer_snapshot(buf);
		raw_spin_unlock(&s->tasks_lock);
	}
	fxt_packet_queue(s, FXTRACE_PKT_STOPPED, 0, 0, dropped, false);
}

/* End the session for everybody; memory goes when the last mapping does. */
static void fxt_session_teardown(struct fxt_session *s)
{
	u32 categories_size = fxt_page->categories_size;
	struct fxt_buffer *buf, *tmp;
	int cpu;

	WRITE_ONCE(s->last_controller, s->controller);
	/* [terminated]: the controller reads on as last_controller. */
	smp_store_release(&s->terminated, true);
	s->state = FXTRACE_STATE_NONE;
	fxt_session = NULL;
	WRITE_ONCE(fxt_page->state, FXTRACE_STATE_NONE);
	WRITE_ONCE(fxt_page->flags, 0);
	WRITE_ONCE(fxt_page->categories_count, 0);
	WRITE_ONCE(fxt_page->categories_size, 0);
	fxt_page_publish();
	/*
	 * The list goes with the session: the world-readable page must not
	 * show an ended session's categories, under a shorter list of the
	 * next one either.
	 */
	memset(fxt_page_area + FXT_CATEGORIES_OFFSET, 0, categories_size);

	fxt_events_unregister(s);
	fxt_task_probe_unregister(s);
	cancel_delayed_work_sync(&s->clock_work);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(s->wake, cpu)->work);
	wake_up_all(&s->wq);

	raw_spin_lock(&s->tasks_lock);
	list_for_each_entry(buf, &s->buffers, node) {
		if (buf->task) {
			hash_del(&buf->task_node);
			buf->task = NULL;
		}
	}
	raw_spin_unlock(&s->tasks_lock);
	list_for_each_entry_safe(buf, tmp, &s->buffers, node)
		fxt_buffer_unlist(buf);

	/*
	 * The controller's file keeps its reference until it is closed, and
	 * reads the packets left until then; an orphan's are read by nobody.
	 */
	if (!s->last_controller)
		fxt_packets_free(s);
	WRITE_ONCE(s->controller, NULL);
	fxt_session_put(s);
}

static int fxt_config_check(const struct fxtrace_config *cfg)
{
	if (cfg->mode >= __FXTRACE_MODE_COUNT || cfg->__reserved)
		return -EINVAL;
	if (!PAGE_ALIGNED(cfg->cpu_buffer_size) ||
	    cfg->cpu_buffer_size < FXTRACE_BUFFER_SIZE_MIN ||
	    cfg->cpu_buffer_size > FXTRACE_BUFFER_SIZE_MAX)
		return -EINVAL;
	if (!PAGE_ALIGNED(cfg->task_buffer_size) ||
	    cfg->task_buffer_size < FXTRACE_BUFFER_SIZE_MIN ||
	    cfg->task_buffer_size > FXTRACE_BUFFER_SIZE_MAX)
		return -EINVAL;
	if (cfg->max_task_buffers > FXTRACE_TASK_BUFFERS_MAX)
		return -EINVAL;
	if (cfg->memory_limit > (u64)memory_max_mb << 20)
		return -EINVAL;
	return 0;
}

static void fxt_wake_work(struct irq_work *work)
{
	struct fxt_wake *wake = container_of(work, struct fxt_wake, work);

	wake_up_interruptible(&wake->session->wq);
}

static struct fxt_session *fxt_session_alloc(const struct fxtrace_config *cfg)
{
	struct fxt_session *s;
	int cpu;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	kref_init(&s->ref);
	/*
	 * Control follows the euid, as signals and files do; the charges
	 * follow fxt_cred_owner().  The initializer's own work is traced by
	 * the identity its work is charged to: a set-user-ID program's real
	 * uid, else its own threads would share with the untraced users.
	 */
	s->owner = current_euid();
	s->traced_owner = fxt_current_owner();
	s->mode = cfg->mode;
	s->cpu_buffer_size = cfg->cpu_buffer_size;
	s->task_buffer_size = cfg->task_buffer_size;
	s->memory_limit = cfg->memory_limit ?: (u64)memory_max_mb << 20;
	s->max_task_buffers = cfg->max_task_buffers ?: FXT_DEFAULT_TASK_BUFFERS;
	INIT_LIST_HEAD(&s->buffers);
	xa_init(&s->bufs);
	raw_spin_lock_init(&s->tasks_lock);
	spin_lock_init(&s->acct_lock);
	hash_init(s->tasks);
	raw_spin_lock_init(&s->pkt_lock);
	raw_spin_lock_init(&s->names_lock);
	mutex_init(&s->read_lock);
	init_waitqueue_head(&s->wq);
	INIT_DELAYED_WORK(&s->clock_work, fxt_clock_work);

	s->cpu_buffers = kcalloc(nr_cpu_ids, sizeof(*s->cpu_buffers),
				 GFP_KERNEL);
	s->wake = alloc_percpu(struct fxt_wake);
	if (!s->cpu_buffers || !s->wake ||
	    fxt_packets_init(s, 3 * (num_possible_cpus() + s->max_task_buffers) + 64)) {
		fxt_session_free(&s->ref);
		return NULL;
	}
	for_each_possible_cpu(cpu) {
		struct fxt_wake *wake = per_cpu_ptr(s->wake, cpu);

		wake->work = IRQ_WORK_INIT_LAZY(fxt_wake_work);
		wake->session = s;
	}
	return s;
}

/* Allocate and name one buffer per possible CPU. */
static int fxt_cpu_buffers_alloc(struct fxt_session *s)
{
	u64 durable = fxtrace_durable_size(s->cpu_buffer_size);
	char name[16];
	int cpu;

	for_each_possible_cpu(cpu) {
		struct fxt_buffer *buf;

		buf = fxt_buffer_alloc(s, FXTRACE_BUFFER_CPU,
				       s->cpu_buffer_size, durable, NULL);
		if (IS_ERR(buf))
			return PTR_ERR(buf);
		buf->hdr->cpu = cpu;
		snprintf(name, sizeof(name), "cpu%d", cpu);
		fxt_buffer_write_prefix(buf, name);
		fxt_events_write_prefix(buf, cpu);
		s->cpu_buffers[cpu] = buf;
	}
	return 0;
}

long fxt_ioctl_init(struct file *file, void __user *argp)
{
	struct fxtrace_config cfg;
	struct fxt_session *s;
	struct fxt_buffer *buf;
	char *cats;
	u64 cpu_bytes;
	struct pid *filter_pid = NULL;
	int clk, count, ret;
	u32 size;

	if (!perfmon_capable())
		return -EPERM;
	ret = fxt_get_sized(&cfg, sizeof(cfg), FXTRACE_CONFIG_SIZE_V0, argp,
			    &size);
	if (ret)
		return ret;
	ret = fxt_config_check(&cfg);
	if (ret)
		return ret;
	count = fxt_categories_get(cfg.categories, cfg.categories_size, &cats);
	if (count < 0)
		return count;
	if (cfg.filter_pid) {
		/*
		 * Counted: a recycled number is another process.  Threads
		 * match by their process's id (fxt_traced()), so another
		 * thread's id would trace nothing: it names no process.
		 */
		rcu_read_lock();
		filter_pid = find_vpid(cfg.filter_pid);
		if (filter_pid && pid_has_task(filter_pid, PIDTYPE_TGID))
			get_pid(filter_pid);
		else
			filter_pid = NULL;
		rcu_read_unlock();
		if (!filter_pid) {
			ret = -ESRCH;
			goto out_free_cats;
		}
	}
	clk = fxt_clock_choose();
	if (clk < 0) {
		ret = clk;
		goto out_free_cats;
	}
	ret = fxt_events_lookup();
	if (ret)
		goto out_free_cats;

	mutex_lock(&fxt_lock);
	if (fxt_session || file->private_data) {
		ret = -EBUSY;
		goto out_unlock;
	}
	cpu_bytes = num_possible_cpus() *
		    (2 * FXTRACE_BUFFER_PAGE_SIZE + cfg.cpu_buffer_size);
	if (cfg.memory_limit && cpu_bytes > cfg.memory_limit) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	s = fxt_session_alloc(&cfg);
	if (!s) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	if (cpu_bytes > s->memory_limit) {
		ret = -ENOSPC;
		goto out_put;
	}
	s->task_memory = s->memory_limit - cpu_bytes;
	s->filter_pid = filter_pid;
	filter_pid = NULL;

	fxt_page->clock = clk;
	fxt_clock_is_tsc = clk == FXTRACE_CLOCK_TSC;
	fxt_page->clock_flags = 0;
	fxt_page->ticks_per_second = clk == FXTRACE_CLOCK_TSC ?
				     (u64)tsc_khz * 1000 : NSEC_PER_SEC;
	fxt_clock_refresh();

	ret = fxt_cpu_buffers_alloc(s);
	if (ret)
		goto out_put;
	ret = fxt_task_probe_register(s);
	if (ret)
		goto out_put;

	s->state = FXTRACE_STATE_INITIALIZED;
	fxt_session = s;
	fxt_become_controller(s, file);
	fxt_page->session_id = ++fxt_next_session_id;
	fxt_page->mode = cfg.mode;
	fxt_page->start_seq = 0;
	fxt_page->disposition = 0;
	fxt_page->categories_count = 0;
	fxt_page->categories_size = 0;
	fxt_categories_add(cats, cfg.categories_size, count);
	WRITE_ONCE(fxt_page->state, FXTRACE_STATE_INITIALIZED);
	fxt_page_publish();
	schedule_delayed_work(&s->clock_work, HZ);

	list_for_each_entry(buf, &s->buffers, node)
		fxt_packet_queue(s, FXTRACE_PKT_BUFFER_ADDED, buf->kind,
				 buf->id, 0, false);
	mutex_unlock(&fxt_lock);
	kfree(cats);
	return 0;

out_put:
	/* Not published: nobody else can hold a reference yet. */
	fxt_session = s;
	fxt_session_teardown(s);
out_unlock:
	mutex_unlock(&fxt_lock);
out_free_cats:
	put_pid(filter_pid);
	kfree(cats);
	return ret;
}

long fxt_ioctl_start(struct file *file, void __user *argp)
{
	struct fxtrace_start st;
	struct fxt_session *s;
	struct fxt_buffer *buf;
	char *cats;
	int count, ret;
	u32 size;

	ret = fxt_get_sized(&st, sizeof(st), FXTRACE_START_SIZE_V0, argp,
			    &size);
	if (ret)
		return ret;
	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	mutex_unlock(&fxt_lock);
	if (!s)
		return -EPERM;
	if (st.disposition >= __FXTRACE_START_COUNT || st.__reserved)
		return -EINVAL;
	count = fxt_categories_get(st.categories, st.categories_size, &cats);
	if (count < 0)
		return count;

	mutex_lock(&fxt_lock);
	if (fxt_controlled(file) != s) {
		ret = -EPERM;
		goto out;
	}
	if (s->state != FXTRACE_STATE_INITIALIZED &&
	    s->state != FXTRACE_STATE_STOPPED) {
		ret = -EINVAL;
		goto out;
	}
	if (fxt_page->categories_count + count > FXTRACE_CATEGORIES_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	/* The one step that can fail comes first: then nothing changed. */
	ret = fxt_write_kernel_names(s, s->start_seq + 1);
	if (ret)
		goto out;
	fxt_categories_add(cats, st.categories_size, count);
	s->start_seq++;
	list_for_each_entry(buf, &s->buffers, node) {
		if (buf->kind == FXTRACE_BUFFER_CPU)
			fxt_buffer_clear(buf, st.disposition);
	}

	s->state = FXTRACE_STATE_STARTED;
	WRITE_ONCE(fxt_page->start_seq, s->start_seq);
	WRITE_ONCE(fxt_page->disposition, st.disposition);
	WRITE_ONCE(fxt_page->state, FXTRACE_STATE_STARTED);
	fxt_page_publish();
	ret = fxt_events_register(s);
	if (ret) {
		fxt_session_stop(s);
		goto out;
	}
	fxt_packet_queue(s, FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION,
			 s->start_seq, false);
out:
	mutex_unlock(&fxt_lock);
	kfree(cats);
	return ret;
}

long fxt_ioctl_stop(struct file *file)
{
	struct fxt_session *s;
	int ret = 0;

	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	if (!s)
		ret = -EPERM;
	else if (s->state != FXTRACE_STATE_STARTED)
		ret = -EINVAL;
	else
		fxt_session_stop(s);
	mutex_unlock(&fxt_lock);
	return ret;
}

/*
 * Pause: every writer drops and counts its records until Resume, so that
 * the controller can copy a circular session's buffers without them
 * moving under it.  The kernel's probes run with preemption off: after
 * synchronize_rcu() none is mid-record; a producer finishes at most the
 * record it is writing.
 */
long fxt_ioctl_pause(struct file *file, bool pause)
{
	struct fxt_session *s;
	int ret = 0;

	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	if (!s) {
		ret = -EPERM;
	} else if (s->state != FXTRACE_STATE_STARTED || s->paused == pause) {
		ret = -EINVAL;
	} else {
		fxt_set_paused(s, pause);
		fxt_page_publish();
		if (pause)
			synchronize_rcu();
	}
	mutex_unlock(&fxt_lock);
	return ret;
}

long fxt_ioctl_terminate(struct file *file)
{
	struct fxt_session *s;
	int ret = 0;

	mutex_lock(&fxt_lock);
	s = fxt_controlled(file);
	if (s)
		fxt_session_teardown(s);
	else
		ret = -EPERM;
	mutex_unlock(&fxt_lock);
	return ret;
}

/*
 * An adopted orphan's buffers take the adopter's data from now on: the
 * READER and HEADER mappings of the file that orphaned it (and its
 * children's copies of them) must not read it.  Only a controller maps
 * READER parts, and the headers of buffers its process does not own,
 * through its own file, so they all are in that file's own address_space
 * (fxt_open()); zapped, they fault (SIGBUS: no ->fault refills them).  A
 * task buffer's owner may have mapped its header through the same file:
 * zapped too, its mapping maps the page again at the next access
 * (fxt_header_vm_fault()).  The file is alive while a mapping holds it,
 * and fxt_controller_release() forgets it (fxt_lock held).
 */
static void fxt_revoke_former_readers(struct fxt_session *s)
{
	struct file *file = s->former_controller;
	struct fxt_buffer *buf;

	if (!file)
		return;
	list_for_each_entry(buf, &s->buffers, node) {
		unmap_mapping_range(file->f_mapping,
				    FXTRACE_MMAP_OFFSET(buf->id,
							FXTRACE_MMAP_READER),
				    buf->area_size, 1);
		unmap_mapping_range(file->f_mapping,
				    FXTRACE_MMAP_OFFSET(buf->id,
							FXTRACE_MMAP_HEADER),
				    FXTRACE_BUFFER_PAGE_SIZE, 1);
	}
	s->former_controller = NULL;
}

long fxt_ioctl_adopt(struct file *file)
{
	struct mm_struct *waited = NULL;
	struct fxt_session *s;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
again:
	ret = 0;
	mutex_lock(&fxt_lock);
	s = fxt_session;
	if (!s)
		ret = -ENOENT;
	else if (s->controller || file->private_data)
		ret = -EBUSY;
	else if (!uid_eq(current_euid(), s->owner) && !capable(CAP_SYS_ADMIN))
		ret = -EPERM;
	/*
	 * A READER or HEADER mmap() of the former controller that passed its
	 * check before the orphaning may still be inserting its pages, its
	 * VMA not yet in the file's address_space, where the revocation looks.
	 * It holds its mm's mmap_lock (the former controller's, the only one
	 * the check accepts) until the VMA is linked: wait for that, without
	 * fxt_lock, which fxt_mmap() takes under mmap_lock.  No later mmap()
	 * passes the check, since the session has no controller.
	 */
	if (!ret && s->former_controller && s->controller_mm != waited) {
		if (waited)
			mmdrop(waited);
		waited = s->controller_mm;
		mmgrab(waited);
		mutex_unlock(&fxt_lock);
		if (mmap_read_lock_killable(waited)) {
			mmdrop(waited);
			return -EINTR;
		}
		mmap_read_unlock(waited);
		goto again;
	}
	if (!ret) {
		fxt_revoke_former_readers(s);
		fxt_become_controller(s, file);
	}
	mutex_unlock(&fxt_lock);
	if (waited)
		mmdrop(waited);
	return ret;
}

long fxt_ioctl_session_info(void __user *argp)
{
	struct fxtrace_session_info info;
	struct fxt_session *s;
	u32 size;
	int ret, cpu;

	ret = fxt_get_sized(&info, sizeof(info), FXTRACE_SESSION_INFO_SIZE_V0,
			    argp, &size);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	info.size = size;

	mutex_lock(&fxt_lock);
	s = fxt_session;
	if (s) {
		info.state = s->state;
		info.flags = s->controller ? 0 : FXTRACE_SESSION_ORPHANED;
		info.mode = s->mode;
		info.owner_uid = from_kuid_munged(current_user_ns(), s->owner);
		spin_lock(&s->acct_lock);
		info.memory_used = s->memory_used;
		spin_unlock(&s->acct_lock);
		info.memory_limit = s->memory_limit;
		info.nr_buffers = s->nr_buffers;
		/* Kernel writers: CPU buffers and KERNEL buffers not released. */
		info.dropped_records = s->names_dropped;
		if (s->names)
			info.dropped_records +=
				READ_ONCE(s->names->hdr->dropped_records);
		for_each_possible_cpu(cpu) {
			struct fxt_buffer *buf = s->cpu_buffers[cpu];

			if (buf)
				info.dropped_records +=
					READ_ONCE(buf->hdr->dropped_records);
		}
		raw_spin_lock_irq(&s->pkt_lock);
		info.lost_packets = s->lost_packets;
		raw_spin_unlock_irq(&s->pkt_lock);
	}
	mutex_unlock(&fxt_lock);

	if (copy_to_user(argp, &info, min_t(size_t, size, sizeof(info))))
		return -EFAULT;
	return 0;
}

/* No controller any more: stop the session if it runs (fxt_lock held). */
static void fxt_session_orphan(struct fxt_session *s)
{
	if (s->state == FXTRACE_STATE_STARTED)
		fxt_session_stop(s);
	/*
	 * Under tasks_lock, which fxt_packet_ack() holds from its role check
	 * to its store: an acknowledgment in flight is applied before the
	 * session is orphaned, so before anyone can adopt it, or refused.
	 */
	s->former_controller = s->controller;
	raw_spin_lock(&s->tasks_lock);
	WRITE_ONCE(s->controller, NULL);
	raw_spin_unlock(&s->tasks_lock);
	/*
	 * A thread of the process waiting in read() (its file outlives the
	 * close) leaves with EPERM: the packets are the next controller's.
	 */
	wake_up_interruptible(&s->wq);
}

/*
 * A file that controlled a session is closing: if the session still runs,
 * stop it and leave it orphaned.
 */
void fxt_controller_release(struct file *file)
{
	struct fxt_session *s;

	mutex_lock(&fxt_lock);
	s = file->private_data;
	if (s) {
		if (s->controller == file)
			fxt_session_orphan(s);
		else if (s->terminated && s->last_controller == file)
			fxt_packets_free(s);
		/* Released: none of its mappings is left to revoke. */
		if (s->former_controller == file)
			s->former_controller = NULL;
		file->private_data = NULL;
		fxt_session_put(s);
	}
	mutex_unlock(&fxt_lock);
}

static int fxt_fd_is(const void *file, struct file *f, unsigned int fd)
{
	return f == file;
}

/*
 * A descriptor of the file is closed.  When the controlling process has no
 * descriptor of it left (it closed the last, exec'd or exited), the session
 * is orphaned then, whoever else still holds the file: a forked child or a
 * mapping of the session page keeps the file open but has no control.
 */
void fxt_controller_flush(struct file *file)
{
	struct files_struct *files = current->files;
	struct fxt_session *s;
	bool gone;

	if (!READ_ONCE(file->private_data))
		return;
	mutex_lock(&fxt_lock);
	s = file->private_data;
	/*
	 * The controlling process in any image: exit_mm() came before, and
	 * a program it exec'd closing the file it kept orphans the session.
	 */
	if (s && s->controller == file &&
	    s->controller_tgid == task_tgid(current)) {
		/* At exit, files is gone once the last thread closes them. */
		if (files)
			gone = !iterate_fd(files, 0, fxt_fd_is, file);
		else
			gone = !atomic_read(&current->signal->live);
		if (gone)
			fxt_session_orphan(s);
	}
	mutex_unlock(&fxt_lock);
}

/* rmmod: nothing is open or mapped, so only an orphan can be left. */
void fxt_session_destroy_orphan(void)
{
	mutex_lock(&fxt_lock);
	if (fxt_session)
		fxt_session_teardown(fxt_session);
	mutex_unlock(&fxt_lock);
}
