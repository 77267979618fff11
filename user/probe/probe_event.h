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

struct fxtprobe_config {
	__u32 nargs;
	struct fxtprobe_arg_config args[FXTPROBE_ARGS_MAX];
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

#endif /* FXTPROBE_EVENT_H */
