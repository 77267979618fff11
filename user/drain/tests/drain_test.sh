#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain end to end, in the guest with fxtrace.ko
# loaded: exact event counts through many streaming saves, garbage
# producers next to an honest one, every mode, stop by signal, a
# flight-recorder snapshot, a killed drainer's unfinished trace kept.  Every
# trace must pass `fxtrace check --strict`.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

# run NAME DRAIN-OPTIONS... -- COMMAND...: fxtrace-drain with its stderr kept.
run() {
	local name=$1
	shift
	"$bin/fxtrace-drain" -o "$out/$name.fxt" "$@" >"$out/$name.producer" \
		2>"$out/$name.stderr"
	local rc=$?
	sed 's/^/# /' "$out/$name.stderr"
	result $rc "$name: fxtrace-drain exits 0"
}

# Streaming with 16 KiB buffers: hundreds of saves, drainer keeps up.
run stream -m streaming -b 16K -B 16K -- "$progs/producer" 4 20000 100
check_strict "$out/stream.fxt" stream
exact stream 4 20000

# No pauses: the producers outrun the drainer; drops must be exact.
run flood -m streaming -b 16K -B 16K -- "$progs/producer" 2 100000
check_strict "$out/flood.fxt" flood
exact flood 2 100000

# Garbage producers next to an honest one.
run garbage -m streaming -b 16K -B 16K -- /bin/sh -c \
	"$progs/garbage 3 1 & $progs/garbage 3 2 & $progs/producer 2 20000 50; wait"
check_strict "$out/garbage.fxt" garbage
exact garbage 2 20000
grep -qE 'task .* [1-9][0-9]* invalid' "$out/garbage.stderr"
result $? "garbage: invalid records are counted"

# summary_has NAME REGEX: the drainer's summary (stderr) has a matching line.
summary_has() {
	grep -qE "$2" "$out/$1.stderr"
	result $? "$1: summary matches '$2'"
}

# count NAME KEY EXPECTED: count_ticks's KEY for the trace is EXPECTED.
count() {
	local got
	got=$(value "$2" "$out/$1.count")
	[[ $got == "$3" ]]
	result $? "$1: $2 $3 (got ${got:-?})"
}

# Hostile producers (garbage.c modes) beside an honest one: what Perfetto
# would take for something else, or fail on, never reaches the file.
run perfetto -m streaming -B 1M -- /bin/sh -c \
	"$progs/garbage 2 1 perfetto & $progs/producer 1 2000 50; wait"
check_strict "$out/perfetto.fxt" perfetto
exact perfetto 1 2000
count perfetto blob 0
summary_has perfetto ': 0 records dropped as its producer reports, 5 invalid \(1 invalid, 2 kind not allowed, 2 outside the session window\)'

# Renaming itself as another process: pid 1 "fake-systemd", "honest" names.
run rename -m streaming -B 1M -- /bin/sh -c \
	"$progs/garbage 2 1 rename & $progs/producer 1 2000 50; wait"
check_strict "$out/rename.fxt" rename
exact rename 1 2000
count rename fake 0
count rename names 0
summary_has rename ': 0 records dropped as its producer reports, 5 invalid \(5 another process or thread\)'

# An async squatter (80,000 begins, alive meanwhile) beside an honest
# producer's 2,000: the squatter exhausts its own share only.  It runs as
# nobody, a user the session (root's) does not trace: the traced users
# have no process share of async ids (drain.rst, Limits).
squatdir=$(mktemp -d /tmp/drain-squat.XXXXXX)
chmod 755 "$squatdir"
cp "$progs/garbage" "$squatdir/garbage"
run squat -m streaming -B 1M -- /bin/sh -c \
	"setpriv --reuid=65534 --regid=65534 --clear-groups $squatdir/garbage 8 1 squat & sleep 4; $progs/producer 1 2000 50 async; wait"
rm -rf "$squatdir"
check_strict "$out/squat.fxt" squat
exact squat 1 2000
count squat async 2000
summary_has squat ': 0 records dropped as its producer reports, 63616 invalid \(63616 async share full or misnamed\)'

# A stream into tmpfs (the guest's /tmp): while it waits, the drainer
# allocates the file's next 4 MiB ahead of its records, past the file's
# size, and gives back what it did not fill when it ends.
reserve_dir=$(mktemp -d /tmp/drain-reserve.XXXXXX)
[[ $(stat -f -c %T "$reserve_dir") == tmpfs ]]
result $? "reserve: the guest's /tmp is tmpfs"
"$bin/fxtrace-drain" -o "$reserve_dir/t.fxt" -m streaming -B 1M -- \
	"$progs/producer" 1 3000 10 >"$out/reserve.producer" 2>"$out/reserve.stderr" &
