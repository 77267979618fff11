#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the guest tests on the debug kernel (lockdep, KASAN,
# KFENCE, atomic-sleep checks), which Debian's kernel cannot catch.  Builds the
# kernel first when needed (tools/guest/debug-kernel.sh: ~35 min on 2 cores),
# then the module against it (in a copy of the sources, so that kmod/fxtrace.ko
# stays built for Debian's 6.1), then two guest runs with run.sh -k debug:
# the fuzzer alone at FUZZ_CALLS calls (build/check-debug/fuzz/), then the
# other GUEST_TESTS (build/check-debug/suite/).  Each run fails on any
# KASAN, lockdep or KFENCE report in the kernel log (run.sh).  Not part of
# make check.
#
# Usage: tools/guest/check-debug.sh [-t TIMEOUT_S] [-n FUZZ_CALLS] [-f]
#        -t  timeout of each guest run (default 2400: the checkers slow the
#            guest down several times)
#        -n  fuzzer calls (default 1000000)
#        -f  the fuzzer run only

set -euo pipefail
cd "$(dirname "$0")/../.."

timeout_s=2400 fuzz_calls=1000000 fuzz_only=0
while getopts t:n:f opt; do
	case $opt in
	t) timeout_s=$OPTARG ;;
	n) fuzz_calls=$OPTARG ;;
	f) fuzz_only=1 ;;
	*) sed -n '14,19s/^# //p' "$0" >&2; exit 2 ;;
	esac
done

tools/guest/kernel.sh kdir debug >/dev/null || tools/guest/debug-kernel.sh
kdir=$(tools/guest/kernel.sh kdir debug)

make -j2 user
mod=build/module-debug
rm -rf "$mod"
mkdir -p "$mod"
cp -r Kbuild kmod uapi "$mod"/
find "$mod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete
make -C "$kdir" M="$PWD/$mod" modules

fuzz=build/selftests/fuzz_test
rc=0
# The fuzzer stops at 90% of the run's time rather than be killed: then it
# reports the calls it made (and fails for being short of FUZZ_CALLS).
tools/guest/run.sh -k debug -t "$timeout_s" -m "$mod/kmod/fxtrace.ko" \
	-o build/check-debug/fuzz "$fuzz -n $fuzz_calls -t $((timeout_s * 9 / 10 - 60))" || rc=1
grep -E '^(not )?ok|^# (phase|fuzz|VIOLATION)' build/check-debug/fuzz/1-fuzz_test.log || true
((fuzz_only)) && exit "$rc"

suite=()
for t in $(make -s print-GUEST_TESTS); do
	[[ $t == "$fuzz" ]] || suite+=("$t")
done
tools/guest/run.sh -k debug -t "$timeout_s" -m "$mod/kmod/fxtrace.ko" \
	-o build/check-debug/suite "${suite[@]}" || rc=1
exit "$rc"
