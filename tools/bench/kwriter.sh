#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-CPU kernel writer's cost in instructions per record, machine
# independent: each record kind of kwriter_bench (the kernel's record path
# built for user space, see tools/bench/kwriter_bench.c) counted by callgrind
# inside its loop at 200,000 and at 100,000 records; the difference divided
# by 100,000 leaves the set-up out.  Prints kind, record bytes, instructions
# per record; writes build/bench/kwriter.json.
#
# Usage: tools/bench/kwriter.sh   (after make user)

set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/bin/kwriter_bench
[[ -x $bin ]] || { echo "kwriter.sh: no $bin: run make user" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "kwriter.sh: valgrind is missing: run tools/deps.sh" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {	# kind iterations -> instructions inside run_<kind>
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
		--toggle-collect="run_$1" "$bin" "$1" "$2" >/dev/null 2>&1
	callgrind_annotate "$tmp/out" | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
}

mkdir -p build/bench
json=build/bench/kwriter.json
printf '%-10s %6s %14s\n' kind bytes "instr/record"
sep=
echo "{" >"$json"
for kind in switch wakeup sys_enter sys_exit irq_entry irq_exit; do
	bytes=$("$bin" "$kind" 1)
	a=$(count "$kind" 100000)
	b=$(count "$kind" 200000)
	per=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 100000 }')
	printf '%-10s %6s %14s\n' "$kind" "$bytes" "$per"
	printf '%s  "%s": {"bytes": %s, "instructions_per_record": %s}' "$sep" "$kind" "$bytes" "$per" >>"$json"
	sep=$',\n'
done
printf '\n}\n' >>"$json"
