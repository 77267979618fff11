#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-stream: boot the guest once and find the highest zero-drop
# streaming rate of 2 producer threads, fxtrace against LTTng-UST, with the
# drainer's and the consumer daemon's CPU per MB
# (tools/bench/stream-guest.sh).  Results: the table on stdout,
# build/bench/stream.json.

set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/bench/stream-run
mkdir -p build/bench
tools/guest/run.sh -t 900 -m kmod/fxtrace.ko -o "$out" \
	"$PWD/tools/bench/stream-guest.sh"
cat "$out"/1-stream-guest.sh.log
cp "$out"/files/1-stream-guest.sh/stream.json build/bench/stream.json
