#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU goes while fxtrace streams, in the guest: one `fxtrace
# record` of 2 producer threads (tools/bench/stream_bench.c, as `make
# bench-stream` runs them) under `perf record -a -e cpu-clock`, then the
# drainer's summary and the samples by task and by symbol.  Run from the
# host (Documentation/performance.rst, "Streaming against LTTng-UST"):
#
#   tools/guest/run.sh -m kmod/fxtrace.ko -o build/stream-profile \
#       "$PWD/tools/bench/stream-profile.sh 300000 4"
#
# Usage: stream-profile.sh [RATE [SECONDS]]: events/s per thread (300000)
# and the run's length (4 s).  perf.data stays in $FXTRACE_OUT.

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
rate=${1:-300000}
seconds=${2:-4}
work=/tmp/stream-profile
command -v perf >/dev/null || { echo "stream-profile.sh: no perf (Debian: linux-perf)" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
perf record -q -a -e cpu-clock -F 1000 -o "$FXTRACE_OUT/perf.data" -- \
	"$bin/fxtrace" record -m streaming -c app -e none -B 1M -o "$work/t.fxt" -- \
	"$bin/stream_bench" fxtrace 2 "$seconds" "$rate" >"$work/out" 2>"$work/err" || true
cat "$work/out"
grep '^fxtrace-drain' "$work/err" || true
perf report -i "$FXTRACE_OUT/perf.data" --stdio --sort comm 2>/dev/null | grep -v '^#' | grep . | sed -n 1,12p
perf report -i "$FXTRACE_OUT/perf.data" --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep . | sed -n 1,40p
