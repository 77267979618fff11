#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test: fxtrace.ko is built by DKMS from fxtrace-dkms's
# /usr/src/fxtrace-VERSION (unpacked in build/install-test/root; a dkms
# tree of its own, against the guest's 6.1 headers); then the guest loads
# that module and runs tools/pkg/install-guest.sh, which installs the four
# .debs of tools/pkg/deb-build.sh into an empty root, builds a C and a C++
# program against the installed library through pkg-config, records one
# with the installed fxtrace, checks the trace, removes the packages' files
# and shows nothing is left.  Prints the guest's TAP.
#
# The root is the packages' contents (dpkg-deb -x), not a dpkg-managed
# system: the guest's root is the host's, read-only, and its kernel has no
# overlayfs, so the maintainer scripts (addgroup, dkms autoinstall) are
# not run there.
#
# Usage: tools/pkg/install-test.sh (after tools/pkg/deb-build.sh)

set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/build/install-test
version=$(make -s print-FXTRACE_VERSION)
debs=(build/deb/fxtrace-dkms_"$version"_all.deb build/deb/libfxtrace0_"$version"_amd64.deb
	build/deb/libfxtrace-dev_"$version"_amd64.deb build/deb/fxtrace_"$version"_amd64.deb)
for d in "${debs[@]}"; do
	[[ -f $d ]] || { echo "install-test: no $d: run tools/pkg/deb-build.sh" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out/root" "$out/dkms" "$out/dkms-install"
# fxtrace-dkms's files, for the DKMS build on this side.
dpkg-deb -x "${debs[0]}" "$out/root"

abi=$(tools/guest/kernel.sh abi 6.1)
dkms=(--dkmstree "$out/dkms" --sourcetree "$out/root/usr/src" --installtree "$out/dkms-install")
dkms add "${dkms[@]}" -m fxtrace -v "$version" >"$out/dkms.log" 2>&1
dkms build "${dkms[@]}" -m fxtrace -v "$version" -k "$abi" \
	--kernelsourcedir "$(tools/guest/kernel.sh kdir 6.1)" >>"$out/dkms.log" 2>&1 ||
	{ cat "$out/dkms.log" "$out/dkms/fxtrace/$version/build/make.log"; exit 1; }
ko=$(find "$out/dkms/fxtrace/$version/$abi" -name fxtrace.ko)
echo "install-test: DKMS built $ko from $out/root/usr/src/fxtrace-$version"

tools/guest/run.sh -t 600 -m "$ko" -o "$out/guest" \
	"$PWD/tools/pkg/install-guest.sh ${debs[*]/#/$PWD/}"
rc=$?
cat "$out/guest"/1-install-guest.sh.log
exit $rc
