// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events: tracepoint probes that write FXT records into the per-CPU
 * buffers, in four categories the controller enables like any other:
 *
 *   kernel:sched    sched_switch as context-switch records, sched_waking
 *                   and sched_wakeup_new as wakeups naming the waker
 *   kernel:task     fork, exec, rename and exit as kernel-object records
 *                   (names), exit also as an instant event
 *   kernel:irq      hardirqs (irq_handler_* and the x86 irq_vectors) and
 *                   softirqs as durations on the CPU's own track
 *   kernel:syscall  raw syscalls as durations on the calling thread
 *
 * Probes run with preemption off (some with IRQs off, sched_switch under
 * the runqueue lock): they only reserve, fill and commit a record in this
 * CPU's buffer (fxt_kbuf_reserve() keeps IRQs off in between, so records
 * stay in time order), and wake nobody directly.  Probes are registered at
 * Start for the enabled categories and unregistered at Stop.
 */
#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include <asm/trace/irq_vectors.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>

#include <linux/fxt.h>

#include "fxtrace.h"
#include "syscall_names.h"

/* The CPU tracks: a synthetic process, one synthetic thread per CPU. */
#define FXT_CPU_PROCESS_KOID	0xefffffffULL
#define FXT_CPU_THREAD_KOID	0xf0000000ULL

/* Strings every CPU buffer defines in its durable prefix. */
enum fxt_kstr {
	FXT_KSTR_INCOMING_WEIGHT = 1,
	FXT_KSTR_OUTGOING_WEIGHT,
	FXT_KSTR_WEIGHT,
	FXT_KSTR_WAKER,
	FXT_KSTR_CAT_TASK,
	FXT_KSTR_CAT_IRQ,
	FXT_KSTR_CAT_SYSCALL,
	FXT_KSTR_IRQ,
	FXT_KSTR_VECTOR,
	FXT_KSTR_NR,
	FXT_KSTR_RET,
	FXT_KSTR_EXIT,
	FXT_KSTR_SYSCALL,
	FXT_KSTR_LOCAL_TIMER,
	FXT_KSTR_RESCHEDULE,
	FXT_KSTR_CALL_FUNCTION,
	FXT_KSTR_CALL_FUNCTION_SINGLE,
	FXT_KSTR_IRQ_WORK,
	FXT_KSTR_SOFTIRQ,		/* NR_SOFTIRQS names from here */
	FXT_KSTR_COUNT = FXT_KSTR_SOFTIRQ + NR_SOFTIRQS,
};

static const char *const fxt_kstrs[FXT_KSTR_COUNT] = {
	[FXT_KSTR_INCOMING_WEIGHT] = "incoming_weight",
	[FXT_KSTR_OUTGOING_WEIGHT] = "outgoing_weight",
	[FXT_KSTR_WEIGHT] = "weight",
	[FXT_KSTR_WAKER] = "waker",
	[FXT_KSTR_CAT_TASK] = "kernel:task",
	[FXT_KSTR_CAT_IRQ] = "kernel:irq",
	[FXT_KSTR_CAT_SYSCALL] = "kernel:syscall",
	[FXT_KSTR_IRQ] = "irq",
	[FXT_KSTR_VECTOR] = "vector",
	[FXT_KSTR_NR] = "nr",
	[FXT_KSTR_RET] = "ret",
	[FXT_KSTR_EXIT] = "exit",
	[FXT_KSTR_SYSCALL] = "syscall",
	[FXT_KSTR_LOCAL_TIMER] = "local_timer",
	[FXT_KSTR_RESCHEDULE] = "reschedule",
	[FXT_KSTR_CALL_FUNCTION] = "call_function",
	[FXT_KSTR_CALL_FUNCTION_SINGLE] = "call_function_single",
	[FXT_KSTR_IRQ_WORK] = "irq_work",
	/* softirq_to_name[] is not exported. */
	[FXT_KSTR_SOFTIRQ + HI_SOFTIRQ] = "HI",
	[FXT_KSTR_SOFTIRQ + TIMER_SOFTIRQ] = "TIMER",
	[FXT_KSTR_SOFTIRQ + NET_TX_SOFTIRQ] = "NET_TX",
	[FXT_KSTR_SOFTIRQ + NET_RX_SOFTIRQ] = "NET_RX",
	[FXT_KSTR_SOFTIRQ + BLOCK_SOFTIRQ] = "BLOCK",
	[FXT_KSTR_SOFTIRQ + IRQ_POLL_SOFTIRQ] = "IRQ_POLL",
	[FXT_KSTR_SOFTIRQ + TASKLET_SOFTIRQ] = "TASKLET",
	[FXT_KSTR_SOFTIRQ + SCHED_SOFTIRQ] = "SCHED",
	[FXT_KSTR_SOFTIRQ + HRTIMER_SOFTIRQ] = "HRTIMER",
	[FXT_KSTR_SOFTIRQ + RCU_SOFTIRQ] = "RCU",
};

