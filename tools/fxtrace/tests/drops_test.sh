#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace stats` counts each drop series (process, counter
# id, argument name) apart, even when two of them meet at one key of its
# map: two names of the same FNV-1a hash, and an id crafted against
# another counter's name (drops_trace.c).  It used to merge them into one
# series (the first name, "last of 2").  On the host.  Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
drops_trace=$top/${B:-build}/test/fxtrace/drops_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$drops_trace" "$tmp/drops.fxt" || exit 1
"$fxtrace" stats "$tmp/drops.fxt" >"$tmp/stats" 2>"$tmp/err"
rc=$?
sed -n '/^drops$/,$p' "$tmp/stats" >"$tmp/drops"
cat >"$tmp/want" <<'END'
drops
  fxtrace:dropped process 100 id 1 005fc1b9fb9780e7: 7 (last of 1)
  fxtrace:dropped process 100 id 1 323a830bbc7e3a52: 5 (last of 1)
  fxtrace:dropped process 100 id 1 a: 3 (last of 1)
  fxtrace:dropped process 100 id 3298534890792 b: 9 (last of 1)
END
sed 's/^/# /' "$tmp/drops" "$tmp/err"
if ((rc == 0)) && [[ ! -s $tmp/err ]] && cmp -s "$tmp/drops" "$tmp/want"; then
	echo "ok 1 - stats: colliding drop series counted apart, exit $rc"
	echo "1..1"
	exit 0
fi
echo "not ok 1 - stats: colliding drop series counted apart, exit $rc"
echo "1..1"
exit 1
