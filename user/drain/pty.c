// SPDX-License-Identifier: GPL-2.0
/*
 * The pseudo-terminal of a -u command run from a terminal, as sudo's
 * use_pty does.  The command gets a pty of its own as its controlling
 * terminal and as those of fds 0-2 that were terminals; a relay process
 * (root, in the drainer's process group) copies root's typing to the pty
 * and the pty's output to root's terminal until the command has exited.
 * A process the command leaves behind then holds only the pty, which
 * nobody reads or writes any more: it cannot read what root types next
 * (passwords) nor write to root's terminal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "pty.h"

/*
 * What the relay copies out once the command has exited, at most: a
 * leftover that writes without end must not keep the drainer waiting.
 */
#define FINAL_OUTPUT_MAX	(1 << 20)

/*
 * How often a relay that does not read the terminal (its job in the
 * background) checks whether it is in the foreground now: a shell's fg of
 * a job that runs sends no SIGCONT.
 */
#define FOLLOW_JOB_MS		100

struct relay {
	int master, slave, done, sig;
	int in;			/* root's terminal to read; -1: not (now) */
	int out;		/* root's terminal to write; -1: not (any more) */
	char in_buf[4096];	/* typed, not yet taken by the master */
	size_t in_len, in_off;
};

static void unmap_state(struct cmd_pty *p)
{
	if (p->state)
		munmap(p->state, sizeof(*p->state));
	p->state = NULL;
}

