#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `-o -` of record, stop and recover is a usage error.  A
# perf user reads it as standard output (perf record -o -), but these
# commands never write a trace there: they wrote a file named "-", and
# record then advised `fxtrace stats -`, which reads standard input.  Each
# must exit 2 with the message, before any other work, and leave no file
# named "-" (recover tried with a trace and with a spool it would save).
# export -o - still writes the standard output.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
prog=$top/${B:-build}/test/lib/output_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

"$mktrace" "$tmp/t.fxt" 1 10 || exit 1
# A spool recover would save (a killed libfxtrace program's): -o - is
# refused before it is read, not only when the input cannot be recovered.
FXTRACE_OUTPUT=$tmp/app.fxt "$prog" 60 >/dev/null &
pid=$!
for _ in $(seq 100); do
	[[ -s $tmp/app.fxt.spool ]] && break
	sleep 0.1
done
sleep 0.2
kill -KILL $pid
wait $pid 2>/dev/null
[[ -s $tmp/app.fxt.spool ]] || exit 1
cd "$tmp" || exit 1
msg="-o -: a trace is not written to standard output; name a file ('./-' for one named '-')"
for args in "record -o - -- true" "record --output=- -a" "stop -o -" \
	    "recover -o - t.fxt" "recover -o - app.fxt.spool"; do
	# shellcheck disable=SC2086 # args is split on purpose
	"$fxtrace" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	first=$(head -1 "$tmp/err")
	[[ $rc == 2 && $first == "fxtrace ${args%% *}: $msg" && ! -e $tmp/- ]]
	result $? "$args: exit 2, the message, no file '-' (rc=$rc, '$first')"
	rm -f "$tmp/-"
done

"$fxtrace" export -o - t.fxt >"$tmp/out"
rc=$?
[[ $rc == 0 && $(head -c 1 "$tmp/out") == "{" && ! -e $tmp/- ]]
result $? "export -o -: the standard output (rc=$rc)"

echo "1..$n"
exit "$failed"
