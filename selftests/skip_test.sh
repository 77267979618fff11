#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: where /dev/fxtrace is absent (the build host), every selftest
# of selftests/*_test.c reports each of its tests as skipped with the reason,
# and exits 0, as kselftests do where a feature is missing; none fails.
# And each honours the harness's filters (fxtrace_selftest.h): -t TEST
# plans that one test, -T TEST all the others.
# Exit 77 (skip) on a machine with the device.  Prints TAP.  B (default
# build) is the build directory.

set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/${B:-build}/selftests
[[ -e /dev/fxtrace ]] && { echo "1..0 # SKIP /dev/fxtrace exists here"; exit 77; }
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

for src in "$root"/selftests/*_test.c; do
	t=$dir/$(basename "$src" .c)
	rc=0
	out=$("$t" 2>&1) || rc=$?
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out")
	skipped=$(grep -c '^ok [0-9]* # SKIP /dev/fxtrace is absent' <<<"$out")
	others=$(grep -cE '^(not )?ok [0-9]+' <<<"$out")
	result "$([[ $rc == 0 && -n $planned && $planned -gt 0 && $skipped == "$planned" &&
		$others == "$planned" ]] && echo 0 || echo 1)" \
		"$(basename "$t"): $skipped of ${planned:-?} tests skipped for the absent device, exit $rc"
	[[ $src == */fuzz_test.c ]] && continue	# its own main(), no harness
	first=$("$t" -l 2>/dev/null | sed -n '1s/^[^.]*\.//p')
	only=$("$t" -t "$first" 2>/dev/null | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
	others=$("$t" -T "$first" 2>/dev/null | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
	result "$([[ -n $first && $only == 1 && $others == $((planned - 1)) ]] && echo 0 || echo 1)" \
		"$(basename "$t"): -t ${first:-?} plans ${only:-?} test, -T it ${others:-?} of $planned"
done
echo "1..$n"
exit $failed
