#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash disable=SC2013 # busybox ash; word lists on purpose
#
# /init of the guest bench's initramfs (busybox).  Loads the 9p modules, mounts
# the host root read-only at /host and the run's output directory (writable)
# at its host path inside it, gives the chroot writable /tmp, /run, /dev/shm,
# then makes the host root the root of the mount namespace, runs
# OUTDIR/.guest/plan.sh (written by tools/guest/run.sh) in it and powers
# off.  Any failure powers off at once: run.sh reports a
# guest that did not finish.

export PATH=/bin

fail() {
	echo "guest init: $*"
	poweroff -f
	exit 1
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
# The first console line comes glued to the firmware's escape codes.
echo

out=
for word in $(cat /proc/cmdline); do
	case $word in
	fxtrace_out=*) out=${word#fxtrace_out=} ;;
	esac
done
[ -n "$out" ] || fail "no fxtrace_out= on the kernel command line"

for m in $(cat /lib/modules/order); do
	insmod "/lib/modules/$m" || fail "insmod $m failed"
done

p9="trans=virtio,version=9p2000.L,msize=262144"
mount -t 9p -o "$p9,ro,cache=loose" hostroot /host || fail "cannot mount the host root"
mount -t 9p -o "$p9" out /out || fail "cannot mount the output directory"

# A writable /tmp that still shows the host's /tmp directories the run needs
# (tests, module: listed by run.sh in .guest/tmpdirs), read-only.
mount --bind /host/tmp /keep
mount -t tmpfs -o mode=1777 tmpfs /host/tmp
for d in $(cat /out/.guest/tmpdirs); do
	mkdir -p "/host$d"
	mount --bind "/keep${d#/tmp}" "/host$d" || fail "cannot bind $d"
done

mount -t tmpfs -o mode=755 tmpfs /host/run
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t tracefs tracefs /host/sys/kernel/tracing
mount -t debugfs debugfs /host/sys/kernel/debug
mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm

mkdir -p "/host$out"
mount --move /out "/host$out" || fail "cannot move the output directory to $out"

# Into the host root as switch_root goes, not by a plain chroot: the root
# of the tests' mount namespace is then their root directory, which
# unshare(CLONE_NEWUSER) requires (a chrooted caller gets EPERM).  This
# shell keeps the initramfs as its root, and its poweroff.
cd /host || fail "cannot enter the host root"
mount --move . / || fail "cannot move the host root to /"
chroot . /bin/bash "$out/.guest/plan.sh"
echo "guest init: plan exited $?"
poweroff -f
