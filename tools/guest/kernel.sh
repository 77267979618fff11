#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian kernels the guest bench boots and the module is built against.
#
# Usage: tools/guest/kernel.sh fetch   [VER]   get image + headers (apt), once
#        tools/guest/kernel.sh kdir    [VER]   print the module build tree
#        tools/guest/kernel.sh vmlinux [VER]   print the uncompressed kernel
#        tools/guest/kernel.sh boot    [VER]   print the image the guest boots
#        tools/guest/kernel.sh abi     [VER]   print the ABI (uname -r)
#        tools/guest/kernel.sh dir     [VER]   print the kernel's directory
#        tools/guest/kernel.sh rt-kdir [VER]   get the PREEMPT_RT headers of VER's
#                                              ABI (apt), once; print their tree
#        tools/guest/kernel.sh can-load-modules    exit 0 if this machine loads our module
#
# VER is a Debian kernel series: 6.1 (default, bookworm's kernel) or 6.12
# (bookworm-security), or "debug" (6.1 with lockdep, KASAN, KFENCE, built by
# tools/guest/debug-kernel.sh).  fetch resolves the current Debian ABI once and
# records it in build/kernels/VER.abi; the other commands only read that record
# and print nothing, exit 1, until VER has been fetched.
#
# build/kernels/ABI/ holds vmlinux (ELF, booted directly through PVH), config,
# initmods/ (the modules the guest loads to mount 9p, in load order
# in initmods/order, decompressed) and headers/ (the unpacked headers packages).

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kernels=$root/build/kernels

die() { echo "kernel.sh: $*" >&2; exit 1; }

# Modules the bench needs; their dependencies are resolved from the image.
initmods_wanted=(virtio_pci 9pnet_virtio 9p)
host_packages=(qemu-system-x86 busybox-static cpio kmod xz-utils zstd)

# recorded_abi VER: the ABI fetch recorded for VER, or return 1.
recorded_abi() {
	local abi
	[[ -r $kernels/$1.abi ]] || return 1
	read -r abi <"$kernels/$1.abi" && [[ -n $abi ]] || return 1
	echo "$abi"
}

# kdir_of VER: the module build tree of a fetched VER.
kdir_of() {
	local abi
	if [[ $1 == debug ]]; then
		[[ -f $kernels/debug/.built ]] || return 1
		echo "$kernels/debug/linux"
		return
	fi
	abi=$(recorded_abi "$1") || return 1
	echo "$kernels/$abi/headers/usr/src/linux-headers-$abi"
}

# dir_of VER: the directory of a fetched (or built) VER.
dir_of() {
	local abi
	if [[ $1 == debug ]]; then
		[[ -f $kernels/debug/.built ]] || return 1
		echo "$kernels/debug"
		return
	fi
	abi=$(recorded_abi "$1") || return 1
	echo "$kernels/$abi"
}

# The host kernel's own tree is the default only where modules can be loaded.
host_can_load_modules() {
	local disabled=0
	[[ -e /proc/modules ]] || return 1
	[[ -r /proc/sys/kernel/modules_disabled ]] &&
		read -r disabled </proc/sys/kernel/modules_disabled
	[[ $disabled == 0 ]]
}

# apt_ensure PACKAGE...: install what is missing (apt-get update only then).
apt_ensure() {
	local p status missing=()
	for p in "$@"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	echo "kernel.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# depends_matching PACKAGE REGEX: the dependencies of PACKAGE matching REGEX.
depends_matching() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \([^ <>]*\)$/\1/p' | grep -E "$2" || true
}

