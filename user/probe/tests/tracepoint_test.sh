#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: kernel tracepoints through `fxtrace record -e SUBSYSTEM:EVENT`
# (libfxtprobe's tracepoint programs): exactly one event per hit on the
# thread that hit it, with the tracepoint's fields as typed arguments and
# the CPU; --filter conditions in BPF, numbers the field cannot hold
# refused; unknown tracepoints rejected; what
# `fxtrace list` shows.  Runs as root with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../drain/tests/tap.sh
. "$here/../../drain/tests/tap.sh" || exit 1
target=$root/build/test/probe/target
K=1000
GETPPID_NR=110	# x86-64

# rec NAME ARGS...: fxtrace record ARGS into NAME.fxt, $rc, NAME.dump.
rec() {
	local name=$1
	shift
	"$bin/fxtrace" record -o "$out/$name.fxt" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"
	rc=$?
	sed 's/^/# /' "$out/$name.stderr"
	"$bin/fxtrace" dump "$out/$name.fxt" >"$out/$name.dump" 2>&1
	who=$(awk '/^pid / { print $2 "/" $4 }' "$out/$name.stdout")
}

count() { grep -cE "$2" "$out/$1.dump"; }

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "ok 1 # SKIP the kernel has no BTF: no probe can load"
	echo "1..1"
	exit 0
fi

# ---- a tracepoint with an integer field: one event per getppid() -----------
rec getppid -e syscalls:sys_enter_getppid -- "$target" $K
result $rc "getppid: exit 0"
check_strict "$out/getppid.fxt" getppid
got=$(count getppid " $who( target)? +instant +probe:tracepoint:syscalls:sys_enter_getppid __syscall_nr=$GETPPID_NR cpu=[01]$")
all=$(count getppid "instant +probe:tracepoint:")
echo "# getppid: $got events on $who with __syscall_nr=$GETPPID_NR and cpu, $all in all"
[[ $got == "$K" && $all == "$K" ]]
result $? "getppid: exactly $K events, all on the target's thread, typed fields and cpu"
# User events are not switched off by -e.
got=$(count getppid " $who( target)? +duration end +probe_test:iteration")
[[ $got == "$K" ]]
result $? "getppid: -e keeps the program's own events: $K iterations ($got)"
# On the session clock: each hit inside its iteration's duration.
grep " $who " "$out/getppid.dump" | sort -s -g -k2,2 | awk -v k=$K '
	/duration begin +probe_test:iteration/ { if (it) bad++; it = 1; tp = 0 }
	/probe:tracepoint:/ { if (!it) bad++; tp++ }
	/duration end +probe_test:iteration/ { if (!it || tp != 1) bad++; it = 0; n++ }
	END { exit (bad || n != k) }'
result $? "getppid: every hit inside its iteration on the session clock"

# ---- filters -----------------------------------------------------------------
rec filter-eq -q -e syscalls:sys_enter_getppid --filter "__syscall_nr == $GETPPID_NR" -- "$target" 100
got=$(count filter-eq "probe:tracepoint:")
[[ $rc == 0 && $got == 100 ]]
result $? "filter ==: exactly 100 events ($got)"
rec filter-ne -q -e syscalls:sys_enter_getppid --filter "__syscall_nr != $GETPPID_NR" -- "$target" 100
got=$(count filter-ne "probe:tracepoint:")
[[ $rc == 0 && $got == 0 ]]
result $? "filter !=: no event ($got)"
rec filter-and -q -e syscalls:sys_enter_getppid --filter "__syscall_nr >= 100 && __syscall_nr < 111" -- "$target" 100
got=$(count filter-and "probe:tracepoint:")
[[ $rc == 0 && $got == 100 ]]
result $? "filter >= && <: exactly 100 events ($got)"

# ---- string fields: task_newtask's comm, once per fork -----------------------
rec newtask -e task:task_newtask -- /bin/bash -c 'for i in 1 2 3 4 5; do /bin/true; done'
result $rc "newtask: exit 0"
check_strict "$out/newtask.fxt" newtask
got=$(count newtask "instant +probe:tracepoint:task:task_newtask pid=[0-9]+ comm=\"bash\" clone_flags=[0-9]+ oom_score_adj=-?[0-9]+ cpu=[01]$")
all=$(count newtask "instant +probe:tracepoint:")
echo "# newtask: $got of $all events with comm=\"bash\""
[[ $got == 5 && $all == 5 ]]
result $? "newtask: exactly 5 forks, comm=\"bash\" as a string argument"
grep -m1 "instant +probe:tracepoint:" "$out/newtask.dump" | sed 's/^/# /'

