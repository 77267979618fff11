// SPDX-License-Identifier: GPL-2.0
/*
 * kwriter_bench: the per-CPU kernel writer's records, built for user space
 * so that callgrind can count its instructions (tools/bench/kwriter.sh).
 *
 *   kwriter_bench KIND ITERATIONS
 *
 * KIND is switch, wakeup, sys_enter, sys_exit, irq_entry or irq_exit.  Each
 * iteration writes one record of that kind the way kmod/events.c writes it
 * (the same FXT encoder calls of uapi/linux/fxt.h, the same words) through
 * a copy of the fast path of fxt_kbuf_reserve() / fxt_kbuf_commit() of
 * kmod/buffer.c: no NMI, not paused, the record fits the current half.
 * What the kernel does and user space cannot is replaced by its nearest
 * equivalent, so the count stays close: local_irq_save() by pushf/pop
 * (without the cli), local_irq_restore() by push/popf, rdtsc_ordered() by
 * lfence/rdtsc, current and smp_processor_id() by loads.  Not counted: the
 * tracepoint's own dispatch to the probe.  Prints the record's size in
 * bytes; the records land in a 4 MiB rolling half that wraps in place.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fxt.h>

#define ROLLING_SIZE	(4u << 20)

/* The writer's state of one CPU buffer (struct fxt_buffer's fields). */
struct kbuf {
	__u64 rolling_pos;
	__u64 wrap;
	__u64 rolling_size;
	__u64 durable_size;
	__u64 rolling_committed[2];
	int paused;
	unsigned char *data;
};

/* The task fields the probes read. */
struct task {
	int pid, tgid, prio;
	unsigned int state, exit_state;
	int idle;
};

static struct kbuf cpu_buf;
static struct task task_a = { 100, 100, 120, 1, 0, 0 };
static struct task task_b = { 101, 100, 120, 0, 0, 0 };
static struct task *volatile current_task = &task_a;
static volatile unsigned int this_cpu;
static volatile int in_nmi_count;

/* Strings every CPU buffer interns (kmod/events.c, enum fxt_kstr). */
enum { KSTR_INCOMING_WEIGHT = 1, KSTR_OUTGOING_WEIGHT, KSTR_WEIGHT,
	KSTR_WAKER, KSTR_CAT_TASK, KSTR_CAT_IRQ, KSTR_CAT_SYSCALL, KSTR_IRQ,
	KSTR_VECTOR, KSTR_NR, KSTR_RET, KSTR_EXIT, KSTR_SYSCALL,
	KSTR_LOCAL_TIMER };

static inline unsigned long irq_save(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushf; pop %0" : "=rm"(flags) : : "memory");
	return flags;
}

static inline void irq_restore(unsigned long flags)
{
	__asm__ __volatile__("push %0; popf" : : "g"(flags) : "memory", "cc");
}

static inline __u64 clock_tsc(void)
{
	__u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (__u64)hi << 32 | lo;
}

/* kmod/buffer.c: the half switch; here the half is reused in place. */
static __attribute__((noinline)) int kbuf_switch(struct kbuf *buf)
{
	buf->rolling_pos = 0;
	return 1;
}

static __attribute__((noinline)) __u64 *
kbuf_reserve(struct kbuf *buf, __u32 n, unsigned long *irqflags)
{
	__u64 bytes = (__u64)n * sizeof(__u64);
	__u64 *dst;

	if (in_nmi_count)
		return NULL;
	*irqflags = irq_save();
	if (__atomic_load_n(&buf->paused, __ATOMIC_RELAXED))
		goto drop;
	if (bytes > buf->rolling_size ||
	    (buf->rolling_pos + bytes > buf->rolling_size && !kbuf_switch(buf)))
		goto drop;
	dst = (__u64 *)(buf->data + buf->durable_size +
			   (buf->wrap & 1) * buf->rolling_size + buf->rolling_pos);
	buf->rolling_pos += bytes;
	return dst;
drop:
	irq_restore(*irqflags);
	return NULL;
}

static __attribute__((noinline)) void kbuf_commit(struct kbuf *buf,
						  unsigned long irqflags)
{
	__atomic_store_n(&buf->rolling_committed[buf->wrap & 1],
			 buf->rolling_pos, __ATOMIC_RELEASE);
	irq_restore(irqflags);
}

static int32_t weight(const struct task *t)
{
	return t->idle ? FXT_SCHED_WEIGHT_IDLE : t->prio;
}

