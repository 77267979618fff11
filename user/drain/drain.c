// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain: the session controller.  It initializes and starts a
 * session, runs a command or waits for SIGINT/SIGTERM, and streams every
 * buffer into one FXT file.
 *
 * One io_uring does all the waiting: packet reads from the controller fd
 * (the module completes them without an io-wq thread), signalfd reads,
 * output writes at explicit offsets, the flush mark and BUFFER_SAVED acks.
 *
 * With --probe, BPF probe events (libfxtprobe) come in through a poll on
 * the BPF ring buffer's epoll fd in the same ring and are written as their
 * own provider, on the session clock.
 *
 * Writes complete out of order, so the drainer keeps the flush watermark:
 * the largest offset below which every write has completed.  It publishes
 * it in the file (flush_mark.h) and acknowledges a save only once a
 * published watermark covers the save's bytes, with the ack linked
 * (IOSQE_IO_LINK) after the write of that mark: a producer reuses a half
 * only when its records are in the file and would survive a kill of the
 * drainer (`fxtrace recover` cuts the file at the watermark).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "flush_mark.h"
#include "fxtprobe.h"

#define RING_ENTRIES	256
#define PACKETS_PER_READ 64

enum op_kind {
	OP_PACKETS, OP_SIGNAL, OP_WRITE, OP_ACK, OP_FLUSH_MARK, OP_TICK,
	OP_PROBES,
};

/* What a CQE's user_data points to. */
struct op {
	enum op_kind kind;
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
	char **command;
	char *config_strings[2];	/* values read from -C, owned */
	struct fxtprobe *probes;	/* the --probe specs; NULL: none */
};

struct drain {
	struct options opt;
	struct fxtctl c;
	struct io_uring ring;
	struct output out;
	bool ring_ready;		/* d->ring is initialized */
	bool running;			/* Start succeeded */
	int out_fd, sig_fd;
	pid_t child;
	int child_status;
	enum drain_state state;
	int error;			/* first fatal error, -errno */
	unsigned int inflight;		/* write, ack and mark SQEs not completed */
	unsigned int live_ops;		/* write ops not freed */
	bool progress;			/* live progress line on stderr */

	struct op_queue writes;		/* not below the watermark yet */
	struct op_queue acks;		/* below it, waiting for it to be published */
	uint64_t flushed;		/* every byte below is written */
	uint64_t published;		/* what the flush mark in the file says */
	uint64_t publishing;		/* the flush mark being written */
	bool mark_inflight;
	/* The flush mark and the session window after it, one write. */
	__u64 mark[FLUSH_MARK_WORDS + WINDOW_MARK_WORDS];

	struct op packets_op, signal_op, tick_op, mark_op, probes_op;
	struct fxtrace_packet packets[PACKETS_PER_READ];
	struct signalfd_siginfo siginfo;
	struct __kernel_timespec tick;
	uint64_t progress_records;
	struct timespec started;
	double cpu_at_start;		/* CPU seconds used before Start */
	unsigned int snapshots;		/* OUT.<n> written so far */
	struct fxtprobe *probes;	/* attached probes; NULL: none */
	uint64_t probe_events;		/* written to the file */
};

static const char *const mode_names[] = {
	[FXTRACE_MODE_ONESHOT] = "oneshot",
	[FXTRACE_MODE_CIRCULAR] = "circular",
	[FXTRACE_MODE_STREAMING] = "streaming",
};

static const char *const kind_names[] = {
	[FXTRACE_BUFFER_CPU] = "cpu",
	[FXTRACE_BUFFER_TASK] = "task",
	[FXTRACE_BUFFER_KERNEL] = "kernel",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fxtrace-drain [-C FILE] [-m MODE] [-b SIZE] [-B SIZE] [-c CATEGORIES]\n"
		"                     [-P PROBE]... [-p PID|command] [-o OUT.fxt] [-q] [-v]\n"
		"                     [-- COMMAND ARGS...]\n"
		"\n"
		"Start a tracing session, run COMMAND (or wait for SIGINT/SIGTERM),\n"
		"stop, and write every buffer to one FXT file.  In circular mode\n"
		"SIGUSR1 writes a snapshot of every buffer to OUT.<n>.\n"
		"\n"
		"  -C, --config=FILE      read options from FILE (key = value lines: mode,\n"
		"                         cpu-buffer-size, task-buffer-size, categories,\n"
		"                         output, pid, probe); options on the command line\n"
		"                         win, probes add up\n"
		"  -m, --mode=MODE        oneshot, circular or streaming [default: streaming]\n"
		"  -b, --cpu-buffer-size=SIZE\n"
		"                         per-CPU buffer size, K/M suffixes, a multiple of\n"
		"                         4K from 16K to 256M [default: 1M]\n"
		"  -B, --task-buffer-size=SIZE\n"
		"                         per-thread buffer size, same limits [default: 1M]\n"
		"  -c, --categories=LIST  comma-separated category globs, given to the\n"
		"                         module as they are: user categories match any\n"
		"                         glob, kernel ones only globs starting with\n"
		"                         'kernel:' [default: every user category, no\n"
		"                         kernel category]\n"
		"  -P, --probe=PROBE      a dynamic probe (kprobe:FUNC, kretprobe:FUNC,\n"
		"                         uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL,\n"
		"                         usdt:PATH:PROVIDER:NAME, tracepoint:SUBSYS:EVENT;\n"
		"                         Documentation/probes.rst); repeatable\n"
		"  -p, --pid=PID          kernel:syscall and probe events of process PID\n"
		"                         only; 'command': of COMMAND's process\n"
		"                         [default: every process]\n"
		"  -o, --output=OUT       output file [default: fxtrace.fxt]\n"
		"  -q, --quiet            no progress and no summary\n"
		"  -v, --verbose          describe the first 100 invalid records, log every\n"
		"                         acknowledged save\n"
		"  -h, --help             this help\n"
		"      --version          the fxtrace ABI this drainer speaks\n"
		"\n"
		"Exit status: COMMAND's (128+N if signal N killed it, 127 if it could\n"
		"not be run) once the trace is written, 0 without COMMAND; 1 if tracing\n"
		"failed; 2 usage error.\n");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	}
	/* FXTRACE_BUFFER_SIZE_MAX is far below this: no shift can overflow. */
	if (*end || v > (1ULL << 40))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A buffer size the module accepts, or a message saying what it accepts. */
