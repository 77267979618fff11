#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace record` end to end (a command with its default pid
# filter, -p PID, -a), fxtrace-drain's config file, a drainer stopped
# (SIGSTOP) for 2 s mid-session and one killed (SIGKILL) mid-session, then
# `fxtrace recover`.  In the guest with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

# syscall_pids FILE: the distinct pids of the kernel:syscall events.
syscall_pids() {
	"$bin/fxtrace" dump "$1" | awk '/ kernel:syscall:/ { split($3, a, "/"); print a[1] }' | sort -u
}

# ---- fxtrace record -- COMMAND: syscalls of the command only --------------
"$bin/fxtrace" record -e sched,syscall,task -c app -B 64K -o "$out/cmd.fxt" -- \
	"$progs/producer" 2 5000 100 >"$out/cmd.producer" 2>"$out/cmd.stderr"
result $? "record COMMAND: exit 0"
sed 's/^/# /' "$out/cmd.stderr"
grep -q '^\[ fxtrace record: open it at https://ui.perfetto.dev ("Open trace file")' "$out/cmd.producer"
result $? "record COMMAND: says how to open the trace"
sed -i '/^\[ fxtrace record/d' "$out/cmd.producer"
check_strict "$out/cmd.fxt" cmd
exact cmd 2 5000
pid=$("$bin/fxtrace" dump "$out/cmd.fxt" | awk '/ app:tick / { split($3, a, "/"); print a[1]; exit }')
pids=$(syscall_pids "$out/cmd.fxt")
echo "# cmd: producer pid $pid, syscall pids: $(echo $pids)"
[[ -n $pid && $pids == "$pid" ]]
result $? "record COMMAND: syscalls of the command's process only"
"$bin/fxtrace" stats "$out/cmd.fxt" >"$out/cmd.stats"
grep -qE '^  [0-9]+ +[1-9][0-9]* +[0-9]+ +[0-9]+$' "$out/cmd.stats" &&
	grep -qE 'producer' "$out/cmd.stats"
result $? "record COMMAND: context switches and named threads"

# ---- fxtrace record -p PID, stopped with SIGINT ----------------------------
"$progs/producer" 1 1000000 10 >/dev/null &
target=$!
"$bin/fxtrace" record -q -e syscall -p $target -o "$out/pid.fxt" 2>"$out/pid.stderr" &
rec=$!
sleep 2
kill -INT $rec
wait $rec
result $? "record -p: stops on SIGINT, exit 0"
kill $target
wait $target 2>/dev/null
sed 's/^/# /' "$out/pid.stderr"
check_strict "$out/pid.fxt" pid
pids=$(syscall_pids "$out/pid.fxt")
echo "# pid: target $target, syscall pids: $(echo $pids)"
[[ $pids == "$target" ]]
result $? "record -p: syscalls of that process only"

# ---- fxtrace record -a: the whole system until SIGINT ---------------------
"$bin/fxtrace" record -a -e sched,syscall -o "$out/all.fxt" >"$out/all.stdout" 2>"$out/all.stderr" &
rec=$!
sleep 1
"$progs/producer" 1 100 10 >/dev/null
sleep 0.5
kill -INT $rec
wait $rec
result $? "record -a: stops on SIGINT, exit 0"
check_strict "$out/all.fxt" all
pids=$(syscall_pids "$out/all.fxt" | wc -l)
echo "# all: syscalls of $pids processes"
((pids >= 2))
result $? "record -a: syscalls of more than one process"

# ---- fxtrace-drain -C FILE ------------------------------------------------
cat >"$out/drain.conf" <<CONF
# a config file: key = value
mode = oneshot
task-buffer-size = 16K
categories = app,kernel:sched
output = $out/config.fxt
CONF
"$bin/fxtrace-drain" -C "$out/drain.conf" -- "$progs/producer" 1 5000 \
	>"$out/config.producer" 2>"$out/config.stderr"
