#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the reader's memory limit (Documentation/fxtrace.rst,
# "Conventions").  A valid trace crafted so that each provider info record
# is followed by one empty string in each of the 128 blocks of its string
# table (1,032 bytes a provider, 786 KB of tables) made every command take
# about 750 times the file's size: a 4 MB file took 3 GB in `fxtrace
# check`, which reported it clean.  Now every command that reads a trace
# stops at the record that goes past its limit (256 MiB for this file)
# with exit 1 and a message naming the file and --memory-limit, within
# `ulimit -v 1000000`, from a file or from standard input;
# --memory-limit=SIZE lowers or raises it, 0 lifts it.  dump's lines kept
# for sorting count against the same limit.  A sparse file's holes do not
# raise the limit.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

expect() { # expect DESCRIPTION COMMAND...: one TAP line
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}

# craft BYTES OUT: magic, then per provider its info record and an empty
# string at indices 1, 257, ..., 32513, as many providers as fit in BYTES.
craft() {
	python3 - "$1" "$2" <<'EOF'
import struct
import sys

size, out = int(sys.argv[1]), sys.argv[2]
words = [0x0016547846040010]
provider = 1
while 8 * (len(words) + 129) <= size:
    words.append(0x10 | 1 << 4 | 1 << 16 | provider << 20)
    words += [0x2 | 1 << 4 | (256 * block + 1) << 16 for block in range(128)]
    provider += 1
with open(out, "wb") as f:
    f.write(struct.pack("<%dQ" % len(words), *words))
EOF
}

craft $((4 << 20)) "$tmp/4m.fxt"
craft 8192 "$tmp/8k.fxt"

# refused CMD FILE [OPTIONS...]: under a 1 GB address space, exit 1 with
# the message, and no summary that calls the file clean.
refused() {
	local cmd=$1 file=$2 rc
	shift 2
	(ulimit -v 1000000 && exec "$fxtrace" "$cmd" "$@" "$file") \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if ((rc != 1)) ||
		! grep -q "^fxtrace $cmd: $file: the record at 0x[0-9a-f]* would take the reader's string and thread tables and names past its memory limit of [0-9]* bytes; .*--memory-limit=SIZE" "$tmp/err" ||
		grep -q "0 errors" "$tmp/out"; then
		echo "# exit $rc; stderr:"
		sed 's/^/# /' "$tmp/err"
		return 1
	fi
}

for cmd in check stats dump export report; do
	expect "$cmd of the crafted 4 MB file stops at the default limit within ulimit -v 1000000" \
		refused "$cmd" "$tmp/4m.fxt"
done

# The same 4 MB behind a hole that makes it 1 TiB: the limit follows the
# blocks the file has, not its apparent size (four times that lifted it,
# and check took 3 GB).
cp "$tmp/4m.fxt" "$tmp/sparse.fxt"
if truncate -s 1T "$tmp/sparse.fxt" 2>/dev/null; then
	expect "check of it behind a hole of 1 TiB (a sparse file) stops at the same limit" \
		refused check "$tmp/sparse.fxt"
else
	echo "# SKIP: no sparse file of 1 TiB here"
fi

stdin_refused() {
	(ulimit -v 1000000 && exec "$fxtrace" check - <"$tmp/4m.fxt") \
		>/dev/null 2>"$tmp/err"
	(($? == 1)) && grep -q "^fxtrace check: -: the record at .* memory limit of 268435456 bytes" "$tmp/err"
}
expect "check - (standard input, read through the window) stops at 256 MiB" stdin_refused

# 7 providers: 5.5 MB of tables from 8 KB.
expect "check --memory-limit=1M refuses what needs 5.5 MB" \
	refused check "$tmp/8k.fxt" --memory-limit=1M
clean() { # clean OPTIONS...: check passes with them
	"$fxtrace" check "$@" "$tmp/8k.fxt" >"$tmp/out" 2>"$tmp/err" &&
		grep -q "^$tmp/8k.fxt: 904 records, 0 errors, 0 warnings, 0 notes$" "$tmp/out" &&
		! [[ -s $tmp/err ]]
}
expect "check --memory-limit=8M passes it" clean --memory-limit=8M
expect "check --memory-limit=0 passes it" clean --memory-limit=0
expect "check passes it at the default limit" clean

# long_lines BYTES OUT: a 32,000-byte string, a thread, then 2-word
# instants whose category and name are that string: 16 bytes of file for
# 64,000 bytes of dump's line each.
long_lines() {
	python3 - "$1" "$2" <<'EOF'
import struct
import sys

size, out = int(sys.argv[1]), sys.argv[2]
length = 32000
words = [0x0016547846040010,
         0x2 | (1 + length // 8) << 4 | 1 << 16 | length << 32]
words += [0x6161616161616161] * (length // 8)
words += [0x3 | 3 << 4 | 1 << 16, 10, 11]
ts = 1
while 8 * (len(words) + 2) <= size:
    words += [0x4 | 2 << 4 | 1 << 24 | 1 << 32 | 1 << 48, ts]
    ts += 1
with open(out, "wb") as f:
    f.write(struct.pack("<%dQ" % len(words), *words))
EOF
}
long_lines $((4 << 20)) "$tmp/lines.fxt"

# The lines dump sorts are bound by the same limit: 4 MB of these events
# are 16 GB of lines.
lines_refused() {
	(ulimit -v 1000000 && exec "$fxtrace" dump "$tmp/lines.fxt") \
		>/dev/null 2>"$tmp/err" </dev/null
	(($? == 1)) && grep -q "^fxtrace dump: $tmp/lines.fxt: the lines up to the record at 0x[0-9a-f]* take more than the memory limit of 268435456 bytes to sort; .*--file-order" "$tmp/err"
}
expect "dump of 4 MB of instants named by a 32,000-byte string stops at the limit" lines_refused
lines_streamed() {
	"$fxtrace" dump --file-order "$tmp/lines.fxt" 2>"$tmp/err" | head -c 1000000 >/dev/null
	! [[ -s $tmp/err ]]
}
expect "dump --file-order streams them" lines_streamed

usage() {
	"$fxtrace" stats --memory-limit=1G "$tmp/8k.fxt" >/dev/null 2>"$tmp/err"
	(($? == 2)) && grep -q "^fxtrace stats: --memory-limit=1G: a size in bytes, K or M (0: no limit)$" "$tmp/err"
}
expect "--memory-limit=1G is a usage error (K and M only)" usage

echo "1..$n"
