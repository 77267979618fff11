#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: fxtrace end to end.  On a machine that can load modules this
# runs on the machine itself; elsewhere (no module loading, no KVM) it boots
# Debian's 6.1 kernel in the QEMU guest bench and runs there.  The trace
# comes back as build/demo.fxt, is checked with `fxtrace check --strict`,
# summarised with `fxtrace stats` and exported to build/demo.json.

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
"$fxtrace" stats build/demo.fxt
"$fxtrace" export --format=json -o build/demo.json build/demo.fxt
echo
echo "Trace: build/demo.fxt (Chrome JSON: build/demo.json)."
echo "Open it at https://ui.perfetto.dev with \"Open trace file\"."