static int parse_buffer_size(const char *what, const char *s, uint64_t *out)
{
	if (!parse_size(s, out) && *out % 4096 == 0 &&
	    *out >= FXTRACE_BUFFER_SIZE_MIN && *out <= FXTRACE_BUFFER_SIZE_MAX)
		return 0;
	fprintf(stderr, "fxtrace-drain: %s '%s': a buffer size is a multiple of 4K from %lluK to %lluM (K and M suffixes)\n",
		what, s, FXTRACE_BUFFER_SIZE_MIN >> 10,
		FXTRACE_BUFFER_SIZE_MAX >> 20);
	return -EINVAL;
}

static int parse_mode(const char *s, unsigned int *mode)
{
	unsigned int m;

	for (m = 0; m < 3; m++) {
		if (!strcmp(s, mode_names[m])) {
			*mode = m;
			return 0;
		}
	}
	fprintf(stderr, "fxtrace-drain: unknown mode '%s'\n", s);
	return -EINVAL;
}

/* A pid in 1..INT_MAX, or "command". */
static int parse_pid(struct options *opt, const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "command")) {
		opt->filter_command = true;
		opt->filter_pid = 0;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT32_MAX) {
		fprintf(stderr, "fxtrace-drain: bad pid '%s'\n", s);
		return -EINVAL;
	}
	opt->filter_command = false;
	opt->filter_pid = (uint32_t)v;
	return 0;
}

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Parse a probe spec into the options' set; it is opened after Initialize. */
static int add_probe(struct options *opt, const char *spec)
{
	char err[FXTPROBE_SPEC_MAX + 128];

	if (!opt->probes) {
		opt->probes = fxtprobe_new();
		if (!opt->probes)
			return -ENOMEM;
	}
	if (fxtprobe_add(opt->probes, spec, err, sizeof(err))) {
		fprintf(stderr, "fxtrace-drain: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

/* Keep a value read from the config file; the previous one of key k goes. */
static const char *keep_string(struct options *opt, int k, const char *value)
{
	free(opt->config_strings[k]);
	opt->config_strings[k] = strdup(value);
	return opt->config_strings[k];
}

/* One "key = value" line of a config file. */
static int config_line(struct options *opt, char *key, char *value)
{
	int ret = 0;

	if (!strcmp(key, "mode")) {
		ret = parse_mode(value, &opt->mode);
	} else if (!strcmp(key, "cpu-buffer-size")) {
		ret = parse_buffer_size(key, value, &opt->cpu_size);
	} else if (!strcmp(key, "task-buffer-size")) {
		ret = parse_buffer_size(key, value, &opt->task_size);
	} else if (!strcmp(key, "categories")) {
		opt->categories = keep_string(opt, 0, value);
		ret = opt->categories ? 0 : -ENOMEM;
	} else if (!strcmp(key, "output")) {
		opt->out = keep_string(opt, 1, value);
		ret = opt->out ? 0 : -ENOMEM;
	} else if (!strcmp(key, "pid")) {
		ret = parse_pid(opt, value);
	} else if (!strcmp(key, "probe")) {
		ret = add_probe(opt, value);
	} else {
		ret = -ENOENT;
	}
	return ret;
}

/* Lines "key = value"; blank lines and lines starting with '#' skipped. */
static int read_config(struct options *opt, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *key, *value, *eq;
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "fxtrace-drain: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		ret = config_line(opt, key, value);
	}
	if (ret == -ENOENT)
		fprintf(stderr, "fxtrace-drain: %s:%u: unknown key '%s'\n", path,
			lineno, key);
	else if (ret)
		fprintf(stderr, "fxtrace-drain: %s:%u: expected 'key = value' with a valid value\n",
			path, lineno);
	free(line);
	fclose(f);
	return ret ? -EINVAL : 0;
}

#define OPTSTRING "+C:m:b:B:c:P:p:o:qvh"
#define OPT_VERSION 256

static const struct option long_options[] = {
	{ "config", required_argument, NULL, 'C' },
	{ "mode", required_argument, NULL, 'm' },
	{ "cpu-buffer-size", required_argument, NULL, 'b' },
	{ "task-buffer-size", required_argument, NULL, 'B' },
	{ "categories", required_argument, NULL, 'c' },
	{ "probe", required_argument, NULL, 'P' },
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static int parse_options(struct options *opt, int argc, char **argv)
{
	int ch;

	*opt = (struct options){
		.mode = FXTRACE_MODE_STREAMING,
		.cpu_size = 1 << 20,
		.task_size = 1 << 20,
		.out = "fxtrace.fxt",
	};
	/* The config file first, wherever -C is: the command line wins. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, OPTSTRING, long_options,
				 NULL)) != -1)
		if (ch == 'C' && read_config(opt, optarg))
			return -EINVAL;
	optind = 0;
	opterr = 1;
	while ((ch = getopt_long(argc, argv, OPTSTRING, long_options,
				 NULL)) != -1) {
		switch (ch) {
		case 'C':
			break;
		case 'm':
			if (parse_mode(optarg, &opt->mode))
				return -EINVAL;
			break;
		case 'b':
		case 'B':
			if (parse_buffer_size(ch == 'b' ? "-b" : "-B", optarg,
					      ch == 'b' ? &opt->cpu_size :
					      &opt->task_size))
				return -EINVAL;
			break;
		case 'c':
			opt->categories = optarg;
			break;
		case 'P':
			if (add_probe(opt, optarg))
				return -EINVAL;
			break;
		case 'p':
			if (parse_pid(opt, optarg))
				return -EINVAL;
			break;
		case 'o':
			opt->out = optarg;
			break;
		case 'q':
			opt->quiet = true;
			break;
		case 'v':
			opt->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("fxtrace-drain (fxtrace) ABI %d.%d\n",
			       FXTRACE_ABI_MAJOR, FXTRACE_ABI_MINOR);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		opt->command = argv + optind;
	if (opt->filter_command && !opt->command) {
		fprintf(stderr, "fxtrace-drain: '-p command' needs a COMMAND\n");
		return -EINVAL;
	}
	return 0;
}

/* "a,b.*" to the ABI's list "a\0b.*\0". */
static char *category_list(const char *globs, size_t *size)
{
	char *list = strdup(globs), *p;

	if (!list)
		return NULL;
	for (p = list; *p; p++)
		if (*p == ',')
			*p = '\0';
	*size = strlen(globs) + 1;
	return list;
}

/*
 * Initialize found a session.  An orphan (its drainer was killed) stays
 * until someone adopts or terminates it: say exactly how.
 */
static void session_exists(struct drain *d)
{
	struct fxtrace_session_info info = { .size = sizeof(info) };

	if (ioctl(d->c.fd, FXTRACE_IOC_SESSION_INFO, &info) ||
	    !(info.flags & FXTRACE_SESSION_ORPHANED)) {
		fprintf(stderr, "fxtrace-drain: a session exists already, controlled by a running fxtrace-drain (uid %u): stop that one first (SIGINT, or 'fxtrace stop')\n",
			info.owner_uid);
		return;
	}
	fprintf(stderr,
		"fxtrace-drain: an orphaned session exists (uid %u; its drainer was killed).\n"
		"fxtrace-drain: 'fxtrace stop' discards it; 'fxtrace stop -o FILE' first saves what its buffers still hold;\n"
		"fxtrace-drain: 'fxtrace recover TRACE.fxt' cuts the killed drainer's file at its last flush.\n",
		info.owner_uid);
}

static int init_session(struct drain *d)
{
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = d->opt.mode,
		.cpu_buffer_size = d->opt.cpu_size,
		.task_buffer_size = d->opt.task_size,
		.filter_pid = d->opt.filter_command ? (__u32)d->child :
			      d->opt.filter_pid,
	};
	char *cats = NULL;
	size_t cats_size = 0;
	int ret;

	if (d->opt.categories && *d->opt.categories) {
		cats = category_list(d->opt.categories, &cats_size);
		if (!cats)
			return -ENOMEM;
		cfg.categories = (__u64)(uintptr_t)cats;
		cfg.categories_size = (__u32)cats_size;
	}
	ret = fxtctl_init(&d->c, &cfg);
	free(cats);
	if (ret == -EBUSY)
		session_exists(d);
	else if (ret == -EINVAL)
		fprintf(stderr, "fxtrace-drain: cannot initialize a session: %s (mode %s, buffers %llu and %llu bytes, %zu bytes of categories)\n",
			strerror(-ret), mode_names[d->opt.mode],
			(unsigned long long)d->opt.cpu_size,
			(unsigned long long)d->opt.task_size, cats_size);
	else if (ret)
		fprintf(stderr, "fxtrace-drain: cannot initialize a session: %s\n",
			strerror(-ret));
	return ret;
}

/*
 * The session clock now, in its ticks: CLOCK_MONOTONIC ns, or the TSC
 * extrapolated from the session page's (tsc, monotonic) reference pair.
 */
static uint64_t session_now(const struct drain *d)
{
	const struct fxtrace_session_page *page = d->c.page;
	uint64_t mono, seq, ref_tsc = 0, ref_ns = 0;
	struct timespec ts;
	int tries;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (page->clock != FXTRACE_CLOCK_TSC)
		return mono;
	/* The kernel rewrites the pair once a second: a few tries suffice. */
	for (tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&page->ref_seq, __ATOMIC_ACQUIRE);
		ref_tsc = page->ref_tsc;
		ref_ns = page->ref_monotonic_ns;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) &&
		    seq == __atomic_load_n(&page->ref_seq, __ATOMIC_RELAXED))
			break;
	}
	if (mono <= ref_ns)
		return ref_tsc;
	return ref_tsc + (uint64_t)((unsigned __int128)(mono - ref_ns) *
				    page->ticks_per_second / 1000000000ULL);
}