# ---- a dynamic string (__data_loc char[]): the command's own exec ------------
rec exec -q -e sched:sched_process_exec -- /bin/true
got=$(count exec "instant +probe:tracepoint:sched:sched_process_exec filename=\"/bin/true\" pid=[0-9]+ old_pid=[0-9]+ cpu=[01]$")
all=$(count exec "instant +probe:tracepoint:")
[[ $rc == 0 && $got == 1 && $all == 1 ]]
result $? "exec: exactly 1 event, filename=\"/bin/true\" from the __data_loc field ($got of $all)"

# ---- named fields only -------------------------------------------------------
# (bash execs the last command of -c without a fork: a loop forks each time)
rec fields -q -e 'task:task_newtask comm' -- /bin/bash -c 'for i in 1 2; do /bin/true; done'
got=$(count fields "instant +probe:tracepoint:task:task_newtask comm=\"bash\" cpu=[01]$")
[[ $rc == 0 && $got == 2 ]]
result $? "fields: only the named field and cpu, 2 events ($got)"

# ---- errors ------------------------------------------------------------------
got=$("$bin/fxtrace" record -q -o "$out/bad.fxt" -e nosuch:event -- true 2>&1)
rc=$?
echo "# $got"
[[ $rc == 2 && $got == *"no tracepoint nosuch:event on this kernel"*"'fxtrace list tracepoints' shows them)" ]]
result $? "unknown tracepoint: exit 2 ($rc) and a message naming it"
got=$("$bin/fxtrace" record -q -o "$out/bad.fxt" -e syscalls:sys_enter_getppid --filter 'nosuch == 1' -- true 2>&1)
rc=$?
[[ $rc == 2 && $got == *"nosuch is not an integer field of syscalls:sys_enter_getppid" ]]
result $? "unknown filter field: exit 2 ($rc)"
# A number the field cannot hold would make the condition always or never
# hold: the largest int is taken, one past it refused.
rec filter-max -q -e syscalls:sys_enter_getppid --filter "__syscall_nr <= 2147483647" -- "$target" 100
got=$(count filter-max "probe:tracepoint:")
[[ $rc == 0 && $got == 100 ]]
result $? "filter <= INT_MAX on an int: exactly 100 events ($got)"
for number in 2147483648 4294967406 -2147483649; do
	got=$("$bin/fxtrace" record -q -o "$out/bad.fxt" -e syscalls:sys_enter_getppid --filter "__syscall_nr == $number" -- "$target" 1 2>&1)
	rc=$?
	[[ $rc == 2 && $got == *": '__syscall_nr==$number': $number does not fit in __syscall_nr, a signed field of 4 bytes" ]]
	result $? "filter == $number on an int: exit 2 ($rc) and why: ${got##*: }"
done

# ---- fxtrace list --------------------------------------------------------------
"$bin/fxtrace" list >"$out/list.txt"
result $? "list: exit 0"
grep -qx '  sched:sched_switch' "$out/list.txt" &&
	grep -qx '  syscalls:sys_enter_getppid' "$out/list.txt" &&
	grep -q '^  syscall  *system calls' "$out/list.txt" &&
	grep -q '^  tracepoint:SUBSYSTEM:EVENT' "$out/list.txt" &&
	grep -qx '  session: none' "$out/list.txt"
result $? "list: kernel categories, this kernel's tracepoints, probe kinds, the session"
tps=$(grep -c ':' /sys/kernel/tracing/available_events)
listed=$("$bin/fxtrace" list tracepoints | sed -n 's/^  (\([0-9]*\) tracepoints)$/\1/p')
echo "# list: $listed tracepoints listed, $tps in available_events"
[[ $listed == "$tps" ]]
result $? "list tracepoints: every one of available_events"
got=$("$bin/fxtrace" list tracepoints 'sched:sched_switch')
[[ $got == $'Tracepoints of this kernel (fxtrace record -e SUBSYSTEM:EVENT; from /sys/kernel/tracing):\n  sched:sched_switch\n  (1 tracepoint matching sched:sched_switch)' ]]
result $? "list tracepoints GLOB: exactly the match"
# A running session's user categories.
"$bin/fxtrace" record -q -c 'probe_test,app*' -e none -o "$out/listing.fxt" -- \
	/bin/sh -c "sleep 1; '$bin/fxtrace' list user >'$out/list-user.txt'"
sed 's/^/# /' "$out/list-user.txt"
grep -qx '  session: started' "$out/list-user.txt" &&
	grep -qx '  category list: probe_test app\* fxtrace' "$out/list-user.txt"
result $? "list user: the running session's category list"

echo "1..$n"
exit $failed
