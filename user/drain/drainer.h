/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drainer.h - the state of fxtrace-drain, the daemon around the output
 * (drain.h), shared by its parts: drain.c (main, the session, its packets
 * and signals), loop.c (the io_uring loop), options.c, probes.c and
 * progress.c.
 */
#ifndef DRAINER_H
#define DRAINER_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <time.h>

#include "drain.h"
#include "flush_mark.h"
#include "fxtprobe.h"
#include "pty.h"

#define PACKETS_PER_READ 64

/* How long a wake-up of the probes' ring that found nothing waits. */
#define PROBES_RETRY_NS 1000000

enum op_kind {
	OP_PACKETS, OP_SIGNAL, OP_WRITE, OP_ACK, OP_TICK,
	OP_PROBES, OP_PROBES_RETRY,
};

/* What a CQE's user_data points to. */
struct op {
	enum op_kind kind;
};

/*
 * When a save reached each of its steps (CLOCK_MONOTONIC ns), for -v: a
 * producer drops when the whole outlasts the filling of its other half.
 */
struct save_times {
	uint64_t requested;	/* the module's request (ABI 0.5); 0: unknown */
	uint64_t waiting;	/* the drainer's last wait for completions began */
	uint64_t read;		/* the read of its packet */
	uint64_t started;	/* its copy out of the mapping began */
	uint64_t judged;	/* copied and checked, queued for the file */
	uint64_t written;	/* in the file */
};

/*
 * A chunk on its way to the file, then the ack of the save it holds until a
 * published flush mark covers it.
 */
struct write_op {
	struct op write, ack;
	struct write_op *next;		/* in the write queue, then the ack queue */
	struct chunk chunk;
	uint64_t start, end;		/* file offsets of the chunk */
	size_t done;			/* bytes known to be written */
	bool written;			/* all of them */
	bool has_ack;
	uint64_t records;		/* in the chunk, for -v */
	struct save_times times;	/* of the save, up to written */
	unsigned int kind;		/* of the saved buffer */
	struct fxtrace_packet pkt;	/* the ack; lives until its CQE */
};

/* A FIFO of write ops. */
struct op_queue {
	struct write_op *head, **tail;
};

enum drain_state {
	RUNNING,	/* tracing */
	STOPPING,	/* Stop done, waiting for the STOPPED packet */
	FLUSHED,	/* everything left is queued; waiting for the writes */
};

struct options {
	unsigned int mode;
	uint64_t cpu_size, task_size;
	const char *categories;		/* comma-separated globs */
	const char *out;
	uint32_t filter_pid;		/* syscalls of this process only; 0: all */
	bool filter_command;		/* ... of the command's process */
	bool quiet, verbose;
	int rt_priority;		/* SCHED_FIFO priority; 0: not real-time */
	bool shared_flows;		/* flows keyed by id across users */
	/* Circular: bytes of retired buffers' copies kept for snapshots. */
	uint64_t snapshot_retired;
	char **command;
	/*
	 * --user: COMMAND runs as this user (initgroups(), setgid(),
	 * setuid() in the child); user_name NULL: as the drainer.
	 */
	char *user_name, *user_home;
	uid_t user_uid;
	gid_t user_gid;
	char *config_strings[2];	/* values read from -C, owned */
	struct fxtprobe *probes;	/* the --probe specs; NULL: none */
};

/* Retired buffers held listed for one more try to map them, at most. */
#define UNREAD_RETRIES	64

struct drain {
	struct options opt;
	struct fxtctl c;
	struct io_uring ring;
	struct output out;
	bool ring_ready;		/* d->ring is initialized */
	bool running;			/* Start succeeded */
	int out_fd, sig_fd;
	bool write_inline;		/* out_fd is a regular file: pwrite() it */
	bool reserve;			/* allocate the file's pages ahead (tmpfs) */
	uint64_t reserved;		/* allocated up to here, past the records */
	pid_t child;
	int child_status;
	/*
	 * /proc/PID of the process the pid filter names, opened before the
	 * Initialize: -1 if none.  Like fxtrace.ko's counted struct pid, it
	 * stays that process's, so that once it is gone a process given its
	 * number later is not read as the traced one (note_filter_user()).
	 */
	int filter_proc;
	int stop_signal;		/* the SIGINT, SIGTERM or SIGHUP that stopped it */
	/*
	 * Per stop signal (SIGINT, SIGTERM, SIGHUP): the copies of one
	 * sender's signals still to be paired (copy_of_signal()).
	 */
	struct unpaired_signals {
		pid_t origin;		/* 0: the kernel (a terminal) */
		bool relayed;		/* by `fxtrace record` */
		unsigned int count;
	} unpaired[3];
	int left_signal;		/* the one that left the command running */
	struct cmd_pty pty;		/* a -u command's terminal, if it has one */
	enum drain_state state;
	int error;			/* first fatal error, -errno */
	/*
	 * The first failed write of the output (ENOSPC, EFBIG, EPIPE, EIO):
	 * -errno, and the offset it was to go to.  Also in error.
	 */
	int out_error;
	uint64_t out_error_offset;
	unsigned int inflight;		/* write, ack and mark SQEs not completed */
	unsigned int live_ops;		/* write ops not freed */
	bool progress;			/* live progress line on stderr */

