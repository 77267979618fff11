#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two builds against each other in one guest boot: short streaming runs of
# 2 producer threads (tools/bench/stream_bench.c, as `make bench-stream`
# runs them, through fxtrace-drain -v), A and B alternating so that both
# see the same host load.  A and B are two builds of fxtrace.ko (NAME.ko:
# reloaded before each run, the tree's drainer) or two fxtrace-drain
# binaries (the module loaded stays).  One line per run: events lost, the
# fastest filling of a half and the slowest save (Documentation/drain.rst,
# -v), the drainer's CPU.  Run from the host (Documentation/performance.rst,
# "Streaming against LTTng-UST"):
#
#   tools/guest/run.sh -m kmod/fxtrace.ko -o build/stream-ab \
#       "$PWD/tools/bench/stream-ab.sh $PWD/A.ko $PWD/kmod/fxtrace.ko 400000"
#
# Usage: stream-ab.sh A B [RATE [RUNS [SECONDS [DIR [BUFFER]]]]]: events/s
# per thread (300000), runs of each (5), their length (4 s), where the
# trace goes (/tmp, the guest's tmpfs) and the buffer per thread (1M).

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
(($# >= 2)) || { echo "usage: stream-ab.sh A B [RATE [RUNS [SECONDS [DIR [BUFFER]]]]]" >&2; exit 2; }
builds=("$1" "$2")
rate=${3:-300000}
runs=${4:-5}
seconds=${5:-4}
buffer=${7:-1M}
work=$(mktemp -d "${6:-/tmp}/stream-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
loaded=

for ((i = 0; i < runs; i++)); do
	for which in 0 1; do
		build=${builds[which]}
		drain=$bin/fxtrace-drain
		if [[ $build == *.ko ]]; then
			rmmod fxtrace 2>/dev/null || true
			insmod "$build"
			loaded=$build
		else
			drain=$build
		fi
		"$drain" -v -m streaming -c app -B "$buffer" -o "$work/t.fxt" -- \
			"$bin/stream_bench" fxtrace 2 "$seconds" "$rate" \
			>"$work/out" 2>"$work/err" || true
		lost=$(sed -n 's/^dropped //p' "$work/out")
		read -r save_ms fill_ms <<<"$(sed -nE 's/^fxtrace-drain: task +[0-9]+ saves acknowledged up to ([0-9.]+) ms .* the fastest half filled in ([0-9.]+) ms$/\1 \2/p' "$work/err")"
		cpu=$(grep -o '[0-9.]* s CPU' "$work/err" | head -1)
		printf '%s rate %s lost %s fastest_half_ms %s slowest_save_ms %s drainer %s\n' \
			"$([[ $which == 0 ]] && echo A || echo B)" "$rate" "${lost:-?}" \
			"${fill_ms:-?}" "${save_ms:-?}" "${cpu:-?}"
		rm -f "$work/t.fxt"
	done
done
# The guest's run.sh unloads the module it loaded: leave B's loaded.
if [[ -n $loaded ]]; then
	rmmod fxtrace
	insmod "${builds[1]}"
fi
