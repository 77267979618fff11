#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain's summary gives the probes' drops as
# fxtrace-probe's does (Documentation/drain.rst): hits the kernel ran no
# program for (nested in another BPF program) counted as missed, and the
# same number as the probes' fxtrace:dropped counter in the trace.  In the
# guest with fxtrace.ko loaded; prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1
target=$root/build/test/probe/target
K=1000

# The tracepoint's program copies the syscall's entry with
# bpf_probe_read_kernel(), that is copy_from_kernel_nofault(): the kprobe
# there fires inside that program, where the kernel runs no other one.
# From 6.7 it counts each such hit in the program's recursion_misses; 6.1
# counts them nowhere (Documentation/probes.rst, Drops).
"$bin/fxtrace-drain" -o "$out/nested.fxt" -c none \
	-P tracepoint:syscalls:sys_enter_getppid \
	-P kprobe:copy_from_kernel_nofault -- "$target" $K \
	>"$out/nested.stdout" 2>"$out/nested.stderr"
result $? "nested: fxtrace-drain exits 0"
sed 's/^/# /' "$out/nested.stderr"
check_strict "$out/nested.fxt" nested
IFS=. read -r major minor _ <<<"$(uname -r)"
if ((major > 6 || (major == 6 && minor >= 7))); then lost=$K; else lost=0; fi
grep -qE "^fxtrace-drain: probes 2 of 2 attached, [0-9]+ events, 0 dropped \(ring full\), $lost missed \(nested\), 0 invalid$" \
	"$out/nested.stderr"
result $? "nested: the summary says $lost missed (nested) on $(uname -r)"
"$bin/fxtrace" dump "$out/nested.fxt" >"$out/nested.dump"
if ((lost)); then
	grep -qE "counter +fxtrace:dropped id=[0-9]+ records=$lost invalid=0$" "$out/nested.dump"
else
	! grep -q "fxtrace:dropped" "$out/nested.dump"
fi
result $? "nested: the trace's fxtrace:dropped counter says records=$lost"

echo "1..$n"
exit $failed
