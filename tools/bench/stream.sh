#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-stream: boot the guest once and find the highest zero-drop
# streaming rate of 2 producer threads, fxtrace against LTTng-UST, with the
# drainer's and the consumer daemon's CPU per MB
# (tools/bench/stream-guest.sh).  Results: the table on stdout,
# build/bench/stream.json.  STREAM_SECONDS: the confirming runs' length
# (default 30, the issue's); STREAM_RATES: the ladder, events/s per thread
# separated by spaces or commas (default 25,000 to 600,000);
# STREAM_BUFFER: the buffer memory per producer thread, for both tools
# (default 1M: fxtrace's per-thread buffer; LTTng gets 4 sub-buffers of a
# quarter of it per CPU), a power of two in K or M; STREAM_PRIO: a
# SCHED_FIFO priority for both consumers, fxtrace's drainer (record -r)
# and lttng-consumerd (chrt) [default: 0, neither].
# GUEST_ACCEL=tcg runs the guest's vCPUs on a host thread each
# (Documentation/performance.rst, "Streaming against LTTng-UST").

set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/bench/stream-run
mkdir -p build/bench
# The guest sees no environment from here: the length and the ladder go
# as arguments.
seconds=${STREAM_SECONDS:-30}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "stream.sh: STREAM_SECONDS must be a number of seconds, not '$seconds'" >&2; exit 2; }
rates=$(tr -s ' ,' ',' <<<"${STREAM_RATES:-}" | sed 's/^,//; s/,$//')
[[ $rates =~ ^([1-9][0-9]*(,|$))*$ ]] || { echo "stream.sh: STREAM_RATES must be events/s per thread, not '$STREAM_RATES'" >&2; exit 2; }
buffer=${STREAM_BUFFER:-1M}
if [[ $buffer =~ ^([1-9][0-9]*)([KM])$ ]]; then
	buffer_kib=${BASH_REMATCH[1]}
	[[ ${BASH_REMATCH[2]} == K ]] || buffer_kib=$((buffer_kib * 1024))
else
	echo "stream.sh: STREAM_BUFFER must be a size in K or M, not '$buffer'" >&2
	exit 2
fi
prio=${STREAM_PRIO:-0}
[[ $prio =~ ^([0-9]|[1-9][0-9])$ ]] || { echo "stream.sh: STREAM_PRIO must be 0 (none) or a priority 1-99, not '$prio'" >&2; exit 2; }
# The host's load goes with the figures (the guest's vCPUs are host
# threads): its 1-minute average covers the end of the run.
# 5 GiB: the guest's /tmp (half of it) holds a 30-s run at 2 x 600,000
# events/s of 48 bytes (1.73 GB), for both tools.
GUEST_MEM=${GUEST_MEM:-5G} tools/guest/run.sh -t $((900 + 12 * seconds)) \
	-m kmod/fxtrace.ko -o "$out" \
	"$PWD/tools/bench/stream-guest.sh $seconds ${rates:--} $buffer_kib $prio"
echo "host after the run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime | sed 's/.*\(load average\)/\1/')"
cat "$out"/1-stream-guest.sh.log
cp "$out"/files/1-stream-guest.sh/stream.json build/bench/stream.json