void pty_init(struct cmd_pty *p)
{
	p->master = p->slave = p->done = p->term = -1;
	p->relay = 0;
	p->typed = false;
	p->state = NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The slave of master, opened through the master, not through a name. */
static int open_slave(int master)
{
	char name[64];
	int ret;

#ifdef TIOCGPTPEER
	ret = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (ret >= 0 || (errno != EINVAL && errno != ENOTTY))
		return ret;
#endif
	ret = ptsname_r(master, name, sizeof(name));
	if (ret) {
		errno = ret;
		return -1;
	}
	return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

/* Whether fd's access mode allows reading (O_RDONLY) or writing (O_WRONLY). */
static bool open_for(int fd, int mode)
{
	int flags = fcntl(fd, F_GETFL);

	return flags >= 0 && ((flags & O_ACCMODE) == mode ||
			      (flags & O_ACCMODE) == O_RDWR);
}

/* Whether the drainer's job is in the foreground of the terminal typed on. */
static bool foreground(const struct cmd_pty *p)
{
	return p->typed && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

static void sigttou_caught(int sig)
{
	(void)sig;
}

/*
 * Whether another job is in the foreground of root's terminal: its
 * settings are the shell's then.  Not when none is (the drainer, a
 * session leader, was killed).
 */
static bool others_foreground(const struct cmd_pty *p)
{
	pid_t fg = tcgetpgrp(p->term);

	return fg > 0 && fg != getpgrp();
}

/*
 * Root's terminal set to t only while the drainer's job is in its
 * foreground (or none is); in the background its settings are the
 * shell's.  Callers look first (no signal then), but a job stopped after
 * that and resumed with bg would set the shell's terminal (raw): the
 * kernel checks again at the call.  SIGTTOU, blocked in the drainer and
 * the relay so that their writes go through, is caught around it, so that
 * in the background the call sends it to the job (stopping a `fxtrace
 * record` that waits for the drainer, as any background tcsetattr()
 * would) and fails (EINTR) instead of applying t.
 */
static bool set_in_foreground(const struct cmd_pty *p, const struct termios *t)
{
	struct sigaction caught = { .sa_handler = sigttou_caught }, old;
	sigset_t ttou, mask;
	int ret;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	/* No SA_RESTART: a restart would send it again, and again. */
	sigaction(SIGTTOU, &caught, &old);
	sigprocmask(SIG_UNBLOCK, &ttou, &mask);
	ret = tcsetattr(p->term, TCSADRAIN, t);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	sigaction(SIGTTOU, &old, NULL);
	return !ret;
}

/* Root's terminal in raw mode, but for its output processing; true if made so. */
static bool make_raw(const struct cmd_pty *p)
{
	struct termios t = p->state->saved;

	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR |
				 IGNCR | ICRNL | IXON | IXOFF);
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	/*
	 * c_oflag stays: the drainer's progress line and summary go to this
	 * terminal too, and their '\n' needs ONLCR.  The pty's output has
	 * been through the pty's own ONLCR: "\r\r\n" looks the same.
	 */
	return set_in_foreground(p, &t);
}

static void restore(const struct cmd_pty *p)
{
	set_in_foreground(p, &p->state->saved);
}

/*
 * Typing is relayed while the drainer's job is in the foreground only, as
 * sudo does: in the background (`record ... &`) the terminal's input and
 * settings are the shell's.  At the start, on each SIGCONT (a shell's bg,
 * and its fg of a stopped job: resumed), and every FOLLOW_JOB_MS while not
 * reading.  Unlike sudo's, a relay in the background never reads (SIGTTIN
 * would stop the job): typing meant for the shell does not stop the
 * tracing.
 */
static void follow_job(struct relay *r, struct cmd_pty *p, bool resumed)
{
	struct termios t;

	if (!foreground(p)) {
		/* The shell saved the job's settings and set its own. */
		r->in = -1;
		p->state->raw = false;
		return;
	}
	/*
	 * A job stopped in the foreground (kill -TSTP) finds the shell's
	 * settings at its fg (bash sets its own when a job stops), not raw:
	 * made raw again, as sudo does on SIGCONT.
	 */
	if (r->in >= 0 && !resumed)
		return;
	/*
	 * Started in the background: the pty has the settings of the
	 * shell's line editor perhaps.  Those the shell gives the job in
	 * the foreground are the ones to restore, and the pty's: kept once
	 * the terminal was made raw in the foreground (read again if the job
	 * went to the background meanwhile, when they may be the shell's).
	 */
	if (!p->state->saved_in_fg && tcgetattr(p->term, &p->state->saved))
		return;
	/*
	 * A terminal that cannot be made raw is not read (nor by sudo): its
	 * Ctrl-C stays a signal to the drainer, which passes it on.  raw is
	 * set first: a relay killed inside make_raw() may leave it raw.
	 */
	p->state->raw = true;
	p->state->raw = make_raw(p);
	r->in = p->state->raw ? STDIN_FILENO : -1;
	if (p->state->raw && !p->state->saved_in_fg) {
		t = p->state->saved;
		t.c_cc[VSUSP] = _POSIX_VDISABLE;
		tcsetattr(r->slave, TCSANOW, &t);
		p->state->saved_in_fg = true;
	}
}

static void to_terminal(struct relay *r, const char *buf, size_t len)
{
	ssize_t n;

	struct pollfd pfd;

	while (len && r->out >= 0) {
		n = write(r->out, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		/*
		 * Root's terminal non-blocking (a program before left it so:
		 * the flag is the shell's too) and full: wait, as a blocking
		 * write would, rather than drop the rest of the output.
		 */
		if (n < 0 && errno == EAGAIN) {
			pfd = (struct pollfd){ .fd = r->out, .events = POLLOUT };
			poll(&pfd, 1, -1);
			continue;
		}
		/* Hung up: the rest is dropped, the command is not held. */
		if (n <= 0) {
			r->out = -1;
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Some of the pty's output; false once it has none left (or none now). */
static bool from_master(struct relay *r)
{
	char buf[4096];
	ssize_t n = read(r->master, buf, sizeof(buf));

	if (n > 0) {
		to_terminal(r, buf, (size_t)n);
		return true;
	}
	/* EIO: no slave is open (the relay holds one: an error). */
	if (n == 0 || (errno != EINTR && errno != EAGAIN))
		r->master = -1;
	return false;
}

static void from_terminal(struct relay *r)
{
	ssize_t n = read(r->in, r->in_buf, sizeof(r->in_buf));

	if (n > 0) {
		r->in_len = (size_t)n;
		r->in_off = 0;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		/* EIO: in the background (SIGTTIN blocked); follow_job() resumes. */
		r->in = -1;
	}
}

static void to_master(struct relay *r)
{
	ssize_t n = write(r->master, r->in_buf + r->in_off,
			  r->in_len - r->in_off);

	if (n > 0)
		r->in_off += (size_t)n;
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		r->in_off = r->in_len;
	if (r->in_off == r->in_len)
		r->in_len = r->in_off = 0;
}

/*
 * SIGCONT: the job was moved (fg, bg).  SIGWINCH, or a job resumed: root's
 * terminal may have changed size, and so does the pty.
 */
static void on_signals(struct relay *r, struct cmd_pty *p)
{
	struct signalfd_siginfo si;
	bool resumed = false;
	struct winsize ws;

	while (read(r->sig, &si, sizeof(si)) == sizeof(si))
		resumed |= si.ssi_signo == SIGCONT;
	if (resumed)
		follow_job(r, p, true);
	if (!ioctl(p->term, TIOCGWINSZ, &ws))
		ioctl(r->master, TIOCSWINSZ, &ws);
}

/* Every fd but 0-2 and keep[0..n) (the relay holds nothing else of the drainer). */
static void close_others(int *keep, int n)
{
	unsigned int from = 3;
	int i, j, t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_range(from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	close_range(from, ~0U, 0);
}

/*
 * The relay, forked by the drainer: root, in root's session and process
 * group.  SIGINT, SIGTERM and SIGHUP stay blocked as the drainer left
 * them: it ends when the drainer closes done (or dies), so that root's
 * terminal is restored on every way out of the drainer.
 */
static _Noreturn void relay_main(struct cmd_pty *p, int done)
{
	struct relay r = {
		.master = p->master, .slave = p->slave, .done = done,
		.in = -1, .out = -1,
	};
	/*
	 * The slave too, while it relays: a command that closes its fds on
	 * the pty (exec </dev/null with its output in a file) would hang the
	 * master up (EIO), and what it then writes to /dev/tty (a password
	 * prompt), or what root types (Ctrl-C), would not be relayed any more.
	 */
	int keep[3] = { p->master, done, p->slave };
	static const int order[3] = { STDOUT_FILENO, STDERR_FILENO, STDIN_FILENO };
	struct pollfd pfd[4];
	size_t copied = 0;
	sigset_t mask;
	int fd, ready;

	prctl(PR_SET_NAME, "fxtrace-relay");
	close_others(keep, 3);
	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	/* Blocked, it still continues the relay; the signalfd tells of it. */
	sigaddset(&mask, SIGCONT);
	r.sig = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	/*
	 * No stop of the whole job for a read of the terminal in the
	 * background (EIO instead), nor for the settings it makes raw just
	 * as the job is put there.
	 */
	sigaddset(&mask, SIGTTIN);
	sigaddset(&mask, SIGTTOU);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (fcntl(r.master, F_SETFL, O_NONBLOCK))
		r.master = -1;
	follow_job(&r, p, false);
	/*
	 * The first of stdout, stderr and stdin that is a terminal open for
	 * writing (`1</dev/tty` is not): the command's output, or at least
	 * the pty's echo of the typing.
	 */
	for (fd = 0; fd < 3 && r.out < 0; fd++)
		if (p->on_tty[order[fd]] && open_for(order[fd], O_WRONLY))
			r.out = order[fd];

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = r.done, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = r.sig, .events = POLLIN };
		pfd[2] = (struct pollfd){
			.fd = r.master,
			.events = POLLIN | (r.in_len ? POLLOUT : 0),
		};
		/* One buffer of typing at a time: the command may not read. */
		pfd[3] = (struct pollfd){
			.fd = r.in_len ? -1 : r.in, .events = POLLIN,
		};
		ready = poll(pfd, 4, p->typed && r.in < 0 ? FOLLOW_JOB_MS : -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!ready)
			follow_job(&r, p, false);
		if (pfd[1].revents)
			on_signals(&r, p);
		if (pfd[3].revents)
			from_terminal(&r);
		if (r.master >= 0 && (pfd[2].revents & POLLOUT))
			to_master(&r);
		if (r.master >= 0 &&
		    (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)))
			from_master(&r);
		if (pfd[0].revents)
			break;
	}
	/*
	 * The command has exited (or the drainer is gone): what it wrote is
	 * in the master (a read runs the pty's pending work first).
	 */
	while (r.master >= 0 && copied < FINAL_OUTPUT_MAX && from_master(&r))
		copied += 4096;
	/* Not over the shell's own settings, if the job is in the background now. */
	if (p->state->raw && !others_foreground(p))
		restore(p);
	_exit(0);
}

int pty_setup(struct cmd_pty *p, const char *user, uid_t uid)
{
	struct stat st;
	struct termios t;
	struct winsize ws;
	const char *what;
	int fd, done[2];

	for (fd = 0; fd < 3; fd++) {
		p->on_tty[fd] = isatty(fd);
		if (p->on_tty[fd] && p->term < 0)
			p->term = fd;
	}
	if (p->term < 0)
		return 0;
	what = "cannot share the terminal's state with its relay";
	p->state = mmap(NULL, sizeof(*p->state), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->state == MAP_FAILED) {
		p->state = NULL;
		goto fail;
	}
	what = "cannot read the terminal's settings";
	if (tcgetattr(p->term, &p->state->saved) ||
	    ioctl(p->term, TIOCGWINSZ, &ws) ||
	    fstat(p->term, &st))
		goto fail;
	p->term_rdev = st.st_rdev;
	/*
	 * Typing is relayed from a stdin that can be read (`0>/dev/tty`
	 * cannot: the terminal is then left as it is, not made raw with
	 * nobody reading it), and only while in the foreground (follow_job()).
	 */
	p->typed = p->on_tty[STDIN_FILENO] && open_for(STDIN_FILENO, O_RDONLY);
	p->state->saved_in_fg = foreground(p);
	what = "cannot open a pseudo-terminal";
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master))
		goto fail;
	p->slave = open_slave(p->master);
	if (p->slave < 0)
		goto fail;
	/*
	 * Root's settings and size, as sudo does, but for Ctrl-Z: nothing
	 * in the pty's session would continue a command stopped by it (a
	 * shell run as the command sets its own).
	 */
	what = "cannot set up the pseudo-terminal";
	t = p->state->saved;
	t.c_cc[VSUSP] = _POSIX_VDISABLE;
	if (tcsetattr(p->slave, TCSANOW, &t) || ioctl(p->slave, TIOCSWINSZ, &ws))
		goto fail;
	/*
	 * USER's, as login and sudo make a user's terminal (owner USER,
	 * group tty writable), so that programs that reopen their terminal
	 * by name (ttyname(), /dev/stdin) work.  fchown() of the open slave,
	 * not chown() or open() of a name as root: nothing can be swapped in
	 * between.  It gives USER nothing of root's: the pty carries only
	 * the command's input and output, and goes with the master when the
	 * relay exits.
	 */
	what = "cannot give the pseudo-terminal to the user";
	if (fchown(p->slave, uid, (gid_t)-1) ||
	    fchmod(p->slave, S_IRUSR | S_IWUSR | S_IWGRP))
		goto fail;
	what = "cannot start the terminal relay";
	if (pipe2(done, O_CLOEXEC))
		goto fail;
	p->relay = fork();
	if (p->relay < 0) {
		p->relay = 0;
		close(done[0]);
		close(done[1]);
		goto fail;
	}
	if (!p->relay)
		relay_main(p, done[0]);
	close(done[0]);
	p->done = done[1];
	/* The relay's alone: the pty hangs up as soon as the relay exits. */
	close_fd(&p->master);
	return 0;
fail:
	fprintf(stderr, "fxtrace-drain: -u %s: %s: %s\n", user, what,
		strerror(errno));
	close_fd(&p->slave);
	close_fd(&p->master);
	unmap_state(p);
	return -1;
}

/*
 * Whether fd, in the command's child, is root's terminal: the same
 * device, or /dev/tty opened by the drainer (bound to root's terminal
 * when it was opened, whatever the controlling terminal is now).
 */
static bool roots_terminal(const struct cmd_pty *p, int fd)
{
	struct stat st;

	if (fd == p->slave || !isatty(fd) || fstat(fd, &st) ||
	    !S_ISCHR(st.st_mode))
		return false;
	return st.st_rdev == p->term_rdev || st.st_rdev == makedev(5, 0);
}

/*
 * Root's terminal on another fd of the drainer's, not close-on-exec (a
 * shell's exec 3<>/dev/tty, a launcher's leak): the pty there too, or a
 * leftover would keep it.  0, or -1 with errno.
 */
static int attach_others(const struct cmd_pty *p)
{
	struct dirent *e;
	DIR *dir = opendir("/proc/self/fd");
	long fd, max;
	int ret = 0;

	if (!dir) {
		/* No /proc: every fd that can be open. */
		max = sysconf(_SC_OPEN_MAX);
		for (fd = 3; fd < max && fd < (1L << 20); fd++)
			if (roots_terminal(p, (int)fd) &&
			    dup2(p->slave, (int)fd) < 0)
				return -1;
		return 0;
	}
	while (!ret && (e = readdir(dir))) {
		fd = strtol(e->d_name, NULL, 10);
		if (fd < 3 || fd == dirfd(dir) || !roots_terminal(p, (int)fd))
			continue;
		if (dup2(p->slave, (int)fd) < 0)
			ret = -1;
	}
	closedir(dir);
	return ret;
}

int pty_attach(const struct cmd_pty *p)
{
	int fd;

	if (p->slave < 0)
		return 0;
	/* The relay's end: the command must not hold it up. */
	if (p->done >= 0)
		close(p->done);
	/*
	 * Nor the state the relay shares with the drainer: as USER until
	 * exec, another process of USER's could write it (ptrace, with
	 * fs.suid_dumpable=1), and root's terminal would get its settings.
	 */
	if (p->state && munmap(p->state, sizeof(*p->state)))
		return -1;
	if (ioctl(p->slave, TIOCSCTTY, 0))
		return -1;
	for (fd = 0; fd < 3; fd++)
		if (p->on_tty[fd] && dup2(p->slave, fd) < 0)
			return -1;
	if (attach_others(p))
		return -1;
	if (p->slave > 2)
		close(p->slave);
	return 0;
}

void pty_forked(struct cmd_pty *p)
{
	/* The command and the relay hold the slave: the relay's exit is its end. */
	close_fd(&p->slave);
}

void pty_command_done(struct cmd_pty *p)
{
	close_fd(&p->done);
}

void pty_end(struct cmd_pty *p)
{
	int status = 0;

	pty_command_done(p);
	close_fd(&p->slave);
	if (p->relay > 0) {
		while (waitpid(p->relay, &status, 0) < 0 && errno == EINTR)
			;
		/*
		 * A relay that was killed may have left the terminal raw (the
		 * job's in the foreground then): the settings it took there
		 * go back, not those read before it ran.
		 */
		if (!WIFEXITED(status) && p->state->raw &&
		    !others_foreground(p))
			restore(p);
		p->relay = 0;
	}
	close_fd(&p->master);
	unmap_state(p);
}
