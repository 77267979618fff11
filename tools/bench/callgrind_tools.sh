#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per record of `fxtrace check`, `stats`, `dump --file-order`
# and `export` (callgrind, whole program), machine-independent where the
# shared machine's timings are not: build/bin/dataplane writes a trace of
# DATAPLANE_MIB MiB of producer data (default 16), each command reads it
# once under callgrind, and the total is divided by the trace's records
# (the start-up is a few hundred thousand instructions, < 0.1 per record).
#
# Usage: tools/bench/callgrind_tools.sh [FXTRACE]   (default build/bin/fxtrace)

set -euo pipefail
cd "$(dirname "$0")/../.."
fxtrace=${1:-build/bin/fxtrace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$tmp/trace.fxt
build/bin/dataplane --mib "${DATAPLANE_MIB:-16}" "$trace" >/dev/null
records=$("$fxtrace" stats "$trace" | sed -n 's/^ *records *\([0-9]*\).*/\1/p' | head -1)

count() {	# command... -> instructions
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
		"$fxtrace" "$@" >/dev/null 2>&1 || [[ $? -eq 1 ]]
	callgrind_annotate "$tmp/out" | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
}
printf '%s records, %s bytes\n' "$records" "$(stat -c %s "$trace")"
printf '%-24s %s\n' command "instructions per record"
for cmd in "check" "stats" "dump --file-order" "export -o /dev/null"; do
	# shellcheck disable=SC2086
	n=$(count $cmd "$trace")
	python3 -c "print('%-24s %.0f' % ('$cmd', $n / $records))"
done
