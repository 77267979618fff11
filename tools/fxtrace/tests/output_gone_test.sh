#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: dump and export stop reading a trace once their output is
# gone.  With SIGPIPE ignored (as a parent can leave it: Python's
# subprocess with restore_signals=False, `trap '' PIPE`), `fxtrace dump
# --file-order - | head -c 1` used to read its input to the end after head
# had left, then say that the standard output could not be written: a
# trace of gigabytes read for nothing, or, from a pipe that stays open, no
# exit at all.  Here the input is a trace followed by a pipe kept open for
# a minute: the command must exit 1 within 20 s with the write's error,
# not wait for the rest of its input.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
tmp=$(mktemp -d)
feeder=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[[ -n $feeder ]] && kill "$feeder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# 2 MB of trace: its dump and its export are well past a flush (256 KiB).
"$mktrace" "$tmp/t.fxt" 1 3000 || exit 1

for cmd in "dump --file-order" export; do
	rm -f "$tmp/in"
	mkfifo "$tmp/in"
	# The trace, then the pipe left open: a reader that waits for its
	# end waits a minute.
	{ cat "$tmp/t.fxt"; sleep 60; } >"$tmp/in" &
	feeder=$!
	start=$SECONDS
	# shellcheck disable=SC2016,SC2086 # the inner bash expands $0 and $@; cmd is the command and its options
	timeout 30 bash -c 'trap "" PIPE; "$@" - <"$0" 2>"$0.err" | head -c 1 >/dev/null
		exit "${PIPESTATUS[0]}"' "$tmp/in" "$fxtrace" $cmd
	rc=$?
	took=$((SECONDS - start))
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	feeder=
	sed 's/^/# /' "$tmp/in.err"
	((rc == 1)) && ((took < 20)) &&
		[[ $(cat "$tmp/in.err") == "fxtrace ${cmd%% *}: cannot write the standard output: Broken pipe" ]]
	result $? "$cmd - | head -c 1, SIGPIPE ignored: exit 1 in ${took}s (exit $rc), the write's error said"
done

echo "1..$n"
exit $failed
