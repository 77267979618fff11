#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxt-sample's trace, written with the encoder, passes the
# decoder's strict check with its exact record counts.  Prints TAP.

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../${B:-build}/bin" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin/fxt-sample" "$tmp/sample.fxt"
if out=$("$bin/fxtrace" check --strict "$tmp/sample.fxt"); then
	echo "ok 1 - fxtrace check --strict passes"
else
	echo "not ok 1 - fxtrace check --strict: $out"
fi
want="$tmp/sample.fxt: 42 records, 0 errors, 0 warnings, 0 notes"
if [[ $out == "$want" ]]; then
	echo "ok 2 - 42 records, nothing to report"
else
	echo "not ok 2 - got '$out'"
fi
stats=$("$bin/fxtrace" stats "$tmp/sample.fxt")
if grep -qE '^  0 +2 +1 +0$' <<<"$stats"; then
	echo "ok 3 - cpu 0: 2 context switches, 1 wakeup"
else
	echo "not ok 3 - scheduling counts: $(grep -A2 'by CPU' <<<"$stats")"
fi
echo "1..3"
