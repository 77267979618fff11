#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/perfetto/oracle.sh [TRACE...]: import traces with Perfetto's trace
# processor and compare them with fxtrace's decoder (Documentation/perfetto.rst).
#
# Each trace goes through `fxtrace check --perfetto` (the FXT import) and
# `fxtrace check --perfetto=json` (the `fxtrace export` round trip): the
# import must succeed with no stats row of severity error or data_loss, and
# the slices, counters, flows, named threads and processes, sched_slice rows
# and trace bounds must equal what the decoder counts.
#
# Without TRACE arguments: the traces the test suite left in build/ (the demo,
# every guest test's traces, the drainer's garbage-producer outputs) and the
# decoder's corpus (corpus_test --write) minus what `check --strict` refuses.
#
# The trace processor: $FXTRACE_TRACE_PROCESSOR, else trace_processor_shell on
# PATH.  Without one this prints "perfetto: skipped (no trace processor)" and
# exits 77.  Otherwise the last line is "perfetto: N traces imported, M failed"
# (one import per trace and per round trip) and the exit status 0 when M is 0.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

B=${B:-build}
fxtrace=$B/bin/fxtrace
out=$B/perfetto
[[ -x $fxtrace ]] || { echo "perfetto: $fxtrace is not built (make user)" >&2; exit 1; }

"$fxtrace" check --perfetto /dev/null >/dev/null 2>&1
if (($? == 4)); then
	echo "perfetto: skipped (no trace processor)"
	exit 77
fi

traces=("$@")
if ((${#traces[@]} == 0)); then
	rm -rf "$out/corpus" && mkdir -p "$out/corpus"
	"$B/test/reader/corpus_test" --write "$out/corpus" >/dev/null ||
		{ echo "perfetto: corpus_test --write failed" >&2; exit 1; }
	for t in "$out"/corpus/*.fxt; do
		"$fxtrace" check --strict --quiet "$t" >/dev/null 2>&1 && traces+=("$t")
	done
	shopt -s nullglob
	traces+=("$B"/demo.fxt "$B"/check/guest-*/files/*/*.fxt)
	shopt -u nullglob
fi

imported=0 failed=0
for t in "${traces[@]}"; do
	[[ -f $t ]] || continue
	for mode in fxt json; do
		imported=$((imported + 1))
		if ! "$fxtrace" check --perfetto="$mode" "$t"; then
			failed=$((failed + 1))
			echo "perfetto: FAILED: $t ($mode)"
		fi
	done
done
echo "perfetto: $imported traces imported, $failed failed"
((failed == 0))
