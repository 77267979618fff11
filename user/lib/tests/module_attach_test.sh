#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a thread whose buffer the kernel attached
# but whose producer part could not be mapped (behaviour_test's own mmap()
# fails it: BEHAVIOUR_MMAP=producer) loses that event only: after the
# backoff its retry maps the same buffer (a new FXTRACE_IOC_ATTACH would
# say EEXIST) and its next 10 events are written.  In the guest with
# fxtrace.ko loaded.  Prints TAP.

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
"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/mapfail.fxt" -- \
	env BEHAVIOUR_MMAP=producer "$root/build/test/lib/behaviour_test" mapfail \
	>"$out/mapfail.out" 2>"$out/mapfail.err"
result $? "record -- behaviour_test mapfail: exit 0"
sed 's/^/# /' "$out/mapfail.out" "$out/mapfail.err"
grep -qx 'lost 1' "$out/mapfail.out"
result $? "the first event, without a mapped buffer, is the one lost"
after=$("$bin/fxtrace" dump "$out/mapfail.fxt" | grep -c ' instant  *app:after ')
echo "# app:after events: $after"
((after == 10))
result $? "the retry maps the attached buffer: the 10 later events are written"
lines=$(wc -l <"$out/mapfail.err")
grep -q 'has no trace buffer (Cannot allocate memory)' "$out/mapfail.err" && ((lines == 1))
result $? "one warning, with the mapping's error"

echo "1..$n"
exit $failed
