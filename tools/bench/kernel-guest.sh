#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench-kernel`: with fxtrace.ko loaded, time the
# syscall and context-switch microbenchmarks with tracing off, with
# fxtrace's kernel:syscall / kernel:sched and with ftrace's raw_syscalls /
# sched_switch+sched_waking+sched_wakeup_new, interleaved, RUNS times each
# in this one boot.  Prints the medians and the added cost per event, and
# writes them to $FXTRACE_OUT/kernel.json.

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)
runs=${RUNS:-5}
syscalls=${SYSCALL_ITERATIONS:-200000}
rounds=${CTXSW_ITERATIONS:-20000}
tracing=/sys/kernel/tracing

mountpoint -q "$tracing" || mount -t tracefs nodev "$tracing"
echo 4096 >"$tracing/buffer_size_kb"

ftrace_events() {	# ftrace_events 0|1 EVENT...
	local on=$1 e
	shift
	for e in "$@"; do
		echo "$on" >"$tracing/events/$e/enable"
	done
}

run() {	# run MODE BENCH ITERATIONS -> ns per operation
	local mode=$1 bench=$2 n=$3 events
	case $bench in
	syscall) events="raw_syscalls/sys_enter raw_syscalls/sys_exit"; cat=kernel:syscall ;;
	ctxsw) events="sched/sched_switch sched/sched_waking sched/sched_wakeup_new"; cat=kernel:sched ;;
	esac
	case $mode in
	off) "$bin/kernel_bench" "$bench" "$n" ;;
	fxtrace) "$bin/kernel_bench" --fxtrace "$cat" "$bench" "$n" ;;
	ftrace)
		# shellcheck disable=SC2086
		ftrace_events 1 $events
		echo 1 >"$tracing/tracing_on"
		"$bin/kernel_bench" "$bench" "$n"
		echo 0 >"$tracing/tracing_on"
		# shellcheck disable=SC2086
		ftrace_events 0 $events
		echo >"$tracing/trace"
		;;
	esac
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A samples
for ((i = 1; i <= runs; i++)); do
	for bench in syscall ctxsw; do
		n=$syscalls
		[[ $bench == ctxsw ]] && n=$rounds
		for mode in off fxtrace ftrace; do
			samples[$bench-$mode]+="$(run "$mode" "$bench" "$n") "
		done
	done
done

json=$FXTRACE_OUT/kernel.json
echo "{" >"$json"
printf '%-8s %10s %10s %10s %14s %14s %8s\n' bench "off ns" "fxtrace" "ftrace" \
	"fxtrace +ns/ev" "ftrace +ns/ev" ratio
for bench in syscall ctxsw; do
	# Events per operation: enter+exit; or switch+waking per switch, x2.
	per_op=2
	[[ $bench == ctxsw ]] && per_op=4
	off=$(tr ' ' '\n' <<<"${samples[$bench-off]}" | grep . | median)
	fx=$(tr ' ' '\n' <<<"${samples[$bench-fxtrace]}" | grep . | median)
	ft=$(tr ' ' '\n' <<<"${samples[$bench-ftrace]}" | grep . | median)
	# (No process substitution: the guest has no /dev/fd.)
	read -r fx_ev ft_ev ratio <<<"$(awk -v o="$off" -v a="$fx" -v b="$ft" -v k="$per_op" \
		'BEGIN { x = (a - o) / k; y = (b - o) / k;
			 printf "%.1f %.1f %.2f\n", x, y, (y > 0 ? x / y : 0) }')"
	printf '%-8s %10s %10s %10s %14s %14s %8s\n' "$bench" "$off" "$fx" "$ft" \
		"$fx_ev" "$ft_ev" "$ratio"
	printf '  "%s": {"runs": %d, "off_ns": %s, "fxtrace_ns": %s, "ftrace_ns": %s, "fxtrace_added_ns_per_event": %s, "ftrace_added_ns_per_event": %s, "ratio": %s, "samples": {"off": [%s], "fxtrace": [%s], "ftrace": [%s]}}%s\n' \
		"$bench" "$runs" "$off" "$fx" "$ft" "$fx_ev" "$ft_ev" "$ratio" \
		"$(tr ' ' ',' <<<"${samples[$bench-off]% }")" \
		"$(tr ' ' ',' <<<"${samples[$bench-fxtrace]% }")" \
		"$(tr ' ' ',' <<<"${samples[$bench-ftrace]% }")" \
		"$([[ $bench == syscall ]] && echo ,)" >>"$json"
done
echo "}" >>"$json"