/* ---- the ring ----------------------------------------------------------- */

/* An SQE, after submitting what is queued when the ring is full. */
static struct io_uring_sqe *get_sqe(struct drain *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

	if (!sqe) {
		io_uring_submit(&d->ring);
		sqe = io_uring_get_sqe(&d->ring);
	}
	return sqe;
}

static void submit_packet_read(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_read(sqe, d->c.fd, d->packets, sizeof(d->packets), 0);
	io_uring_sqe_set_data(sqe, &d->packets_op);
}

static void submit_signal_read(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_read(sqe, d->sig_fd, &d->siginfo, sizeof(d->siginfo), 0);
	io_uring_sqe_set_data(sqe, &d->signal_op);
}

static void submit_tick(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_timeout(sqe, &d->tick, 0, 0);
	io_uring_sqe_set_data(sqe, &d->tick_op);
}

static void submit_probes_poll(struct drain *d)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_poll_add(sqe, fxtprobe_epoll_fd(d->probes), POLLIN);
	io_uring_sqe_set_data(sqe, &d->probes_op);
}

static void queue_push(struct op_queue *q, struct write_op *w)
{
	w->next = NULL;
	*q->tail = w;
	q->tail = &w->next;
}

static void queue_push_front(struct op_queue *q, struct write_op *w)
{
	w->next = q->head;
	if (!q->head)
		q->tail = &w->next;
	q->head = w;
}

static struct write_op *queue_pop(struct op_queue *q)
{
	struct write_op *w = q->head;

	q->head = w->next;
	if (!q->head)
		q->tail = &q->head;
	return w;
}

static void free_write_op(struct drain *d, struct write_op *w)
{
	chunk_free(&w->chunk);
	free(w);
	d->live_ops--;
}

/* The rest of w's chunk. */
static void submit_write(struct drain *d, struct write_op *w)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_write(sqe, d->out_fd, w->chunk.data + w->done,
			    (unsigned int)(w->chunk.len - w->done),
			    w->chunk.offset + w->done);
	io_uring_sqe_set_data(sqe, &w->write);
	d->inflight++;
}

static struct io_uring_sqe *submit_ack(struct drain *d, struct write_op *w)
{
	struct io_uring_sqe *sqe = get_sqe(d);