drain_pid=$!
ahead_max=0
while kill -0 "$drain_pid" 2>/dev/null; do
	read -r size blocks <<<"$(stat -c '%s %b' "$reserve_dir/t.fxt" 2>/dev/null || echo 0 0)"
	((blocks * 512 - size > ahead_max)) && ahead_max=$((blocks * 512 - size))
	sleep 0.05
done
wait "$drain_pid"
result $? "reserve: fxtrace-drain exits 0"
sed 's/^/# /' "$out/reserve.stderr"
((ahead_max >= 4 * 1024 * 1024))
result $? "reserve: allocated ahead of the records while running: $ahead_max bytes (>= 4 MiB)"
read -r size blocks <<<"$(stat -c '%s %b' "$reserve_dir/t.fxt")"
((blocks * 512 <= (size + 4095) / 4096 * 4096))
result $? "reserve: at the end $((blocks * 512)) bytes allocated for $size (none past the last page)"
mv "$reserve_dir/t.fxt" "$out/reserve.fxt" && rmdir "$reserve_dir"
check_strict "$out/reserve.fxt" reserve
exact reserve 1 3000

# Strings past the budget, then an async begin and end named by two of them.
run budget -m streaming -B 1M -- /bin/sh -c \
	"$progs/garbage 2 1 budget & $progs/producer 1 2000 50; wait"
check_strict "$out/budget.fxt" budget
exact budget 1 2000
summary_has budget ', 10 invalid \(2 invalid, 8 string budget full\)'

# A thread whose comm is not UTF-8, alive at Start: named, not dropped.
"$progs/garbage" 6 1 comm &
bad=$!
sleep 1
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/comm.fxt" 2>"$out/comm.stderr" &
drain=$!
sleep 2
kill -INT $drain
wait $drain
result $? "comm: fxtrace-drain exits 0"
kill $bad 2>/dev/null
wait $bad 2>/dev/null
sed 's/^/# /' "$out/comm.stderr"
check_strict "$out/comm.fxt" comm
"$progs/count_ticks" "$out/comm.fxt" >"$out/comm.count"
count comm badcomm 2
summary_has comm 'kernel +1 buffers, .*, 0 invalid, 2 names made valid UTF-8$'

# Oneshot: what fits, and every other event counted as dropped.
run oneshot -m oneshot -B 16K -- "$progs/producer" 1 5000
check_strict "$out/oneshot.fxt" oneshot
exact oneshot 1 5000

# -v: each ack, then how long saves waited for theirs, counting the same acks.
run acks -v -m streaming -B 16K -- "$progs/producer" 1 20000 100
exact acks 1 20000
summary_has acks '^fxtrace-drain: [1-9][0-9]* saves acknowledged, the slowest [0-9]+\.[0-9] ms after its packet was read, [0-9]+ after more than 10 ms$'
saved=$(grep -c '^fxtrace-drain: saved buffer ' "$out/acks.stderr")
acked=$(sed -n 's/^fxtrace-drain: \([0-9]*\) saves acknowledged.*/\1/p' "$out/acks.stderr")
[[ $saved == "$acked" ]]
result $? "acks: $acked saves acknowledged, $saved acks reported one by one"
# ... and timed from the module's requests (ABI 0.5), every one of them.
timing='^fxtrace-drain: (cpu|task) +([1-9][0-9]*) saves acknowledged up to ([0-9]+\.[0-9]) ms after the module.s request \(read up to ([0-9]+\.[0-9]) ms after it\); the fastest half filled in ([0-9]+\.[0-9]) ms$'
summary_has acks "${timing/(cpu|task)/task}"
timed=$(grep -E "$timing" "$out/acks.stderr" | sed -E "s/$timing/\2/" | awk '{ n += $1 } END { print n + 0 }')
[[ $timed == "$acked" ]]
result $? "acks: $timed saves timed from their request, of $acked"
# The slowest task save's steps add up to its time from the request.
steps='^fxtrace-drain: task +the slowest save: the drainer busy ([0-9.]+) ms after the request, its packet read ([0-9.]+) ms later, begun ([0-9.]+) ms later, copied and checked in ([0-9.]+), written in ([0-9.]+), acknowledged ([0-9.]+) ms after$'
total=$(grep -E "${timing/(cpu|task)/task}" "$out/acks.stderr" | sed -E "s/${timing/(cpu|task)/task}/\2/")
sum=$(grep -E "$steps" "$out/acks.stderr" | sed -E "s/$steps/\1 \2 \3 \4 \5 \6/")
echo "# acks: the slowest task save, $total ms: $sum"
awk -v t="$total" -v s="$sum" 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) sum += a[i]
	exit !(n == 6 && t > 0 && sum >= t - 0.35 && sum <= t + 0.35) }'
result $? "acks: the slowest save's six steps add up to its $total ms"

