#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-kernel: build lttng-modules for the guest's kernel
# (tools/bench/lttng-modules.sh; the column is reported missing if that
# fails), boot the guest once and compare the cost of fxtrace's kernel
# events with ftrace's, lttng-modules' and with tracing off
# (tools/bench/kernel-guest.sh), then count the kernel writer's
# instructions per record on the host (tools/bench/kwriter.sh).
# RUNS (5), SYSCALL_ITERATIONS (200000) and CTXSW_ITERATIONS (20000) set
# the samples and their lengths.  Results: the tables on stdout, build/bench/kernel.json and kwriter.json;
# ftrace's format files and LTTng's metadata in build/bench/kernel-run/files/.

set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/bench/kernel-run
tools/bench/lttng-modules.sh ||
	echo "bench-kernel: lttng-modules did not build (above): its column will be missing" >&2
# The figures are shown even when run.sh fails the run (e.g. on the
# kernel's memory after rmmod); its status is the script's.
# The guest sees no environment from here: the counts go as arguments.
runs=${RUNS:-5} syscalls=${SYSCALL_ITERATIONS:-200000} rounds=${CTXSW_ITERATIONS:-20000}
for n in "$runs" "$syscalls" "$rounds"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-kernel: RUNS, SYSCALL_ITERATIONS and CTXSW_ITERATIONS must be positive numbers, not '$n'" >&2; exit 2; }
done
rc=0
tools/guest/run.sh -t 1500 -m kmod/fxtrace.ko -o "$out" \
	"$PWD/tools/bench/kernel-guest.sh $runs $syscalls $rounds" || rc=$?
cat "$out"/1-kernel-guest.sh.log
cp "$out"/files/1-kernel-guest.sh/kernel.json build/bench/kernel.json
tools/bench/kwriter.sh
exit "$rc"