/* fxt_out_state(): blocked for S, D and I; the rest as the kernel maps it. */
static unsigned int out_state(int preempt, unsigned int prev_state,
			      const struct task *prev)
{
	static const __u8 states[] = {
		FXT_THREAD_STATE_RUNNING, FXT_THREAD_STATE_BLOCKED,
		FXT_THREAD_STATE_BLOCKED, FXT_THREAD_STATE_SUSPENDED,
		FXT_THREAD_STATE_SUSPENDED, FXT_THREAD_STATE_DEAD,
		FXT_THREAD_STATE_DEAD, FXT_THREAD_STATE_SUSPENDED,
		FXT_THREAD_STATE_BLOCKED,
	};
	unsigned int index, state;

	if (preempt)
		return FXT_THREAD_STATE_RUNNING;
	/* __task_state_index(): fls() of the reportable bits (TASK_REPORT). */
	state = (prev_state | prev->exit_state) & 0x7f;
	if (prev_state == 0x402)	/* TASK_IDLE */
		state = 0x80;
	index = state ? 32 - (unsigned int)__builtin_clz(state) : 0;
	return index < sizeof(states) ? states[index] : FXT_THREAD_STATE_RUNNING;
}

/* fxt_probe_sched_switch() */
static __attribute__((noinline)) void probe_switch(int preempt,
						   struct task *prev,
						   struct task *next,
						   unsigned int prev_state)
{
	struct kbuf *buf = &cpu_buf;
	unsigned long irqflags;
	const __u32 words = 6;
	__u64 *dst;

	dst = kbuf_reserve(buf, words, &irqflags);
	if (!dst)
		return;
	dst[0] = fxt_context_switch_hdr(words, 2, this_cpu,
					out_state(preempt, prev_state, prev));
	dst[1] = clock_tsc();
	dst[2] = prev->pid;
	dst[3] = next->pid;
	dst[4] = fxt_arg_hdr(FXT_ARG_INT32, 1, KSTR_INCOMING_WEIGHT,
			     (__u32)weight(next));
	dst[5] = fxt_arg_hdr(FXT_ARG_INT32, 1, KSTR_OUTGOING_WEIGHT,
			     (__u32)weight(prev));
	kbuf_commit(buf, irqflags);
}

/* fxt_kwakeup() */
static __attribute__((noinline)) void probe_wakeup(struct task *p)
{
	struct kbuf *buf = &cpu_buf;
	unsigned long irqflags;
	const __u32 words = 6;
	__u64 *dst;

	dst = kbuf_reserve(buf, words, &irqflags);
	if (!dst)
		return;
	dst[0] = fxt_wakeup_hdr(words, 2, this_cpu);
	dst[1] = clock_tsc();
	dst[2] = p->pid;
	dst[3] = fxt_arg_hdr(FXT_ARG_INT32, 1, KSTR_WEIGHT, (__u32)weight(p));
	dst[4] = fxt_arg_hdr(FXT_ARG_KOID, 2, KSTR_WAKER, 0);
	dst[5] = current_task->pid;
	kbuf_commit(buf, irqflags);
}

struct kname {
	__u16 ref;
	const char *str;
};

struct karg {
	__u16 name;
	__u16 type;
	__u64 value;
};

/* fxt_kevent(): an event on (pid, tid) with up to two arguments. */
static __attribute__((noinline)) void kevent(unsigned int type, __u64 pid,
					     __u64 tid, __u16 category,
					     struct kname name,
					     const struct karg *args,
					     unsigned int nargs)
{
	struct kbuf *buf = &cpu_buf;
	unsigned long irqflags;
	__u32 words, arg_words = 0, i, n;
	__u64 *dst;

	for (i = 0; i < nargs; i++)
		arg_words += fxt_arg_words(args[i].name,
					   args[i].type == FXT_ARG_INT32 ? 0 : 1);
	words = fxt_event_words(type, FXT_THREAD_REF_INLINE, category,
				name.ref, arg_words);
	dst = kbuf_reserve(buf, words, &irqflags);
	if (!dst)
		return;
	dst[0] = fxt_event_hdr(words, type, nargs, FXT_THREAD_REF_INLINE,
			       category, name.ref);
	dst[1] = clock_tsc();
	dst[2] = pid;
	dst[3] = tid;
	n = 4 + fxt_write_string_ref(dst + 4, name.ref, name.str);
	for (i = 0; i < nargs; i++)
		n += args[i].type == FXT_ARG_INT32 ?
			fxt_write_arg32(dst + n, args[i].type, args[i].name,
					NULL, (__u32)args[i].value) :
			fxt_write_arg64(dst + n, args[i].type, args[i].name,
					NULL, args[i].value);
	kbuf_commit(buf, irqflags);
}