# Circular: the newest events; nothing is dropped, older ones overwritten.
run circular -m circular -B 16K -- "$progs/producer" 2 5000
check_strict "$out/circular.fxt" circular
"$progs/count_ticks" "$out/circular.fxt" >"$out/circular.count"
result $? "circular: ticks in order, none twice"

# No command: trace until SIGINT.
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/signal.fxt" 2>"$out/signal.stderr" &
drain=$!
sleep 1
"$progs/producer" 1 3000 100 >"$out/signal.producer"
# A regular file is written by the drainer's own thread: no io-wq worker
# (an idle one lives 5 s after its last write) took a save's write.
workers=$(cat /proc/$drain/task/*/comm | grep -c '^iou-wrk')
[[ $workers == 0 ]]
result $? "signal: no io-wq worker wrote the file (found $workers)"
kill -INT $drain
wait $drain
result $? "signal: fxtrace-drain stops on SIGINT and exits 0"
sed 's/^/# /' "$out/signal.stderr"
check_strict "$out/signal.fxt" signal
exact signal 1 3000

# A command and its drainer stopped by one signal, as a shell's Ctrl-C
# stops a job: the trace is written and the exit status is the
# command's, whether its SIGCHLD came before the end or not (it was 0
# when the session ended first).  SIGTERM: this script's background jobs
# ignore SIGINT, as bash makes them without job control.  setsid: the
# drainer leads a group of its own, holding the command, and not this
# script.
setsid "$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigjob.fxt" -- \
	sleep 30 2>"$out/sigjob.stderr" &
drain=$!
sleep 2
kill -TERM -- -$drain
wait $drain
rc=$?
sed 's/^/# /' "$out/sigjob.stderr"
[[ $rc == 143 ]] && ! grep -q 'left running' "$out/sigjob.stderr"
result $? "sigjob: SIGTERM to the job: the command's status, 143 (got $rc)"
check_strict "$out/sigjob.fxt" sigjob

# A command that catches the signal stopping the job and exits a moment
# later (make, a shell, python on Ctrl-C) gives its own status: here 7,
# a second after SIGTERM.  The SIGTERM the drainer sends it after the
# grace is caught too, and it exits 7 all the same.  (It was left
# running, 143: only a command the kernel was killing was waited for.)
# shellcheck disable=SC2016 # the inner sh expands it
setsid "$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigcaught.fxt" -- \
	sh -c 'trap "sleep 1; exit 7" TERM; echo $$ >"$0"; sleep 30 & wait' \
	"$out/sigcaught.pid" 2>"$out/sigcaught.stderr" &
drain=$!
for _ in $(seq 50); do [[ -s $out/sigcaught.pid ]] && break; sleep 0.1; done
kill -TERM -- -$drain
wait $drain
rc=$?
sed 's/^/# /' "$out/sigcaught.stderr"
[[ $rc == 7 ]] && ! grep -q 'left running' "$out/sigcaught.stderr"
result $? "sigcaught: a command that catches SIGTERM and exits 7 a second later: 7 (got $rc)"
check_strict "$out/sigcaught.fxt" sigcaught

# SIGINT to the drainer alone (as `kill -INT` of `fxtrace record`): the
# command did not get it, and once the trace is written it is sent
# SIGTERM, said in one line, and its status is given, 143.  (It was left
# running, orphaned, 130.)
# shellcheck disable=SC2016 # the inner sh expands it
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigterm.fxt" -- \
	sh -c 'echo $$ >"$0"; exec sleep 30' "$out/sigterm.pid" \
	2>"$out/sigterm.stderr" &
drain=$!
for _ in $(seq 50); do [[ -s $out/sigterm.pid ]] && break; sleep 0.1; done
kill -INT $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/sigterm.stderr"
pid=$(cat "$out/sigterm.pid")
gone=0
kill -0 "$pid" 2>/dev/null || gone=1
[[ $rc == 143 && $gone == 1 ]] &&
	grep -qx "fxtrace-drain: SIGTERM to sh (pid $pid): still running 500 ms after the trace was written" \
		"$out/sigterm.stderr" && ! grep -q 'left running' "$out/sigterm.stderr"
result $? "sigterm: SIGINT to the drainer: the command ($pid) sent SIGTERM, said so, 143 (got $rc, gone $gone)"
kill -KILL "$pid" 2>/dev/null
check_strict "$out/sigterm.fxt" sigterm

# A command that ignores SIGTERM: the drainer waits for it until another
# signal (SIGTERM here, after the first SIGINT) ends the wait; then it is
# left running, named, 128+15.
# shellcheck disable=SC2016 # the inner sh expands it
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigleft.fxt" -- \
	sh -c 'trap "" TERM; echo $$ >"$0"; exec sleep 30' "$out/sigleft.pid" \
	2>"$out/sigleft.stderr" &
drain=$!
for _ in $(seq 50); do [[ -s $out/sigleft.pid ]] && break; sleep 0.1; done
kill -INT $drain
for _ in $(seq 100); do grep -q '^fxtrace-drain: SIGTERM to sh' "$out/sigleft.stderr" && break; sleep 0.1; done
sleep 0.5
waited=0
kill -0 $drain 2>/dev/null && waited=1
kill -TERM $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/sigleft.stderr"
pid=$(cat "$out/sigleft.pid")
[[ $rc == 143 && $waited == 1 ]] && kill -0 "$pid" &&
	grep -qx "fxtrace-drain: Terminated: sh left running (pid $pid)" \
		"$out/sigleft.stderr"
result $? "sigleft: a command ignoring SIGTERM is waited for; another signal leaves it ($pid) running, named, 143 (got $rc, waited $waited)"
kill -KILL "$pid"
check_strict "$out/sigleft.fxt" sigleft

# A command whose first thread exited while another sleeps 60 s: Z in
# /proc/PID/status, but waitpid() waits for its last thread.  SIGINT to
# the drainer alone: the SIGTERM after the grace ends the whole process,
# 143, in seconds (the drainer waited 60 s and gave 0, then left it
# running, 130).
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigzombie.fxt" -- \
	"$progs/leader_exit" "$out/sigzombie.pid" 60 \
	2>"$out/sigzombie.stderr" &
drain=$!
for _ in $(seq 50); do [[ -s $out/sigzombie.pid ]] && break; sleep 0.1; done
pid=$(cat "$out/sigzombie.pid")
for _ in $(seq 50); do grep -q '^State:.Z' "/proc/$pid/status" && break; sleep 0.1; done
start=$SECONDS
kill -INT $drain
wait $drain
rc=$?
took=$((SECONDS - start))
sed 's/^/# /' "$out/sigzombie.stderr"
gone=0
kill -0 "$pid" 2>/dev/null || gone=1
[[ $rc == 143 && $gone == 1 ]] && ((took <= 10)) &&
	grep -qx "fxtrace-drain: SIGTERM to $progs/leader_exit (pid $pid): still running 500 ms after the trace was written" \
		"$out/sigzombie.stderr"
result $? "sigzombie: a first thread exited, the last one not: SIGTERM ends it, 143, in ${took}s (got $rc, gone $gone)"
kill -KILL "$pid" 2>/dev/null
check_strict "$out/sigzombie.fxt" sigzombie

# The command of the Ctrl-C cases, run as nobody: it counts the SIGINTs
# it gets in DIR/count, ignores SIGTERM (the drainer's wait for it goes
# on until it exits or a further signal), and exits 3 once DIR/quit
# exists.
sigcount='import os, signal, sys, time
d = sys.argv[1]
n = 0
def count(signo, frame):
	global n
	n += 1
	with open(os.path.join(d, "count"), "w") as f:
		f.write("%d\n" % n)
signal.signal(signal.SIGINT, count)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(os.path.join(d, "pid"), "w") as f:
	f.write("%d\n" % os.getpid())
while not os.path.exists(os.path.join(d, "quit")):
	time.sleep(0.1)
sys.exit(3)'

# ctrl_c NAME DIR GAPS [ENV...]: `fxtrace record -u nobody` of $sigcount
# on a terminal of its own (ctrl_c.py), Ctrl-C typed once per gap (ms)
# once the command runs; ENV (VAR=VALUE) for record alone.  In the
# background; $ctrl is its pid.
ctrl_c() {
	local name=$1 dir=$2 gaps=$3
	shift 3
	rm -f "$out/$name.rc"
	python3 "$here/ctrl_c.py" "$dir/pid" "$gaps" "$out/$name.stderr" \
		"$out/$name.rc" -- env "$@" "$bin/fxtrace" record -q -u nobody \
		-o "$out/$name.fxt" -- python3 -c "$sigcount" "$dir" &
	ctrl=$!
}

# One Ctrl-C reaches the drainer twice: from the terminal (the kernel,
# SI_KERNEL) and through `fxtrace record`, whose relay comes a second
# later here (slow_relay.so), as on a loaded machine.  The drainer pairs
# the two by who sent them, not by when: the command gets one SIGINT, and
# after the SIGTERM it ignores the wait for it goes on until it exits 3.
# (Taken within 500 ms for one, the relay a second later was a further
# signal: it ended the wait, "Interrupt: python3 left running", 130; a
# loaded guest made sigtwice skip at 250 ms.)
userdir=$(mktemp -d /tmp/drain-test.XXXXXX)
chmod 777 "$userdir"
ctrl_c sigrelay "$userdir" 0 SLOW_RELAY_MS=1000 LD_PRELOAD="$progs/slow_relay.so"
for _ in $(seq 100); do [[ -s $userdir/count ]] && break; sleep 0.1; done
sleep 3
waiting=0
[[ -e $out/sigrelay.rc ]] || waiting=1
touch "$userdir/quit"
wait $ctrl
rc=$(cat "$out/sigrelay.rc")
sed 's/^/# /' "$out/sigrelay.stderr"
pid=$(cat "$userdir/pid")
count=$(cat "$userdir/count" 2>/dev/null)
[[ $count == 1 && $rc == 3 && $waiting == 1 ]] &&
	grep -qx "fxtrace-drain: SIGTERM to python3 (pid $pid and its process group): still running 500 ms after the trace was written" \
		"$out/sigrelay.stderr" && ! grep -q 'left running' "$out/sigrelay.stderr"
result $? "sigrelay: one Ctrl-C, record's relay of it a second late: the -u command gets one SIGINT, is waited for after its SIGTERM, 3 (got ${count:-no} SIGINT, rc $rc, waiting after 3 s $waiting)"
kill -KILL "$pid" 2>/dev/null
rm -rf "$userdir"
check_strict "$out/sigrelay.fxt" sigrelay

# Two Ctrl-Cs 100 ms apart (the user's "I really mean it"): each reaches
# the drainer directly and through record, and counts once: the -u
# command gets both, and the second ends the wait for it, left running,
# named, 130.  (The second, within 500 ms of the first, was taken for its
# copy: the command got one SIGINT, ignored the SIGTERM, and the drainer
# waited until it exited 3.)
userdir=$(mktemp -d /tmp/drain-test.XXXXXX)
chmod 777 "$userdir"
ctrl_c sigtwice "$userdir" 0,100
for _ in $(seq 50); do [[ -e $out/sigtwice.rc ]] && break; sleep 0.1; done
touch "$userdir/quit"
wait $ctrl
rc=$(cat "$out/sigtwice.rc")
sed 's/^/# /' "$out/sigtwice.stderr"
pid=$(cat "$userdir/pid")
count=$(cat "$userdir/count" 2>/dev/null)
[[ $count == 2 && $rc == 130 ]] &&
	grep -qx "fxtrace-drain: Interrupt: python3 left running (pid $pid)" \
		"$out/sigtwice.stderr"
result $? "sigtwice: two Ctrl-Cs 100 ms apart: the -u command gets two SIGINTs and is left running, named, 130 (got ${count:-no} SIGINT, rc $rc)"
kill -KILL "$pid" 2>/dev/null
rm -rf "$userdir"
check_strict "$out/sigtwice.fxt" sigtwice

# Two SIGINTs 100 ms apart from one sender (`kill -INT` of the drainer,
# twice): two, not one sent again.  The command ignores SIGINT and
# SIGTERM; the second ends the wait for it, left running, named, 130.
# (The second was taken for a copy of the first: the drainer waited
# until the command exited 3, three seconds later.)
# shellcheck disable=SC2016 # the inner sh expands it
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigkill2.fxt" -- \
	sh -c 'trap "" INT TERM; echo $$ >"$0"; sleep 3; exit 3' \
	"$out/sigkill2.pid" 2>"$out/sigkill2.stderr" &
drain=$!
for _ in $(seq 50); do [[ -s $out/sigkill2.pid ]] && break; sleep 0.1; done
kill -INT $drain
sleep 0.1
kill -INT $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/sigkill2.stderr"
pid=$(cat "$out/sigkill2.pid")
[[ $rc == 130 ]] &&
	grep -qx "fxtrace-drain: Interrupt: sh left running (pid $pid)" \
		"$out/sigkill2.stderr"
result $? "sigkill2: kill -INT twice 100 ms apart: the command is left running, named, 130 (got $rc)"
kill -KILL "$pid" 2>/dev/null
check_strict "$out/sigkill2.fxt" sigkill2

# timeout(1) sends its signal to record, then to its own process group
# (kill(pid), then kill(0)), which holds record and the drainer: record
# can get it twice (its handler run between the two) and the drainer
# gets it once directly.  One intent: the -u command, which traps INT and
# TERM and exits 5 a second later, gets one signal, is waited for, and
# its status comes through, never "left running".  sigpgid makes
# record's handler run between the two sends, as a script's `kill PID;
# kill -- -PGID` can (record relayed both, the drainer counted a second
# signal and left the command running: 130 or 143).  The two sends come
# from one process 10 ms apart (a sleep(1) between two kills of a script
# took over 50 ms in the TCG guest).
pid_then_group='import os, signal, sys, time
pid, sig = int(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2])
os.kill(pid, sig)
time.sleep(0.01)
os.killpg(pid, sig)'
# shellcheck disable=SC2016 # the inner sh expands it
trapper='trap "sleep 1; exit 5" INT TERM; echo $$ >"$0"; sleep 30 & wait'
for sig in TERM INT; do
	userdir=$(mktemp -d /tmp/drain-test.XXXXXX)
	chmod 777 "$userdir"
	timeout --preserve-status -s "$sig" 3 "$bin/fxtrace" record -q \
		-u nobody -o "$out/timeout$sig.fxt" -- sh -c "$trapper" \
		"$userdir/pid" 2>"$out/timeout$sig.stderr"
	rc=$?
	sed 's/^/# /' "$out/timeout$sig.stderr"
	[[ $rc == 5 ]] && ! grep -q 'left running' "$out/timeout$sig.stderr" &&
		grep -qx "fxtrace-drain: sh exited with status 5" "$out/timeout$sig.stderr"
	result $? "timeout$sig: timeout -s $sig around record -u: one signal, the command's status 5 comes through (got $rc)"
	kill -KILL "$(cat "$userdir/pid")" 2>/dev/null
	rm -rf "$userdir"
	check_strict "$out/timeout$sig.fxt" "timeout$sig"

	userdir=$(mktemp -d /tmp/drain-test.XXXXXX)
	chmod 777 "$userdir"
	setsid "$bin/fxtrace" record -q -u nobody -o "$out/sigpgid$sig.fxt" \
		-- sh -c "$trapper" "$userdir/pid" 2>"$out/sigpgid$sig.stderr" &
	rec=$!
	for _ in $(seq 100); do [[ -s $userdir/pid ]] && break; sleep 0.1; done
	python3 -c "$pid_then_group" "$rec" "$sig"
	wait "$rec"
	rc=$?
	sed 's/^/# /' "$out/sigpgid$sig.stderr"
	[[ $rc == 5 ]] && ! grep -q 'left running' "$out/sigpgid$sig.stderr" &&
		grep -qx "fxtrace-drain: sh exited with status 5" "$out/sigpgid$sig.stderr"
	result $? "sigpgid$sig: SIG$sig to record, then 10 ms later to its group: one signal, the command's status 5 comes through (got $rc)"
	kill -KILL "$(cat "$userdir/pid")" 2>/dev/null
	rm -rf "$userdir"
	check_strict "$out/sigpgid$sig.fxt" "sigpgid$sig"
done

# The drainer SIGKILLed in its final wait for the command, the trace
# written: record names the signal and says the file is whole, the
# command's status lost.  (It said "killed by signal 9; 'fxtrace recover
# OUT' keeps what it had written, 'fxtrace stop' ends the session it
# left", of a whole trace and a session already ended.)
# shellcheck disable=SC2016 # the inner sh expands it
"$bin/fxtrace" record -q -o "$out/sigkilled.fxt" -- \
	sh -c 'trap "" INT TERM; echo $$ >"$0"; exec sleep 30' "$out/sigkilled.pid" \
	2>"$out/sigkilled.stderr" &
rec=$!
for _ in $(seq 50); do [[ -s $out/sigkilled.pid ]] && break; sleep 0.1; done
kill -INT $rec
for _ in $(seq 100); do grep -q '^fxtrace-drain: SIGTERM to sh' "$out/sigkilled.stderr" && break; sleep 0.1; done
read -r drainer _ <"/proc/$rec/task/$rec/children"
kill -KILL "$drainer"
wait $rec
rc=$?
sed 's/^/# /' "$out/sigkilled.stderr"
[[ $rc == 1 ]] &&
	grep -qx "fxtrace record: fxtrace-drain was killed by SIGKILL after the trace was written and the session ended: $out/sigkilled.fxt is whole ($(stat -c %s "$out/sigkilled.fxt") bytes); the command's exit status is lost" \
		"$out/sigkilled.stderr"
result $? "sigkilled: the drainer killed in its wait for the command: record says the trace is whole, exit 1 (got $rc)"
kill -KILL "$(cat "$out/sigkilled.pid")" 2>/dev/null
check_strict "$out/sigkilled.fxt" sigkilled

# A signal passed on to a -u command reaches its process group, the job
# its terminal's Ctrl-C would reach (sudo relays to it too), as the
# SIGTERM that ends it does.  The command forks a child into its group;
# each notes the SIGINT, the child exits 5 on it and the command gives
# its status.  (Only the command's pid got it: the child went on, no
# note, and the SIGTERM after the grace killed both, 143.)
userdir=$(mktemp -d /tmp/drain-test.XXXXXX)
chmod 777 "$userdir"
"$bin/fxtrace-drain" -u nobody -m streaming -B 16K -o "$out/siggroup.fxt" -- \
	python3 -c 'import os, signal, sys, time
d = sys.argv[1]
def noter(role):
	def note(signo, frame):
		open(os.path.join(d, role), "w").close()
		if role == "child":
			os._exit(5)
	return note
pid = os.fork()
signal.signal(signal.SIGINT, noter("parent" if pid else "child"))
if not pid:
	with open(os.path.join(d, "child.pid"), "w") as f:
		f.write("%d\n" % os.getpid())
	while True:
		time.sleep(1)
while not os.path.exists(os.path.join(d, "child.pid")):
	time.sleep(0.01)
with open(os.path.join(d, "pid"), "w") as f:
	f.write("%d\n" % os.getpid())
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))' "$userdir" \
	</dev/null 2>"$out/siggroup.stderr" &
drain=$!
for _ in $(seq 100); do [[ -s $userdir/pid ]] && break; sleep 0.1; done
kill -INT $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/siggroup.stderr"
noted=
for who in parent child; do [[ -e $userdir/$who ]] && noted+="$who "; done
[[ $rc == 5 && $noted == "parent child " ]] &&
	! grep -q 'SIGTERM to\|left running' "$out/siggroup.stderr"
result $? "siggroup: SIGINT reaches the -u command's process group: its child exits 5 on it, 5 (got $rc, noted by: $noted)"
[[ -s $userdir/child.pid ]] && kill -KILL "$(cat "$userdir/child.pid")" 2>/dev/null
rm -rf "$userdir"
check_strict "$out/siggroup.fxt" siggroup

# A -u command's setsid() may come after the session started
# (initgroups() before it can wait on a directory service): slow_setsid.so
# holds it 5 s.  SIGINT to the drainer then: the command, in the
# drainer's group still, ignores it (this script's background jobs do),
# and the SIGTERM after the grace reaches it alone, no group being there
# yet, and ends it: 143, in 1-2 s.  (The kill() of its group failed, "No
# such process", and the drainer waited for the command, run after all:
# its 9, after 5 s.)
start=$SECONDS
SLOW_SETSID_SECONDS=5 LD_PRELOAD=$progs/slow_setsid.so \
	"$bin/fxtrace-drain" -u nobody -m streaming -B 16K -o "$out/sigearly.fxt" -- \
	sh -c 'exit 9' </dev/null 2>"$out/sigearly.stderr" &
drain=$!
sleep 1
kill -INT $drain
wait $drain
rc=$?
took=$((SECONDS - start))
sed 's/^/# /' "$out/sigearly.stderr"
[[ $rc == 143 ]] && ((took < 5)) &&
	grep -qx 'fxtrace-drain: SIGTERM to sh (pid [0-9]*): still running 500 ms after the trace was written' \
		"$out/sigearly.stderr"
result $? "sigearly: the SIGTERM after the grace before the -u command's setsid() reaches it alone, 143 (got $rc in ${took}s)"
check_strict "$out/sigearly.fxt" sigearly

# SIGCHLD ignored on entry (SIG_IGN survives exec): the kernel reaped the
# command unseen, so its exit did not end the session, which ran on until
# a signal (timeout's SIGINT after 20 s here), and then gave 0, its status
# lost.  Now its exit ends the session at once, with its status, 3.
start=$SECONDS
timeout -s INT 20 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' \
	"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/sigchld.fxt" -- \
	sh -c 'exit 3' 2>"$out/sigchld.stderr"
rc=$?
took=$((SECONDS - start))
sed 's/^/# /' "$out/sigchld.stderr"
[[ $rc == 3 ]] && ((took < 10)) &&
	grep -qx 'fxtrace-drain: sh exited with status 3' "$out/sigchld.stderr"
result $? "sigchld: SIGCHLD ignored on entry: the command's exit ends the session, its status 3 (got $rc in ${took}s)"
check_strict "$out/sigchld.fxt" sigchld

# Under nohup (SIGHUP ignored on entry) a hangup does not stop the
# session: it stayed blocked for the signalfd, which read it all the same.
(trap '' HUP; exec "$bin/fxtrace-drain" -m streaming -B 16K \
	-o "$out/nohup.fxt" 2>"$out/nohup.stderr") &
drain=$!
sleep 1
kill -HUP $drain
alive=1
for _ in $(seq 30); do kill -0 $drain 2>/dev/null || { alive=0; break; }; sleep 0.1; done
kill -INT $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/nohup.stderr"
[[ $alive == 1 && $rc == 0 ]]
result $? "nohup: SIGHUP ignored on entry stays ignored; SIGINT stops it, exit 0 (alive $alive, rc $rc)"
check_strict "$out/nohup.fxt" nohup


# A device is written through the ring (a regular file by the drainer).
run devnull -m streaming -b 16K -B 16K -o /dev/null -- "$progs/producer" 2 20000 100
summary_has devnull 'task +2 buffers, [1-9][0-9]{4,} records'

# Circular as a flight recorder: SIGUSR1 copies every buffer to OUT.1
# while the writers pause (dropping and counting), then tracing goes on.
"$bin/fxtrace-drain" -m circular -B 16K -o "$out/flight.fxt" -- \
	"$progs/producer" 1 20000 10 >"$out/flight.producer" 2>"$out/flight.stderr" &
drain=$!
sleep 1
kill -USR1 $drain
wait $drain
result $? "snapshot: fxtrace-drain exits 0"
sed 's/^/# /' "$out/flight.stderr"
grep -qE 'snapshot 1: [1-9][0-9]* buffers written to .*flight.fxt.1, 0 not mapped, 0 records refused; retired buffers: 0 kept, 0 evicted, 0 lost$' \
	"$out/flight.stderr"
result $? "snapshot: SIGUSR1 wrote flight.fxt.1"
check_strict "$out/flight.fxt.1" snapshot
"$progs/count_ticks" "$out/flight.fxt.1" >"$out/flight.count"
result $? "snapshot: ticks in order, none twice"
[[ $(value ticks "$out/flight.count") -gt 0 ]]
result $? "snapshot: it holds the producer's ticks"
check_strict "$out/flight.fxt" "snapshot: the final trace"

# A snapshot goes through the trace's checks: what hostile producers forge
# (garbage.c rename and perfetto: 5 records each that the drainer
# refuses, as above) stays out of it.  The snapshot comes once both
# attacks are written and the honest producer has written a tick, while
# all three producers are alive (the buffer of one that has exited is in
# the trace, no longer in the session): the attackers live 8 s, the honest
# producer at least 8 s (8,000 pauses of 1 ms).
"$bin/fxtrace-drain" -m circular -B 1M -o "$out/flight-hostile.fxt" -- /bin/sh -c \
	"$progs/garbage 8 1 rename & $progs/garbage 8 2 perfetto & $progs/producer 1 40000 5; wait" \
	>"$out/flight-hostile.producer" 2>"$out/flight-hostile.stderr" &
drain=$!
for _ in $(seq 100); do
	[[ $(grep -c '^garbage ' "$out/flight-hostile.producer") == 2 ]] &&
		grep -q '^thread [0-9]* wrote its first tick$' "$out/flight-hostile.producer" && break
	sleep 0.1
done
kill -USR1 $drain
wait $drain
result $? "snapshot-hostile: fxtrace-drain exits 0"
sed 's/^/# /' "$out/flight-hostile.stderr"
grep -qE 'snapshot 1: [1-9][0-9]* buffers written to .*flight-hostile.fxt.1, 0 not mapped, 10 records refused; retired buffers: 0 kept, 0 evicted, 0 lost$' \
	"$out/flight-hostile.stderr"
result $? "snapshot-hostile: 10 records refused"
check_strict "$out/flight-hostile.fxt.1" snapshot-hostile
"$progs/count_ticks" "$out/flight-hostile.fxt.1" >"$out/flight-hostile.count"
result $? "snapshot-hostile: ticks in order, none twice"
[[ $(value ticks "$out/flight-hostile.count") -gt 0 ]]
result $? "snapshot-hostile: it holds the honest producer's ticks"
count flight-hostile fake 0
count flight-hostile names 0
count flight-hostile blob 0

# -r: the drainer streams as SCHED_FIFO at that priority; its command,
# forked before and reset on fork anyway, keeps SCHED_OTHER.  Each line
# is checked with its pid, so that the two cannot be swapped.
# shellcheck disable=SC2016 # the inner sh expands them
run rtprio -r 7 -- /bin/sh -c 'echo "command $$ drainer $PPID"; chrt -p $$; chrt -p $PPID; "$0" 2 20000 50' "$progs/producer"
check_strict "$out/rtprio.fxt" rtprio
exact rtprio 2 20000
read -r _ command_pid _ drainer_pid <"$out/rtprio.producer"
want="pid $command_pid's current scheduling policy: SCHED_OTHER
pid $command_pid's current scheduling priority: 0
pid $drainer_pid's current scheduling policy: SCHED_FIFO|SCHED_RESET_ON_FORK
pid $drainer_pid's current scheduling priority: 7"
got=$(sed -n 2,5p "$out/rtprio.producer")
[[ $got == "$want" ]] || printf '# got:\n%s\n# expected:\n%s\n' "$got" "$want"
[[ $got == "$want" ]]
result $? "rtprio: the drainer ($drainer_pid) is SCHED_FIFO 7, its command ($command_pid) SCHED_OTHER"

# -o naming a trace a killed drainer left unfinished: refused, unchanged,
# as `fxtrace record -o` refuses it ('fxtrace recover' would save it).
# The drainer used to truncate it and write its own trace there.
unfinished_trace "$out/killed.fxt"
cp "$out/killed.fxt" "$out/killed.orig"
"$bin/fxtrace-drain" -q -o "$out/killed.fxt" -- true 2>"$out/killed.stderr"
rc=$?
sed 's/^/# /' "$out/killed.stderr"
((rc == 1)) && cmp -s "$out/killed.fxt" "$out/killed.orig" &&
	grep -q 'killed.fxt is a trace fxtrace-drain has not finished' "$out/killed.stderr"
result $? "unfinished: -o a killed drainer's trace is refused (exit $rc), unchanged"

echo "1..$n"
exit $failed