	io_uring_prep_write(sqe, d->c.fd, &w->pkt, sizeof(w->pkt), 0);
	io_uring_sqe_set_data(sqe, &w->ack);
	d->inflight++;
	return sqe;
}

/*
 * Publish the watermark if it has grown, with the acknowledgements of the
 * saves it covers linked after the mark's write: an ack runs only once a
 * mark covering its bytes is in the file.  A short or failed mark write
 * cancels them (they go with the next mark); between acks the links are
 * hard, so that an ack refused (its buffer released meanwhile) does not
 * cancel the others.  One mark write at a time, so that the mark in the
 * file never goes back.
 */
static void publish(struct drain *d)
{
	unsigned int space, link = IOSQE_IO_LINK;
	struct io_uring_sqe *sqe;
	uint64_t lo_ns, hi_ns;

	/* Acks a published mark covers already: one cancelled with its mark. */
	while (d->acks.head && d->acks.head->end <= d->published)
		submit_ack(d, queue_pop(&d->acks));
	if (d->mark_inflight || d->flushed <= d->published || d->error)
		return;
	flush_mark_write(d->mark, d->flushed);
	output_window_ns(&d->out, &lo_ns, &hi_ns);
	window_mark_write(d->mark + FLUSH_MARK_WORDS, lo_ns, hi_ns);
	d->publishing = d->flushed;
	d->mark_inflight = true;
	/* A chain ends with its submission: link only what fits in this one. */
	if (io_uring_sq_space_left(&d->ring) < 2)
		io_uring_submit(&d->ring);
	space = io_uring_sq_space_left(&d->ring);
	sqe = get_sqe(d);
	io_uring_prep_write(sqe, d->out_fd, d->mark, sizeof(d->mark),
			    FLUSH_MARK_OFFSET);
	io_uring_sqe_set_data(sqe, &d->mark_op);
	d->inflight++;
	while (--space && d->acks.head && d->acks.head->end <= d->publishing) {
		sqe->flags |= link;
		link = IOSQE_IO_HARDLINK;
		sqe = submit_ack(d, queue_pop(&d->acks));
	}
}

/* Move the watermark past the writes done, in file order. */
static void advance(struct drain *d)
{
	struct write_op *w;

	while (d->writes.head && d->writes.head->written) {
		w = queue_pop(&d->writes);
		if (w->end > d->flushed)
			d->flushed = w->end;
		if (w->has_ack) {
			chunk_free(&w->chunk);
			queue_push(&d->acks, w);
		} else {
			free_write_op(d, w);
		}
	}
	publish(d);
}

/* Queue chunk (taken over) and, when save is set, the ack of that save. */
static void queue_chunk(struct drain *d, struct chunk *chunk,
			const struct fxtrace_packet *save, uint64_t records)
{
	struct write_op *w;

	if (!chunk->len && !save) {
		chunk_free(chunk);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		/* The offset is taken: the watermark cannot pass it. */
		chunk_free(chunk);
		if (!d->error)
			d->error = -ENOMEM;
		return;
	}
	w->write.kind = OP_WRITE;
	w->ack.kind = OP_ACK;
	w->chunk = *chunk;
	/* An empty chunk's ack waits for everything queued before it. */
	w->start = chunk->len ? chunk->offset : d->out.offset;
	w->end = w->start + chunk->len;
	w->records = records;
	if (save) {
		w->has_ack = true;
		w->pkt = *save;
		w->pkt.request = FXTRACE_PKT_BUFFER_SAVED;
	}
	d->live_ops++;
	queue_push(&d->writes, w);
	if (chunk->len)
		submit_write(d, w);
	else
		w->written = true;
	advance(d);
}

static void on_write(struct drain *d, struct write_op *w, int res)
{
	d->inflight--;
	if (res > 0)
		w->done += (size_t)res;
	else if (res != -EAGAIN && res != -EINTR && !d->error)
		d->error = res ? res : -EIO;
	if (w->done < w->chunk.len) {
		/* Short write: the rest again.  After an error it never is. */
		if (!d->error)
			submit_write(d, w);
		return;
	}
	w->written = true;
	advance(d);
}

static void on_mark(struct drain *d, int res)
{
	d->inflight--;
	d->mark_inflight = false;
	if (res == (int)sizeof(d->mark))
		d->published = d->publishing;
	else if (res < 0 && res != -EAGAIN && res != -EINTR && !d->error)
		d->error = res;
	/* A short write is written again by publish(). */
	publish(d);
}

static void on_ack(struct drain *d, struct write_op *w, int res)
{
	struct drain_buffer *db;

	d->inflight--;
	if (res == -ECANCELED) {
		/* Its mark's write was short or failed: the next mark takes it. */
		queue_push_front(&d->acks, w);
		publish(d);
		return;
	}
	if (res < 0) {
		db = output_find(&d->out, w->pkt.data32);
		/* A buffer released meanwhile (and forgotten) needs no ack. */
		if (db && !db->released)
			fprintf(stderr, "fxtrace-drain: ack of buffer %u wrap %llu: %s\n",
				w->pkt.data32, (unsigned long long)w->pkt.data64,
				strerror(-res));
	} else if (d->opt.verbose) {
		fprintf(stderr, "fxtrace-drain: saved buffer %u wrap %llu: %llu records at 0x%llx-0x%llx, flushed to 0x%llx\n",
			w->pkt.data32, (unsigned long long)w->pkt.data64,
			(unsigned long long)w->records,
			(unsigned long long)w->start,
			(unsigned long long)w->end,
			(unsigned long long)d->published);
	}
	free_write_op(d, w);
}

/* ---- probes ------------------------------------------------------------- */

static void report_probe_error(void *ctx, const char *spec, int err,
			       const char *reason)
{
	(void)ctx;
	(void)err;
	fprintf(stderr, "fxtrace-drain: %s: cannot attach: %s\n", spec, reason);
}

static int chunk_write(void *chunk, const void *bytes, size_t len)
{
	return chunk_append(chunk, bytes, len);
}

/* The BPF clock's mapping to session ticks, from the session page. */
static void probes_clock(struct drain *d)
{
	struct fxtprobe_clock clock;

	if (!fxtprobe_clock_from_session(d->c.page, &clock))
		fxtprobe_set_clock(d->probes, &clock);
}

