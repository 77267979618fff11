#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain end to end, in the guest with fxtrace.ko
# loaded: exact event counts through many streaming saves, garbage
# producers next to an honest one, every mode, stop by signal, a
# flight-recorder snapshot.  Every
# trace must pass `fxtrace check --strict`.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

# run NAME DRAIN-OPTIONS... -- COMMAND...: fxtrace-drain with its stderr kept.
run() {
	local name=$1
	shift
	"$bin/fxtrace-drain" -o "$out/$name.fxt" "$@" >"$out/$name.producer" \
		2>"$out/$name.stderr"
	local rc=$?
	sed 's/^/# /' "$out/$name.stderr"
	result $rc "$name: fxtrace-drain exits 0"
}

# Streaming with 16 KiB buffers: hundreds of saves, drainer keeps up.
run stream -m streaming -b 16K -B 16K -- "$progs/producer" 4 20000 100
check_strict "$out/stream.fxt" stream
exact stream 4 20000

# No pauses: the producers outrun the drainer; drops must be exact.
run flood -m streaming -b 16K -B 16K -- "$progs/producer" 2 100000
check_strict "$out/flood.fxt" flood
exact flood 2 100000

# Garbage producers next to an honest one.
run garbage -m streaming -b 16K -B 16K -- /bin/sh -c \
	"$progs/garbage 3 1 & $progs/garbage 3 2 & $progs/producer 2 20000 50; wait"
check_strict "$out/garbage.fxt" garbage
exact garbage 2 20000
grep -qE 'task .* [1-9][0-9]* invalid' "$out/garbage.stderr"
result $? "garbage: invalid records are counted"

# Oneshot: what fits, and every other event counted as dropped.
run oneshot -m oneshot -B 16K -- "$progs/producer" 1 5000
check_strict "$out/oneshot.fxt" oneshot
exact oneshot 1 5000

# Circular: the newest events; nothing is dropped, older ones overwritten.
run circular -m circular -B 16K -- "$progs/producer" 2 5000
check_strict "$out/circular.fxt" circular
"$progs/count_ticks" "$out/circular.fxt" >"$out/circular.count"
result $? "circular: ticks in order, none twice"

# No command: trace until SIGINT.
"$bin/fxtrace-drain" -m streaming -B 16K -o "$out/signal.fxt" 2>"$out/signal.stderr" &
drain=$!
sleep 1
"$progs/producer" 1 3000 100 >"$out/signal.producer"
kill -INT $drain
wait $drain
result $? "signal: fxtrace-drain stops on SIGINT and exits 0"
sed 's/^/# /' "$out/signal.stderr"
check_strict "$out/signal.fxt" signal
exact signal 1 3000

# Circular as a flight recorder: SIGUSR1 copies every buffer to OUT.1
# while the writers pause (dropping and counting), then tracing goes on.
"$bin/fxtrace-drain" -m circular -B 16K -o "$out/flight.fxt" -- \
	"$progs/producer" 1 20000 10 >"$out/flight.producer" 2>"$out/flight.stderr" &
drain=$!
sleep 1
kill -USR1 $drain
wait $drain
result $? "snapshot: fxtrace-drain exits 0"
sed 's/^/# /' "$out/flight.stderr"
grep -q 'snapshot 1: [1-9][0-9]* buffers written to .*flight.fxt.1, 0 left out' \
	"$out/flight.stderr"
result $? "snapshot: SIGUSR1 wrote flight.fxt.1"
check_strict "$out/flight.fxt.1" snapshot
"$progs/count_ticks" "$out/flight.fxt.1" >"$out/flight.count"
result $? "snapshot: ticks in order, none twice"
[[ $(value ticks "$out/flight.count") -gt 0 ]]
result $? "snapshot: it holds the producer's ticks"
check_strict "$out/flight.fxt" "snapshot: the final trace"

echo "1..$n"
exit $failed
