/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtprobe.h - dynamic probes (kprobes, uprobes, USDT, tracepoints) into FXT
 * (libfxtprobe.a, Documentation/probes.rst).
 *
 * A struct fxtprobe is a set of probes: add their specs, open it (loads the
 * BPF programs and attaches every probe, one link each; a probe that cannot
 * attach is reported and the others go on), then poll the epoll fd and
 * consume: each BPF event becomes one FXT record of the "bpf" provider,
 * on the session clock.  Single-threaded: one caller at a time per set.
 *
 * Usage:
 *
 *	struct fxtprobe *set = fxtprobe_new();
 *	fxtprobe_add(set, "kprobe:do_sys_openat2 path=arg1:ustr", err, sizeof(err));
 *	fxtprobe_open(set, &opts, on_attach_error, ctx);
 *	fxtprobe_set_clock(set, &clock);	// fxtprobe_clock_from_session()
 *	write(fd, buf, fxtprobe_write_preamble(set, buf, sizeof(buf)));
 *	loop: poll fxtprobe_epoll_fd(set); fxtprobe_consume(set, write_cb, ctx);
 *	fxtprobe_write_drops(set, write_cb, ctx);
 *	fxtprobe_close(set);
 */
#ifndef FXTPROBE_H
#define FXTPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtrace.h>

/* The "bpf" provider's id unless the options give another. */
#define FXTPROBE_PROVIDER_ID_DEFAULT	0xb9f0000U
/* Longest spec fxtprobe_add() accepts, in bytes. */
#define FXTPROBE_SPEC_MAX		4096
/* Ring buffer size unless the options give another (a power of 2 of pages). */
#define FXTPROBE_RING_SIZE_DEFAULT	(4U << 20)

enum fxtprobe_kind {
	FXTPROBE_KPROBE,
	FXTPROBE_KRETPROBE,
	FXTPROBE_UPROBE,
	FXTPROBE_URETPROBE,
	FXTPROBE_USDT,
	FXTPROBE_TRACEPOINT,
};

struct fxtprobe_options {
	uint32_t provider_id;	/* 0: FXTPROBE_PROVIDER_ID_DEFAULT */
	uint32_t ring_size;	/* bytes; 0: FXTPROBE_RING_SIZE_DEFAULT */
	/*
	 * Only this process's events; 0: all.  The pid as the caller sees
	 * it: outside the initial pid namespace the process must be in the
	 * caller's own pid namespace, not a nested one.
	 */
	uint32_t filter_tgid;
	bool libbpf_warnings;	/* pass libbpf's warnings to stderr */
};

/*
 * How BPF timestamps (CLOCK_MONOTONIC ns) become session ticks.  clock is
 * FXTRACE_CLOCK_MONOTONIC (ticks == ns, ticks_per_second 1e9) or
 * FXTRACE_CLOCK_TSC (ticks = ref_tsc + (ns - ref_monotonic_ns) *
 * ticks_per_second / 1e9).
 */
struct fxtprobe_clock {
	uint32_t clock;
	uint64_t ticks_per_second;
	uint64_t ref_tsc;
	uint64_t ref_monotonic_ns;
};

struct fxtprobe_drops {
	uint64_t ring_full;	/* hits the ring buffer had no room for */
	uint64_t invalid;	/* events that did not decode (never expected) */
	/*
	 * Hits the kernel ran no program for, as a BPF program was already
	 * running on that CPU: counted by kernels from 6.7, 0 before.
	 */
	uint64_t missed;
};

struct fxtprobe;

/* Called once per probe that cannot attach; reason is a sentence. */
typedef void (*fxtprobe_error_fn)(void *ctx, const char *spec, int err,
				  const char *reason);
/* Receives whole FXT records; a non-zero return stops fxtprobe_consume(). */
typedef int (*fxtprobe_write_fn)(void *ctx, const void *bytes, size_t len);

struct fxtprobe *fxtprobe_new(void);

/*
 * Parse one spec and add it to the set (before fxtprobe_open()).  A uprobe
 * or USDT PATH with a '/' is opened here (O_PATH), and the probe attaches
 * to that file whatever is at PATH later; the set keeps the descriptor
 * until fxtprobe_close().  0, or -EINVAL with a message naming the spec in
 * err; -ENOSPC past FXTPROBE_PROBES_MAX probes; -ENOMEM.
 */