/*
 * Load and attach the probes (after Initialize: the session's clock and the
 * command's pid are known) and queue the provider's preamble.  A probe that
 * cannot attach is reported and the session goes on without it.
 */
static int open_probes(struct drain *d)
{
	struct fxtprobe_options popts = {
		.filter_tgid = d->opt.filter_command ? (uint32_t)d->child :
			       d->opt.filter_pid,
		.libbpf_warnings = d->opt.verbose,
	};
	struct fxtprobe *set = d->opt.probes;
	struct chunk chunk = { 0 };
	char err[512];
	size_t size;
	int attached;

	d->opt.probes = NULL;
	attached = fxtprobe_open(set, &popts, report_probe_error, NULL, err,
				 sizeof(err));
	if (attached <= 0) {
		if (attached < 0)
			fprintf(stderr, "fxtrace-drain: probes: %s\n", err);
		fprintf(stderr, "fxtrace-drain: no probe attached; tracing without probes\n");
		fxtprobe_close(set);
		return 0;
	}
	d->probes = set;
	probes_clock(d);
	size = fxtprobe_preamble_size(set);
	chunk.data = malloc(size);
	if (!chunk.data)
		return -ENOMEM;
	chunk.cap = size;
	chunk.len = fxtprobe_write_preamble(set, chunk.data, size);
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, 0);
	submit_probes_poll(d);
	return 0;
}

/* Every probe event waiting in the BPF ring buffer, into the file. */
static void consume_probes(struct drain *d)
{
	struct chunk chunk = { 0 };
	int ret = fxtprobe_consume(d->probes, chunk_write, &chunk);

	if (ret < 0) {
		chunk_free(&chunk);
		if (!d->error)
			d->error = ret;
		return;
	}
	d->probe_events += (uint64_t)ret;
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, (uint64_t)ret);
}

/* The last events, then the probes' drop counter. */
static void flush_probes(struct drain *d)
{
	struct chunk chunk = { 0 };
	int ret;

	consume_probes(d);
	ret = fxtprobe_write_drops(d->probes, chunk_write, &chunk);
	if (ret) {
		chunk_free(&chunk);
		if (!d->error)
			d->error = ret;
		return;
	}
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, 0);
}

/* ---- buffers ------------------------------------------------------------ */

static struct fxtctl_buffer *map_buffer(struct drain *d, __u32 id)
{
	struct fxtctl_buffer *b = fxtctl_buffer(&d->c, id);

	if (!b)
		fprintf(stderr, "fxtrace-drain: cannot map buffer %u: %s\n", id,
			strerror(errno));
	return b;
}

static void write_rest(struct drain *d, const struct fxtctl_buffer *b)
{
	struct chunk chunk;
	int ret = output_rest(&d->out, b, &chunk);

	if (ret) {
		if (!d->error)
			d->error = ret;
		return;
	}
	queue_chunk(d, &chunk, NULL, 0);
}

static void on_save(struct drain *d, const struct fxtrace_packet *pkt)
{
	struct fxtctl_buffer *b = map_buffer(d, pkt->data32);
	struct drain_buffer *db;
	struct fxtctl_span half;
	struct chunk chunk = { 0 };
	uint64_t records;
	int ret;

	if (!b)
		return;
	db = output_buffer(&d->out, b);
	if (!db) {
		d->error = -ENOMEM;
		return;
	}
	records = db->records;
	/* A half already written with the rest of its buffer needs only the ack. */
	if (pkt->data64 >= db->next_wrap) {
		half = fxtctl_save_span(b, pkt->data64);
		ret = output_half(&d->out, b, &half, &chunk);
		if (ret) {
			d->error = ret;
			return;
		}
	}
	queue_chunk(d, &chunk, pkt, db->records - records);
}

/* " (N reason, N reason)" for the refusals counted, "" for none. */
static void print_refusals(const uint64_t refused[REFUSED_COUNT],
			   uint64_t repaired)
{
	const char *sep = " (";
	unsigned int r;

	for (r = 0; r < REFUSED_COUNT; r++) {
		if (!refused[r])
			continue;
		fprintf(stderr, "%s%llu %s", sep, (unsigned long long)refused[r],
			refusal_names[r]);
		sep = ", ";
	}
	if (*sep == ',')
		fputc(')', stderr);
	if (repaired)
		fprintf(stderr, ", %llu names made valid UTF-8",
			(unsigned long long)repaired);
	fputc('\n', stderr);
}

/* What a buffer lost, when it lost any (the summary, or its retirement). */
static void report_buffer(const struct drain *d, const struct drain_buffer *db)
{
	if (d->opt.quiet || (!db->dropped && !db->invalid && !db->repaired))
		return;
	fprintf(stderr, "fxtrace-drain: buffer %u (%s): %llu records dropped %s, %llu invalid",
		db->id, db->name, (unsigned long long)db->dropped,
		db->kind == FXTRACE_BUFFER_TASK ? "as its producer reports" :
						  "by the kernel",
		(unsigned long long)db->invalid);
	print_refusals(db->refused, db->repaired);
}

/* The drop counter of db, into the file. */
static void write_drops(struct drain *d, struct drain_buffer *db)
{
	struct chunk chunk;

	if (output_drops(&d->out, db, &chunk)) {
		if (!d->error)
			d->error = -ENOMEM;
		return;
	}
	queue_chunk(d, &chunk, NULL, 0);
}

/*
 * A retired buffer: its rest and its drop counter go to the file, then its
 * memory (the kernel's and ours: the drainer's memory does not grow with
 * the threads that come and go).
 */
static void on_retired(struct drain *d, __u32 id)
{
	struct fxtctl_buffer *b = map_buffer(d, id);
	struct drain_buffer *db;
	int ret;

	if (!b)
		return;
	write_rest(d, b);
	db = output_find(&d->out, id);
	/* Our copy is made: the buffer's memory can go. */
	ret = fxtctl_release(&d->c, id);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: release of buffer %u: %s\n", id,
			strerror(-ret));
		return;
	}
	if (!db)
		return;
	db->released = true;
	write_drops(d, db);
	report_buffer(d, db);
	output_retire(&d->out, db);
}

