#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `dkms add` and `dkms build` of fxtrace against Debian's 6.1 and 6.12
# kernel headers (tools/guest/kernel.sh kdir), in a dkms tree of its own
# under build/dkms-test: nothing goes to /var/lib/dkms or /usr/src.
# Checks the built module's vermagic.  Usage: tools/pkg/dkms-build.sh [VER...]

set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/build/dkms-test
rm -rf "$out"
mkdir -p "$out/tree" "$out/install"
make -s dkms-source DKMS_SRC="$out/src/fxtrace-$(make -s print-FXTRACE_VERSION)" >/dev/null
version=$(make -s print-FXTRACE_VERSION)
opts=(--dkmstree "$out/tree" --sourcetree "$out/src" --installtree "$out/install")

dkms add "${opts[@]}" -m fxtrace -v "$version"
for ver in "${@:-6.1 6.12}"; do
	for v in $ver; do
		kdir=$(tools/guest/kernel.sh kdir "$v")
		abi=$(tools/guest/kernel.sh abi "$v")
		t0=$SECONDS
		if ! dkms build "${opts[@]}" -m fxtrace -v "$version" -k "$abi" \
			--kernelsourcedir "$kdir"; then
			cat "$out/tree/fxtrace/$version/build/make.log" 2>/dev/null
			exit 1
		fi
		ko=$(find "$out/tree/fxtrace/$version/$abi" -name fxtrace.ko | head -n 1)
		magic=$(modinfo -F vermagic "$ko")
		[[ ${magic%% *} == "$abi" ]] || { echo "dkms-build: $ko has vermagic $magic, not $abi" >&2; exit 1; }
		echo "dkms-build: $v: $ko, vermagic ${magic%% *}, $((SECONDS - t0))s"
	done
done
