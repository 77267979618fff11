#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `-o -` of record, stop and recover is a usage error.  A
# perf user reads it as standard output (perf record -o -), but these
# commands never write a trace there: they wrote a file named "-", and
# record then advised `fxtrace stats -`, which reads standard input.  Each
# must exit 2 with the message, before any other work, and leave no file
# named "-".  export -o - still writes the standard output.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

"$mktrace" "$tmp/t.fxt" 1 10 || exit 1
cd "$tmp" || exit 1
msg="-o -: a trace is not written to standard output; name a file ('./-' for one named '-')"
for args in "record -o - -- true" "record --output=- -a" "stop -o -" \
	    "recover -o - t.fxt"; do
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