int fxtprobe_add(struct fxtprobe *set, const char *spec, char *err,
		 size_t err_size);

/*
 * Load the BPF programs and attach every probe.  Returns how many attached
 * (on_error, which may be NULL, heard about the others), or a negative
 * errno when nothing could be loaded (err then says why).
 */
int fxtprobe_open(struct fxtprobe *set, const struct fxtprobe_options *opts,
		  fxtprobe_error_fn on_error, void *ctx, char *err,
		  size_t err_size);

/*
 * Change the process filter of the options (0: every process); after
 * fxtprobe_open().  Events already in the ring stay.  0, -EBADF before
 * fxtprobe_open(), or the errno of /proc/self/ns/pid (the caller's pid
 * namespace) when it cannot be read; the filter is then unchanged.
 */
int fxtprobe_set_filter_tgid(struct fxtprobe *set, uint32_t tgid);

/* The ring buffer's epoll fd: readable when events wait (POLL_ADD on it). */
int fxtprobe_epoll_fd(const struct fxtprobe *set);

/* The clock of a session page (0), or -ENODEV without a session. */
int fxtprobe_clock_from_session(const struct fxtrace_session_page *page,
				struct fxtprobe_clock *clock);
/* CLOCK_MONOTONIC ns, 1e9 ticks per second: the clock without a session. */
void fxtprobe_clock_monotonic(struct fxtprobe_clock *clock);
/* Set (or refresh the reference pair of) the clock; -EINVAL if malformed. */
int fxtprobe_set_clock(struct fxtprobe *set, const struct fxtprobe_clock *clock);
/* A BPF timestamp in session ticks. */
uint64_t fxtprobe_ticks(const struct fxtprobe *set, uint64_t monotonic_ns);

/*
 * The provider's preamble: provider info ("bpf"), initialization record
 * (the clock's ticks per second) and the string records every probe record
 * refers to.  Write it once, before the first consumed record, after
 * fxtprobe_open() and fxtprobe_set_clock().  Returns its size in bytes, or
 * 0 if it does not fit in size (fxtprobe_preamble_size() says how much).
 */
size_t fxtprobe_preamble_size(const struct fxtprobe *set);
size_t fxtprobe_write_preamble(const struct fxtprobe *set, void *buf,
			       size_t size);

/*
 * Convert every event waiting in the ring buffer.  The records go to write
 * in batches, each starting with a provider section record, so they may be
 * interleaved with other providers' records.  Returns the number of events
 * converted, or a negative errno (write's non-zero return, negated if
 * positive).
 */
int fxtprobe_consume(struct fxtprobe *set, fxtprobe_write_fn write, void *ctx);

/* Drop counts so far. */
void fxtprobe_drops(const struct fxtprobe *set, struct fxtprobe_drops *drops);
/*
 * If anything dropped, write a section record and an "fxtrace:dropped"
 * counter (arguments "records", the hits ring_full and missed lost, and
 * "invalid"; counter id = provider id) on
 * the caller's thread at the current time, as fxtrace-drain does for its
 * buffers.  0 or a negative errno.
 */
int fxtprobe_write_drops(struct fxtprobe *set, fxtprobe_write_fn write,
			 void *ctx);

/*
 * The words fxtprobe_write_drops() writes (drops_record.c): the provider's
 * section record, then the "fxtrace:dropped" counter of the thread
 * (pid, tid) at ticks.  Returns the words written, FXTPROBE_DROPS_WORDS at
 * most.
 */
#define FXTPROBE_DROPS_WORDS	16
__u32 fxtprobe_drops_record(__u64 *dst, __u32 provider_id,
			    __u64 ticks, __u64 pid, __u64 tid,
			    const struct fxtprobe_drops *drops);

/* The probes of the set, in the order added; i < fxtprobe_count(). */
size_t fxtprobe_count(const struct fxtprobe *set);
const char *fxtprobe_spec(const struct fxtprobe *set, size_t i);
enum fxtprobe_kind fxtprobe_kind(const struct fxtprobe *set, size_t i);
bool fxtprobe_attached(const struct fxtprobe *set, size_t i);

/* Detach everything and free the set (NULL is fine). */
void fxtprobe_close(struct fxtprobe *set);

#endif /* FXTPROBE_H */
