#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench-kernel`: with fxtrace.ko loaded, time the
# syscall and context-switch microbenchmarks with tracing off, with
# fxtrace's kernel:syscall / kernel:sched, with ftrace's raw_syscalls /
# sched_switch+sched_waking+sched_wakeup_new and with lttng-modules' same
# events (all syscalls; sched_switch, sched_waking, sched_wakeup_new),
# interleaved, RUNS times each in this one boot.  Prints the medians and
# the added cost per event, and writes them to $FXTRACE_OUT/kernel.json.
# Usage: kernel-guest.sh [RUNS [SYSCALL_ITERATIONS [CTXSW_ITERATIONS]]]
# (run.sh passes no environment to the guest: tools/bench/kernel.sh
# passes these).
# Also leaves ftrace's format files and LTTng's metadata of these events
# in $FXTRACE_OUT (record sizes), and prints ftrace's entry sizes.
#
# lttng-modules comes from tools/bench/lttng-modules.sh (built for this
# kernel under build/lttng-modules/ABI/modroot); without it the column is
# reported missing.  lttng-sessiond is started here and loads them; both
# are gone again at the end (run.sh checks that the kernel's memory comes
# back).

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)
runs=${1:-5}
syscalls=${2:-200000}
rounds=${3:-20000}
tracing=/sys/kernel/tracing
lttng_modroot=$(cd "$(dirname "$0")/../.." && pwd)/build/lttng-modules/$(uname -r)/modroot
export HOME=/tmp/lttng-home LTTNG_HOME=/tmp/lttng-home
mkdir -p "$HOME"

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
	lttng) lttng_run "$bench" "$n" ;;
	esac
}

# lttng-modules: lttng-sessiond loads them with libkmod, which needs
# /lib/modules/$(uname -r) and its indexes; the host root the guest runs
# from is read-only and has none for this kernel.  So /usr/lib (/lib links
# to it) is covered with a directory of links to the real entries plus
# "modules", the tree tools/bench/lttng-modules.sh built; undone at the end.
lttng=0
usrlib_orig=/tmp/lttng-usrlib-orig
usrlib_new=/tmp/lttng-usrlib
lttng_start() {
	local e
	[[ -d $lttng_modroot/lib/modules/$(uname -r)/extra ]] ||
		{ echo "lttng-modules: not built ($lttng_modroot): column missing"; return; }
	command -v lttng-sessiond >/dev/null || { echo "lttng-modules: no lttng-sessiond: column missing"; return; }
	mkdir -p "$usrlib_orig" "$usrlib_new"
	mount --bind /usr/lib "$usrlib_orig"
	for e in "$usrlib_orig"/* "$usrlib_orig"/.[!.]*; do
		[[ -e $e && ${e##*/} != modules ]] && ln -s "$e" "$usrlib_new/${e##*/}"
	done
	ln -s "$lttng_modroot/lib/modules" "$usrlib_new/modules"
	mount --bind "$usrlib_new" /usr/lib
	lttng-sessiond --background >"$FXTRACE_OUT/lttng-sessiond.log" 2>&1 ||
		{ echo "lttng-modules: lttng-sessiond failed: column missing"; return; }
	lttng list -k >/dev/null 2>&1 || { echo "lttng-modules: no kernel tracer in lttng-sessiond (lttng-sessiond.log): column missing"; return; }
	echo "lttng-modules: $(grep -c '^lttng_' /proc/modules) modules loaded by lttng-sessiond"
	lttng=1
}

lttng_stop() {
	local pid i m
	pid=$(pgrep -o -x lttng-sessiond || true)
	if [[ -n $pid ]]; then
		lttng destroy -a >/dev/null 2>&1 || true
		kill "$pid"
		for ((i = 0; i < 100; i++)); do
			pgrep -x lttng-sessiond >/dev/null ||
				pgrep -x lttng-consumerd >/dev/null || break
			sleep 0.1
		done
	fi
	# Users first: a module in use refuses, and goes in a later round.
	for ((i = 0; i < 8; i++)); do
		while read -r m _; do
			[[ $m == lttng_* ]] && { rmmod "$m" 2>/dev/null || true; }
		done </proc/modules
	done
	mountpoint -q /usr/lib && umount /usr/lib
	mountpoint -q "$usrlib_orig" && umount "$usrlib_orig"
	return 0
}

lttng_run() {	# lttng_run BENCH ITERATIONS: in a snapshot (overwrite) session
	local bench=$1 n=$2
	lttng create fxbench --snapshot --output=/tmp/lttng-bench >/dev/null
	lttng enable-channel -k --overwrite --subbuf-size=1M --num-subbuf=4 ch >/dev/null
	case $bench in
	syscall) lttng enable-event -k -c ch --syscall -a >/dev/null ;;
	ctxsw) lttng enable-event -k -c ch sched_switch,sched_waking,sched_wakeup_new >/dev/null ;;
	esac
	lttng start >/dev/null
	"$bin/kernel_bench" "$bench" "$n"
	lttng stop >/dev/null
	lttng destroy >/dev/null
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

