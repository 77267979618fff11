/* SPDX-License-Identifier: GPL-2.0 */
/*
 * signal_relay.h - how `fxtrace record` passes a SIGINT, SIGTERM or
 * SIGHUP on to its fxtrace-drain, so that the drainer can tell a relay
 * from the same signal reaching it directly (a terminal's Ctrl-C reaches
 * the whole job: record and the drainer).  record sends the real-time
 * signal SIGNAL_RELAY with sigqueue() (SI_QUEUE, from the drainer's
 * parent): queued apart from ordinary signals, it neither swallows nor is
 * swallowed by a SIGINT pending at the drainer (two of one ordinary
 * signal pending at once are one: signal(7)).  Its value holds a tag,
 * which of the three it relays, and who sent it to record: 0 for the
 * kernel (a terminal, SI_KERNEL), else the sender's pid.  Pids are below
 * 2^22 (PID_MAX_LIMIT in the kernel's include/linux/threads.h).
 */
#ifndef SIGNAL_RELAY_H
#define SIGNAL_RELAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SIGNAL_RELAY		SIGRTMIN
#define SIGNAL_RELAY_PID_MASK	0x003fffffu
#define SIGNAL_RELAY_STOP_SHIFT	22
#define SIGNAL_RELAY_TAG_MASK	0xff000000u
#define SIGNAL_RELAY_TAG	0xf5000000u

/* The signals relayed, by their index in the value. */
static const int signal_relay_stops[] = { SIGINT, SIGTERM, SIGHUP };

/* Who sent a signal: 0 for the kernel, else the sender's pid. */
static inline pid_t signal_origin(int code, pid_t pid)
{
	return code == SI_KERNEL ? 0 : pid;
}

/* The value of a relay of signo (one of signal_relay_stops) from origin. */
static inline int signal_relay_value(int signo, pid_t origin)
{
	uint32_t stop = signo == SIGINT ? 0 : signo == SIGTERM ? 1 : 2;

	return (int)(SIGNAL_RELAY_TAG | stop << SIGNAL_RELAY_STOP_SHIFT |
		     ((uint32_t)origin & SIGNAL_RELAY_PID_MASK));
}

/*
 * The signal a relay's value names (0: not a relay's value); *origin is
 * who sent it to record.
 */
static inline int signal_relay_decode(int value, pid_t *origin)
{
	uint32_t v = (uint32_t)value;
	uint32_t stop = (v & ~SIGNAL_RELAY_TAG_MASK) >> SIGNAL_RELAY_STOP_SHIFT;

	if ((v & SIGNAL_RELAY_TAG_MASK) != SIGNAL_RELAY_TAG || stop > 2)
		return 0;
	*origin = (pid_t)(v & SIGNAL_RELAY_PID_MASK);
	return signal_relay_stops[stop];
}

#endif /* SIGNAL_RELAY_H */
