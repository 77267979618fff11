#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with NTRACE, libfxtrace's macros compile to nothing.
# ntrace_sample.c uses every macro; its object must have no call instruction
# and no reference to an fxtrace symbol, and running it must not evaluate
# the macros' arguments.  Prints TAP.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

for cc in gcc clang; do
	"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/uapi" -I"$root/user/include" \
		-c -o "$tmp/sample.o" "$here/ntrace_sample.c"
	syms=$(nm "$tmp/sample.o" | grep -E 'fxt|fxtrace' || true)
	result "$([[ -z $syms ]] && echo 0 || echo 1)" "$cc: no fxtrace symbol in the object${syms:+: $syms}"
	calls=$(objdump -d --no-show-raw-insn "$tmp/sample.o" | grep -cE '\scall' || true)
	result "$([[ $calls == 0 ]] && echo 0 || echo 1)" "$cc: no call instruction ($calls found)"
	"$cc" -o "$tmp/sample" "$tmp/sample.o"
	rc=0
	"$tmp/sample" || rc=$?
	result "$rc" "$cc: arguments are not evaluated"
done
echo "1..$n"
exit $failed
