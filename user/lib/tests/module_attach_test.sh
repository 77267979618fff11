#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a thread whose buffer the kernel attached
# but whose producer part could not be mapped (behaviour_test's own mmap()
# fails it: BEHAVIOUR_MMAP=producer) loses that event only: after the
# backoff its retry maps the same buffer (a new FXTRACE_IOC_ATTACH would
# say EEXIST) and its next 10 events are written; when that mapping's
# failure retired the buffer (BEHAVIOUR_MMAP=retired), the retry attaches
# another, and the same holds.  Then behaviour_test's "cancelattach": a
# thread with a cancellation pending makes its first event (its attach
# reads its comm: cancellation points), then is cancelled; the event is
# written and the thread's mappings go with it, the session page alone
# left.  In the guest with fxtrace.ko loaded.  Prints TAP.

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
# producer: the mapping fails, the buffer stays attached (EEXIST for a
# new one).  retired: the failed mapping's close retired it (older
# kernels' mmap_region() when it could not insert the VMA): mapping it
# says EACCES, and the retry attaches a new one.
for how in producer retired; do
	"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/$how.fxt" -- \
		env BEHAVIOUR_MMAP=$how "$root/build/test/lib/behaviour_test" mapfail \
		>"$out/$how.out" 2>"$out/$how.err"
	result $? "$how: record -- behaviour_test mapfail: exit 0"
	sed 's/^/# /' "$out/$how.out" "$out/$how.err"
	grep -qx 'lost 1' "$out/$how.out"
	result $? "$how: the first event, without a mapped buffer, is the one lost"
	after=$("$bin/fxtrace" dump "$out/$how.fxt" | grep -c ' instant  *app:after ')
	echo "# app:after events: $after"
	((after == 10))
	result $? "$how: the retry maps a buffer: the 10 later events are written"
	lines=$(wc -l <"$out/$how.err")
	grep -q 'has no trace buffer (Cannot allocate memory)' "$out/$how.err" && ((lines == 1))
	result $? "$how: one warning, with the mapping's error"
done

"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/cancel.fxt" -- \
	"$root/build/test/lib/behaviour_test" cancelattach \
	>"$out/cancel.out" 2>"$out/cancel.err"
result $? "cancel: record -- behaviour_test cancelattach: exit 0"
sed 's/^/# /' "$out/cancel.out" "$out/cancel.err"
grep -qx 'cancelled 1' "$out/cancel.out"
result $? "cancel: the thread was cancelled"
grep -qx 'maps 1' "$out/cancel.out"
result $? "cancel: its buffer's mappings went with it (the session page is left)"
cancelled=$("$bin/fxtrace" dump "$out/cancel.fxt" | grep -c ' instant  *app:cancelled ')
echo "# app:cancelled events: $cancelled"
((cancelled == 1)) && grep -qx 'lost 0' "$out/cancel.out"
result $? "cancel: its first event is written, none lost"

echo "1..$n"
exit $failed