/* The categories, in the order of fxt_kcat_names. */
enum fxt_kcat {
	FXT_KCAT_SCHED,
	FXT_KCAT_TASK,
	FXT_KCAT_IRQ,
	FXT_KCAT_SYSCALL,
	FXT_KCAT_COUNT,
};

static const char *const fxt_kcat_names[FXT_KCAT_COUNT] = {
	[FXT_KCAT_SCHED] = "kernel:sched",
	[FXT_KCAT_TASK] = "kernel:task",
	[FXT_KCAT_IRQ] = "kernel:irq",
	[FXT_KCAT_SYSCALL] = "kernel:syscall",
};

/* ---- writing records ---------------------------------------------------- */

static u64 fxt_kclock(void)
{
	return fxt_clock_is_tsc ? rdtsc_ordered() : ktime_get_mono_fast_ns();
}

/* The buffer of this CPU; probes run with preemption off. */
static struct fxt_buffer *fxt_this_buffer(struct fxt_session *s)
{
	return s->cpu_buffers[smp_processor_id()];
}

/* An event name: an interned index, or an inline string. */
struct fxt_kname {
	u16 ref;
	const char *str;
};

static struct fxt_kname fxt_kname_index(u16 index)
{
	return (struct fxt_kname){ .ref = index };
}

static struct fxt_kname fxt_kname_inline(const char *s)
{
	return (struct fxt_kname){
		.ref = fxt_inline_string_ref(strnlen(s, 32)),
		.str = s,
	};
}

/* An argument with an interned name: int32 fits the header, others not. */
struct fxt_karg {
	u16 name;
	u16 type;		/* FXT_ARG_INT32, FXT_ARG_INT64 or FXT_ARG_KOID */
	u64 value;
};

static u32 fxt_karg_words(const struct fxt_karg *arg)
{
	return fxt_arg_words(arg->name, arg->type == FXT_ARG_INT32 ? 0 : 1);
}

static u32 fxt_karg_write(u64 *dst, const struct fxt_karg *arg)
{
	if (arg->type == FXT_ARG_INT32)
		return fxt_write_arg32(dst, arg->type, arg->name, NULL,
				       (u32)arg->value);
	return fxt_write_arg64(dst, arg->type, arg->name, NULL, arg->value);
}

static u32 fxt_kargs_words(const struct fxt_karg *args, unsigned int nargs)
{
	u32 words = 0;
	unsigned int i;

	for (i = 0; i < nargs; i++)
		words += fxt_karg_words(&args[i]);
	return words;
}

static u32 fxt_kargs_write(u64 *dst, const struct fxt_karg *args,
			   unsigned int nargs)
{
	u32 n = 0;
	unsigned int i;

	for (i = 0; i < nargs; i++)
		n += fxt_karg_write(dst + n, &args[i]);
	return n;
}

/* An event record on the thread (pid, tid), with up to two arguments. */
static void fxt_kevent(struct fxt_session *s, unsigned int type, u64 pid,
		       u64 tid, u16 category, struct fxt_kname name,
		       const struct fxt_karg *args, unsigned int nargs)
{
	struct fxt_buffer *buf = fxt_this_buffer(s);
	unsigned long irqflags;
	u32 words, n;
	u64 *dst;

	words = fxt_event_words(type, FXT_THREAD_REF_INLINE, category,
				name.ref, fxt_kargs_words(args, nargs));
	dst = fxt_kbuf_reserve(buf, words, false, &irqflags);
	if (!dst)
		return;
	dst[0] = fxt_event_hdr(words, type, nargs, FXT_THREAD_REF_INLINE,
			       category, name.ref);
	dst[1] = fxt_kclock();
	dst[2] = pid;
	dst[3] = tid;
	n = 4 + fxt_write_string_ref(dst + 4, name.ref, name.str);
	fxt_kargs_write(dst + n, args, nargs);
	fxt_kbuf_commit(buf, false, irqflags);
}

