#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench-stream`: 2 producer threads stream 48-byte
# events, through fxtrace (`fxtrace record -m streaming`, libfxtrace's
# per-thread buffers, 1 MiB each by default, drained to a file on tmpfs)
# and through LTTng-UST (lttng-sessiond and lttng-consumerd in this guest,
# discard mode, per-UID buffers of 4 x 256 KiB per CPU by default: the same
# 2 MiB, to a trace on tmpfs).  For each, the same rate ladder of short runs finds the highest
# rate per thread with zero drops (and reached by the producers: a rung
# they fall short of ends the ladder); longer runs from that rate down the
# ladder confirm it (the first that loses nothing) and give the CPU the
# drainer (fxtrace-drain, from Start to its summary) or the consumer daemon
# (lttng-consumerd, from `lttng start` to `lttng stop`) spent per MB
# written, and the producers' CPU per event.  Prints a table and writes
# $FXTRACE_OUT/stream.json.
#
# Usage: stream-guest.sh [SECONDS [RATES [BUFFER [PRIO]]]]: the confirming
# runs' length (30 by default, the issue's; /tmp must hold that long a run
# at the top rate: stream.sh gives the guest 5 GiB), the ladder, events/s
# per thread separated by commas (make bench-stream passes STREAM_RATES; -
# for the default), the buffer memory per thread in KiB (1024: fxtrace's
# default; LTTng's per-CPU buffer is 4 sub-buffers of a quarter of it;
# STREAM_BUFFER), and a SCHED_FIFO priority for both consumers (0, the
# default: neither; STREAM_PRIO): `fxtrace record -r PRIO`, and chrt on
# every lttng-consumerd thread once the session has started.
# STREAM_RUNG_SECONDS (2) changes the rungs' length when run by hand.

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
threads=2
rung_s=${STREAM_RUNG_SECONDS:-2}
hold_s=${1:-30}
ladder=${2:--}
[[ $ladder != - ]] || ladder=
IFS=, read -ra rates <<<"${ladder:-25000,50000,75000,100000,125000,150000,200000,250000,300000,350000,400000,500000,600000}"
for rate in "${rates[@]}"; do
	[[ $rate =~ ^[1-9][0-9]*$ ]] || { echo "stream-guest.sh: a rate is a number of events/s, not '$rate'" >&2; exit 2; }
done
buffer_kib=${3:-1024}
prio=${4:-0}
[[ $prio =~ ^([0-9]|[1-9][0-9])$ ]] || { echo "stream-guest.sh: the priority is 0 (none) or 1-99, not '$prio'" >&2; exit 2; }
rt_option=()
((prio == 0)) || rt_option=(-r "$prio")
# LTTng's sub-buffers are powers of two of at least a page.
if ! [[ $buffer_kib =~ ^[1-9][0-9]*$ ]] || ((buffer_kib < 16 || (buffer_kib & (buffer_kib - 1)))); then
	echo "stream-guest.sh: the buffer is a power of two of at least 16 KiB, not '$buffer_kib' KiB" >&2
	exit 2
fi
work=/tmp/stream-bench
export HOME=/tmp/lttng-home LTTNG_HOME=/tmp/lttng-home
mkdir -p "$HOME"
hz=$(getconf CLK_TCK)

value() { sed -n "s/^$1 //p" "$2"; }

