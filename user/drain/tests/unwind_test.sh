#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain ends the session it made on every way out.
# fail_alloc.so makes the Nth allocation after Initialize fail, and every
# later one: the drainer exits 1 naming ENOMEM (0 only when it needed no
# more memory), and the next drainer starts a session (no EBUSY from an
# orphan left behind).  The same after SIGHUP.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh" || exit 1

for nth in 1 2 3 4 5 6 8 12 16 24 32; do
	FAIL_ALLOC_AFTER_INIT=$nth LD_PRELOAD=$progs/fail_alloc.so \
		"$bin/fxtrace-drain" -q -o "$out/fail$nth.fxt" -- true \
		2>"$out/fail$nth.stderr"
	rc=$?
	sed 's/^/# /' "$out/fail$nth.stderr"
	# A drainer that ran out of memory lost records: never exit 0 then.
	if grep -q 'Cannot allocate memory' "$out/fail$nth.stderr"; then
		[[ $rc == 1 ]]
		result $? "allocation $nth after Initialize fails: exit 1 naming ENOMEM (got $rc)"
	else
		[[ $rc == 0 ]] && ((nth > 1))
		result $? "allocation $nth after Initialize fails: never needed, exit 0 (got $rc)"
	fi
	"$bin/fxtrace-drain" -q -o "$out/next$nth.fxt" -- true 2>"$out/next$nth.stderr"
	rc=$?
	sed 's/^/# /' "$out/next$nth.stderr"
	[[ $rc == 0 ]]
	result $? "after failing at allocation $nth: the next drainer starts (got $rc)"
done

# A closed terminal (SIGHUP) stops the drainer like SIGINT: it used to die
# of it and leave its session orphaned.
"$bin/fxtrace-drain" -q -o "$out/hup.fxt" 2>"$out/hup.stderr" &
drain=$!
sleep 1
kill -HUP $drain
wait $drain
rc=$?
sed 's/^/# /' "$out/hup.stderr"
[[ $rc == 0 ]] && "$bin/fxtrace" check --quiet "$out/hup.fxt" >/dev/null
result $? "SIGHUP: the drainer stops, exits 0 ($rc) and its trace checks"
"$bin/fxtrace-drain" -q -o "$out/next-hup.fxt" -- true 2>"$out/next-hup.stderr"
rc=$?
sed 's/^/# /' "$out/next-hup.stderr"
[[ $rc == 0 ]]
result $? "after SIGHUP: the next drainer starts (got $rc)"

echo "1..$n"
exit $failed
