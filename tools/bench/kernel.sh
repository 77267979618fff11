#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-kernel: boot the guest once and compare the cost of fxtrace's
# kernel events with ftrace's and with tracing off (tools/bench/
# kernel-guest.sh).  Results: the table on stdout, build/bench/kernel.json.

set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/bench/kernel-run
tools/guest/run.sh -t 1200 -m kmod/fxtrace.ko -o "$out" \
	"$PWD/tools/bench/kernel-guest.sh"
cat "$out"/1-kernel-guest.sh.log
cp "$out"/files/1-kernel-guest.sh/kernel.json build/bench/kernel.json
