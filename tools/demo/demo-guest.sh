#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The part of `make demo` that runs where fxtrace.ko is loaded (the guest
# here): show the module's ABI, then `fxtrace record` the example program
# into $FXTRACE_OUT/demo.fxt: its libfxtrace events (through the module's
# per-task buffers), context switches and wakeups, task names, interrupts,
# its own syscalls, and the hits of a kprobe, a uprobe and a USDT probe.

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)

echo "== fxtrace info"
"$bin/fxtrace" info
echo
# Dynamic probes too: a kprobe on the kernel's pipe_write(), a
# uprobe/uretprobe pair on the example's checksum() and its USDT probe.
probes=(-P kprobe:pipe_write
	-P "uprobe:$bin/pipeline:checksum len=arg1:u64"
	-P "uretprobe:$bin/pipeline:checksum ret:u64"
	-P "usdt:$bin/pipeline:pipeline:handoff id=arg0:u64 bytes=arg1:u64")
echo "== fxtrace record -c 'pipeline,kernel:sched,kernel:task,kernel:irq,kernel:syscall' ${probes[*]} -o demo.fxt -- pipeline 50"
"$bin/fxtrace" record -c 'pipeline,kernel:sched,kernel:task,kernel:irq,kernel:syscall' \
	"${probes[@]}" -o "$FXTRACE_OUT/demo.fxt" -- "$bin/pipeline" 50
