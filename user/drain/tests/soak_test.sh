#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: soak of fxtrace-drain in the guest: 2 threads stream
# "app:tick" events (48 bytes each) into a sink (-o /dev/null).  First the
# highest rate with zero drops is searched with short runs, then the
# drainer must keep up, with no drop, for SECONDS (the first argument, or
# $FXTRACE_SOAK_SECONDS; default 10, 60 for the full soak) at half that
# rate.  Reports bytes/s and the drainer's CPU use.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1
seconds=${1:-${FXTRACE_SOAK_SECONDS:-10}}

# run NAME SECONDS RATE: soak through the drainer into /dev/null.
run() {
	"$bin/fxtrace-drain" -q -m streaming -c app -B 1M -o /dev/null -- \
		"$progs/soak" 2 "$2" "$3" >"$out/$1.soak" 2>"$out/$1.stderr"
}

# The summary of a run (fxtrace-drain without -q).
summary() {
	"$bin/fxtrace-drain" -m streaming -c app -B 1M -o /dev/null -- \
		"$progs/soak" 2 "$2" "$3" >"$out/$1.soak" 2>"$out/$1.stderr"
}

# Unthrottled: what the producers reach, and what the drainer saves of it
# when it cannot keep up.
summary flood 2 0
result $? "flood: fxtrace-drain exits 0"
sed -n 's/^fxtrace-drain: /# flood: /p' "$out/flood.stderr"
echo "# flood: $(value rate "$out/flood.soak") events/s emitted, $(value dropped "$out/flood.soak") dropped, $(value ns_per_event "$out/flood.soak") ns of producer CPU per event"

# The highest zero-drop rate (events/s per thread) of 2 s runs.
best=0
for rate in 10000 25000 50000 100000 150000 200000 300000 400000; do
	run "rate-$rate" 2 $rate
	dropped=$(value dropped "$out/rate-$rate.soak")
	echo "# 2 threads x $rate events/s: $(value emitted "$out/rate-$rate.soak") emitted, $dropped dropped"
	[[ $dropped == 0 ]] || break
	best=$rate
done
((best > 0))
result $? "the drainer keeps up with 2 x $best events/s"
if ((best == 0)); then
	# A rate of 0 would be the flood again: there is nothing to soak at.
	echo "1..$n"
	exit 1
fi

# The soak: half the best rate, for $seconds s, not one drop.
rate=$((best / 2))
summary soak "$seconds" $rate
result $? "soak: fxtrace-drain exits 0"
sed -n 's/^fxtrace-drain: /# /p' "$out/soak.stderr"
dropped=$(value dropped "$out/soak.soak")
emitted=$(value emitted "$out/soak.soak")
echo "# soak: 2 threads x $rate events/s for $seconds s: $emitted emitted, $dropped dropped"
[[ $dropped == 0 ]]
result $? "soak: no drop in $seconds s at 2 x $rate events/s"
# Task records: the events and the few strings and threads they refer to.
records=$(sed -n 's/^fxtrace-drain: task .* buffers, \([0-9]*\) records.*/\1/p' "$out/soak.stderr")
[[ -n $records && -n $emitted ]] && ((records >= emitted && records < emitted + 100))
result $? "soak: the drainer wrote every event ($emitted events, ${records:-?} records)"

echo "1..$n"
exit $failed