/*
 * After the STOPPED packet: every buffer's rest, the probes' last events,
 * then the drop counters.
 */
static void final_flush(struct drain *d)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	struct drain_buffer *db;
	struct fxtctl_buffer *b;
	size_t pos = 0;

	output_set_now(&d->out, session_now(d));
	/* Ask the kernel, not our packets: a full queue loses packets. */
	while (!ioctl(d->c.fd, FXTRACE_IOC_BUFFER_INFO, &info)) {
		db = output_find(&d->out, info.id);
		if (!db || !db->released) {
			b = map_buffer(d, info.id);
			if (b)
				write_rest(d, b);
		}
		info.id++;
	}
	if (d->probes)
		flush_probes(d);
	while ((db = output_next(&d->out, &pos)))
		write_drops(d, db);
	d->state = FLUSHED;
}

static void on_packet(struct drain *d, const struct fxtrace_packet *pkt)
{
	struct fxtctl_buffer *b;

	switch (pkt->request) {
	case FXTRACE_PKT_BUFFER_ADDED:
		/* Read the provider name before a producer can overwrite it. */
		b = map_buffer(d, pkt->data32);
		if (b && !output_buffer(&d->out, b))
			d->error = -ENOMEM;
		break;
	case FXTRACE_PKT_SAVE_BUFFER:
		on_save(d, pkt);
		break;
	case FXTRACE_PKT_BUFFER_RETIRED:
		on_retired(d, pkt->data32);
		break;
	case FXTRACE_PKT_STOPPED:
		if (d->state != FLUSHED)
			final_flush(d);
		break;
	}
}

/* ---- stopping ----------------------------------------------------------- */

static void request_stop(struct drain *d)
{
	int ret;

	if (d->state != RUNNING)
		return;
	d->state = STOPPING;
	ret = fxtctl_stop(&d->c);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: stop: %s\n", strerror(-ret));
		final_flush(d);
	}
}

static void reap_child(struct drain *d)
{
	int status;

	if (d->child <= 0 || waitpid(d->child, &status, WNOHANG) != d->child)
		return;
	d->child = 0;
	d->child_status = status;
	request_stop(d);
}

/*
 * SIGUSR1 in a circular session: the flight recorder's snapshot.  Writers
 * pause (dropping and counting) while every buffer is copied into
 * OUT.<n>, each checked, so no copy is torn; then tracing goes on.
 */
static void snapshot(struct drain *d)
{
	struct fxtrace_buffer_info bi = { .size = sizeof(bi), .id = 1 };
	const __u64 magic = FXT_MAGIC_WORD;
	unsigned int kept = 0, left_out = 0;
	const struct fxtctl_buffer *b;
	char path[4096];
	uint64_t errors;
	int fd, ret;

	if (d->opt.mode != FXTRACE_MODE_CIRCULAR || d->state != RUNNING) {
		fprintf(stderr, "fxtrace-drain: SIGUSR1: snapshots are of running circular sessions\n");
		return;
	}
	ret = fxtctl_pause(&d->c);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: snapshot: pause: %s\n", strerror(-ret));
		return;
	}
	snprintf(path, sizeof(path), "%s.%u", d->opt.out, ++d->snapshots);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : 0;
	if (!ret && write(fd, &magic, sizeof(magic)) != sizeof(magic))
		ret = -EIO;
	while (!ret && !ioctl(d->c.fd, FXTRACE_IOC_BUFFER_INFO, &bi)) {
		b = fxtctl_buffer(&d->c, bi.id);
		ret = b ? fxtctl_write_buffer(fd, b, &errors) : -errno;
		if (ret == 0) {
			fprintf(stderr, "fxtrace-drain: snapshot: buffer %u has %llu errors; left out\n",
				bi.id, (unsigned long long)errors);
			left_out++;
		} else if (ret == 1) {
			kept++;
			ret = 0;
		}
		bi.id++;
	}
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (fxtctl_resume(&d->c))
		fprintf(stderr, "fxtrace-drain: snapshot: resume: %s\n", strerror(errno));
	if (ret)
		fprintf(stderr, "fxtrace-drain: snapshot %s: %s\n", path, strerror(-ret));
	else
		fprintf(stderr, "fxtrace-drain: snapshot %u: %u buffers written to %s, %u left out\n",
			d->snapshots, kept, path, left_out);
}

static void on_signal(struct drain *d)
{
	switch (d->siginfo.ssi_signo) {
	case SIGCHLD:
		reap_child(d);
		break;
	case SIGINT:
	case SIGTERM:
		request_stop(d);
		break;
	case SIGUSR1:
		snapshot(d);
		break;
	}
}

/* ---- progress and summary ----------------------------------------------- */

/* Records, bytes and invalid records written so far. */
static void totals(const struct drain *d, uint64_t *records, uint64_t *bytes,
		   uint64_t *invalid)
{
	struct kind_totals t;
	unsigned int k;

	*records = *bytes = *invalid = 0;
	for (k = 0; k < KIND_COUNT; k++) {
		output_totals(&d->out, k, &t);
		*records += t.records;
		*bytes += t.bytes;
		*invalid += t.invalid;
	}
}

/*
 * Drops so far, as the writers count them now: the kernel's in its
 * headers, and apart, the producers' own counts in their control pages
 * (untrusted: each bounded, never added to the kernel's).
 */
static void live_drops(const struct drain *d, uint64_t *kernel,
		       uint64_t *producers)
{
	uint64_t n;
	size_t i;

	*kernel = *producers = 0;
	for (i = 0; i < d->c.nbufs; i++) {
		const struct fxtctl_buffer *b = &d->c.bufs[i];

		if (b->kind != FXTRACE_BUFFER_TASK) {
			*kernel += __atomic_load_n(&b->hdr->dropped_records,
						   __ATOMIC_RELAXED);
			continue;
		}
		n = __atomic_load_n(&b->ctl->dropped_records, __ATOMIC_RELAXED);
		*producers += n < PRODUCER_DROPS_MAX ? n : PRODUCER_DROPS_MAX;
	}
}