# resolve_abi VER: the current Debian ABI of series VER, e.g. 6.1.0-56-amd64.
resolve_abi() {
	local ver=$1 meta dep updated=0
	local re="^linux-headers-${ver//./\\.}\\.[^ ]*-amd64\$"
	while :; do
		for meta in "linux-headers-$ver-amd64" linux-headers-amd64; do
			dep=$(depends_matching "$meta" "$re" | head -n 1)
			if [[ -n $dep ]]; then
				dep=${dep#linux-headers-}
				echo "$dep"
				return
			fi
		done
		((updated)) && die "no Debian kernel $ver in the apt archive (tried linux-headers-$ver-amd64, linux-headers-amd64)"
		apt-get update -q >/dev/null
		updated=1
	done
}

# resolve_module_order IMAGE_MODDIR NAME...: module files in load order,
# dependencies first; built-in modules are skipped.
declare -A mod_path mod_done
resolve_module_order() {
	local moddir=$1 f name
	shift
	while IFS= read -r f; do
		name=$(basename "$f")
		name=${name%%.ko*}
		mod_path[${name//-/_}]=$f
	done < <(find "$moddir/kernel" -name '*.ko*')
	for name in "$@"; do
		visit_module "$moddir" "${name//-/_}"
	done
}

visit_module() {
	local moddir=$1 name=$2 deps dep
	[[ -z ${mod_done[$name]:-} ]] || return 0
	mod_done[$name]=1
	if [[ -z ${mod_path[$name]:-} ]]; then
		grep -q "/$name.ko\$" "$moddir/modules.builtin" ||
			grep -q "/${name//_/-}.ko\$" "$moddir/modules.builtin" ||
			die "module $name is neither in the image nor built in"
		return 0
	fi
	deps=$(modinfo -F depends "${mod_path[$name]}")
	for dep in ${deps//,/ }; do
		visit_module "$moddir" "${dep//-/_}"
	done
	echo "${mod_path[$name]}"
}

fetched() {
	local abi=$1 dir=$kernels/$1 inc
	[[ -s $dir/vmlinux && -f $dir/initmods/order ]] || return 1
	# The headers' Makefile includes the common headers by absolute path.
	inc=$(sed -n 's/^include //p' "$dir/headers/usr/src/linux-headers-$abi/Makefile" 2>/dev/null)
	[[ -n $inc && -f $inc ]]
}

fetch() {
	local ver=$1 abi dir tmp img deb f common kbuild vmlinuz name order
	[[ $ver == debug ]] && die "the debug kernel is built by tools/guest/debug-kernel.sh"
	[[ $ver =~ ^[0-9]+\.[0-9]+$ ]] || die "bad kernel version '$ver' (6.1, 6.12, debug)"
	apt_ensure "${host_packages[@]}"
	if abi=$(recorded_abi "$ver") && fetched "$abi"; then
		return 0
	fi
	mkdir -p "$kernels"
	exec 9>"$kernels/.lock"
	flock 9
	# Another fetch may have finished while we waited.
	if abi=$(recorded_abi "$ver") && fetched "$abi"; then
		return 0
	fi
	abi=$(resolve_abi "$ver")
	dir=$kernels/$abi
	echo "kernel.sh: fetching Debian kernel $abi" >&2

	common=$(depends_matching "linux-headers-$abi" '^linux-headers-.*-common$')
	kbuild=$(depends_matching "linux-headers-$abi" '^linux-kbuild-')
	[[ -n $common && -n $kbuild ]] || die "cannot resolve the dependencies of linux-headers-$abi"

	tmp=$kernels/.fetch-$abi
	rm -rf "$tmp" "$dir"
	mkdir -p "$tmp/deb" "$tmp/img" "$dir/headers" "$dir/initmods"
	if ! (cd "$tmp/deb" && apt-get download -q "linux-image-$abi-unsigned" \
		"linux-headers-$abi" "$common" "$kbuild") >"$tmp/download.log" 2>&1; then
		cat "$tmp/download.log" >&2
		die "apt-get download failed"
	fi
	for deb in "$tmp"/deb/linux-headers-*.deb "$tmp"/deb/linux-kbuild-*.deb; do
		dpkg-deb -x "$deb" "$dir/headers"
	done
	sed -i "s|^include /usr/src/|include $dir/headers/usr/src/|" \
		"$dir/headers/usr/src/linux-headers-$abi/Makefile"
	rm -rf "$dir/headers/lib" "$dir/headers/usr/share"

	dpkg-deb -x "$tmp"/deb/linux-image-"$abi"-unsigned_*.deb "$tmp/img"
	img=$tmp/img
	cp "$img/boot/config-$abi" "$dir/config"
	vmlinuz=$img/boot/vmlinuz-$abi
	[[ -x $root/build/linux-source/scripts/extract-vmlinux ]] ||
		die "build/linux-source/scripts/extract-vmlinux is missing: run tools/deps.sh"
	"$root/build/linux-source/scripts/extract-vmlinux" "$vmlinuz" >"$dir/vmlinux.tmp"
	[[ $(head -c 4 "$dir/vmlinux.tmp" | od -An -c | tr -d ' ') == 177ELF ]] ||
		die "extract-vmlinux gave no ELF image for $vmlinuz"
	mv "$dir/vmlinux.tmp" "$dir/vmlinux"

	order=$(resolve_module_order "$img/lib/modules/$abi" "${initmods_wanted[@]}")
	: >"$dir/initmods/order.tmp"
	for f in $order; do
		name=$(basename "$f")
		case $name in
		*.ko.xz) xz -dc "$f" >"$dir/initmods/${name%.xz}" ;;
		*.ko.zst) zstd -qdc "$f" >"$dir/initmods/${name%.zst}" ;;
		*.ko) cp "$f" "$dir/initmods/" ;;
		*) die "unexpected module file $f" ;;
		esac
		echo "${name%.ko*}.ko" >>"$dir/initmods/order.tmp"
	done
	mv "$dir/initmods/order.tmp" "$dir/initmods/order"
	rm -rf "$tmp"

	echo "$abi" >"$kernels/$ver.abi.tmp"
	mv "$kernels/$ver.abi.tmp" "$kernels/$ver.abi"
	echo "kernel.sh: $abi ready in $dir" >&2
}