/*
 * The controller's pid filter: a counted struct pid, so a process that gets
 * the number later is not the one given.
 */
static bool fxt_traced(struct fxt_session *s, struct task_struct *t)
{
	return !s->filter_pid || task_tgid(t) == s->filter_pid;
}

/*
 * The kernel-object records naming thread t and, for a group leader, its
 * process, in the session's names buffer (not this CPU's: a thread's names
 * must stay in order), as one write.  With a pid filter only the traced
 * process's tasks are named: anyone's renames and forks would otherwise
 * fill the room that the traced process's names need.
 */
static void fxt_kname_thread(struct fxt_session *s, struct task_struct *t,
			     const char *comm)
{
	u64 words[2 * (2 + TASK_COMM_LEN / 8 + 4)];
	char name[TASK_COMM_LEN];
	u32 n, len;

	if (!fxt_traced(s, t))
		return;
	/*
	 * No task_lock() in a probe: a racy copy, as the tracepoints do, that
	 * stops at the NUL (task_rename's comm may be a shorter string).
	 */
	strscpy(name, comm, sizeof(name));
	len = strlen(name);
	n = fxt_write_kobj_name(words, FXT_KOBJ_THREAD, task_pid_nr(t), name,
				len, task_tgid_nr(t));
	if (thread_group_leader(t))
		n += fxt_write_kobj_name(words + n, FXT_KOBJ_PROCESS,
					 task_tgid_nr(t), name, len, 0);
	fxt_names_write(s, words, n);
}

/*
 * The strings of fxt_kstrs and the CPU track's names, after the buffer's
 * initialization and provider records: part of its durable prefix.
 */
void fxt_events_write_prefix(struct fxt_buffer *buf, unsigned int cpu)
{
	char name[16];
	u64 words[64];
	u32 i, n, len;

	for (i = 1; i < FXT_KSTR_COUNT; i++) {
		len = strlen(fxt_kstrs[i]);
		n = fxt_write_string(words, i, fxt_kstrs[i], len);
		fxt_kbuf_write(buf, words, n, true);
	}
	n = fxt_write_kobj_name(words, FXT_KOBJ_PROCESS, FXT_CPU_PROCESS_KOID,
				"CPUs", 4, 0);
	snprintf(name, sizeof(name), "CPU %u", cpu);
	n += fxt_write_kobj_name(words + n, FXT_KOBJ_THREAD,
				 FXT_CPU_THREAD_KOID + cpu, name, strlen(name),
				 FXT_CPU_PROCESS_KOID);
	fxt_kbuf_write(buf, words, n, true);
	buf->hdr->durable_reserved = buf->durable_pos;
}

/* ---- kernel:sched -------------------------------------------------------- */

static s32 fxt_weight(struct task_struct *t)
{
	/* Perfetto takes INT32_MIN for idle, anything else as a priority. */
	return is_idle_task(t) ? FXT_SCHED_WEIGHT_IDLE : t->prio;
}

/*
 * The state a thread leaves the CPU in, as ftrace's sched_switch prev_state
 * gives it (__task_state_index(), the kernel's own reduction: idle and
 * frozen and RT-lock waits folded in), then in FXT's terms: R running;
 * S, D and I blocked; T, t and P (parked kthreads) suspended; X and Z dead.
 */
static unsigned int fxt_out_state(bool preempt, unsigned int prev_state,
				  struct task_struct *prev)
{
	static const u8 fxt_states[] = {
		FXT_THREAD_STATE_RUNNING,	/* R */
		FXT_THREAD_STATE_BLOCKED,	/* S */
		FXT_THREAD_STATE_BLOCKED,	/* D */
		FXT_THREAD_STATE_SUSPENDED,	/* T */
		FXT_THREAD_STATE_SUSPENDED,	/* t */
		FXT_THREAD_STATE_DEAD,		/* X */
		FXT_THREAD_STATE_DEAD,		/* Z */
		FXT_THREAD_STATE_SUSPENDED,	/* P */
		FXT_THREAD_STATE_BLOCKED,	/* I */
	};
	unsigned int index;

	if (preempt)
		return FXT_THREAD_STATE_RUNNING;
	index = __task_state_index(prev_state, prev->exit_state);
	return index < ARRAY_SIZE(fxt_states) ? fxt_states[index] :
						FXT_THREAD_STATE_RUNNING;
}

