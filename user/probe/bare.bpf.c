// SPDX-License-Identifier: GPL-2.0
/*
 * bare.bpf.c - the baseline of the overhead measurement (probe_bench): what
 * `bpftrace -e 'kprobe:F { @[...] }'`-style tracers minimally do per hit,
 * reserve a fixed event in a BPF ring buffer, stamp it and submit it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct bare_event {
	__u64 timestamp_ns;
	__u64 pid_tgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} bare_events SEC(".maps");

SEC("kprobe")
int bare_kprobe(struct pt_regs *regs)
{
	struct bare_event *event;

	event = bpf_ringbuf_reserve(&bare_events, sizeof(*event), 0);
	if (!event)
		return 0;
	event->timestamp_ns = bpf_ktime_get_ns();
	event->pid_tgid = bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(event, 0);
	return 0;
}
