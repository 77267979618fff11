// SPDX-License-Identifier: GPL-2.0
/*
 * probe.bpf.c - fxtrace's dynamic probes.  One program serves every kprobe,
 * kretprobe, uprobe and uretprobe link, one every USDT link and one every
 * tracepoint link: the attach cookie is the probe's index, which selects
 * its argument configuration.
 * Each hit reserves one event in the ring buffer; a full ring is counted in
 * the per-CPU drops map, which user space sums.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "probe_event.h"

char LICENSE[] SEC("license") = "GPL";

/* Sources in registers: the six arguments of x86-64, then the return value. */
#define REGISTER_SOURCES	7

/*
 * Only this process's threads when non-zero (set before the probes fire).
 * filter_tgid is the pid in the pid namespace of user space: when that is
 * not the initial one, filter_pidns_dev and _ino name it (kernel dev_t and
 * nsfs inode) and the hit's tgid is taken in it; else they are 0 and the
 * global tgid is compared.
 */
__u32 filter_tgid;
__u64 filter_pidns_dev;
__u64 filter_pidns_ino;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* resized by user space before load */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FXTPROBE_PROBES_MAX);
	__type(key, __u32);
	__type(value, struct fxtprobe_config);
} configs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/*
 * The verifier refuses a load from the context at a computed offset, which
 * is what a switch on the source compiles to: load every register at its
 * fixed offset, then pick one from the stack.
 */
static __always_inline __u64 register_arg(struct pt_regs *regs, __u8 source)
{
	__u64 values[REGISTER_SOURCES] = {
		PT_REGS_PARM1(regs), PT_REGS_PARM2(regs), PT_REGS_PARM3(regs),
		PT_REGS_PARM4(regs), PT_REGS_PARM5(regs),
		regs->r9,	/* x86-64 arg6: libbpf 1.1 stops at PARM5 */
		PT_REGS_RC(regs),
	};

	if (source == FXTPROBE_SOURCE_RET)
		return values[REGISTER_SOURCES - 1];
	if (source >= REGISTER_SOURCES - 1)
		return 0;
	return values[source];
}

static __always_inline __u64 usdt_arg(struct pt_regs *regs, __u8 source)
{
	long value = 0;

	bpf_usdt_arg(regs, source, &value);
	return value;
}

static __always_inline void count_drop(void)
{
	__u32 zero = 0;
	__u64 *count = bpf_map_lookup_elem(&drops, &zero);

	if (count)
		*count += 1;
}

/*
 * Whether the hit is of another process than the filter's.  A task whose
 * active pid namespace is not the filter's fails the helper: not ours.
 */
static __always_inline bool other_process(__u64 pid_tgid)
{
	struct bpf_pidns_info ns;

	if (!filter_tgid)
		return false;
	if (!filter_pidns_ino)
		return (__u32)(pid_tgid >> 32) != filter_tgid;
	return bpf_get_ns_current_pid_tgid(filter_pidns_dev, filter_pidns_ino,
					   &ns, sizeof(ns)) ||
	       ns.tgid != filter_tgid;
}

static __always_inline int record(struct pt_regs *regs, __u64 probe, bool usdt)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fxtprobe_config *config;
	struct fxtprobe_event *event;
	__u32 key = (__u32)probe;
	__u32 i;

	if (other_process(pid_tgid))
		return 0;
	config = bpf_map_lookup_elem(&configs, &key);
	if (!config)
		return 0;
	event = bpf_ringbuf_reserve(&events, sizeof(*event), 0);
	if (!event) {
		count_drop();
		return 0;
	}
	event->timestamp_ns = bpf_ktime_get_ns();
	event->probe = key;
	event->tgid = pid_tgid >> 32;
	event->tid = (__u32)pid_tgid;
	event->nargs = config->nargs;
	for (i = 0; i < FXTPROBE_ARGS_MAX; i++) {
		struct fxtprobe_arg_config arg = config->args[i];
		__u64 value;

		if (i >= config->nargs)
			break;
		value = usdt ? usdt_arg(regs, arg.source) :
			       register_arg(regs, arg.source);
		if (arg.read == FXTPROBE_READ_USER_STRING)
			value = bpf_probe_read_user_str(event->strings[i],
							FXTPROBE_STRING_MAX,
							(void *)value);
		else if (arg.read == FXTPROBE_READ_KERNEL_STRING)
			value = bpf_probe_read_kernel_str(event->strings[i],
							  FXTPROBE_STRING_MAX,
							  (void *)value);
		event->values[i] = value;
	}
	bpf_ringbuf_submit(event, 0);
	return 0;
}