static void fxt_probe_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	const struct fxt_karg args[] = {
		{ FXT_KSTR_INCOMING_WEIGHT, FXT_ARG_INT32, (u32)fxt_weight(next) },
		{ FXT_KSTR_OUTGOING_WEIGHT, FXT_ARG_INT32, (u32)fxt_weight(prev) },
	};
	struct fxt_buffer *buf = fxt_this_buffer(data);
	unsigned long irqflags;
	u32 words, n;
	u64 *dst;

	/* With a pid filter: the switches into and out of its threads. */
	if (!fxt_traced(data, prev) && !fxt_traced(data, next))
		return;
	words = fxt_context_switch_words(fxt_kargs_words(args,
							 ARRAY_SIZE(args)));
	dst = fxt_kbuf_reserve(buf, words, false, &irqflags);
	if (!dst)
		return;
	n = fxt_write_context_switch(dst, words, ARRAY_SIZE(args),
				     smp_processor_id(),
				     fxt_out_state(preempt, prev_state, prev),
				     fxt_kclock(), task_pid_nr(prev),
				     task_pid_nr(next));
	fxt_kargs_write(dst + n, args, ARRAY_SIZE(args));
	fxt_kbuf_commit(buf, false, irqflags);
}

/* A wakeup record on this CPU, naming the waker (current). */
static void fxt_kwakeup(struct fxt_session *s, struct task_struct *p)
{
	const struct fxt_karg args[] = {
		{ FXT_KSTR_WEIGHT, FXT_ARG_INT32, (u32)fxt_weight(p) },
		{ FXT_KSTR_WAKER, FXT_ARG_KOID, task_pid_nr(current) },
	};
	struct fxt_buffer *buf = fxt_this_buffer(s);
	unsigned long irqflags;
	u32 words, n;
	u64 *dst;

	/* With a pid filter: wakeups of its threads or by them. */
	if (!fxt_traced(s, p) && !fxt_traced(s, current))
		return;
	words = fxt_wakeup_words(fxt_kargs_words(args, ARRAY_SIZE(args)));
	dst = fxt_kbuf_reserve(buf, words, false, &irqflags);
	if (!dst)
		return;
	n = fxt_write_wakeup(dst, words, ARRAY_SIZE(args), smp_processor_id(),
			     fxt_kclock(), task_pid_nr(p));
	fxt_kargs_write(dst + n, args, ARRAY_SIZE(args));
	fxt_kbuf_commit(buf, false, irqflags);
}

/* sched_waking runs in the waker; sched_wakeup may run on the target. */
static void fxt_probe_sched_waking(void *data, struct task_struct *p)
{
	fxt_kwakeup(data, p);
}

static void fxt_probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	fxt_kwakeup(data, p);
}

/* ---- kernel:task --------------------------------------------------------- */

static void fxt_probe_process_fork(void *data, struct task_struct *parent,
				   struct task_struct *child)
{
	fxt_kname_thread(data, child, child->comm);
}

static void fxt_probe_process_exec(void *data, struct task_struct *p,
				   pid_t old_pid, struct linux_binprm *bprm)
{
	fxt_kname_thread(data, p, p->comm);
}

static void fxt_probe_task_rename(void *data, struct task_struct *task,
				  const char *comm)
{
	/*
	 * Under task_lock(task), before comm is copied in; task may not be
	 * current.  A name set again changes nothing: compared as it will be
	 * kept, cut to TASK_COMM_LEN - 1 bytes (exec passes it whole).
	 */
	if (strncmp(task->comm, comm, TASK_COMM_LEN - 1))
		fxt_kname_thread(data, task, comm);
}

static void fxt_probe_task_exit(void *data, struct task_struct *p)
{
	if (fxt_traced(data, p))
		fxt_kevent(data, FXT_EVENT_INSTANT, task_tgid_nr(p),
			   task_pid_nr(p), FXT_KSTR_CAT_TASK,
			   fxt_kname_index(FXT_KSTR_EXIT), NULL, 0);
}

/* ---- kernel:irq ---------------------------------------------------------- */

static void fxt_kirq(struct fxt_session *s, unsigned int type,
		     struct fxt_kname name, const struct fxt_karg *arg)
{
	unsigned int cpu = smp_processor_id();