	struct op_queue writes;		/* not below the watermark yet */
	struct op_queue acks;		/* below it, waiting for it to be published */
	uint64_t flushed;		/* every byte below is written */
	uint64_t published;		/* what the flush mark in the file says */
	bool stream_busy;		/* a write into the stream is on its way */
	/* The flush mark and the session window after it, one write. */
	__u64 mark[FLUSH_MARK_WORDS + WINDOW_MARK_WORDS];

	/*
	 * How long saves wait for their ack, from the read of their packet
	 * to the ack's submission.  For -v.
	 */
	uint64_t packets_read_ns;
	uint64_t waiting_ns;		/* the loop's last wait began */
	uint64_t acked, ack_ns_max, acked_slow;
	/*
	 * The same from the module's request, by kind of buffer: the
	 * slowest save's steps, the slowest read, and the time the fastest
	 * half took to fill (the time the drainer had for the save before).
	 * on_save() sets save and save_kind for queue_chunk().
	 */
	struct save_times save;
	unsigned int save_kind;
	struct save_timing {
		uint64_t saves;		/* acknowledged, with a request time */
		uint64_t read_ns_max;	/* request to the packet's read */
		uint64_t ack_ns_max;	/* request to the ack */
		struct save_times slowest;	/* that save's steps */
		uint64_t fill_ns_min;	/* between two requests; 0: none */
	} timing[KIND_COUNT];

	struct op packets_op, signal_op, tick_op, probes_op, probes_retry_op;
	struct fxtrace_packet packets[PACKETS_PER_READ];
	struct signalfd_siginfo siginfo;
	struct __kernel_timespec tick, probes_retry;
	uint64_t progress_records;
	struct timespec started;
	double cpu_at_start;		/* CPU seconds used before Start */
	unsigned int snapshots;		/* OUT.<n> written so far */
	struct retired_copies retired;	/* circular: for the snapshots */
	/*
	 * Retired buffers not mapped for want of memory, listed still: tried
	 * once more at the next snapshot or at Stop.
	 */
	__u32 unread_ids[UNREAD_RETRIES];
	unsigned int unread_count;
	struct fxtprobe *probes;	/* attached probes; NULL: none */
	uint64_t probe_events;		/* written to the file */
};

#define RING_ENTRIES	256

/* A save acknowledged later than this after its packet was read is slow. */
#define ACK_SLOW_NS	(10 * 1000000ULL)

/* The drainer's name for each mode (options.c). */
extern const char *const mode_names[__FXTRACE_MODE_COUNT];

/*
 * options.c: the command line and the -C file into *opt; -h and --version
 * print and exit.  0, or -EINVAL after saying what was wrong.
 */
int parse_options(struct options *opt, int argc, char **argv);

/* drain.c: the session, its packets and signals. */
uint64_t session_now(const struct drain *d);
void on_packet(struct drain *d, const struct fxtrace_packet *pkt);
void on_signal(struct drain *d);
void request_stop(struct drain *d);

/* loop.c: the ring, the write queue, the flush mark and the acks. */
uint64_t monotonic_ns(void);		/* CLOCK_MONOTONIC */
void submit_packet_read(struct drain *d);
void submit_signal_read(struct drain *d);
void submit_tick(struct drain *d);
void submit_probes_poll(struct drain *d);
void submit_probes_retry(struct drain *d);
/* Queue chunk (taken over) and, when save is set, the ack of that save. */
void queue_chunk(struct drain *d, struct chunk *chunk,
		 const struct fxtrace_packet *save, uint64_t records);
/* Until everything is written and acked, or a fatal error: d->error. */
int run_loop(struct drain *d);
/* A write of the output at offset failed with err (-errno): tracing ends. */
void output_failed(struct drain *d, int err, uint64_t offset);
/* Give back the pages allocated ahead and not written: 0, or -errno. */
int release_reserved(struct drain *d);
/* Write ops an error left behind. */
void free_queue(struct drain *d, struct op_queue *q);

/* probes.c: libfxtprobe's events as their own provider. */
int open_probes(struct drain *d);
void probes_clock(struct drain *d);
int consume_probes(struct drain *d);
void flush_probes(struct drain *d);
void probes_summary(const struct fxtprobe *set, uint64_t events);

/* progress.c: the live line, the per-buffer reports and the summary. */
void report_buffer(const struct drain *d, const struct drain_buffer *db);
void show_progress(struct drain *d);
double cpu_seconds(void);
void summary(const struct drain *d);

#endif /* DRAINER_H */
