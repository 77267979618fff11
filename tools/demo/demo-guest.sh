#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The part of `make demo` that runs where fxtrace.ko is loaded (the guest
# here): show the module's ABI, then record the example program into
# $FXTRACE_OUT/demo.fxt.  libfxtrace has no module backend yet, so the
# example records in user-only mode (Documentation/api.rst).

set -euo pipefail
bin=$(cd "$(dirname "$0")/../../build/bin" && pwd)

echo "== fxtrace info"
"$bin/fxtrace" info
echo
echo "== FXTRACE_OUTPUT=demo.fxt pipeline 50"
FXTRACE_OUTPUT=$FXTRACE_OUT/demo.fxt "$bin/pipeline" 50
echo "wrote $(stat -c %s "$FXTRACE_OUT/demo.fxt") bytes to demo.fxt"