	/*
	 * With a pid filter: interrupts of its threads.  An entry and its exit
	 * interrupt the same task, so durations stay balanced.
	 */
	if (!fxt_traced(s, current))
		return;
	fxt_kevent(s, type, FXT_CPU_PROCESS_KOID, FXT_CPU_THREAD_KOID + cpu,
		   FXT_KSTR_CAT_IRQ, name, arg, arg ? 1 : 0);
}

static void fxt_probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct fxt_karg arg = { FXT_KSTR_IRQ, FXT_ARG_INT32, irq };

	fxt_kirq(data, FXT_EVENT_DURATION_BEGIN,
		 fxt_kname_inline(action->name ?: "irq"), &arg);
}

static void fxt_probe_irq_exit(void *data, int irq, struct irqaction *action,
			       int ret)
{
	fxt_kirq(data, FXT_EVENT_DURATION_END,
		 fxt_kname_inline(action->name ?: "irq"), NULL);
}

static struct fxt_kname fxt_softirq_name(unsigned int vec)
{
	if (vec >= NR_SOFTIRQS)
		return fxt_kname_inline("softirq");
	return fxt_kname_index(FXT_KSTR_SOFTIRQ + vec);
}

static void fxt_probe_softirq_entry(void *data, unsigned int vec)
{
	fxt_kirq(data, FXT_EVENT_DURATION_BEGIN, fxt_softirq_name(vec), NULL);
}

static void fxt_probe_softirq_exit(void *data, unsigned int vec)
{
	fxt_kirq(data, FXT_EVENT_DURATION_END, fxt_softirq_name(vec), NULL);
}

/* The x86 system vectors that irq_handler_* does not see. */
static struct fxt_kname fxt_vector_name(int vector)
{
	switch (vector) {
	case LOCAL_TIMER_VECTOR:
		return fxt_kname_index(FXT_KSTR_LOCAL_TIMER);
	case RESCHEDULE_VECTOR:
		return fxt_kname_index(FXT_KSTR_RESCHEDULE);
	case CALL_FUNCTION_VECTOR:
		return fxt_kname_index(FXT_KSTR_CALL_FUNCTION);
	case CALL_FUNCTION_SINGLE_VECTOR:
		return fxt_kname_index(FXT_KSTR_CALL_FUNCTION_SINGLE);
	case IRQ_WORK_VECTOR:
		return fxt_kname_index(FXT_KSTR_IRQ_WORK);
	}
	return fxt_kname_index(FXT_KSTR_IRQ);
}

static void fxt_probe_vector_entry(void *data, int vector)
{
	struct fxt_karg arg = { FXT_KSTR_VECTOR, FXT_ARG_INT32, vector };

	fxt_kirq(data, FXT_EVENT_DURATION_BEGIN, fxt_vector_name(vector), &arg);
}

static void fxt_probe_vector_exit(void *data, int vector)
{
	fxt_kirq(data, FXT_EVENT_DURATION_END, fxt_vector_name(vector), NULL);
}

/* ---- kernel:syscall ------------------------------------------------------ */

/*
 * The table holds the 64-bit numbers: a 32-bit syscall (a compat task, or
 * int $0x80 from 64-bit code) has ia32's, another syscall's there.
 */
static struct fxt_kname fxt_syscall_name(long nr)
{
	if (!in_ia32_syscall() && nr >= 0 &&
	    nr < ARRAY_SIZE(fxt_syscall_names) &&
	    fxt_syscall_names[nr])
		return fxt_kname_inline(fxt_syscall_names[nr]);
	return fxt_kname_index(FXT_KSTR_SYSCALL);
}

static void fxt_ksyscall(struct fxt_session *s, unsigned int type, long nr,
			 const struct fxt_karg *arg)
{
	/* Later kernels call these with preemption on. */
	preempt_disable_notrace();
	fxt_kevent(s, type, task_tgid_nr(current), task_pid_nr(current),
		   FXT_KSTR_CAT_SYSCALL, fxt_syscall_name(nr), arg, 1);
	preempt_enable_notrace();
}

static void fxt_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct fxt_karg arg = { FXT_KSTR_NR, FXT_ARG_INT32, id };

	if (fxt_traced(data, current))
		fxt_ksyscall(data, FXT_EVENT_DURATION_BEGIN, id, &arg);
}

static void fxt_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct fxt_karg arg = { FXT_KSTR_RET, FXT_ARG_INT64, ret };

	if (fxt_traced(data, current))
		fxt_ksyscall(data, FXT_EVENT_DURATION_END,
			     syscall_get_nr(current, regs), &arg);
}