/*
 * Whether the copied entry's field meets the condition (a garbage config:
 * no).  The copy, not the context: the verifier forbids arithmetic on it.
 */
static __always_inline bool filter_holds(const struct fxtprobe_raw_event *event,
					 const struct fxtprobe_filter *f)
{
	__u32 offset = f->offset, size = f->size;
	__u64 value = 0;
	__s64 signed_value;
	unsigned int shift;

	if (offset > FXTPROBE_RAW_MAX - 8 || size < 1 || size > 8 ||
	    offset + size > event->raw_size ||
	    bpf_probe_read_kernel(&value, size, event->raw + offset))
		return false;
	shift = 64 - 8 * size;
	if (f->is_signed) {
		signed_value = (__s64)(value << shift) >> shift;
		switch (f->op) {
		case FXTPROBE_OP_EQ: return signed_value == (__s64)f->value;
		case FXTPROBE_OP_NE: return signed_value != (__s64)f->value;
		case FXTPROBE_OP_LT: return signed_value < (__s64)f->value;
		case FXTPROBE_OP_LE: return signed_value <= (__s64)f->value;
		case FXTPROBE_OP_GT: return signed_value > (__s64)f->value;
		case FXTPROBE_OP_GE: return signed_value >= (__s64)f->value;
		}
		return false;
	}
	value = value << shift >> shift;
	switch (f->op) {
	case FXTPROBE_OP_EQ: return value == f->value;
	case FXTPROBE_OP_NE: return value != f->value;
	case FXTPROBE_OP_LT: return value < f->value;
	case FXTPROBE_OP_LE: return value <= f->value;
	case FXTPROBE_OP_GT: return value > f->value;
	case FXTPROBE_OP_GE: return value >= f->value;
	}
	return false;
}

/*
 * A tracepoint: the context is its entry (tracefs format file layout).
 * Copy its start into the ring, then keep it only if the filter holds.
 */
SEC("tracepoint")
int fxtprobe_tracepoint(void *entry)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fxtprobe_raw_event *event;
	struct fxtprobe_config *config;
	__u32 key = (__u32)bpf_get_attach_cookie(entry);
	__u32 i, size;

	if (other_process(pid_tgid))
		return 0;
	config = bpf_map_lookup_elem(&configs, &key);
	if (!config)
		return 0;
	event = bpf_ringbuf_reserve(&events, sizeof(*event), 0);
	if (!event) {
		count_drop();
		return 0;
	}
	size = config->raw_size;
	if (size > FXTPROBE_RAW_MAX)
		size = FXTPROBE_RAW_MAX;
	event->timestamp_ns = bpf_ktime_get_ns();
	event->probe = key;
	event->tgid = pid_tgid >> 32;
	event->tid = (__u32)pid_tgid;
	event->cpu = bpf_get_smp_processor_id();
	event->raw_size = size;
	event->__pad = 0;
	if (bpf_probe_read_kernel(event->raw, size, entry))
		event->raw_size = 0;
	for (i = 0; i < FXTPROBE_FILTERS_MAX; i++) {
		if (i >= config->nfilters)
			break;
		if (!filter_holds(event, &config->filters[i])) {
			bpf_ringbuf_discard(event, 0);
			return 0;
		}
	}
	bpf_ringbuf_submit(event, 0);
	return 0;
}

SEC("kprobe")
int fxtprobe_regs(struct pt_regs *regs)
{
	return record(regs, bpf_get_attach_cookie(regs), false);
}

/* The cookie is the index + 1: libbpf's unused USDT specs have cookie 0. */
SEC("usdt")
int fxtprobe_usdt(struct pt_regs *regs)
{
	return record(regs, bpf_usdt_cookie(regs) - 1, true);
}
