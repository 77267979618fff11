#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run the user-space benchmark inside an LTTng session that
# enables its LTTng-UST peer (discard mode, large sub-buffers), then report
# LTTng's lost events.  The table goes to stdout, the figures to
# build/bench/user.json.

set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps.sh >/dev/null
out=build/bench
mkdir -p "$out"

session=fxbench-$$
trace_dir=$(mktemp -d)
sessiond_pid=
cleanup() {
	lttng destroy "$session" >/dev/null 2>&1 || true
	# Stop the session daemon only if this script started it.
	if [[ -n $sessiond_pid ]]; then
		kill "$sessiond_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$sessiond_pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$trace_dir"
}
trap cleanup EXIT

if ! pgrep -x -u "$(id -u)" lttng-sessiond >/dev/null; then
	lttng-sessiond --daemonize
	# The daemon itself, not the worker it forks: the oldest of ours.
	sessiond_pid=$(pgrep -o -x -u "$(id -u)" lttng-sessiond)
fi
lttng create "$session" --output="$trace_dir" >/dev/null
lttng enable-channel -u --discard --subbuf-size=4M --num-subbuf=8 bench >/dev/null
lttng enable-event -u -c bench fxbench:pair >/dev/null
lttng start >/dev/null

# libfxtrace writes its trace next to LTTng's; user_bench refuses to
# report figures when that trace is not written.
build/bin/user_bench --json "$out/user.json" --trace-dir "$trace_dir"

stop=$(lttng stop 2>&1)
lost=$(sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' <<<"$stop")
lost=${lost:-0}
python3 - "$out/user.json" "$lost" <<'PY'
import json, sys
path, lost = sys.argv[1], int(sys.argv[2])
rows = json.load(open(path))
for row in rows:
    if row["name"].startswith("LTTng-UST"):
        row["events_lost"] = lost
json.dump(rows, open(path, "w"), indent=2)
PY
echo "LTTng-UST events lost (discard mode): $lost"
echo "figures: $out/user.json"

# The data plane on the host (issue 17): the drainer's path per saved half,
# then the tools on the trace it wrote, each against md5sum of that trace.
# Files on tmpfs so that the disk does not time.  build/bench/dataplane.json.
tools/bench/dataplane.sh "$out/dataplane.json"
