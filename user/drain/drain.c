// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain: the session controller.  It initializes and starts a
 * session, runs a command or waits for SIGINT, SIGTERM or SIGHUP, and
 * streams every buffer into one FXT file.
 *
 * Its parts (drainer.h): this file holds main, the session, its packets
 * and signals; loop.c the io_uring loop with the flush watermark and the
 * acks; options.c the command line and config file; probes.c the BPF
 * probes' events; progress.c the progress line and the summary; pty.c
 * the terminal of a -u command.  The records themselves are checked and
 * built by output.c (drain.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>

#include "drainer.h"
#include "output_file.h"
#include "signal_relay.h"
#include "trace_keep.h"

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
	char *cats = NULL, path[32];
	size_t cats_size = 0;
	int ret;

	/*
	 * Before the Initialize takes the process: a number given meanwhile
	 * to another process leaves filter_proc naming none, not a stranger.
	 */
	if (cfg.filter_pid) {
		snprintf(path, sizeof(path), "/proc/%u", cfg.filter_pid);
		d->filter_proc = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
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
	else if (ret == -ESRCH && !d->opt.filter_command)
		fprintf(stderr, "fxtrace-drain: cannot initialize a session: -p %u names no process (a thread other than a process's first names none)\n",
			cfg.filter_pid);
	else if (ret)
		fprintf(stderr, "fxtrace-drain: cannot initialize a session: %s\n",
			strerror(-ret));
	return ret;
}

/* The session clock now, in its ticks (fxtctl_now()). */
uint64_t session_now(const struct drain *d)
{
	return fxtctl_now(&d->c);
}

static struct fxtctl_buffer *map_buffer(struct drain *d, __u32 id)
{
	struct fxtctl_buffer *b = fxtctl_buffer(&d->c, id);
	int err = errno;

	if (!b) {
		fprintf(stderr, "fxtrace-drain: cannot map buffer %u: %s\n", id,
			strerror(err));
		/* Its records would be lost: no exit 0 after that. */
		if (err == ENOMEM && !d->error)
			d->error = -ENOMEM;
		/* The caller's to judge (on_retired()), past fprintf(). */
		errno = err;
	}
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

/*
 * The module asked at ns (0: unknown) for half wrap of db: the time since
 * its request before, if that was of the half before, is how long the
 * producer took to fill this one.
 */
static void note_request(struct drain *d, struct drain_buffer *db,
			 uint64_t wrap, uint64_t ns)
{
	struct save_timing *t = &d->timing[db->kind < KIND_COUNT ? db->kind : 0];

	if (ns && db->request_ns && wrap == db->request_wrap + 1 &&
	    ns > db->request_ns &&
	    (!t->fill_ns_min || ns - db->request_ns < t->fill_ns_min))
		t->fill_ns_min = ns - db->request_ns;
	db->request_wrap = wrap;
	db->request_ns = ns;
	d->save.requested = ns;
	d->save_kind = db->kind < KIND_COUNT ? db->kind : 0;
}

/*
 * The user of the process the pid filter names, as fxtrace.ko's shares
 * see it when the buffer of a user not yet traced is charged: with
 * `record -u USER` the command takes USER's uid after the Start.  Asked
 * once per new buffer; kept as it was once the process is gone, whose
 * status then cannot be read through d->filter_proc, whoever has its pid.
 */
static bool same_ns(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev;
}

/*
 * The user fxtrace.ko charges the filter's process to, as it traces it
 * (fxt_cred_owner()): uid, its real uid as the drainer's (initial) user
 * namespace shows it, unless the process is in a user namespace below one
 * a user other than root made directly in the drainer's: then that user,
 * whose subordinate uids share its shares (Documentation/uapi.rst,
 * "Limits and the security model").  When the namespaces cannot be read,
 * uid: stricter, never more lenient.
 */
static unsigned int filter_charged_uid(struct drain *d, unsigned int uid)
{
	struct stat self, ns;
	int fd, parent;
	uid_t owner;

	if (stat("/proc/self/ns/user", &self))
		return uid;
	fd = openat(d->filter_proc, "ns/user", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return uid;
	/* Bounded: user namespaces nest at most 32 deep. */
	while (!fstat(fd, &ns) && !same_ns(&ns, &self) &&
	       (parent = ioctl(fd, NS_GET_PARENT)) >= 0) {
		if (!fstat(parent, &ns) && same_ns(&ns, &self)) {
			if (!ioctl(fd, NS_GET_OWNER_UID, &owner) && owner)
				uid = owner;
			close(parent);
			break;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	return uid;
}

static void note_filter_user(struct drain *d, const struct fxtctl_buffer *b)
{
	char line[256];
	unsigned int uid;
	FILE *status;
	int fd;

	if (!b || b->kind != FXTRACE_BUFFER_TASK || d->filter_proc < 0 ||
	    b->hdr->header_size < offsetof(struct fxtrace_buffer_header,
					   owner_uid) + sizeof(__u32) ||
	    output_user_traced(&d->out, b->hdr->owner_uid))
		return;
	fd = openat(d->filter_proc, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	status = fdopen(fd, "r");
	if (!status) {
		close(fd);
		return;
	}
	/* The read of a process gone since the open fails (ESRCH). */
	while (fgets(line, sizeof(line), status))
		if (sscanf(line, "Uid: %u", &uid) == 1) {
			output_traced_users(&d->out, d->out.traced_users[0],
					    filter_charged_uid(d, uid));
			break;
		}
	fclose(status);
}

/*
 * Process pid's start time (proc(5), /proc/PID/stat field 22, clock
 * ticks since boot), 0 if it cannot be read (gone, or a pid of another
 * namespace): output.process_start.  The header's pid is of the init
 * namespace, the drainer's /proc too.  Read whole, not by line: the
 * comm is the process's to set, newlines included.
 */
static uint64_t proc_start_time(uint32_t pid)
{
	char path[32], text[1024];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (len < sizeof(text) - 1 &&
	       (n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	text[len] = '\0';
	return proc_stat_start(text);
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
	if (!output_find(&d->out, b->id))
		note_filter_user(d, b);
	db = output_buffer(&d->out, b);
	if (!db) {
		d->error = -ENOMEM;
		return;
	}
	records = db->records;
	note_request(d, db, pkt->data64, fxtctl_save_requested_ns(b, pkt->data64));
	d->save.waiting = d->waiting_ns;
	d->save.read = d->packets_read_ns;
	d->save.started = monotonic_ns();
	/* A half already written with the rest of its buffer needs only the ack. */
	if (pkt->data64 >= db->next_wrap) {
		half = fxtctl_save_span(b, pkt->data64);
		ret = output_half(&d->out, b, &half, &chunk);
		if (ret) {
			d->error = ret;
			return;
		}
	}
	d->save.judged = monotonic_ns();
	queue_chunk(d, &chunk, pkt, db->records - records);
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
 * the threads that come and go).  One the drainer cannot map for want of
 * memory (mmap()'s ENOMEM or EAGAIN) stays listed, its records in the
 * kernel, for one more try at the next snapshot or at Stop (last_try);
 * any other failure, or the last try's, releases it unread.
 */
static void on_retired(struct drain *d, __u32 id, bool last_try)
{
	bool keep = d->opt.mode == FXTRACE_MODE_CIRCULAR;
	struct fxtctl_buffer *b = map_buffer(d, id);
	struct drain_buffer *db = output_find(&d->out, id);
	struct chunk chunk;
	uint64_t lost;
	int ret;

	if (!b && !last_try && (errno == ENOMEM || errno == EAGAIN) &&
	    d->unread_count < UNREAD_RETRIES) {
		d->unread_ids[d->unread_count++] = id;
		fprintf(stderr, "fxtrace-drain: buffer %u retired unread: kept listed, tried again at the next snapshot or at Stop\n",
			id);
		return;
	}
	if (!b) {
		/* Unknown or a task buffer: the snapshots' counts say it. */
		if (keep && (!db || db->kind == FXTRACE_BUFFER_TASK))
			retired_lose(&d->retired);
		/*
		 * Released unread: kept, it would hold its memory and its
		 * place in max_task_buffers until Stop, and be skipped by
		 * every snapshot.
		 */
		ret = fxtctl_release(&d->c, id);
		if (ret)
			fprintf(stderr, "fxtrace-drain: release of buffer %u: %s\n",
				id, strerror(-ret));
		else
			fprintf(stderr, "fxtrace-drain: buffer %u retired unread: released, its records lost\n",
				id);
		return;
	}
	/* The snapshots' copy, before the kernel's memory goes. */
	if (keep && b->kind == FXTRACE_BUFFER_TASK) {
		lost = d->retired.lost;
		ret = output_retired_rest(&d->out, &d->retired, b, &chunk);
		/* Told by the count: output_rest() has its own -ENOMEM. */
		if (d->retired.lost != lost)
			fprintf(stderr, "fxtrace-drain: buffer %u retired: no memory for its snapshot copy\n",
				id);
		if (ret) {
			if (!d->error)
				d->error = ret;
		} else {
			queue_chunk(d, &chunk, NULL, 0);
		}
	} else {
		write_rest(d, b);
	}
	db = output_find(&d->out, id);
	/* Our copies are made: the buffer's memory can go. */
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

/* The retired buffers not mapped for want of memory: their last try. */
static void retry_unread(struct drain *d)
{
	unsigned int i, count = d->unread_count;

	d->unread_count = 0;
	for (i = 0; i < count; i++)
		on_retired(d, d->unread_ids[i], true);
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
	retry_unread(d);
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

void on_packet(struct drain *d, const struct fxtrace_packet *pkt)
{
	struct fxtctl_buffer *b;

	switch (pkt->request) {
	case FXTRACE_PKT_BUFFER_ADDED:
		/* Read the provider name before a producer can overwrite it. */
		b = map_buffer(d, pkt->data32);
		note_filter_user(d, b);
		if (b && !output_buffer(&d->out, b))
			d->error = -ENOMEM;
		break;
	case FXTRACE_PKT_SAVE_BUFFER:
		on_save(d, pkt);
		break;
	case FXTRACE_PKT_BUFFER_RETIRED:
		on_retired(d, pkt->data32, false);
		break;
	case FXTRACE_PKT_STOPPED:
		if (d->state != FLUSHED)
			final_flush(d);
		break;
	}
}

void request_stop(struct drain *d)
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
	/* Its pty's output is copied out, then nothing reaches root's terminal. */
	pty_command_done(&d->pty);
	request_stop(d);
}

/*
 * Send the command signo: a -u command's process group, the job its
 * terminal's Ctrl-C would reach (sudo relays to it too).  Its setsid()
 * may come after the session started (initgroups() can wait on a
 * directory service): until then it has no group of its own, and is in
 * the drainer's, so it alone gets it.  1 if its group got it, 0 if it
 * alone did, -1 (errno set) if it did not.
 */
static int signal_command(const struct drain *d, int signo)
{
	if (d->opt.user_name && !kill(-d->child, signo))
		return 1;
	return kill(d->child, signo);
}

/*
 * SIGUSR1 in a circular session: the flight recorder's snapshot, to
 * OUT.<n> through the same checks as the trace (output_session()): the
 * kept copies of retired buffers, then, while the writers pause (dropping
 * and counting), every live buffer, so no copy is torn and no record the
 * trace would refuse gets in (a buffer it cannot map is skipped and
 * counted); then tracing goes on.  OUT.<n> is a new
 * file: numbers already taken (an earlier run's snapshots, or a name
 * planted there) are skipped.
 */
static void snapshot(struct drain *d)
{
	struct kind_totals t;
	uint64_t refused = 0;
	struct output o;
	char path[4096];
	unsigned int k, not_mapped = 0;
	int fd, ret;

	if (d->opt.mode != FXTRACE_MODE_CIRCULAR || d->state != RUNNING) {
		fprintf(stderr, "fxtrace-drain: SIGUSR1: snapshots are of running circular sessions\n");
		return;
	}
	/* Copied and released, or released lost: counted before the line. */
	retry_unread(d);
	output_init(&o, d->out.ticks_per_second, session_now(d));
	output_traced_users(&o, d->out.traced_users[0], d->out.traced_users[1]);
	o.window_lo = d->out.window_lo;
	o.shared_flows = d->out.shared_flows;
	do {
		if (snprintf(path, sizeof(path), "%s.%u", d->opt.out,
			     ++d->snapshots) >= (int)sizeof(path)) {
			fd = -ENAMETOOLONG;
			break;
		}
		fd = fxtctl_create_output(path, FXTCTL_OUTPUT_EXCL);
	} while (fd == -EEXIST);
	ret = fd < 0 ? fd : output_session(&o, &d->c, &d->retired, true, fd,
					   &not_mapped);
	if (fd >= 0 && close(fd) && ret >= 0)
		ret = -errno;
	for (k = 0; k < KIND_COUNT; k++) {
		output_totals(&o, k, &t);
		refused += t.invalid;
	}
	output_free(&o);
	if (ret < 0)
		fprintf(stderr, "fxtrace-drain: snapshot %s: %s%s\n", path,
			strerror(-ret), fxtctl_output_refusal(ret));
	else
		fprintf(stderr, "fxtrace-drain: snapshot %u: %d buffers written to %s, %u not mapped, %llu records refused; retired buffers: %u kept, %llu evicted, %llu lost\n",
			d->snapshots, ret, path, not_mapped,
			(unsigned long long)refused,
			d->retired.held,
			(unsigned long long)retired_evicted(&d->retired),
			(unsigned long long)d->retired.lost);
}

/*
 * Whether a SIGINT, SIGTERM or SIGHUP is a copy of one taken before, told
 * by who sent it, not by when (a loaded machine delays a copy by any
 * time): a terminal's Ctrl-C reaches the whole job, `fxtrace record` and
 * the drainer, from the kernel (SI_KERNEL), and record passes its own on,
 * as a relay (signal_relay.h) naming the kernel as its origin; a signal to
 * the job's process group (timeout(1)'s, `kill -INT -PGID`) reaches both
 * from one pid.  So a relay from the drainer's parent and a signal sent
 * directly from its origin are one signal: each pairs with at most one
 * of the other, in either order.  Two from one sender that came the same
 * way are always two (a second Ctrl-C, a second `kill`).  A copy is
 * neither passed on to a -u command nor counted as a further signal: a
 * command that stops gracefully on the first SIGINT and dies of the
 * second is not killed by one Ctrl-C.
 */
static bool copy_of_signal(struct drain *d, int signo, pid_t origin,
			   bool relayed)
{
	struct unpaired_signals *u;

	u = &d->unpaired[signo == SIGINT ? 0 : signo == SIGTERM ? 1 : 2];
	if (u->count && u->origin == origin && u->relayed != relayed) {
		u->count--;
		return true;
	}
	/* Another sender's: the copies of the one before are not coming. */
	if (u->origin != origin || u->relayed != relayed) {
		u->origin = origin;
		u->relayed = relayed;
		u->count = 0;
	}
	u->count++;
	return false;
}

/*
 * The SIGINT, SIGTERM or SIGHUP that signal raw (with its siginfo's code,
 * pid and value) brings, itself or relayed by record (SIGNAL_RELAY), when
 * it is not a copy of one taken before; 0 otherwise.  SIGNAL_RELAY not
 * from the drainer's parent, or not tagged, is no relay: said, and
 * ignored (its default action would have killed the drainer).
 */
static int stop_signal(struct drain *d, int raw, int code, pid_t pid,
		       int value)
{
	bool relayed = raw == SIGNAL_RELAY;
	int signo = raw;
	pid_t origin;

	if (!relayed) {
		origin = signal_origin(code, pid);
	} else {
		signo = code == SI_QUEUE && pid == getppid() ?
			signal_relay_decode(value, &origin) : 0;
		if (!signo) {
			fprintf(stderr, "fxtrace-drain: signal %d from pid %d ignored: not a relay of fxtrace record's\n",
				raw, (int)pid);
			return 0;
		}
	}
	return copy_of_signal(d, signo, origin, relayed) ? 0 : signo;
}

/*
 * A further signal (not a copy) after the one that stopped the session:
 * the user means it, and the command is left running once the trace is
 * written, without the wait for it (end_command()).
 */
static void further_signal(struct drain *d, int signo)
{
	if (!d->stop_signal)
		d->stop_signal = signo;
	else if (!d->left_signal)
		d->left_signal = signo;
}

void on_signal(struct drain *d)
{
	int signo = (int)d->siginfo.ssi_signo;

	if (signo == SIGCHLD) {
		reap_child(d);
		return;
	}
	if (signo == SIGUSR1) {
		snapshot(d);
		return;
	}
	signo = stop_signal(d, signo, d->siginfo.ssi_code,
			    (pid_t)d->siginfo.ssi_pid, d->siginfo.ssi_int);
	if (!signo)
		return;
	/* A -u command is in a session of its own, away from them. */
	if (d->opt.user_name && d->child > 0)
		signal_command(d, signo);
	further_signal(d, signo);
	request_stop(d);
}

/*
 * -u USER, in the held child (the drainer is root, parse_options() made
 * sure): USER's supplementary groups, group and uid, and nothing of root's
 * that the command could use against it or the drainer.
 */
static int become_user(const struct options *opt, const struct cmd_pty *pty)
{
	struct __user_cap_header_struct cap_hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2];

	/*
	 * A session of its own: root's controlling terminal is not its to
	 * type into (TIOCSTI) or take the foreground of; the drainer passes
	 * it SIGINT, SIGTERM and SIGHUP.
	 */
	if (setsid() < 0)
		goto fail;
	/*
	 * Its pty, if root's terminal was one of its fds (pty.c): what it
	 * leaves behind must not keep that terminal.
	 */
	if (pty_attach(pty)) {
		fprintf(stderr, "fxtrace-drain: -u %s: cannot make the pseudo-terminal its terminal: %s\n",
			opt->user_name, strerror(errno));
		return -1;
	}
	if (initgroups(opt->user_name, opt->user_gid) ||
	    setgid(opt->user_gid) || setuid(opt->user_uid))
		goto fail;
	/*
	 * No capability kept (a securebit set by whoever started us).  The
	 * inheritable set survives setuid(): exec would give the command
	 * what a file's inheritable capabilities name in it.
	 */
	if (opt->user_uid) {
		if (syscall(SYS_capget, &cap_hdr, caps))
			goto fail;
		if (caps[0].permitted || caps[1].permitted) {
			fprintf(stderr, "fxtrace-drain: -u %s: capabilities kept after setuid(); not running the command\n",
				opt->user_name);
			return -1;
		}
		caps[0].inheritable = caps[1].inheritable = 0;
		if (syscall(SYS_capset, &cap_hdr, caps))
			goto fail;
	}
	/* Root's session keyring is not its to read. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS)
		goto fail;
	if (setenv("HOME", opt->user_home, 1) ||
	    setenv("USER", opt->user_name, 1) ||
	    setenv("LOGNAME", opt->user_name, 1))
		goto fail;
	if (access(FXTRACE_DEVICE, R_OK | W_OK))
		fprintf(stderr, "fxtrace-drain: -u %s: %s: %s: its libfxtrace events are not recorded (Documentation/install.rst, the fxtrace group)\n",
			opt->user_name, FXTRACE_DEVICE, strerror(errno));
	return 0;
fail:
	fprintf(stderr, "fxtrace-drain: -u %s: %s\n", opt->user_name,
		strerror(errno));
	return -1;
}

/*
 * Fork the command now, as opt's user if it names one, and hold it before
 * exec until the session has started: its pid can then be the syscall
 * filter, and its first instruction is traced.  *release is the pipe end
 * whose byte lets it go; closing it without a byte makes the child exit
 * 127.
 */
static pid_t spawn_held(const struct options *opt, struct cmd_pty *pty,
			const sigset_t *oldmask, int *release)
{
	struct sigaction ignored = { .sa_handler = SIG_IGN }, ttou;
	char **argv = opt->command;
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
		pty_forked(pty);
		return pid;
	}
	close(gate[1]);
	/*
	 * Until it leaves the drainer's job (setsid()), a SIGTTOU the relay
	 * makes the kernel send that job (pty.c, set_in_foreground()) must
	 * not stop it: ignored, which drops one pending too, then restored.
	 */
	sigaction(SIGTTOU, &ignored, &ttou);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	/*
	 * The name exec will give it, now: Start records the names of every
	 * task, and this one would otherwise be "fxtrace-drain" in the trace.
	 */
	base = strrchr(argv[0], '/');
	prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
	if (opt->user_name && become_user(opt, pty))
		_exit(127);
	if (read(gate[0], &go, 1) != 1)
		_exit(127);
	sigaction(SIGTTOU, &ttou, NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "fxtrace-drain: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* CAP_SYS_NICE is in the drainer's effective set (capget()). */
static bool has_sys_nice(void)
{
	struct __user_cap_header_struct cap_hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2];

	if (syscall(SYS_capget, &cap_hdr, caps))
		return false;
	return caps[CAP_TO_INDEX(CAP_SYS_NICE)].effective &
	       CAP_TO_MASK(CAP_SYS_NICE);
}

/*
 * The drainer is in the initial user namespace, whose uid_map maps every
 * uid to itself.  Unreadable, it is taken to be: that is what capget()
 * then says.
 */
static bool in_initial_user_ns(void)
{
	unsigned long inner, outer, count;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool initial;

	if (!f)
		return true;
	initial = fscanf(f, "%lu %lu %lu", &inner, &outer, &count) == 3 &&
		  !inner && !outer && count == 4294967295UL;
	fclose(f);
	return initial;
}

/*
 * Why SCHED_FIFO at prio was refused with EPERM, as far as the drainer can
 * tell, after the message: the kernel lets it with CAP_SYS_NICE in the
 * initial user namespace (capable(), so another namespace's counts for
 * nothing) or an RLIMIT_RTPRIO of at least prio, so the hint names
 * whichever of those is missing.  With either present, something else
 * refused: a seccomp filter (systemd's RestrictRealtime= is one that
 * returns EPERM), a security module, or a cgroup with no real-time
 * runtime.
 */
static void rt_priority_refusal(int prio)
{
	static const char other[] = "a seccomp filter, e.g. systemd's RestrictRealtime=, a security module or a cgroup without real-time runtime";
	bool nice = has_sys_nice(), ns_nice = nice && !in_initial_user_ns();
	struct rlimit rl;

	if (nice && !ns_nice) {
		fprintf(stderr, " (refused by the system although the drainer has CAP_SYS_NICE: %s)",
			other);
		return;
	}
	if (getrlimit(RLIMIT_RTPRIO, &rl))
		return;
	if (rl.rlim_cur == RLIM_INFINITY)
		fprintf(stderr, " (refused by the system although the drainer's RLIMIT_RTPRIO is unlimited: %s)",
			other);
	else if (rl.rlim_cur >= (rlim_t)prio)
		fprintf(stderr, " (refused by the system although the drainer's RLIMIT_RTPRIO is %llu: %s)",
			(unsigned long long)rl.rlim_cur, other);
	else if (ns_nice)
		fprintf(stderr, " (SCHED_FIFO needs CAP_SYS_NICE in the initial user namespace or an RLIMIT_RTPRIO of at least %d; the drainer has CAP_SYS_NICE only in a user namespace and an RLIMIT_RTPRIO of %llu: ulimit -r)",
			prio, (unsigned long long)rl.rlim_cur);
	else
		fprintf(stderr, " (SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least %d; the drainer has no CAP_SYS_NICE and an RLIMIT_RTPRIO of %llu: ulimit -r)",
			prio, (unsigned long long)rl.rlim_cur);
}

/*
 * -r: the drainer, once the command is forked, runs as SCHED_FIFO, so that
 * a save is not kept waiting behind the runnable tasks of its CPU while
 * the producer fills its other half (trace-cmd record -r does the same
 * for its readers).  SCHED_RESET_ON_FORK: a task it forks later, and
 * io_uring's workers, do not inherit it.
 */
static int set_rt_priority(int prio)
{
	struct sched_param param = { .sched_priority = prio };
	int err;

	if (!prio)
		return 0;
	if (!sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param))
		return 0;
	err = errno;
	fprintf(stderr, "fxtrace-drain: -r %d: %s", prio, strerror(err));
	if (err == EPERM)
		rt_priority_refusal(prio);
	fputc('\n', stderr);
	return -err;
}

static bool sighup_ignored(void)
{
	struct sigaction sa;

	return !sigaction(SIGHUP, NULL, &sa) && sa.sa_handler == SIG_IGN;
}

static int setup(struct drain *d, sigset_t *oldmask, int *release)
{
	sigset_t mask, blocked;
	struct statfs fs;
	struct stat st;
	int ret;

	/*
	 * SIGCHLD ignored on entry (SIG_IGN survives exec) would have the
	 * kernel reap the command unseen: no SIGCHLD, waitpid() ECHILD, a
	 * session that outlives it and its status lost.  The command gets
	 * the default too, as perf record's workload.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	/*
	 * A closed terminal: a default SIGHUP would leave an orphan.  One
	 * ignored on entry (nohup, or `fxtrace record` under it) stays
	 * ignored, for the drainer and its command, as nohup asks: blocked,
	 * it would reach the signalfd all the same and stop the session.
	 */
	if (!sighup_ignored())
		sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR1);
	/* `fxtrace record`'s relays (signal_relay.h). */
	sigaddset(&mask, SIGNAL_RELAY);
	/*
	 * A child that dies before its release must not kill us with SIGPIPE,
	 * nor an output that ends (a FIFO's reader gone, RLIMIT_FSIZE:
	 * SIGXFSZ) leave the session orphaned: the write fails instead
	 * (EPIPE, EFBIG), and the session ends with the file cut whole.
	 */
	blocked = mask;
	sigaddset(&blocked, SIGPIPE);
	sigaddset(&blocked, SIGXFSZ);
	/*
	 * Nor does a message to a terminal whose job is in the background
	 * with `stty tostop` stop the drainer (SIGTTOU, blocked: the write
	 * goes through): a -u command runs in a session of its own and goes
	 * on, and its records would be dropped until `fg`.  As the relay
	 * writes its output (pty.c).  A command without -u shares the job,
	 * and its own writes stop it as they would.
	 */
	sigaddset(&blocked, SIGTTOU);
	if (sigprocmask(SIG_BLOCK, &blocked, oldmask))
		return -errno;
	/* Blocked by record before exec, so none is lost; not the command's. */
	sigdelset(oldmask, SIGNAL_RELAY);
	/* Non-blocking: io_uring then polls it instead of using io-wq. */
	d->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sig_fd < 0)
		return -errno;
	if (d->opt.command) {
		/*
		 * A -u command run from a terminal gets a pty of its own;
		 * without it, it does not run.
		 */
		if (d->opt.user_name &&
		    pty_setup(&d->pty, d->opt.user_name, d->opt.user_uid))
			return -EIO;
		d->child = spawn_held(&d->opt, &d->pty, oldmask, release);
		if (d->child < 0) {
			/* Its gate (a pipe: RLIMIT_NOFILE) or the fork. */
			ret = -errno;
			fprintf(stderr, "fxtrace-drain: cannot run %s: %s\n",
				d->opt.command[0], strerror(-ret));
			return ret;
		}
	}
	ret = set_rt_priority(d->opt.rt_priority);
	if (ret)
		return ret;
	ret = fxtctl_open(&d->c);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: %s: %s%s\n", FXTRACE_DEVICE,
			strerror(-ret), fxtctl_open_refusal(ret));
		return ret;
	}
	ret = io_uring_queue_init(RING_ENTRIES, &d->ring, 0);
	if (ret) {
		fprintf(stderr, "fxtrace-drain: io_uring: %s\n", strerror(-ret));
		return ret;
	}
	d->ring_ready = true;
	/*
	 * Pipes and devices (-o /dev/null) stay possible.  Not truncated
	 * before the session is ours (trace()): a drainer that finds one
	 * (EBUSY) must leave the running or killed drainer's file alone.
	 */
	d->out_fd = fxtctl_create_output(d->opt.out, FXTCTL_OUTPUT_STREAM |
					 FXTCTL_OUTPUT_KEEP);
	if (d->out_fd < 0) {
		ret = d->out_fd;
		fprintf(stderr, "fxtrace-drain: %s: %s%s\n", d->opt.out,
			strerror(-ret), fxtctl_output_refusal(ret));
		return ret;
	}
	/* As `fxtrace record -o`: a finished trace is replaced, not these. */
	if (trace_keep_recoverable("fxtrace-drain", "-o", d->opt.out,
				   d->out_fd, FXTRACE_KEEP_UNFINISHED))
		return -EEXIST;
	/* Pipes and devices are written through the ring (loop.c). */
	d->write_inline = !fstat(d->out_fd, &st) && S_ISREG(st.st_mode);
	/* A stream into memory: its pages are allocated ahead (loop.c). */
	d->reserve = d->write_inline && d->opt.mode == FXTRACE_MODE_STREAMING &&
		     !fstatfs(d->out_fd, &fs) && fs.f_type == TMPFS_MAGIC;
	return init_session(d);
}

/*
 * Tracing failed (the output is full, say) while the command runs: wait for
 * it, as for a trace that worked, so that `fxtrace record -- make` returns
 * when make has finished, and says how it ended.  SIGINT, SIGTERM and
 * SIGHUP end the wait and leave the command running (a terminal's Ctrl-C
 * reaches it directly); a -u command, in a session of its own, is passed
 * the first of them with its process group, as while tracing, and the
 * wait goes on until it exits or another one comes: a command that ignores them does not keep the
 * drainer for ever.
 */
static void wait_command(struct drain *d)
{
	struct timespec second = { .tv_sec = 1 };
	bool passed = false;
	sigset_t mask;
	siginfo_t si;
	int status, sent, signo;
	pid_t w;

	fprintf(stderr, "fxtrace-drain: not tracing any more; waiting for %s (pid %d) to exit\n",
		d->opt.command[0], (int)d->child);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGNAL_RELAY);
	for (;;) {
		w = waitpid(d->child, &status, WNOHANG);
		if (w == d->child) {
			d->child = 0;
			d->child_status = status;
			pty_command_done(&d->pty);
			return;
		}
		if (w < 0 && errno != EINTR)
			return;
		/* A second at most: a SIGCHLD read by the loop is gone. */
		if (sigtimedwait(&mask, &si, &second) < 0 ||
		    si.si_signo == SIGCHLD)
			continue;
		signo = stop_signal(d, si.si_signo, si.si_code, si.si_pid,
				    si.si_value.sival_int);
		if (!signo)
			continue;
		if (d->opt.user_name && !passed) {
			sent = signal_command(d, signo);
			passed = true;
			if (sent < 0)
				fprintf(stderr, "fxtrace-drain: SIG%s to %s (pid %d): %s; waiting for it to exit, or for another SIGINT, SIGTERM or SIGHUP to leave it running\n",
					sigabbrev_np(signo),
					d->opt.command[0], (int)d->child,
					strerror(errno));
			else
				fprintf(stderr, "fxtrace-drain: SIG%s passed on to %s (pid %d%s); waiting for it to exit, or for another SIGINT, SIGTERM or SIGHUP to leave it running\n",
					sigabbrev_np(signo),
					d->opt.command[0], (int)d->child,
					sent ? " and its process group" : "");
			continue;
		}
		fprintf(stderr, "fxtrace-drain: %s: %s left running (pid %d)\n",
			strsignal(signo), d->opt.command[0], (int)d->child);
		return;
	}
}

/* A command's wait status as a shell reports it. */
static int exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * How long a command still running once the trace is written has to exit
 * on its own before it is sent SIGTERM: the signal that stopped the
 * session may have reached it too (a shell's Ctrl-C reaches the whole
 * job), and make, a shell or python, catching it, exit a moment later.
 */
#define GRACE_NS	500000000ULL

/*
 * Wait ns (0: for ever) for the command to exit: true once it is reaped,
 * or once a further SIGINT, SIGTERM or SIGHUP (not a copy of one before)
 * leaves it running (d->left_signal), passed on to a -u command's process
 * group first; false when the time is up.
 */
static bool wait_exit(struct drain *d, uint64_t ns)
{
	uint64_t now = monotonic_ns(), until = ns ? now + ns : 0, rest;
	struct timespec left;
	sigset_t mask;
	siginfo_t si;
	int status, signo;
	pid_t w;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGNAL_RELAY);
	for (;;) {
		w = waitpid(d->child, &status, WNOHANG);
		if (w == d->child) {
			d->child = 0;
			d->child_status = status;
			pty_command_done(&d->pty);
			return true;
		}
		if (w < 0 && errno != EINTR) {
			d->child = 0;
			return true;
		}
		now = monotonic_ns();
		if (until && now >= until)
			return false;
		/* A second at most: a SIGCHLD read by the loop is gone. */
		rest = until && until - now < 1000000000ULL ? until - now :
							      1000000000ULL;
		left.tv_sec = (time_t)(rest / 1000000000ULL);
		left.tv_nsec = (long)(rest % 1000000000ULL);
		if (sigtimedwait(&mask, &si, &left) < 0 ||
		    si.si_signo == SIGCHLD)
			continue;
		signo = stop_signal(d, si.si_signo, si.si_code, si.si_pid,
				    si.si_value.sival_int);
		if (!signo)
			continue;
		/* As while tracing: a -u command's job gets it too. */
		if (d->opt.user_name)
			signal_command(d, signo);
		d->left_signal = signo;
		return true;
	}
}

/*
 * A signal stopped the session and the trace is written: a command still
 * running is ended as perf record ends its workload.  It may have caught
 * the same signal and be exiting: GRACE_NS for that, then SIGTERM, and
 * the drainer waits for it.  A -u command leads a process group of its
 * own, the job its terminal's signals would reach, and the group gets it
 * (signal_command());
 * any other command shares the drainer's group (and record's, and the
 * shell's), and it alone gets it, as perf's workload.  Another SIGINT,
 * SIGTERM or SIGHUP ends the wait: a command that ignores SIGTERM does not
 * keep the drainer for ever; one that came before the wait (a second
 * Ctrl-C while the trace was written) leaves it running at once.
 */
static void end_command(struct drain *d)
{
	int sent, status;

	if (d->child <= 0 || !d->stop_signal)
		return;
	if (d->left_signal) {
		if (waitpid(d->child, &status, WNOHANG) == d->child) {
			d->child = 0;
			d->child_status = status;
			pty_command_done(&d->pty);
		}
		return;
	}
	if (wait_exit(d, GRACE_NS))
		return;
	sent = signal_command(d, SIGTERM);
	if (sent < 0)
		fprintf(stderr, "fxtrace-drain: SIGTERM to %s (pid %d): %s\n",
			d->opt.command[0], (int)d->child, strerror(errno));
	else
		fprintf(stderr, "fxtrace-drain: SIGTERM to %s (pid %d%s): still running %llu ms after the trace was written\n",
			d->opt.command[0], (int)d->child,
			sent ? " and its process group" : "",
			GRACE_NS / 1000000ULL);
	wait_exit(d, 0);
}

/*
 * A command left running (another signal ended the wait for it) gives
 * the status of an interrupted run, 128+N for that signal, as perf
 * record's: not 0, which would say that the command succeeded.
 */
static int command_status(const struct drain *d)
{
	int signo = d->left_signal ? d->left_signal : d->stop_signal;

	if (d->child <= 0 || !signo)
		return exit_status(d->child_status);
	fprintf(stderr, "fxtrace-drain: %s: %s left running (pid %d)\n",
		strsignal(signo), d->opt.command[0], (int)d->child);
	return 128 + signo;
}

/*
 * A write of the output failed (a full disk, the file size limit, a pipe
 * whose reader left): say so, naming the file, and leave a trace that is
 * whole.  Nothing after the published flush mark was acknowledged, and a
 * regular file is cut there, as `fxtrace recover` would: what remains
 * passes `fxtrace check --strict` (shrinking a file needs no space).
 */
static void output_lost(struct drain *d)
{
	int err = -d->out_error;

	fprintf(stderr, "fxtrace-drain: %s: cannot write at 0x%llx: %s%s; tracing stopped\n",
		d->opt.out, (unsigned long long)d->out_error_offset,
		strerror(err), err == EPIPE ? " (its reader is gone)" :
			       err == EFBIG ? " (the file size limit, ulimit -f)" : "");
	if (!d->write_inline)
		return;
	/* Its pages allocated ahead go too (tmpfs). */
	d->reserve = false;
	d->reserved = 0;
	if (ftruncate(d->out_fd, (off_t)d->published)) {
		fprintf(stderr, "fxtrace-drain: %s: cannot cut it at its flush mark 0x%llx: %s; 'fxtrace recover %s' does\n",
			d->opt.out, (unsigned long long)d->published,
			strerror(errno), d->opt.out);
		return;
	}
	if (d->published)
		fprintf(stderr, "fxtrace-drain: %s: cut at its flush mark, 0x%llx bytes: a whole trace of the saves written until then, without the rest of the session\n",
			d->opt.out, (unsigned long long)d->published);
	else
		fprintf(stderr, "fxtrace-drain: %s: nothing of the trace could be written\n",
			d->opt.out);
}

/*
 * Everything after Initialize, up to the end of the loop.  The caller ends
 * the session whatever this returns.
 */
static int trace(struct drain *d, int *release)
{
	struct chunk magic;
	int ret, released;

	if (d->write_inline && ftruncate(d->out_fd, 0)) {
		ret = -errno;
		fprintf(stderr, "fxtrace-drain: %s: %s\n", d->opt.out,
			strerror(-ret));
		return ret;
	}
	/* The window opens before the probes and Start: nothing is older. */
	output_init(&d->out, d->c.page->ticks_per_second, session_now(d));
	/*
	 * fxtrace.ko traces the initializer's work as it charges it: by its
	 * real uid (a set-user-ID drainer runs for its caller).  The drainer
	 * is in the initial user namespace (Initialize takes CAP_PERFMON
	 * there), where that is the header's owner_uid.
	 */
	output_traced_users(&d->out, getuid(), NO_USER);
	d->out.verbose = d->opt.verbose;
	d->out.shared_flows = d->opt.shared_flows;
	d->out.process_start = proc_start_time;
	d->retired.budget = d->opt.snapshot_retired;
	ret = d->write_inline ? output_magic(&d->out, &magic) :
				output_magic_unmarked(&d->out, &magic);
	if (!ret) {
		queue_chunk(d, &magic, NULL, 0);
		ret = d->error;
	}
	if (!ret && d->opt.probes)
		ret = open_probes(d);
	if (!ret)
		ret = d->error;
	if (ret) {
		if (d->out_error)
			output_lost(d);
		else
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
	if (d->out_error)
		output_lost(d);
	released = release_reserved(d);
	if (!ret)
		ret = released;
	if (ret && !d->out_error)
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
	d->out_fd = d->sig_fd = d->filter_proc = -1;
	d->c.fd = -1;
	pty_init(&d->pty);
	d->writes.tail = &d->writes.head;
	d->acks.tail = &d->acks.head;
	if (parse_options(&d->opt, argc, argv))
		return 2;
	d->packets_op.kind = OP_PACKETS;
	d->signal_op.kind = OP_SIGNAL;
	d->tick_op.kind = OP_TICK;
	d->probes_op.kind = OP_PROBES;
	d->probes_retry_op.kind = OP_PROBES_RETRY;
	d->tick.tv_sec = 1;
	d->probes_retry.tv_nsec = PROBES_RETRY_NS;
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
	} else if (ret && d->child > 0) {
		wait_command(d);
	} else if (!ret) {
		end_command(d);
	}
	/* Root's terminal back as it was, before the summary goes there. */
	pty_end(&d->pty);
	free_queue(d, &d->writes);
	free_queue(d, &d->acks);
	if (d->running && !d->opt.quiet)
		summary(d);
	if (d->child_status && WIFEXITED(d->child_status))
		fprintf(stderr, "fxtrace-drain: %s exited with status %d\n",
			d->opt.command[0], WEXITSTATUS(d->child_status));
	status = ret ? 1 : command_status(d);
	fxtctl_close(&d->c);
	fxtprobe_close(d->probes);
	fxtprobe_close(d->opt.probes);
	output_free(&d->out);
	retired_free(&d->retired);
	if (d->out_fd >= 0)
		close(d->out_fd);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->filter_proc >= 0)
		close(d->filter_proc);
	free(d->opt.config_strings[0]);
	free(d->opt.user_name);
	free(d->opt.user_home);
	free(d->opt.config_strings[1]);
	free(d);
	return status;
}