# One run of each: sets emitted, dropped, bytes, daemon_cpu (seconds),
# producer_cpu (the producer process's own, seconds), max_burst (the
# most events a thread emitted at once, catching up after a late step)
# and, for fxtrace, save_ms and fill_ms: the slowest save from the
# module's request to its ack and the fastest filling of a half (-v's
# figures, Documentation/drain.rst); a producer drops when a save
# outlasts the filling of its other half.
fxtrace_run() {	# SECONDS RATE
	local total
	rm -rf "$work" && mkdir -p "$work"
	TIMEFORMAT='%3U %3S'
	{ time "$bin/fxtrace" record -v "${rt_option[@]}" -m streaming -c app -e none -B "${buffer_kib}K" \
		-o "$work/t.fxt" -- "$bin/stream_bench" fxtrace "$threads" "$1" "$2" \
		>"$work/out" 2>"$work/err"; } 2>"$work/time"
	emitted=$(value emitted "$work/out")
	dropped=$(value dropped "$work/out")
	producer_cpu=$(value cpu_s "$work/out")
	max_burst=$(value max_burst "$work/out")
	bytes=$(stat -c %s "$work/t.fxt")
	read -r save_ms fill_ms <<<"$(sed -nE 's/^fxtrace-drain: task +[0-9]+ saves acknowledged up to ([0-9.]+) ms .* the fastest half filled in ([0-9.]+) ms$/\1 \2/p' "$work/err")"
	save_ms=${save_ms:-null} fill_ms=${fill_ms:-null}
	# That save's steps: the drainer busy, its wake-up, saves before it,
	# copy and check, write, ack.
	steps=$(sed -nE 's/^fxtrace-drain: task +the slowest save: the drainer busy ([0-9.]+) ms after the request, its packet read ([0-9.]+) ms later, begun ([0-9.]+) ms later, copied and checked in ([0-9.]+), written in ([0-9.]+), acknowledged ([0-9.]+) ms after$/[\1, \2, \3, \4, \5, \6]/p' "$work/err")
	steps=${steps:-null}
	# The consumer daemon's CPU from Start to its summary, as
	# lttng-consumerd's is counted from `lttng start` to `lttng stop`.
	daemon_cpu=$(sed -n 's/^fxtrace-drain: \([0-9.]*\) s CPU .*/\1/p' "$work/err")
	if [[ -z $daemon_cpu ]]; then
		echo "stream-guest.sh: fxtrace-drain printed no CPU line:" >&2
		cat "$work/err" >&2
		exit 1
	fi
	# And all of `fxtrace record` but the producer (before run 11).
	total=$(tail -n 1 "$work/time")
	record_cpu=$(awk -v t="$total" -v p="$producer_cpu" \
		'BEGIN { split(t, a, " "); printf "%.3f", a[1] + a[2] - p }')
}

consumer_ticks() {
	local pid sum=0 stat
	for pid in $(pgrep -x lttng-consumerd); do
		read -ra stat <"/proc/$pid/stat" || continue
		sum=$((sum + stat[13] + stat[14]))
	done
	echo "$sum"
}

lttng_run() {	# SECONDS RATE
	local t0 t1 stop pid
	rm -rf "$work" && mkdir -p "$work"
	lttng create stream --output="$work/lt" >/dev/null
	lttng enable-channel -u --discard --buffers-uid --subbuf-size="$((buffer_kib / 4))K" \
		--num-subbuf=4 c >/dev/null
	lttng enable-event -u -c c fxstream:tick >/dev/null
	lttng start >/dev/null
	if ((prio)); then
		for pid in $(pgrep -x lttng-consumerd); do
			chrt -a -f -p "$prio" "$pid" >/dev/null
		done
	fi
	t0=$(consumer_ticks)
	"$bin/stream_bench" lttng "$threads" "$1" "$2" >"$work/out"
	stop=$(lttng stop 2>&1)
	t1=$(consumer_ticks)
	lttng destroy >/dev/null
	emitted=$(value emitted "$work/out")
	producer_cpu=$(value cpu_s "$work/out")
	max_burst=$(value max_burst "$work/out")
	record_cpu=null save_ms=null fill_ms=null steps=null
	dropped=$(sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' <<<"$stop")
	dropped=${dropped:-0}
	bytes=$(du -sb "$work/lt" | cut -f1)
	daemon_cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz }')
}

sessiond_pid=
cleanup() {
	if [[ -n $sessiond_pid ]]; then
		lttng destroy -a >/dev/null 2>&1 || true
		kill "$sessiond_pid" 2>/dev/null || true
		for _ in $(seq 100); do
			pgrep -x lttng-sessiond >/dev/null ||
				pgrep -x lttng-consumerd >/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$work"
}
trap cleanup EXIT
lttng-sessiond --daemonize --no-kernel
sessiond_pid=$(pgrep -o -x lttng-sessiond)

row() {	# TOOL RATE SECONDS NOTE: a line of the table, from the last run
	local save_fill=-
	[[ $save_ms == null ]] || save_fill=$save_ms/$fill_ms
	printf '%-8s %12s %10s %10s %8s %12.2f %10s %10.1f %10.2f %10s %12s%s\n' "$1" "$2" "$emitted" \
		"$dropped" "$3" "$(bc -l <<<"$bytes / 1000000")" "$daemon_cpu" \
		"$(bc -l <<<"$daemon_cpu * 1000 / ($bytes / 1000000 + 0.000001)")" \
		"$(bc -l <<<"$producer_cpu * 1000000 / ($emitted + 1)")" "$max_burst" "$save_fill" "$4"
}

