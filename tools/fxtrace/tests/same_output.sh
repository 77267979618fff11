#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fingerprint what `fxtrace check`, `stats`, `dump` and `export` print for
# each trace: one line per (command, trace) with the exit status and the
# md5 of stdout and of stderr.  Run it with the fxtrace built before a
# change and after it, and diff the two: the reader's and the printers'
# speed-ups (Documentation/performance.rst) must leave every byte alone.
#
#   tools/fxtrace/tests/same_output.sh FXTRACE TRACE... > FINGERPRINTS
#
# The traces used: the corpus test's inputs (corpus_test --write DIR), the
# Perfetto corpus, mutants of both (build/test/perfetto/mutate) and the
# dataplane benchmark's trace.

set -uo pipefail
fxtrace=$1
shift
commands=("check" "check --strict" "stats" "dump" "dump --file-order"
	  "dump --hex --file-order" "dump --ticks" "export")
for trace in "$@"; do
	for cmd in "${commands[@]}"; do
		# shellcheck disable=SC2086
		out=$("$fxtrace" $cmd "$trace" 2>/tmp/same_output.$$ | md5sum)
		rc=${PIPESTATUS[0]}
		err=$(sed "s|$trace|TRACE|g" /tmp/same_output.$$ | md5sum)
		echo "$trace [$cmd] rc=$rc out=${out%% *} err=${err%% *}"
	done
done
rm -f /tmp/same_output.$$