trap lttng_stop EXIT
lttng_start
modes="off fxtrace ftrace"
((lttng)) && modes+=" lttng"

declare -A samples
for ((i = 1; i <= runs; i++)); do
	for bench in syscall ctxsw; do
		n=$syscalls
		[[ $bench == ctxsw ]] && n=$rounds
		for mode in $modes; do
			samples[$bench-$mode]+="$(run "$mode" "$bench" "$n") "
		done
	done
done

# Record sizes: ftrace's entry is a 4-byte header and the payload its
# format file describes, rounded up to 4 bytes (a payload of more than
# 112 bytes takes a 4-byte length too).  LTTng's metadata (CTF TSDL) goes
# to $FXTRACE_OUT/lttng-metadata.
mkdir -p "$FXTRACE_OUT/ftrace-formats"
printf '%-28s %8s %8s\n' "ftrace event" payload entry
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup_new \
	raw_syscalls/sys_enter raw_syscalls/sys_exit irq/irq_handler_entry \
	irq/irq_handler_exit irq/softirq_entry irq/softirq_exit \
	irq_vectors/local_timer_entry irq_vectors/local_timer_exit; do
	f=$tracing/events/$e/format
	[[ -r $f ]] || continue
	cp "$f" "$FXTRACE_OUT/ftrace-formats/${e//\//:}"
	awk -v e="$e" '/offset:/ { split($0, a, /offset:|;|size:/); o = a[3] + 0; z = a[5] + 0;
		if (o + z > end) end = o + z }
		END { entry = 4 + int((end + 3) / 4) * 4; if (end > 112) entry += 4;
		      printf "%-28s %8d %8d\n", e, end, entry }' "$f"
done
if ((lttng)); then
	lttng create meta --output=/tmp/lttng-meta >/dev/null
	lttng enable-event -k sched_switch,sched_waking,sched_wakeup_new,irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit >/dev/null
	lttng enable-event -k --syscall -a >/dev/null
	lttng start >/dev/null
	sleep 0.2
	lttng stop >/dev/null
	lttng destroy >/dev/null
	cp /tmp/lttng-meta/kernel/metadata "$FXTRACE_OUT/lttng-metadata" 2>/dev/null ||
		echo "lttng-modules: no metadata written"
fi

json=$FXTRACE_OUT/kernel.json
echo "{" >"$json"
printf '%-8s %9s %9s %9s %9s %10s %10s %10s %8s %8s\n' bench "off ns" fxtrace ftrace lttng \
	"fxt +ns/ev" "ftr +ns/ev" "ltt +ns/ev" "x ftrace" "x lttng"
med() { { tr ' ' '\n' <<<"${samples[$1]:-}" | grep . || true; } | median; }
list() { local v=${samples[$1]:-}; v=${v% }; echo "${v// /,}"; }
for bench in syscall ctxsw; do
	# Events per operation: enter+exit; or switch+waking per switch, x2.
	per_op=2
	[[ $bench == ctxsw ]] && per_op=4
	off=$(med "$bench-off")
	fx=$(med "$bench-fxtrace")
	ft=$(med "$bench-ftrace")
	lt=$(med "$bench-lttng")
	# (No process substitution: the guest has no /dev/fd.)
	read -r fx_ev ft_ev lt_ev r_ft r_lt <<<"$(awk -v o="$off" -v a="$fx" -v b="$ft" \
		-v c="${lt:-}" -v k="$per_op" \
		'BEGIN { x = (a - o) / k; y = (b - o) / k;
			 if (c == "") { z = "null"; rz = "null" }
			 else { z = sprintf("%.1f", (c - o) / k); rz = (c - o > 0 ? sprintf("%.2f", x / z) : "null") }
			 printf "%.1f %.1f %s %.2f %s\n", x, y, z, (y > 0 ? x / y : 0), rz }')"
	printf '%-8s %9s %9s %9s %9s %10s %10s %10s %8s %8s\n' "$bench" "$off" "$fx" "$ft" \
		"${lt:-missing}" "$fx_ev" "$ft_ev" "${lt_ev/null/-}" "$r_ft" "${r_lt/null/-}"
	printf '  "%s": {"runs": %d, "off_ns": %s, "fxtrace_ns": %s, "ftrace_ns": %s, "lttng_ns": %s, "fxtrace_added_ns_per_event": %s, "ftrace_added_ns_per_event": %s, "lttng_added_ns_per_event": %s, "ratio": %s, "ratio_lttng": %s, "samples": {"off": [%s], "fxtrace": [%s], "ftrace": [%s], "lttng": [%s]}}%s\n' \
		"$bench" "$runs" "$off" "$fx" "$ft" "${lt:-null}" "$fx_ev" "$ft_ev" "$lt_ev" \
		"$r_ft" "$r_lt" "$(list "$bench-off")" "$(list "$bench-fxtrace")" \
		"$(list "$bench-ftrace")" "$(list "$bench-lttng")" \
		"$([[ $bench == syscall ]] && echo ,)" >>"$json"
done
echo "}" >>"$json"
