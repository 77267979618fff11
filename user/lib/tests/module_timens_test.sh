#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, in a time namespace whose CLOCK_MONOTONIC
# is 100,000 s ahead: behaviour_test's "complete" case, a TRACE_COMPLETE
# whose start fxt_now() took before the process's first event, lasts the
# 50 ms slept, as the next one does.  Twice: in the namespace (unshare
# --time --fork), and from unshare --time: on 6.1 the exec stays in the
# old namespace, the new one its children's only, whose offsets are not
# the process's (6.12 moves the exec into it).  The offset applies to the monotonic
# clock (the 6.1 guest's "auto"); on the TSC (clock=tsc) there is none
# to apply.  Then behaviour_test's "forktimens" case: the process's clock
# set up before it unshares the namespace, a child forked into it takes
# fxt_now() before its first event; its TRACE_COMPLETE lasts the 50 ms
# slept too.  In the guest with fxtrace.ko loaded.  Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$root/build/bin
out=${FXTRACE_OUT:-$(mktemp -d)}
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

unset FXTRACE_OUTPUT FXTRACE_OUTPUT_ROOT
# CLOCK_MONOTONIC's seconds (/proc/self/timens_offsets only says the
# offset of the namespace the process's children get).
uptime=$(unshare --time --fork --monotonic 100000 \
	python3 -c 'import time; print(int(time.monotonic()))')
echo "# CLOCK_MONOTONIC in the namespace: $uptime s"
((uptime >= 100000))
result $? "unshare --time --fork --monotonic 100000: the clock is 100,000 s ahead"

# "... duration complete app:NAME dur=Nns" -> N
duration() {
	"$bin/fxtrace" dump "$1" |
		sed -n "s/.* duration complete app:$2 dur=\([0-9]*\)ns\$/\1/p"
}

for how in --fork ""; do
	trace=$out/timens${how}.fxt
	# shellcheck disable=SC2086 # $how: one option or none
	"$bin/fxtrace" record -q -c app -e none -B 64K -o "$trace" -- \
		unshare --time $how --monotonic 100000 \
		"$root/build/test/lib/behaviour_test" complete 2>"$trace.err"
	result $? "record -- unshare --time ${how:+$how }behaviour_test complete: exit 0"
	sed 's/^/# /' "$trace.err"
	for name in first second; do
		d=$(duration "$trace" "$name")
		echo "# $name: ${d:-no event} ns"
		# 50 ms slept; the first also waits for the clock's calibration
		[[ -n $d ]] && ((d >= 50000000 && d < 2000000000))
		result $? "unshare --time${how:+ $how}: \"$name\" lasts the 50 ms slept"
	done
done

trace=$out/forktimens.fxt
"$bin/fxtrace" record -q -c app -e none -B 64K -o "$trace" -- \
	"$root/build/test/lib/behaviour_test" forktimens 2>"$trace.err"
result $? "record -- behaviour_test forktimens: exit 0"
sed 's/^/# /' "$trace.err"
d=$(duration "$trace" child)
echo "# child: ${d:-no event} ns"
[[ -n $d ]] && ((d >= 50000000 && d < 2000000000))
result $? "a child forked into the namespace its parent unshared: \"child\" lasts the 50 ms slept"

echo "1..$n"
exit $failed