static void show_progress(struct drain *d)
{
	uint64_t records, bytes, invalid, kernel, producers;

	totals(d, &records, &bytes, &invalid);
	live_drops(d, &kernel, &producers);
	fprintf(stderr, "\r[ fxtrace-drain: %llu records/s, %.1f MB written, %zu buffers, %llu dropped, %llu reported by producers, %llu invalid ]   ",
		(unsigned long long)(records - d->progress_records),
		(double)bytes / 1e6, d->c.nbufs, (unsigned long long)kernel,
		(unsigned long long)producers, (unsigned long long)invalid);
	d->progress_records = records;
}

static void probes_summary(const struct fxtprobe *set, uint64_t events)
{
	struct fxtprobe_drops drops;
	size_t i, attached = 0;

	for (i = 0; i < fxtprobe_count(set); i++)
		attached += fxtprobe_attached(set, i);
	fxtprobe_drops(set, &drops);
	fprintf(stderr, "fxtrace-drain: probes %zu of %zu attached, %llu events, %llu dropped (ring full), %llu invalid\n",
		attached, fxtprobe_count(set), (unsigned long long)events,
		(unsigned long long)drops.ring_full,
		(unsigned long long)drops.invalid);
}

/* CPU time of the drainer's threads (io-wq workers included), seconds. */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void summary(const struct drain *d)
{
	const struct drain_buffer *db;
	struct kind_totals t;
	struct timespec now;
	double seconds, cpu;
	size_t pos = 0;
	unsigned int k;

	if (d->progress)
		fputc('\n', stderr);
	/* Retired buffers were reported as they retired. */
	while ((db = output_next(&d->out, &pos)))
		report_buffer(d, db);
	clock_gettime(CLOCK_MONOTONIC, &now);
	seconds = (double)(now.tv_sec - d->started.tv_sec) +
		  (double)(now.tv_nsec - d->started.tv_nsec) / 1e9;
	cpu = cpu_seconds() - d->cpu_at_start;
	fprintf(stderr, "fxtrace-drain: %s session, %.3f s, %llu bytes written to %s\n",
		mode_names[d->opt.mode], seconds,
		(unsigned long long)d->out.offset, d->opt.out);
	/* CPU use since Start: the cost of draining, not of loading probes. */
	fprintf(stderr, "fxtrace-drain: %.3f s CPU (%.1f%% of one CPU), %.1f MB/s written\n",
		cpu, seconds > 0 ? 100 * cpu / seconds : 0,
		seconds > 0 ? (double)d->out.offset / seconds / 1e6 : 0);
	for (k = 1; k < KIND_COUNT; k++) {
		output_totals(&d->out, k, &t);
		/* A producer's drop count is its own word: never the kernel's. */
		fprintf(stderr, "fxtrace-drain: %-6s %u buffers, %llu records, %llu bytes, %llu %s, %llu invalid",
			kind_names[k], t.buffers, (unsigned long long)t.records,
			(unsigned long long)t.bytes,
			(unsigned long long)t.dropped,
			k == FXTRACE_BUFFER_TASK ? "dropped as producers report" :
						   "dropped",
			(unsigned long long)t.invalid);
		print_refusals(t.refused, t.repaired);
	}
	output_report_lost(&d->out, stderr);
	if (d->probes)
		probes_summary(d->probes, d->probe_events);
}

/* ---- the loop ----------------------------------------------------------- */

static void on_cqe(struct drain *d, struct io_uring_cqe *cqe)
{
	struct op *op = io_uring_cqe_get_data(cqe);
	int res = cqe->res, i;

	switch (op->kind) {
	case OP_PACKETS:
		if (res < 0 && res != -EINTR && res != -EAGAIN) {
			if (!d->error)
				d->error = res;
			return;
		}
		/* What producers wrote until now is inside the window. */
		output_set_now(&d->out, session_now(d));
		for (i = 0; i < res / (int)sizeof(struct fxtrace_packet); i++)
			on_packet(d, &d->packets[i]);
		if (d->state != FLUSHED)
			submit_packet_read(d);
		return;
	case OP_SIGNAL:
		if (res == sizeof(d->siginfo))
			on_signal(d);
		else if (res != -EINTR && res != -EAGAIN && !d->error)
			d->error = res < 0 ? res : -EIO;
		if (!d->error)
			submit_signal_read(d);
		return;
	case OP_WRITE:
		on_write(d, (struct write_op *)((char *)op -
						offsetof(struct write_op, write)),
			 res);
		return;
	case OP_ACK:
		on_ack(d, (struct write_op *)((char *)op -
					      offsetof(struct write_op, ack)),
		       res);
		return;
	case OP_FLUSH_MARK:
		on_mark(d, res);
		return;
	case OP_TICK:
		if (d->progress)
			show_progress(d);
		/* The kernel refreshes the reference pair once a second too. */
		if (d->probes)
			probes_clock(d);
		if (d->state == RUNNING)
			submit_tick(d);
		return;
	case OP_PROBES:
		/* After the final flush, the probes' records are complete. */
		if (d->state == FLUSHED)
			return;
		if (res < 0 && res != -EINTR && res != -EAGAIN) {
			if (!d->error)
				d->error = res;
			return;
		}
		consume_probes(d);
		submit_probes_poll(d);
		return;
	}
}

static int run_loop(struct drain *d)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int ret;

	while (!(d->state == FLUSHED && !d->live_ops && !d->inflight &&
		 d->published == d->flushed)) {
		if (d->error && !d->inflight)
			break;
		ret = io_uring_submit_and_wait(&d->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;
		n = 0;
		io_uring_for_each_cqe(&d->ring, head, cqe) {
			on_cqe(d, cqe);
			n++;
		}
		io_uring_cq_advance(&d->ring, n);
		/* A fatal error: stop the session so that what is left is saved. */
		if (d->error && d->state == RUNNING)
			request_stop(d);
	}
	return d->error;
}

/*
 * Fork the command now and hold it before exec until the session has
 * started: its pid can then be the syscall filter, and its first
 * instruction is traced.  *release is the pipe end whose byte lets it go;
 * closing it without a byte makes the child exit 127.
 */
