/* SPDX-License-Identifier: GPL-2.0 */
/*
 * signal_relay.h - how `fxtrace record` marks the SIGINT, SIGTERM or
 * SIGHUP it passes on to its fxtrace-drain, so that the drainer can tell
 * a relay from the same signal reaching it directly (a terminal's Ctrl-C
 * reaches the whole job: record and the drainer).  record sends it with
 * sigqueue() (SI_QUEUE, from the drainer's parent), its value naming who
 * sent record the signal: 0 for the kernel (a terminal, SI_KERNEL), else
 * the sender's pid.  Pids are below 2^22 (PID_MAX_LIMIT in the kernel's
 * include/linux/threads.h), and the bits above hold a tag.
 */
#ifndef SIGNAL_RELAY_H
#define SIGNAL_RELAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SIGNAL_RELAY_PID_MASK	0x003fffffu
#define SIGNAL_RELAY_TAG	0xfd400000u

/* Who sent a signal: 0 for the kernel, else the sender's pid. */
static inline pid_t signal_origin(int code, pid_t pid)
{
	return code == SI_KERNEL ? 0 : pid;
}

/* The value of a relay of a signal from origin. */
static inline int signal_relay_value(pid_t origin)
{
	return (int)(SIGNAL_RELAY_TAG |
		     ((uint32_t)origin & SIGNAL_RELAY_PID_MASK));
}

/*
 * Whether value is that of a relay; if so, *origin is who sent record
 * the signal.
 */
static inline bool signal_relay_origin(int value, pid_t *origin)
{
	if (((uint32_t)value & ~SIGNAL_RELAY_PID_MASK) != SIGNAL_RELAY_TAG)
		return false;
	*origin = (pid_t)((uint32_t)value & SIGNAL_RELAY_PID_MASK);
	return true;
}

#endif /* SIGNAL_RELAY_H */
