#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Debian's lttng-modules (the lttng-modules-dkms package's source)
# against the headers of the kernel the guest bench boots, for
# `make bench-kernel`'s third column.  Nothing is installed: the package is
# fetched with apt-get download and unpacked under build/lttng-modules/, the
# modules are built there (as dkms.conf builds them) and put in a module
# tree of their own with its depmod indexes,
# build/lttng-modules/ABI/modroot/lib/modules/ABI/extra/, where
# lttng-sessiond's modprobe (libkmod) finds them in the guest
# (tools/bench/kernel-guest.sh).  Once built, a second call does nothing.
#
# Debian's 2.13.9 does not build as is against 6.1.0-56's headers: the
# kernel's hrtimer_start tracepoint took a third argument (was_armed) in a
# 6.1 stable update that lttng-probe-timer.c does not know.  A probe whose
# object fails is left out of the build (its error in build.log), the other
# modules are built; the timer probe is not used by the bench.
#
# Usage: tools/bench/lttng-modules.sh [VER]   (6.1 by default)

set -euo pipefail
cd "$(dirname "$0")/../.."
ver=${1:-6.1}
top=$PWD/build/lttng-modules
kdir=$(tools/guest/kernel.sh kdir "$ver")
abi=$(tools/guest/kernel.sh abi "$ver")
out=$top/$abi
[[ -f $out/.built ]] && exit 0

rm -rf "$out"
mkdir -p "$out"
(cd "$out" && apt-get download -q lttng-modules-dkms >/dev/null 2>&1) ||
	{ echo "lttng-modules.sh: apt-get download lttng-modules-dkms failed" >&2; exit 1; }
deb=$(echo "$out"/lttng-modules-dkms_*.deb)
dpkg-deb -x "$deb" "$out/pkg"
src=$(echo "$out"/pkg/usr/src/lttng-modules-*)
echo "lttng-modules.sh: $(basename "$deb") against $abi" >&2

build() {
	nice -n 19 make -j2 -C "$kdir" M="$src" modules CONFIG_LTTNG=m \
		CONFIG_LTTNG_CLOCK_PLUGIN_TEST=m >>"$out/build.log" 2>&1
}
# Each failing probe is named in an error line; leave it out and retry.
for _ in 1 2 3 4 5; do
	build && break
	failed=$(grep -o 'src/probes/lttng-probe-[a-z0-9_-]*\.o\] Error 1' "$out/build.log" |
		sed 's|\.o.*||' | sort -u)
	removed=0
	for f in $failed; do
		probe=$(basename "$f")
		grep -q "+= $probe.o" "$src/src/probes/Kbuild" || continue
		echo "lttng-modules.sh: $probe.c does not build against $abi, left out:" >&2
		grep -m1 -B0 "error:" "$out/build.log" | sed "s|$src/||g" >&2
		sed -i "/+= $probe\.o/d" "$src/src/probes/Kbuild"
		removed=1
	done
	((removed)) || { tail -n 30 "$out/build.log" >&2; exit 1; }
done
[[ -f $src/src/lttng-tracer.ko ]] || { echo "lttng-modules.sh: no lttng-tracer.ko, see $out/build.log" >&2; exit 1; }
mods=$out/modroot/lib/modules/$abi
mkdir -p "$mods/extra"
find "$src" -name '*.ko' -exec cp {} "$mods/extra/" \;
touch "$mods/modules.order" "$mods/modules.builtin" "$mods/modules.builtin.modinfo"
depmod -b "$out/modroot" "$abi"
echo "lttng-modules.sh: $(find "$mods/extra" -name '*.ko' | wc -l) modules in $mods/extra" >&2
touch "$out/.built"