# fetch_rt VER: the headers of Debian's PREEMPT_RT flavour of VER's ABI
# (linux-headers-<abi>-rt-amd64, its -common-rt and the same kbuild), for
# build tests only: no image, never booted.  In build/kernels/<abi>-rt/.
fetch_rt() {
	local ver=$1 abi rt dir tmp common kbuild deb
	fetch "$ver"
	abi=$(recorded_abi "$ver")
	rt=${abi%-amd64}-rt-amd64
	dir=$kernels/${abi}-rt
	kdir=$dir/headers/usr/src/linux-headers-$rt
	[[ -f $dir/.fetched ]] && return 0
	exec 9>"$kernels/.lock"
	flock 9
	[[ -f $dir/.fetched ]] && return 0
	echo "kernel.sh: fetching Debian PREEMPT_RT headers $rt" >&2
	common=$(depends_matching "linux-headers-$rt" '^linux-headers-.*-common-rt$')
	kbuild=$(depends_matching "linux-headers-$rt" '^linux-kbuild-')
	[[ -n $common && -n $kbuild ]] || die "cannot resolve the dependencies of linux-headers-$rt"
	tmp=$kernels/.fetch-$rt
	rm -rf "$tmp" "$dir"
	mkdir -p "$tmp" "$dir/headers"
	# The physical path: build/kernels may be a link other checkouts share.
	dir=$(cd "$dir" && pwd -P)
	kdir=$dir/headers/usr/src/linux-headers-$rt
	if ! (cd "$tmp" && apt-get download -q "linux-headers-$rt" "$common" "$kbuild") \
		>"$tmp/download.log" 2>&1; then
		cat "$tmp/download.log" >&2
		die "apt-get download failed"
	fi
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$dir/headers"
	done
	sed -i "s|^include /usr/src/|include $dir/headers/usr/src/|" "$kdir/Makefile"
	rm -rf "$dir/headers/lib" "$dir/headers/usr/share" "$tmp"
	grep -q '^CONFIG_PREEMPT_RT=y' "$kdir/.config" ||
		die "linux-headers-$rt is not configured with CONFIG_PREEMPT_RT"
	touch "$dir/.fetched"
}

cmd=${1:-}
ver=${2:-}
case $cmd in
fetch)
	fetch "${ver:-6.1}"
	;;
kdir)
	if [[ -z $ver && -d /lib/modules/$(uname -r)/build ]] && host_can_load_modules; then
		echo "/lib/modules/$(uname -r)/build"
	else
		kdir_of "${ver:-6.1}" || exit 1
	fi
	;;
can-load-modules)
	# Exit 0 when fxtrace.ko can be built for and loaded into this machine.
	[[ -d /lib/modules/$(uname -r)/build ]] && host_can_load_modules
	;;
vmlinux)
	d=$(dir_of "${ver:-6.1}") || exit 1
	if [[ ${ver:-} == debug ]]; then echo "$d/linux/vmlinux"; else echo "$d/vmlinux"; fi
	;;
boot)
	# The vmlinux through PVH (faster), except the debug kernel: KASAN's
	# shadow is not mapped yet when PVH enters instrumented C code, and it
	# triple-faults; the bzImage's entry sets it up first.
	d=$(dir_of "${ver:-6.1}") || exit 1
	if [[ ${ver:-} == debug ]]; then
		echo "$d/linux/arch/x86/boot/bzImage"
	else
		echo "$d/vmlinux"
	fi
	;;
abi)
	if [[ ${ver:-} == debug ]]; then
		[[ -f $kernels/debug/.built ]] || exit 1
		cat "$kernels/debug/linux/include/config/kernel.release"
	else
		recorded_abi "${ver:-6.1}" || exit 1
	fi
	;;
dir)
	dir_of "${ver:-6.1}" || exit 1
	;;
rt-kdir)
	fetch_rt "${ver:-6.1}"
	echo "$kdir"
	;;
*)
	sed -n '5,12s/^# //p' "$0" >&2
	exit 2
	;;
esac
