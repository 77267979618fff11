#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the guest tests on the debug kernel (lockdep, KASAN,
# KFENCE, atomic-sleep checks), which Debian's kernel cannot catch.  Builds the
# kernel first when needed (tools/guest/debug-kernel.sh: ~35 min on 2 cores),
# then the module against it (in a copy of the sources, so that kmod/fxtrace.ko
# stays built for Debian's 6.1), then runs GUEST_TESTS with run.sh -k debug.
# Not part of make check.
#
# Usage: tools/guest/check-debug.sh [-t TIMEOUT_S]   (default 1200: the
#        checkers slow the guest down several times)

set -euo pipefail
cd "$(dirname "$0")/../.."

timeout_s=1200
while getopts t: opt; do
	case $opt in
	t) timeout_s=$OPTARG ;;
	*) sed -n '11,12s/^# //p' "$0" >&2; exit 2 ;;
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

# shellcheck disable=SC2046 # one word per test program
tools/guest/run.sh -k debug -t "$timeout_s" -m "$mod/kmod/fxtrace.ko" \
	-o build/check-debug $(make -s print-GUEST_TESTS)
