#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The part of `make demo` that runs where fxtrace.ko is loaded (the guest
# here): show the module's ABI, then write the demo trace into $FXTRACE_OUT.

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)

echo "== fxtrace info"
"$bin/fxtrace" info
"$bin/fxt-sample" "$FXTRACE_OUT/demo.fxt"
echo "wrote $(stat -c %s "$FXTRACE_OUT/demo.fxt") bytes to demo.fxt"