result $? "config: fxtrace-drain -C exits 0"
grep -q '^fxtrace-drain: oneshot session' "$out/config.stderr"
result $? "config: the mode comes from the file"
check_strict "$out/config.fxt" config
exact config 1 5000
echo 'bogus = 1' >"$out/bad.conf"
"$bin/fxtrace-drain" -C "$out/bad.conf" -- true 2>"$out/bad.stderr"
[[ $? == 2 ]] && grep -q "bad.conf:1: unknown key 'bogus'" "$out/bad.stderr"
result $? "config: an unknown key is a usage error with its line"

# ---- SIGSTOP for 2 s mid-session ------------------------------------------
"$bin/fxtrace-drain" -v -m streaming -B 64K -o "$out/stop.fxt" -- \
	"$progs/producer" 2 250000 50 >"$out/stop.producer" 2>"$out/stop.stderr" &
drain=$!
sleep 1
kill -STOP $drain
sleep 2
saved_before=$(grep -c '^fxtrace-drain: saved buffer' "$out/stop.stderr")
kill -CONT $drain
wait $drain
result $? "stop: fxtrace-drain exits 0 after SIGSTOP/SIGCONT"
saved_after=$(grep -c '^fxtrace-drain: saved buffer' "$out/stop.stderr")
grep -v '^fxtrace-drain: saved buffer' "$out/stop.stderr" | sed 's/^/# /'
echo "# stop: $saved_before saves acknowledged before SIGCONT, $saved_after in all"
((saved_after > saved_before))
result $? "stop: saving resumes after SIGCONT"
check_strict "$out/stop.fxt" stop
exact stop 2 250000
(($(value dropped "$out/stop.producer") > 0))
result $? "stop: the producers dropped while the drainer was stopped"

# ---- SIGKILL mid-session, then fxtrace recover ----------------------------
"$bin/fxtrace-drain" -v -m streaming -B 64K -o "$out/kill.fxt" -- \
	"$progs/producer" 2 250000 50 >"$out/kill.producer" 2>"$out/kill.stderr" &
drain=$!
sleep 2
producer=$(pgrep -P $drain)
kill -KILL $drain
wait $drain 2>/dev/null
# The producer goes on alone, dropping; its mappings keep the orphan alive.
while kill -0 $producer 2>/dev/null; do sleep 0.1; done
acked=$(grep -c '^fxtrace-drain: saved buffer' "$out/kill.stderr")
echo "# kill: $acked saves acknowledged, file $(stat -c %s "$out/kill.fxt") bytes"
((acked > 0))
result $? "kill: saves were acknowledged before the kill"
"$bin/fxtrace" check --strict --quiet "$out/kill.fxt" >"$out/kill.check" 2>&1
rc=$?
# 0: the whole file is well formed; 3: up to the flush watermark only.
((rc == 0 || rc == 3))
result $? "kill: fxtrace check --strict: well formed up to the flush watermark (exit $rc)"
sed 's/^/# /' "$out/kill.check"
"$bin/fxtrace" recover -o "$out/recovered.fxt" "$out/kill.fxt" >"$out/recover.stdout"
result $? "kill: fxtrace recover exits 0"
sed 's/^/# /' "$out/recover.stdout"
check_strict "$out/recovered.fxt" recovered
"$progs/count_ticks" "$out/recovered.fxt" >"$out/recovered.count"
result $? "recovered: ticks in order, none twice"
size=$(stat -c %s "$out/recovered.fxt")
# Every acknowledged save lies below the cut: its records are in the file.
beyond=$(sed -n 's/^fxtrace-drain: saved buffer .* at 0x[0-9a-f]*-0x\([0-9a-f]*\),.*/\1/p' \
	"$out/kill.stderr" | while read -r end; do ((16#$end > size)) && echo "$end"; done | wc -l)
echo "# recovered: $size bytes, $(value ticks "$out/recovered.count") ticks, $beyond acknowledged saves beyond the cut"
((beyond == 0))
result $? "recovered: holds every save the drainer acknowledged"
# The orphaned session goes with the module.
rmmod fxtrace && insmod "$FXTRACE_KO"
result $? "kill: the orphaned session is freed by reloading the module"

echo "1..$n"
exit $failed
