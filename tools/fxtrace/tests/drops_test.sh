#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace stats` counts each drop series (process, counter
# id, argument name) apart, even when two of them meet at one key of its
# map: two names of the same FNV-1a hash, and an id crafted against
# another counter's name (drops_trace.c).  It used to merge them into one
# series (the first name, "last of 2").  And a trace cannot line its
# series up: 60,000 series whose ids were each the name's FNV-1a XOR one
# constant all started at one key of the map, each new series walking
# past the others (quadratic: 3 s for 20,000, 80 s for these 4 MB);
# the map's keys are keyed hashes now.  Names are printed whole: two that
# differed past their 63rd byte were printed alike.  On the host.  Prints
# TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
drops_trace=$top/${B:-build}/test/fxtrace/drops_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

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
((rc == 0)) && [[ ! -s $tmp/err ]] && cmp -s "$tmp/drops" "$tmp/want"
result $? "stats: colliding drop series counted apart, exit $rc"

# 60,000 "fxtrace:dropped" counters of process 1, argument "sN" = 1, id
# 0x5eed ^ FNV-1a("sN").
python3 - "$tmp/lined.fxt" <<'EOF_PY'
import struct
import sys


def fnv1a(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & (1 << 64) - 1
    return h


name = list(struct.unpack("<2Q", b"fxtrace:dropped\0"))
words = [0x0016547846040010]
for i in range(60000):
    arg = b"s%d" % i
    record = [i + 1, 1, 1] + name + [
        1 | 2 << 4 | (0x8000 | len(arg)) << 16 | 1 << 32,
        struct.unpack("<Q", arg.ljust(8, b"\0"))[0], 0x5eed ^ fnv1a(arg)]
    words += [4 | (1 + len(record)) << 4 | 1 << 16 | 1 << 20 |
              (0x8000 | 15) << 48] + record
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<%dQ" % len(words), *words))
EOF_PY
timeout 10 "$fxtrace" stats "$tmp/lined.fxt" >"$tmp/stats" 2>"$tmp/err"
rc=$?
series=$(grep -c '^  fxtrace:dropped process 1 id [0-9]* s[0-9]*: 1 (last of 1)$' "$tmp/stats")
sed 's/^/# /' "$tmp/err"
((rc == 0 && series == 60000)) && [[ ! -s $tmp/err ]]
result $? "stats: 60,000 drop series lined up on one key, within 10 s: exit $rc, $series series"

# Two series whose names differ at their 71st byte: each printed whole.
# Both used to be printed cut to the same 63 bytes, in no set order.
python3 - "$tmp/long.fxt" <<'EOF_PY'
import struct
import sys

name = list(struct.unpack("<2Q", b"fxtrace:dropped\0"))
words = [0x0016547846040010]
for ts, (arg, value) in enumerate([(b"x" * 70 + b"b", 7),
                                   (b"x" * 70 + b"a", 5)], 1):
    padded = arg + b"\0" * (-len(arg) % 8)
    arg_words = list(struct.unpack("<%dQ" % (len(padded) // 8), padded))
    record = [ts, 1, 1] + name + [
        1 | (1 + len(arg_words)) << 4 | (0x8000 | len(arg)) << 16 |
        value << 32] + arg_words + [0]
    words += [4 | (1 + len(record)) << 4 | 1 << 16 | 1 << 20 |
              (0x8000 | 15) << 48] + record
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<%dQ" % len(words), *words))
EOF_PY
"$fxtrace" stats "$tmp/long.fxt" >"$tmp/stats" 2>"$tmp/err"
rc=$?
sed -n '/^drops$/,$p' "$tmp/stats" >"$tmp/drops"
x70=$(printf 'x%.0s' {1..70})
{
	echo drops
	printf '  fxtrace:dropped process 1 id 0 %s: %s (last of 1)\n' \
		"${x70}a" 5 "${x70}b" 7
} >"$tmp/want"
sed 's/^/# /' "$tmp/drops" "$tmp/err"
((rc == 0)) && [[ ! -s $tmp/err ]] && cmp -s "$tmp/drops" "$tmp/want"
result $? "stats: drop series names printed whole, in byte order, exit $rc"

echo "1..$n"
exit $failed
