#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: fxtrace end to end.  On a machine that can load modules this
# runs on the machine itself; elsewhere (no module loading, no KVM) it boots
# Debian's 6.1 kernel in the QEMU guest bench and runs there.  The trace
# comes back as build/demo.fxt, is checked with `fxtrace check --strict`,
# summarised with `fxtrace stats` (which must show everything the demo is
# about, or the demo fails) and exported to build/demo.json.

set -euo pipefail
cd "$(dirname "$0")/.."

tools/deps.sh
make -j2 >/dev/null

out=build/demo-run
fxtrace=build/bin/fxtrace
if tools/guest/kernel.sh can-load-modules; then
	rm -rf "$out" && mkdir -p "$out"
	insmod kmod/fxtrace.ko
	trap 'rmmod fxtrace' EXIT
	FXTRACE_OUT=$out tools/demo/demo-guest.sh
	trace=$out/demo.fxt
else
	echo "demo: this machine cannot load modules; running in the QEMU guest" >&2
	tools/guest/run.sh -m kmod/fxtrace.ko -o "$out" "$PWD/tools/demo/demo-guest.sh"
	cat "$out"/1-demo-guest.sh.log
	trace=$out/files/1-demo-guest.sh/demo.fxt
fi

cp "$trace" build/demo.fxt
echo
echo "== fxtrace check --strict build/demo.fxt"
"$fxtrace" check --strict build/demo.fxt
echo
echo "== fxtrace stats build/demo.fxt"
"$fxtrace" stats build/demo.fxt | tee build/demo.stats
"$fxtrace" export --format=json -o build/demo.json build/demo.fxt

# What the trace must show; a regression anywhere on the path fails here.
expect() {
	grep -qE "$2" build/demo.stats || { echo "demo: FAILED: no $1 in the trace" >&2; exit 1; }
}
expect "user duration events" '^  duration begin +[1-9]'
expect "flow events" '^  flow begin +[1-9]'
expect "async events" '^  async begin +[1-9]'
expect "counter events" '^  counter +[1-9]'
expect "named process pipeline" '^  [0-9]+ +"pipeline"'
expect "named thread producer" '"producer" \(process [0-9]+\)'
expect "named thread worker" '"worker" \(process [0-9]+\)'
expect "context switches" '^  [0-9]+ +[1-9][0-9]* +[0-9]+ +[0-9]+$'
expect "wakeups" '^  [0-9]+ +[0-9]+ +[1-9][0-9]* +[0-9]+$'
# Syscalls are durations on the pipeline's threads, named after the call.
# (Through a file: grep -q would end the pipe early, and pipefail fail it.)
"$fxtrace" dump build/demo.fxt >build/demo.dump
grep -qE 'duration (begin|complete) +kernel:syscall:read' build/demo.dump ||
	{ echo "demo: FAILED: no syscalls in the trace" >&2; exit 1; }
grep -qE 'duration (begin|complete) +kernel:irq:' build/demo.dump ||
	{ echo "demo: FAILED: no interrupts in the trace" >&2; exit 1; }
# The probes: 50 requests, each a pipe write on both threads and one
# checksum (more writes when stdout is a pipe).
probe_count() { grep -cE "$1" build/demo.dump || true; }
kprobes=$(probe_count 'instant +probe:kprobe:pipe_write$')
uprobes=$(probe_count 'duration begin +probe:uprobe:checksum len=4096$')
uretprobes=$(probe_count 'duration end +probe:uprobe:checksum ret=')
usdts=$(probe_count 'instant +probe:usdt:pipeline:handoff id=[0-9]+ bytes=4096$')
if ((kprobes < 100 || uprobes != 50 || uretprobes != 50 || usdts != 50)); then
	echo "demo: FAILED: expected 100 or more pipe_write kprobe hits, 50 checksum uprobe durations and 50 handoff USDT hits; got $kprobes, $uprobes begins, $uretprobes ends, $usdts" >&2
	exit 1
fi
echo
echo "demo: the trace has user events, named threads and processes, context"
echo "switches, wakeups, interrupts, syscalls, $kprobes kprobe hits on pipe_write"
echo "50 uprobe durations of checksum() and 50 USDT pipeline:handoff hits."
echo "Trace: build/demo.fxt (Chrome JSON: build/demo.json)."
echo "Open it at https://ui.perfetto.dev with \"Open trace file\"."