static pid_t spawn_held(char **argv, const sigset_t *oldmask, int *release)
{
	const char *base;
	int gate[2];
	char go;
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(gate[0]);
		close(gate[1]);
		return -1;
	}
	if (pid) {
		close(gate[0]);
		*release = gate[1];
		return pid;
	}
	close(gate[1]);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	/*
	 * The name exec will give it, now: Start records the names of every
	 * task, and this one would otherwise be "fxtrace-drain" in the trace.
	 */
	base = strrchr(argv[0], '/');
	prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
	if (read(gate[0], &go, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "fxtrace-drain: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int setup(struct drain *d, sigset_t *oldmask, int *release)
{
	sigset_t mask, blocked;
	int ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR1);
	/* A child that dies before its release must not kill us with SIGPIPE. */
	blocked = mask;
	sigaddset(&blocked, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &blocked, oldmask))
		return -errno;
	/* Non-blocking: io_uring then polls it instead of using io-wq. */
	d->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sig_fd < 0)
		return -errno;
	if (d->opt.command) {
		d->child = spawn_held(d->opt.command, oldmask, release);
		if (d->child < 0) {
			ret = -errno;
			fprintf(stderr, "fxtrace-drain: fork: %s\n", strerror(-ret));
			return ret;
		}
	}
	ret = fxtctl_open(&d->c);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: %s: %s%s\n", FXTRACE_DEVICE,
			strerror(-ret), ret == -ENOENT ?
			" (the module is not loaded: 'sudo insmod kmod/fxtrace.ko' in the source tree, or 'sudo modprobe fxtrace' where it is installed)" :
			ret == -EACCES ? " (tracing needs CAP_PERFMON, or root)" : "");
		return ret;
	}
	ret = io_uring_queue_init(RING_ENTRIES, &d->ring, 0);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: io_uring: %s\n", strerror(-ret));
		return ret;
	}
	d->ring_ready = true;
	d->out_fd = open(d->opt.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			 0644);
	if (d->out_fd < 0) {
		ret = -errno;
		fprintf(stderr, "fxtrace-drain: %s: %s\n", d->opt.out,
			strerror(-ret));
		return ret;
	}
	return init_session(d);
}

/* A command's wait status as a shell reports it. */
static int exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Write ops an error left behind. */
static void free_queue(struct drain *d, struct op_queue *q)
{
	while (q->head)
		free_write_op(d, queue_pop(q));
}

/*
 * Everything after Initialize, up to the end of the loop.  The caller ends
 * the session whatever this returns.
 */
static int trace(struct drain *d, int *release)
{
	struct chunk magic;
	int ret;

	/* The window opens before the probes and Start: nothing is older. */
	output_init(&d->out, d->c.page->ticks_per_second, session_now(d));
	d->out.verbose = d->opt.verbose;
	ret = output_magic(&d->out, &magic);
	if (!ret) {
		queue_chunk(d, &magic, NULL, 0);
		ret = d->error;
	}
	if (!ret && d->opt.probes)
		ret = open_probes(d);
	if (!ret)
		ret = d->error;
	if (ret) {
		fprintf(stderr, "fxtrace-drain: %s\n", strerror(-ret));
		return ret;
	}
	submit_packet_read(d);
	submit_signal_read(d);
	d->progress = !d->opt.quiet && isatty(STDERR_FILENO);
	if (d->progress || d->probes)
		submit_tick(d);
	clock_gettime(CLOCK_MONOTONIC, &d->started);
	d->cpu_at_start = cpu_seconds();
	ret = fxtctl_start(&d->c, FXTRACE_START_CLEAR_ALL);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: start: %s\n", strerror(-ret));
		return ret;
	}
	d->running = true;
	if (*release >= 0) {
		/* It fails only if the child is gone: SIGCHLD then stops us. */
		if (write(*release, "g", 1) != 1)
			fprintf(stderr, "fxtrace-drain: cannot release %s: %s\n",
				d->opt.command[0], strerror(errno));
		close(*release);
		*release = -1;
	}
	ret = run_loop(d);
	if (ret)
		fprintf(stderr, "fxtrace-drain: %s\n", strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct drain *d = calloc(1, sizeof(*d));
	sigset_t oldmask;
	int release = -1, ret, status;

	if (!d)
		return 1;
	d->out_fd = d->sig_fd = -1;
	d->c.fd = -1;
	d->writes.tail = &d->writes.head;
	d->acks.tail = &d->acks.head;
	if (parse_options(&d->opt, argc, argv))
		return 2;
	d->packets_op.kind = OP_PACKETS;
	d->signal_op.kind = OP_SIGNAL;
	d->tick_op.kind = OP_TICK;
	d->mark_op.kind = OP_FLUSH_MARK;
	d->probes_op.kind = OP_PROBES;
	d->tick.tv_sec = 1;
	ret = setup(d, &oldmask, &release);
	if (!ret) {
		ret = trace(d, &release);
		/*
		 * Whatever failed, the session goes: one left behind would
		 * be an orphan the next drainer finds (EBUSY).
		 */
		if (d->ring_ready)
			io_uring_queue_exit(&d->ring);
		d->ring_ready = false;
		if (fxtctl_terminate(&d->c))
			fprintf(stderr, "fxtrace-drain: terminate: %s\n",
				strerror(errno));
	}
	if (d->ring_ready)
		io_uring_queue_exit(&d->ring);
	if (release >= 0) {
		/* A command never released exits 127 (spawn_held). */
		close(release);
		waitpid(d->child, NULL, 0);
	}
	free_queue(d, &d->writes);
	free_queue(d, &d->acks);
	if (d->running && !d->opt.quiet)
		summary(d);
	if (d->child_status && WIFEXITED(d->child_status))
		fprintf(stderr, "fxtrace-drain: %s exited with status %d\n",
			d->opt.command[0], WEXITSTATUS(d->child_status));
	status = d->child_status;
	fxtctl_close(&d->c);
	fxtprobe_close(d->probes);
	fxtprobe_close(d->opt.probes);
	output_free(&d->out);
	if (d->out_fd >= 0)
		close(d->out_fd);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	free(d->opt.config_strings[0]);
	free(d->opt.config_strings[1]);
	free(d);
	return ret ? 1 : exit_status(status);
}
