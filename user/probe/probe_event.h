/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_event.h - what fxtrace's BPF programs (fxtprobe.bpf.c) and libfxtprobe
 * share: the per-probe configuration map's values and the ring buffer's
 * event.  Both sides include it after their own definition of __u8..__u64
 * (vmlinux.h in BPF, <linux/types.h> in user space).
 *
 * The event has a fixed size because bpf_ringbuf_reserve() wants a constant.
 */
#ifndef FXTPROBE_EVENT_H
#define FXTPROBE_EVENT_H

/* Probes in one set: the BPF attach cookie is the index into the config map. */
#define FXTPROBE_PROBES_MAX	64
/* Captured arguments per probe. */
#define FXTPROBE_ARGS_MAX	4
/* Bytes kept of a captured string, its NUL included. */
#define FXTPROBE_STRING_MAX	64
/* The source of a return value instead of argN. */
#define FXTPROBE_SOURCE_RET	0xff
/* Bytes of a tracepoint's entry copied per hit (fields and dynamic data). */
#define FXTPROBE_RAW_MAX	512
/* Conditions of a tracepoint's filter, all of which must hold. */
#define FXTPROBE_FILTERS_MAX	4

/* How the BPF side reads an argument; the user side formats it by type. */
enum fxtprobe_read {
	FXTPROBE_READ_VALUE = 1,	/* the register or USDT operand */
	FXTPROBE_READ_USER_STRING,	/* bpf_probe_read_user_str() of it */
	FXTPROBE_READ_KERNEL_STRING,	/* bpf_probe_read_kernel_str() of it */
};

struct fxtprobe_arg_config {
	__u8 source;	/* argN (from 0), or FXTPROBE_SOURCE_RET */
	__u8 read;	/* enum fxtprobe_read */
};

enum fxtprobe_filter_op {
	FXTPROBE_OP_EQ = 1, FXTPROBE_OP_NE, FXTPROBE_OP_LT, FXTPROBE_OP_LE,
	FXTPROBE_OP_GT, FXTPROBE_OP_GE,
};

/* FIELD OP VALUE on an integer field of a tracepoint's entry. */
struct fxtprobe_filter {
	__u16 offset;		/* in the entry, <= FXTPROBE_RAW_MAX - 8 */
	__u8 size;		/* 1, 2, 4 or 8 */
	__u8 is_signed;
	__u8 op;		/* enum fxtprobe_filter_op */
	__u8 __pad[3];
	__u64 value;		/* sign-extended when is_signed */
};

struct fxtprobe_config {
	__u32 nargs;
	struct fxtprobe_arg_config args[FXTPROBE_ARGS_MAX];
	/* Tracepoints: bytes of the entry to copy, and the filter. */
	__u32 raw_size;		/* 1..FXTPROBE_RAW_MAX */
	__u32 nfilters;
	struct fxtprobe_filter filters[FXTPROBE_FILTERS_MAX];
};

/*
 * values[i] is the argument's value; for a string, the return of the
 * bpf_probe_read_*_str() call: the length with the NUL, or a negative errno.
 */
struct fxtprobe_event {
	__u64 timestamp_ns;	/* bpf_ktime_get_ns() */
	__u32 probe;		/* index of the probe in its set */
	__u32 tgid;
	__u32 tid;
	__u32 nargs;
	__u64 values[FXTPROBE_ARGS_MAX];
	char strings[FXTPROBE_ARGS_MAX][FXTPROBE_STRING_MAX];
};

/*
 * A tracepoint hit: the start of its entry as the kernel filled it (the
 * layout of its tracefs format file), on the CPU that hit it.
 */
struct fxtprobe_raw_event {
	__u64 timestamp_ns;	/* bpf_ktime_get_ns() */
	__u32 probe;		/* index of the probe in its set */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__u32 raw_size;		/* bytes of raw copied */
	__u32 __pad;
	__u8 raw[FXTPROBE_RAW_MAX];
};

#endif /* FXTPROBE_EVENT_H */
