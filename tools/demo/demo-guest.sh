#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The part of `make demo` that runs where fxtrace.ko is loaded (the guest
# here): show the module's ABI, then `fxtrace record` the example program
# into $FXTRACE_OUT/demo.fxt: its libfxtrace events (through the module's
# per-task buffers), context switches and wakeups, task names, interrupts
# and its own syscalls.

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)

echo "== fxtrace info"
"$bin/fxtrace" info
echo
echo "== fxtrace record -c 'pipeline,kernel:sched,kernel:task,kernel:irq,kernel:syscall' -o demo.fxt -- pipeline 50"
"$bin/fxtrace" record -c 'pipeline,kernel:sched,kernel:task,kernel:irq,kernel:syscall' \
	-o "$FXTRACE_OUT/demo.fxt" -- "$bin/pipeline" 50
