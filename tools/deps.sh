#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what fxtrace needs on a Debian 12 machine, and unpack the few files
# it uses from the kernel source package. Quiet and fast when all is there.
#
# Usage: tools/deps.sh

set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
	build-essential g++ clang lld llvm libclang-rt-14-dev sparse
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
	linux-source-6.1 pahole
	liburing-dev libbpf-dev libelf-dev zlib1g-dev bpftool systemtap-sdt-dev
	lttng-tools liblttng-ust-dev trace-cmd
	python3 valgrind shellcheck
	chromium	# fxtrace report --html is tested in it (tools/fxtrace/tests/html_test.sh)
	dkms lintian debhelper fakeroot python3-docutils bash-completion pkgconf rsync dh-dkms
	systemd	# systemd-analyze judges fxtrace-recorder.service (tools/pkg/recorder_unit_test.sh)
	bc bison flex libssl-dev
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# checkpatch, extract-vmlinux, the kselftest harness, lib.mk and runner come
# from linux-source.
src=build/linux-source
members=(
	scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
	scripts/extract-vmlinux
	tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest.h
	tools/testing/selftests/lib.mk tools/testing/selftests/run_kselftest.sh
	tools/testing/selftests/kselftest/runner.sh tools/testing/selftests/kselftest/prefix.pl
	tools/testing/selftests/kselftest/module.sh
)
unpacked=1
for m in "${members[@]}"; do [[ -e $src/$m ]] || unpacked=0; done
if ((!unpacked)); then
	mkdir -p "$src"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$src" --strip-components=1 \
		"${members[@]/#/linux-source-6.1/}"
	touch "$src/.unpacked"
fi

# The kernels the guest bench boots and the module is built against.
tools/guest/kernel.sh fetch 6.1
tools/guest/kernel.sh fetch 6.12
# Debian's PREEMPT_RT headers of the same ABIs, for the -rt build checks.
tools/guest/kernel.sh rt-kdir 6.1 >/dev/null
tools/guest/kernel.sh rt-kdir 6.12 >/dev/null