/*
 * Whether the exiting thread is inside a syscall whose end sys_exit will
 * never report: exit or exit_group.  A thread that exits on a signal does
 * so on its way back to user space, after sys_exit closed its syscall (a
 * read() interrupted by exit_group ends with -ERESTARTSYS), or from an
 * interrupt of user code (orig_ax < 0): nothing is open then.
 */
static bool fxt_exit_in_syscall(struct task_struct *p)
{
	long nr = syscall_get_nr(p, task_pt_regs(p));

	if (in_ia32_syscall())
		return nr == 1 || nr == 252;	/* ia32 exit, exit_group */
	return nr == __NR_exit || nr == __NR_exit_group;
}

/* exit and exit_group never return: close their duration at exit. */
static void fxt_probe_syscall_exit_task(void *data, struct task_struct *p)
{
	struct fxt_karg arg = { FXT_KSTR_RET, FXT_ARG_INT64, 0 };

	if (fxt_traced(data, current) && fxt_exit_in_syscall(p))
		fxt_ksyscall(data, FXT_EVENT_DURATION_END,
			     syscall_get_nr(p, task_pt_regs(p)), &arg);
}

/* ---- registration -------------------------------------------------------- */

struct fxt_kprobe {
	const char *tp_name;
	void *func;
	enum fxt_kcat category;
	struct tracepoint *tp;
};

