#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: SIGINT, SIGTERM and SIGHUP sent to `fxtrace record` reach
# its drainer, and record then waits for it and exits with its status.
# SIGHUP used to end record at once (exit 129): the drainer went on
# unseen, and its status and the trace's announcement were lost.  The
# drainer here is relay_probe put next to a copy of fxtrace (record runs
# the fxtrace-drain of its own directory), so no module is needed: it
# says it is ready, and exits 7 on the signal after writing what came:
# record's relay (SIGNAL_RELAY, signal_relay.h) of which signal, from
# whom (record passed on a plain kill() before, and the drainer could not
# tell it from the same signal sent to it directly).  Under
# nohup (SIGHUP ignored on entry) record passes no SIGHUP on.  A
# preloaded fork() (signal_after_fork.so) sends record a signal after it
# forked the drainer and before it knew the drainer's pid.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
tmp=$(mktemp -d)
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# A drainer that record left behind (the old SIGHUP) would loop on.
	[[ -s $tmp/pid ]] && kill "$(cat "$tmp/pid")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

cp "$fxtrace" "$tmp/fxtrace" || exit 1
# relay_probe: what reaches it, and from whom (a relay's value decoded).
cp "$top/${B:-build}/test/fxtrace/relay_probe" "$tmp/fxtrace-drain" || exit 1
export FAKE_DIR=$tmp

for sig in INT TERM HUP; do
	rm -f "$tmp/ready" "$tmp/got" "$tmp/pid"
	# A background job of a script ignores SIGINT; record sets its own.
	"$tmp/fxtrace" record -q -o "$tmp/t.fxt" -- true 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 100); do
		[[ -e $tmp/ready ]] && break
		sleep 0.1
	done
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	got=$(cat "$tmp/got" 2>/dev/null)
	[[ -z $got && -s $tmp/pid ]] && kill "$(cat "$tmp/pid")"
	[[ $rc == 7 && $got == "SIG$sig relayed from pid $$" ]]
	result $? "SIG$sig to record: relayed to the drainer naming this script, its status 7 (rc=$rc, drainer got '$got')"
done

# Under nohup a hangup is not the session's end: record keeps SIGHUP
# ignored (it used to catch it and pass it on), and SIGTERM still stops.
rm -f "$tmp/ready" "$tmp/got" "$tmp/pid"
(trap '' HUP; exec "$tmp/fxtrace" record -q -o "$tmp/t.fxt" -- true 2>"$tmp/err") &
pid=$!
for _ in $(seq 100); do
	[[ -e $tmp/ready ]] && break
	sleep 0.1
done
kill -s HUP "$pid"
sleep 0.5
kill -s TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
got=$(cat "$tmp/got" 2>/dev/null)
[[ -z $got && -s $tmp/pid ]] && kill "$(cat "$tmp/pid")"
[[ $rc == 7 && $got == "SIGTERM relayed from pid $$" ]]
result $? "SIGHUP ignored on entry (nohup): not passed on; SIGTERM then is (rc=$rc, drainer got '$got')"

# A signal sent after record forked the drainer but before it knew the
# pid was lost (record waited on for ever); it must be passed on.
for sig in INT TERM HUP; do
	rm -f "$tmp/ready" "$tmp/got" "$tmp/pid"
	# timeout outside the preload: its own fork is not record's.
	timeout 20 env SIGNAL_AFTER_FORK="$(kill -l "$sig")" \
		LD_PRELOAD="$top/${B:-build}/test/fxtrace/signal_after_fork.so" \
		"$tmp/fxtrace" record -q -o "$tmp/t.fxt" -- true 2>"$tmp/err"
	rc=$?
	got=$(cat "$tmp/got" 2>/dev/null)
	[[ -z $got && -s $tmp/pid ]] && kill "$(cat "$tmp/pid")"
	[[ $rc == 7 && $got == "SIG$sig relayed from parent" ]]
	result $? "SIG$sig between fork and the drainer's pid known: passed on (rc=$rc, drainer got '$got')"
done

# SIGCHLD ignored on entry (SIG_IGN survives exec, as a parent that
# ignores it leaves it): record must still get the drainer's status.  The
# kernel reaped the drainer unseen and record said "No child processes",
# exit 1.
rm -f "$tmp/ready" "$tmp/got" "$tmp/pid"
timeout 20 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' \
	"$tmp/fxtrace" record -q -o "$tmp/t.fxt" -- true 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do
	[[ -e $tmp/ready ]] && break
	sleep 0.1
done
kill -s TERM "$(cat "$tmp/pid")"
wait "$pid"
rc=$?
got=$(cat "$tmp/got" 2>/dev/null)
[[ $rc == 7 && $got == "SIGTERM from pid $$" && ! -s $tmp/err ]]
result $? "SIGCHLD ignored on entry: record gives the drainer's status 7 (rc=$rc, stderr '$(cat "$tmp/err")')"

# One process's signal to record and then to record's process group
# (timeout(1) sends kill(pid) then kill(0); scripts `kill PID; kill --
# -PGID`): record gets it twice, its handler running between the two
# here, and the drainer once directly.  That is one intent: one relay
# and the direct copy, which the drainer pairs.  (record relayed both, and
# the drainer counted a second signal: it left a -u command running.)
# The two sends here are 100 ms apart, as record's handler can be
# scheduled again that late on a loaded machine (a 50-ms window made
# drain_test's sigpgid case fail in a loaded guest).  Two kills of
# record 500 ms apart stay two relays (a guard).  setsid:
# record leads a group of its own, with its drainer, not this script.
# One process sends both, GAP seconds apart (an external sleep between
# two kills can take longer than the gap under load).
send='import os, signal, sys, time
pid, sig = int(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2])
os.kill(pid, sig)
time.sleep(float(sys.argv[3]))
'
pid_then_group="${send}os.killpg(pid, sig)"
pid_twice="${send}os.kill(pid, sig)"
for sig in INT TERM; do
	for gap in 0.1 0.5; do
		rm -f "$tmp/ready" "$tmp/got" "$tmp/pid"
		RELAY_PROBE_LINGER_MS=1000 setsid "$tmp/fxtrace" record -q \
			-o "$tmp/t.fxt" -- true 2>"$tmp/err" &
		pid=$!
		for _ in $(seq 100); do
			[[ -e $tmp/ready ]] && break
			sleep 0.1
		done
		if [[ $gap == 0.1 ]]; then
			python3 -c "$pid_then_group" "$pid" "$sig" "$gap" &
			what="record, then its group, 100 ms apart: one relay and the direct copy"
		else
			python3 -c "$pid_twice" "$pid" "$sig" "$gap" &
			what="record twice, 500 ms apart: two relays"
		fi
		sender=$!
		wait "$sender"
		if [[ $gap == 0.1 ]]; then
			want="SIG$sig from pid $sender,SIG$sig relayed from pid $sender"
		else
			want="SIG$sig relayed from pid $sender,SIG$sig relayed from pid $sender"
		fi
		wait "$pid"
		rc=$?
		got=$(sort "$tmp/got" 2>/dev/null | paste -sd,)
		[[ -z $got && -s $tmp/pid ]] && kill "$(cat "$tmp/pid")"
		[[ $rc == 7 && $got == "$want" ]]
		result $? "SIG$sig to $what (rc=$rc, drainer got '$got')"
	done
done

echo "1..$n"
exit "$failed"
