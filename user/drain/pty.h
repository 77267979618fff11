/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pty.h - the pseudo-terminal of a -u command run from a terminal, and the
 * relay between it and root's terminal (pty.c), as sudo's use_pty does: a
 * process the command leaves behind holds only the pty, which nobody reads
 * once the relay has exited, never root's terminal.
 */
#ifndef DRAIN_PTY_H
#define DRAIN_PTY_H

#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

/*
 * Root's terminal as the relay knows it, in memory the drainer shares with
 * it (MAP_SHARED, mapped before the fork; the command's child unmaps it):
 * a relay killed leaves the drainer the settings it last knew to restore,
 * not those the drainer read before the relay ran.
 */
struct term_state {
	/*
	 * saved holds the job's settings in the foreground, and the pty has
	 * them: read at the start with the job in the foreground of a
	 * terminal it reads (typed), or by the relay when it first made the
	 * terminal raw there.  Until then the relay reads them again each
	 * time it takes the terminal: a job started in the background may
	 * have read the shell's line editor's.
	 */
	bool saved_in_fg;
	bool raw;		/* the relay's raw settings may be on the terminal */
	struct termios saved;	/* restored at the end */
};

struct cmd_pty {
	int master, slave;	/* -1: the command has no pty */
	int done;		/* closing it ends the relay; -1: closed */
	pid_t relay;		/* 0: none (or reaped) */
	bool on_tty[3];		/* fds 0-2 of the drainer that are terminals */
	int term;		/* the first of them: its settings and size */
	dev_t term_rdev;	/* its device: on another fd, the pty instead */
	bool typed;		/* fd 0 is a terminal to read: typing is relayed */
	struct term_state *state;	/* shared with the relay; NULL: none */
};

/* No pty, nothing to undo. */
void pty_init(struct cmd_pty *p);

/*
 * In the drainer, before the command is forked: when any of fds 0-2 is a
 * terminal, a pty with that terminal's settings and size, owned by uid,
 * and the relay process.  0 (with or without a pty), or -1 after saying
 * what failed (the command must not run then).
 */
int pty_setup(struct cmd_pty *p, const char *user, uid_t uid);

/*
 * In the command's child, after setsid(), before it drops root: the pty
 * becomes its controlling terminal and those of fds 0-2 that were
 * terminals, and any other fd that was root's terminal (or /dev/tty); the
 * relay's end and state are let go.  0, or -1 with errno.
 */
int pty_attach(const struct cmd_pty *p);

/* In the drainer once the command is forked: the slave is the command's. */
void pty_forked(struct cmd_pty *p);

/*
 * The command has exited (or the drainer is leaving): the relay copies
 * out what the pty still holds, restores root's terminal and exits.
 */
void pty_command_done(struct cmd_pty *p);

/* pty_command_done(), then wait for the relay: root's terminal is back. */
void pty_end(struct cmd_pty *p);

#endif
