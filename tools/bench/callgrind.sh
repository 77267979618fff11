#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per record, machine-independent: each body of user_bench
# counted by callgrind (only inside the body's function) at 200,000 and at
# 100,000 iterations; the difference divided by the records of 100,000
# iterations leaves out the first event's set-up.  LTTng-UST's row needs
# an LTTng session that enabled fxbench:pair (tools/bench/run.sh has one);
# without it that row counts the disabled tracepoint.
#
# Usage: tools/bench/callgrind.sh [BODY...]   (default: all)

set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# body function records-per-iteration
rows=(
	"ideal_ring b_ideal_ring 1"
	"begin_end b_begin_end 2"
	"instant_string b_instant_string 1"
	"disabled b_disabled 1"
	"enabled_disabled b_enabled_disabled 1"
	"dropped b_dropped 1"
)
count() {	# body function iterations -> instructions
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
		--toggle-collect="$2" build/bin/user_bench --trace-dir "$tmp" \
		--run "$1" --iters "$3" >/dev/null 2>&1
	callgrind_annotate "$tmp/out" | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
}
printf '%-18s %s\n' body "instructions per record"
for row in "${rows[@]}"; do
	read -r body fn records <<<"$row"
	if (($#)) && [[ " $* " != *" $body "* ]]; then
		continue
	fi
	a=$(count "$body" "$fn" 100000)
	b=$(count "$body" "$fn" 200000)
	python3 -c "print('%-18s %.1f' % ('$body', ($b - $a) / (100000 * $records)))"
done