json=$FXTRACE_OUT/stream.json
printf '{\n  "buffer_kib": %d,\n  "consumer_rt_priority": %d,\n' "$buffer_kib" "$prio" >"$json"
printf '%-8s %12s %10s %10s %8s %12s %10s %10s %10s %10s %12s\n' tool "rate/thread" emitted dropped \
	seconds MB "daemon s" "ms CPU/MB" "prod us/ev" "max burst" "save/fill ms"
declare -A zero_drop cpu_per_mb
for tool in fxtrace lttng; do
	best=-1
	rungs=
	for ((i = 0; i < ${#rates[@]}; i++)); do
		rate=${rates[i]}
		"${tool}_run" "$rung_s" "$rate"
		row "$tool" "$rate" "$rung_s" ""
		rungs+="{\"rate\": $rate, \"emitted\": $emitted, \"dropped\": $dropped, \"bytes\": $bytes, \"daemon_cpu_s\": $daemon_cpu, \"record_cpu_s\": $record_cpu, \"producer_cpu_s\": $producer_cpu, \"max_burst\": $max_burst, \"save_ms_max\": $save_ms, \"fill_ms_min\": $fill_ms, \"slowest_save_steps_ms\": $steps},"
		[[ $dropped == 0 ]] || break
		# A rung the producers did not reach (within 5 %) proves nothing
		# about the daemon: the ladder ends there.
		if awk -v e="$emitted" -v t="$threads" -v s="$rung_s" -v r="$rate" \
			'BEGIN { exit !(e / t / s < 0.95 * r) }'; then
			echo "$tool: the producers reached $((emitted / threads / rung_s)) of $rate events/s per thread: producer-bound"
			break
		fi
		best=$i
	done
	# The confirming run: down the ladder until one loses nothing.
	hold="null"
	confirmed=0
	for ((i = best; i >= 0; i--)); do
		rate=${rates[i]}
		"${tool}_run" "$hold_s" "$rate"
		per_mb=$(bc -l <<<"$daemon_cpu * 1000 / ($bytes / 1000000)")
		row "$tool" "$rate" "$hold_s" "  (confirming run)"
		[[ $steps == null ]] || echo "  its slowest save, ms: drainer busy, wake-up, saves before it, copy and check, write, ack: $steps"
		hold=$(printf '{"rate": %s, "seconds": %s, "emitted": %s, "dropped": %s, "bytes": %s, "daemon_cpu_s": %s, "record_cpu_s": %s, "producer_cpu_s": %s, "max_burst": %s, "save_ms_max": %s, "fill_ms_min": %s, "slowest_save_steps_ms": %s, "cpu_ms_per_mb": %.2f}' \
			"$rate" "$hold_s" "$emitted" "$dropped" "$bytes" "$daemon_cpu" "$record_cpu" "$producer_cpu" "$max_burst" "$save_ms" "$fill_ms" "$steps" "$per_mb")
		if [[ $dropped == 0 ]]; then
			confirmed=$rate
			break
		fi
	done
	zero_drop[$tool]=$confirmed
	cpu_per_mb[$tool]=${per_mb:-0}
	printf '  "%s": {"threads": %d, "zero_drop_rate_per_thread": %s, "rungs": [%s], "confirm": %s}%s\n' \
		"$tool" "$threads" "$confirmed" "${rungs%,}" "$hold" "$([[ $tool == fxtrace ]] && echo ,)" >>"$json"
done
echo "}" >>"$json"
# The issue's targets: >= 2x LTTng-UST's zero-drop rate, <= its CPU per MB.
awk -v a="${zero_drop[fxtrace]}" -v b="${zero_drop[lttng]}" -v c="${cpu_per_mb[fxtrace]}" \
	-v d="${cpu_per_mb[lttng]}" 'BEGIN {
	printf "zero-drop rate: fxtrace %d, LTTng-UST %d events/s per thread: %.2fx (target >= 2)\n", a, b, b ? a / b : 0
	printf "daemon CPU per MB: fxtrace %.1f ms, lttng-consumerd %.1f ms: %.2fx (target <= 1)\n", c, d, d ? c / d : 0 }'