/* Each probe's prototype is checked against its tracepoint at build time. */
#define FXT_KPROBE(tp, fn, cat)						\
	{ #tp, fn, cat }
#define FXT_CHECK_PROBE(tp, fn)						\
	static_assert(__same_type(&register_trace_##tp,			\
				  int (*)(typeof(fn) *, void *)))

FXT_CHECK_PROBE(sched_switch, fxt_probe_sched_switch);
FXT_CHECK_PROBE(sched_waking, fxt_probe_sched_waking);
FXT_CHECK_PROBE(sched_wakeup_new, fxt_probe_sched_wakeup_new);
FXT_CHECK_PROBE(sched_process_fork, fxt_probe_process_fork);
FXT_CHECK_PROBE(sched_process_exec, fxt_probe_process_exec);
FXT_CHECK_PROBE(task_rename, fxt_probe_task_rename);
FXT_CHECK_PROBE(sched_process_exit, fxt_probe_task_exit);
FXT_CHECK_PROBE(irq_handler_entry, fxt_probe_irq_entry);
FXT_CHECK_PROBE(irq_handler_exit, fxt_probe_irq_exit);
FXT_CHECK_PROBE(softirq_entry, fxt_probe_softirq_entry);
FXT_CHECK_PROBE(softirq_exit, fxt_probe_softirq_exit);
FXT_CHECK_PROBE(local_timer_entry, fxt_probe_vector_entry);
FXT_CHECK_PROBE(local_timer_exit, fxt_probe_vector_exit);
FXT_CHECK_PROBE(sys_enter, fxt_probe_sys_enter);
FXT_CHECK_PROBE(sys_exit, fxt_probe_sys_exit);
FXT_CHECK_PROBE(sched_process_exit, fxt_probe_syscall_exit_task);

/*
 * In registration order: each exit before its entry, so that no duration
 * opens before its end can be recorded; unregistration runs backwards, so
 * none is left open at Stop.
 */
static struct fxt_kprobe fxt_kprobes[] = {
	FXT_KPROBE(sched_switch, fxt_probe_sched_switch, FXT_KCAT_SCHED),
	FXT_KPROBE(sched_waking, fxt_probe_sched_waking, FXT_KCAT_SCHED),
	FXT_KPROBE(sched_wakeup_new, fxt_probe_sched_wakeup_new,
		   FXT_KCAT_SCHED),
	FXT_KPROBE(sched_process_fork, fxt_probe_process_fork, FXT_KCAT_TASK),
	FXT_KPROBE(sched_process_exec, fxt_probe_process_exec, FXT_KCAT_TASK),
	FXT_KPROBE(task_rename, fxt_probe_task_rename, FXT_KCAT_TASK),
	FXT_KPROBE(sched_process_exit, fxt_probe_task_exit, FXT_KCAT_TASK),
	FXT_KPROBE(irq_handler_exit, fxt_probe_irq_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(irq_handler_entry, fxt_probe_irq_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(softirq_exit, fxt_probe_softirq_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(softirq_entry, fxt_probe_softirq_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(local_timer_exit, fxt_probe_vector_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(local_timer_entry, fxt_probe_vector_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(reschedule_exit, fxt_probe_vector_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(reschedule_entry, fxt_probe_vector_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(call_function_exit, fxt_probe_vector_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(call_function_entry, fxt_probe_vector_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(call_function_single_exit, fxt_probe_vector_exit,
		   FXT_KCAT_IRQ),
	FXT_KPROBE(call_function_single_entry, fxt_probe_vector_entry,
		   FXT_KCAT_IRQ),
	FXT_KPROBE(irq_work_exit, fxt_probe_vector_exit, FXT_KCAT_IRQ),
	FXT_KPROBE(irq_work_entry, fxt_probe_vector_entry, FXT_KCAT_IRQ),
	FXT_KPROBE(sched_process_exit, fxt_probe_syscall_exit_task,
		   FXT_KCAT_SYSCALL),
	FXT_KPROBE(sys_exit, fxt_probe_sys_exit, FXT_KCAT_SYSCALL),
	FXT_KPROBE(sys_enter, fxt_probe_sys_enter, FXT_KCAT_SYSCALL),
};

struct fxt_tracepoint_query {
	const char *name;
	struct tracepoint *tp;
};

static void fxt_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct fxt_tracepoint_query *q = priv;

	if (!strcmp(tp->name, q->name))
		q->tp = tp;
}

/*
 * Tracepoints are not exported as symbols: find one by name.  NULL, said in
 * the kernel log, when this kernel has none by that name.
 */
struct tracepoint *fxt_tracepoint_find(const char *name)
{
	struct fxt_tracepoint_query q = { .name = name };

	for_each_kernel_tracepoint(fxt_tracepoint_match, &q);
	if (!q.tp)
		pr_err("fxtrace: tracepoint %s not found\n", name);
	return q.tp;
}

/* Find the probes' tracepoints; a missing one fails Initialize. */
int fxt_events_lookup(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fxt_kprobes); i++) {
		if (!fxt_kprobes[i].tp)
			fxt_kprobes[i].tp =
				fxt_tracepoint_find(fxt_kprobes[i].tp_name);
		if (!fxt_kprobes[i].tp)
			return -ENOENT;
	}
	return 0;
}

/* Register the probes of the enabled categories (fxt_lock held, Start). */
int fxt_events_register(struct fxt_session *s)
{
	bool on[FXT_KCAT_COUNT];
	unsigned int i;
	int ret;

	for (i = 0; i < FXT_KCAT_COUNT; i++)
		on[i] = fxt_category_enabled(fxt_kcat_names[i]);
	for (i = 0; i < ARRAY_SIZE(fxt_kprobes); i++) {
		if (!on[fxt_kprobes[i].category])
			continue;
		ret = tracepoint_probe_register(fxt_kprobes[i].tp,
						fxt_kprobes[i].func, s);
		if (ret) {
			fxt_events_unregister(s);
			return ret;
		}
		__set_bit(i, s->kprobes);
	}
	return 0;
}

/*
 * Unregister them; no probe runs any more on return, and the kernel
 * buffers' headers count every drop, NMI's too (fxt_lock held).
 */
void fxt_events_unregister(struct fxt_session *s)
{
	unsigned int i;
	bool any = false;
	int cpu;

	for (i = ARRAY_SIZE(fxt_kprobes); i-- > 0;) {
		if (!__test_and_clear_bit(i, s->kprobes))
			continue;
		tracepoint_probe_unregister(fxt_kprobes[i].tp,
					    fxt_kprobes[i].func, s);
		any = true;
	}
	if (!any)
		return;
	/* Also waits for probes in NMI: NMI handlers are RCU readers. */
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu) {
		if (s->cpu_buffers[cpu])
			fxt_kbuf_sync_dropped(s->cpu_buffers[cpu]);
	}
	if (s->names)
		fxt_kbuf_sync_dropped(s->names);
}

/* The kernel's categories take their slots at module load. */
int fxt_events_init(void)
{
	unsigned int i;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(fxt_kprobes) > FXT_KPROBES_MAX);
	for (i = 0; i < FXT_KCAT_COUNT; i++) {
		ret = fxt_category_register(fxt_kcat_names[i], GLOBAL_ROOT_UID);
		if (ret < 0)
			return ret;
	}
	return 0;
}