/* fxt_syscall_name(): the inline name from the table. */
static const char *const syscall_names[] = { [110] = "getppid" };

static struct kname syscall_name(long nr)
{
	if (nr >= 0 && nr < (long)(sizeof(syscall_names) / sizeof(*syscall_names)) &&
	    syscall_names[nr])
		return (struct kname){
			fxt_inline_string_ref(strnlen(syscall_names[nr], 32)),
			syscall_names[nr] };
	return (struct kname){ KSTR_SYSCALL, NULL };
}

/* fxt_probe_sys_enter() and fxt_probe_sys_exit() */
static __attribute__((noinline)) void probe_sys_enter(long id)
{
	struct karg arg = { KSTR_NR, FXT_ARG_INT32, (__u64)id };
	struct task *t = current_task;

	kevent(FXT_EVENT_DURATION_BEGIN, t->tgid, t->pid, KSTR_CAT_SYSCALL,
	       syscall_name(id), &arg, 1);
}

static __attribute__((noinline)) void probe_sys_exit(long nr, long ret)
{
	struct karg arg = { KSTR_RET, FXT_ARG_INT64, (__u64)ret };
	struct task *t = current_task;

	kevent(FXT_EVENT_DURATION_END, t->tgid, t->pid, KSTR_CAT_SYSCALL,
	       syscall_name(nr), &arg, 1);
}

/* fxt_probe_vector_entry() / _exit() for the local timer. */
static __attribute__((noinline)) void probe_irq_entry(int vector)
{
	struct karg arg = { KSTR_VECTOR, FXT_ARG_INT32, (__u64)vector };

	kevent(FXT_EVENT_DURATION_BEGIN, 0xefffffffULL, 0xf0000000ULL + this_cpu,
	       KSTR_CAT_IRQ, (struct kname){ KSTR_LOCAL_TIMER, NULL }, &arg, 1);
}

static __attribute__((noinline)) void probe_irq_exit(int vector)
{
	(void)vector;
	kevent(FXT_EVENT_DURATION_END, 0xefffffffULL, 0xf0000000ULL + this_cpu,
	       KSTR_CAT_IRQ, (struct kname){ KSTR_LOCAL_TIMER, NULL }, NULL, 0);
}

/* The measured loops: one record an iteration, the kind's probe only. */
static __attribute__((noinline)) void run_switch(long n)
{
	for (long i = 0; i < n; i++)
		probe_switch(0, &task_a, &task_b, 1);
}

static __attribute__((noinline)) void run_wakeup(long n)
{
	for (long i = 0; i < n; i++)
		probe_wakeup(&task_b);
}

static __attribute__((noinline)) void run_sys_enter(long n)
{
	for (long i = 0; i < n; i++)
		probe_sys_enter(110);
}

static __attribute__((noinline)) void run_sys_exit(long n)
{
	for (long i = 0; i < n; i++)
		probe_sys_exit(110, 100);
}

static __attribute__((noinline)) void run_irq_entry(long n)
{
	for (long i = 0; i < n; i++)
		probe_irq_entry(0xec);
}

static __attribute__((noinline)) void run_irq_exit(long n)
{
	for (long i = 0; i < n; i++)
		probe_irq_exit(0xec);
}

static const struct {
	const char *kind;
	void (*run)(long n);
} kinds[] = {
	{ "switch", run_switch }, { "wakeup", run_wakeup },
	{ "sys_enter", run_sys_enter }, { "sys_exit", run_sys_exit },
	{ "irq_entry", run_irq_entry }, { "irq_exit", run_irq_exit },
};

int main(int argc, char **argv)
{
	long n;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: kwriter_bench switch|wakeup|sys_enter|sys_exit|irq_entry|irq_exit ITERATIONS\n");
		return 2;
	}
	n = atol(argv[2]);
	if (n <= 0) {
		fprintf(stderr, "kwriter_bench: ITERATIONS must be positive, not '%s'\n", argv[2]);
		return 2;
	}
	cpu_buf.rolling_size = ROLLING_SIZE;
	cpu_buf.durable_size = ROLLING_SIZE / 8;
	cpu_buf.data = calloc(1, cpu_buf.durable_size + 2 * ROLLING_SIZE);
	if (!cpu_buf.data)
		return 1;
	for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		if (strcmp(argv[1], kinds[i].kind))
			continue;
		kinds[i].run(1);	/* one record: its size */
		printf("%llu\n", (unsigned long long)cpu_buf.rolling_pos);
		kinds[i].run(n);
		return 0;
	}
	fprintf(stderr, "kwriter_bench: unknown kind '%s'\n", argv[1]);
	return 2;
}
