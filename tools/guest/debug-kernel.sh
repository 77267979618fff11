#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel the guest bench boots with `run.sh -k debug`: Debian's
# 6.1 from the linux-source package, with the configuration of the Debian
# image (tools/guest/kernel.sh fetch 6.1) plus lockdep (PROVE_LOCKING),
# DEBUG_ATOMIC_SLEEP, KASAN and KFENCE, which Debian's kernel lacks.
#
# Usage: tools/guest/debug-kernel.sh [config]
#
# "config" stops after writing and checking .config.  The build makes only
# vmlinux, the bzImage the guest boots (KASAN does not survive the PVH entry)
# and what out-of-tree modules need (no in-tree modules: the 9p stack is built
# in); about 35 minutes on 2 cores.  Result in build/kernels/debug/: linux/
# (the tree: `kernel.sh kdir debug`), linux/vmlinux, linux/arch/x86/boot/bzImage,
# and .built once complete.  MAKEFLAGS/JOBS: -j (default 2).

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$root/build/kernels/debug
src=$dir/linux
tarball=/usr/src/linux-source-6.1.tar.xz

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }

case ${1:-build} in
config | build) ;;
*) sed -n '9p' "$0" | sed 's/^# //' >&2; exit 2 ;;
esac

# Tools a kernel build needs beyond a module build.
need=(bc bison flex libelf-dev libssl-dev pahole linux-source-6.1)
missing=()
for p in "${need[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "debug-kernel.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

"$here/kernel.sh" fetch 6.1
base_config=$("$here/kernel.sh" dir 6.1)/config

if [[ ! -f $dir/.unpacked ]]; then
	echo "debug-kernel.sh: unpacking $tarball" >&2
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$dir/.unpacked"
fi

rm -f "$dir/.built"
cd "$src"
cp "$base_config" .config
# - the checkers this kernel exists for;
# - the 9p stack built in, so that the initramfs needs no modules;
# - no Debian certificates (not in the source package; module signing
#   generates its own key, and is not enforced, as in Debian's kernel);
# - no debug info and BTF: they double the build and modules do not need them;
# - a release name of its own, so that modules built for Debian's 6.1 are
#   refused by run.sh instead of loading into the wrong kernel.
scripts/config --file .config \
	-e PROVE_LOCKING -e DEBUG_ATOMIC_SLEEP \
	-e KASAN -e KASAN_GENERIC -e KASAN_INLINE -e KFENCE \
	-e VIRTIO -e VIRTIO_PCI -e NET_9P -e NET_9P_VIRTIO -e 9P_FS \
	-e NETFS_SUPPORT -e FSCACHE \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	-d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 \
	-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -e DEBUG_INFO_NONE \
	--set-str LOCALVERSION "-fxtrace-debug"
make -s olddefconfig

# olddefconfig silently drops what a dependency forbids: check the result.
for opt in PROVE_LOCKING DEBUG_ATOMIC_SLEEP KASAN KFENCE PVH \
	VIRTIO_PCI NET_9P_VIRTIO 9P_FS; do
	[[ $(scripts/config --file .config -s "$opt") == y ]] ||
		die "CONFIG_$opt is not y after olddefconfig"
done
echo "debug-kernel.sh: .config ready in $src ($(make -s kernelrelease))" >&2
[[ ${1:-build} == build ]] || exit 0

jobs=${JOBS:-2}
echo "debug-kernel.sh: building vmlinux and bzImage with -j$jobs (about 35 minutes on 2 cores)" >&2
make -j"$jobs" vmlinux bzImage modules_prepare
# External module builds resolve the kernel's symbols from Module.symvers,
# which only a full `make modules` writes; vmlinux's own list is all we have.
cp vmlinux.symvers Module.symvers
touch "$dir/.built"
echo "debug-kernel.sh: done: tools/guest/run.sh -k debug ..." >&2
