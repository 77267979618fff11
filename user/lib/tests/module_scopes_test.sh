#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a duration's end is written exactly when its
# begin was: behaviour_test's "scopes" case (nested scopes in an enabled
# and a disabled category, first and later runs of each site, a fork inside
# a scope) under `fxtrace record -c app -e none` (user events only).  In
# the guest with fxtrace.ko loaded.  Prints TAP.

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

# sequences FILE: per thread, "TID: B app:x, I app:y, E db:z, ..." (every
# category: a stray end of a disabled one must show).
sequences() {
	"$bin/fxtrace" dump "$1" | awk '
		$3 ~ /^[0-9]+\/[0-9]+$/ {
			split($3, a, "/")
			c = ""
			for (i = 4; i < NF; i++) {
				if ($i == "duration" && $(i + 1) == "begin") { c = "B"; i++; break }
				if ($i == "duration" && $(i + 1) == "end") { c = "E"; i++; break }
				if ($i == "instant") { c = "I"; break }
			}
			if (c == "" || i >= NF) next
			seq[a[2]] = seq[a[2]] (seq[a[2]] == "" ? "" : ", ") c " " $(i + 1)
		}
		END { for (t in seq) print t ": " seq[t] }'
}

unset FXTRACE_OUTPUT FXTRACE_OUTPUT_ROOT
"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/scopes.fxt" -- \
	"$root/build/test/lib/behaviour_test" scopes >"$out/scopes.out" 2>"$out/scopes.err"
result $? "record -c app -e none -- behaviour_test scopes: exit 0"
sed 's/^/# /' "$out/scopes.err"
"$bin/fxtrace" check --strict --quiet "$out/scopes.fxt" >/dev/null 2>&1
result $? "the trace passes fxtrace check --strict"

once="B app:request, I app:after_inner, E app:request, B app:inner_on, E app:inner_on, B app:a, B app:b, E app:b, E app:a"
want="$once, $once, B app:forked, E app:forked"
sequences "$out/scopes.fxt" >"$out/scopes.seq"
sed 's/^/# /' "$out/scopes.seq"
main=$(grep -cF ": $want" "$out/scopes.seq")
result $((main != 1)) "one thread with an end exactly for each begin written"
child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$out/scopes.out")
grep -qx "$child: I app:child" "$out/scopes.seq"
result $? "the child forked inside a scope ($child) writes no end"
grep -q '^enabled_app 1000$' "$out/scopes.out" && grep -q '^enabled_db 0$' "$out/scopes.out"
result $? "TRACE_ENABLED follows the session's categories"

echo "1..$n"
exit $failed
