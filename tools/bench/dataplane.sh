#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data plane on the host: build/bin/dataplane runs 256 MiB of producer
# data through the drainer's output_half() (table on stdout), then
# `fxtrace check`, `stats`, `dump --file-order` and `export` read the
# trace it wrote, each timed against md5sum of the same file in the same
# run (median of 3).  All rows go to JSON (default build/bench/dataplane.json).
#
# Usage: tools/bench/dataplane.sh [JSON]   (DATAPLANE_MIB=N for another size)

set -euo pipefail
cd "$(dirname "$0")/../.."
json=${1:-build/bench/dataplane.json}
mkdir -p "$(dirname "$json")"
dir=$(mktemp -d /dev/shm/fxtrace-dataplane.XXXXXX)
trap 'rm -rf "$dir"' EXIT
trace=$dir/trace.fxt

build/bin/dataplane --mib "${DATAPLANE_MIB:-256}" --json "$dir/drain.json" \
	"$trace"

# seconds of the median of 3 runs of a command, its output discarded
time3() {
	local t=()
	for _ in 1 2 3; do
		local s e
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || [[ $? -eq 1 ]]
		e=$(date +%s.%N)
		t+=("$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')")
	done
	printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}

bytes=$(stat -c %s "$trace")
records=$(build/bin/fxtrace stats "$trace" 2>/dev/null |
	sed -n 's/^ *records[: ]* \([0-9]*\).*/\1/p' | head -1)
md5=$(time3 md5sum "$trace")
rows=("md5sum $md5")
rows+=("fxtrace-check $(time3 build/bin/fxtrace check "$trace")")
rows+=("fxtrace-stats $(time3 build/bin/fxtrace stats "$trace")")
rows+=("fxtrace-dump-file-order $(time3 build/bin/fxtrace dump --file-order "$trace")")
rows+=("fxtrace-export $(time3 build/bin/fxtrace export -o /dev/null "$trace")")

python3 - "$json" "$dir/drain.json" "$bytes" "${records:-0}" "${rows[@]}" <<'PY'
import json, sys
out, drain, size, records = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = json.load(open(drain))
timed = [r.split() for r in sys.argv[5:]]
md5_s = float(timed[0][1])
print(f"tools on the drainer's trace: {size / 1e6:.1f} MB, {records} records, median of 3")
print(f"  {'':26} {'MB/s':>9} {'ns/record':>10} {'x md5sum':>9}")
for name, secs in timed:
    s = float(secs)
    row = {"name": name, "mb_per_s": round(size / 1e6 / s, 1),
           "ns_per_record": round(s * 1e9 / records, 2) if records else None,
           "ratio_to_md5sum": round(md5_s / s, 4), "bytes": size}
    rows.append(row)
    print(f"  {name:26} {row['mb_per_s']:9.0f} {row['ns_per_record'] or 0:10.2f} {row['ratio_to_md5sum']:9.3f}")
json.dump(rows, open(out, "w"), indent=2)
print(f"figures: {out}")
PY
