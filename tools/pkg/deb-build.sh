#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (fxtrace-dkms, libfxtrace0, libfxtrace-dev,
# fxtrace) with `dpkg-buildpackage -b -us -uc` in a copy of the checkout's
# sources (build/deb/src; dpkg-buildpackage writes to the parent
# directory), then run lintian on them: any error fails.  The .debs and
# lintian's report stay in build/deb.  Usage: tools/pkg/deb-build.sh

set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/build/deb
version=$(make -s print-FXTRACE_VERSION)
changelog=$(dpkg-parsechangelog -S Version)
[[ $changelog == "$version" ]] ||
	{ echo "deb-build: debian/changelog is at $changelog, the Makefile at $version" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/src"
# The tracked files and the new ones, as a fresh clone would have them.
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$out/src" --
(cd "$out/src" && nice dpkg-buildpackage -b -us -uc -j2) >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log"; exit 1; }
ls "$out"/*.deb
lintian --fail-on error --display-info "$out"/fxtrace_"$version"_*.changes | tee "$out/lintian.txt"
echo "deb-build: lintian: $(grep -c '^E:' "$out/lintian.txt") errors, $(grep -c '^W:' "$out/lintian.txt") warnings, $(grep -c '^I:' "$out/lintian.txt") info"
