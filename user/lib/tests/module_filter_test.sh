#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a session's pid filter keeps libfxtrace
# programs outside the filter's process tree out of its trace.  Under
# `record -p PID -- COMMAND` the command, a child of the drainer and not
# of PID, runs untraced: its 11 events are not in the trace, the library
# prints no warning and counts none of them lost (the kernel refuses its
# FXTRACE_IOC_ATTACH with EPERM).  Under `record -- sh -c COMMAND` (the
# filter is then the shell's process) the command, a child of the shell,
# is traced: all 11 events are in the trace.  In the guest with
# fxtrace.ko loaded.  Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$root/build/bin
bt=$root/build/test/lib/behaviour_test
out=${FXTRACE_OUT:-$(mktemp -d)}
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# behaviour_test mapfail (no BEHAVIOUR_MMAP): 11 app instants, then its
# count of lost events.
app_events() {
	"$bin/fxtrace" dump "$1" | grep -c ' instant  *app:'
}

unset FXTRACE_OUTPUT FXTRACE_OUTPUT_ROOT
sleep 600 &
target=$!
"$bin/fxtrace" record -q -c app -e none -B 64K -p "$target" -o "$out/other.fxt" -- \
	"$bt" mapfail >"$out/other.out" 2>"$out/other.err"
result $? "record -p PID -- behaviour_test mapfail: exit 0"
kill "$target"
wait "$target" 2>/dev/null
sed 's/^/# /' "$out/other.out" "$out/other.err"
events=$(app_events "$out/other.fxt")
echo "# app events of a process outside the filter: $events"
((events == 0))
result $? "other: a process outside the pid filter writes nothing into the trace"
grep -qx 'lost 0' "$out/other.out"
result $? "other: none of its events counted lost"
[[ ! -s $out/other.err ]]
result $? "other: no warning"

# The shell runs behaviour_test as its child: with a command after it,
# the shell cannot exec it in its own process.
# shellcheck disable=SC2016 # $1 is the inner shell's
"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/child.fxt" -- \
	sh -c '"$1" mapfail; exit $?' sh "$bt" >"$out/child.out" 2>"$out/child.err"
result $? "record -- sh -c 'behaviour_test mapfail': exit 0"
sed 's/^/# /' "$out/child.out" "$out/child.err"
events=$(app_events "$out/child.fxt")
echo "# app events of the command's child: $events"
((events == 11)) && grep -qx 'lost 0' "$out/child.out"
result $? "child: a child of the command (the filter's process) is traced, none lost"

echo "1..$n"
exit $failed
