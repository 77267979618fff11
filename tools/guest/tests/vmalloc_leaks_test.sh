#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: tools/guest/vmalloc_leaks.sh finds exactly the vmalloc and
# vmap areas a module left behind after rmmod (callers printed as bare
# addresses, absent before insmod), and none of the rest of the kernel's
# churn: the excerpts below are in the format of 6.1's and 6.12's
# /proc/vmallocinfo.  Prints TAP.

set -uo pipefail
judge=$(cd "$(dirname "$0")/.." && pwd)/vmalloc_leaks.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=0 failed=0

# expect NAME WANT_RC WANT_OUTPUT BEFORE AFTER
expect() {
	local out rc=0
	out=$("$judge" "$4" "$5" 2>&1) || rc=$?
	n=$((n + 1))
	if [[ $rc == "$2" && $out == "$3" ]]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: exit $rc (want $2), output '$out' (want '$3')"
		failed=1
	fi
}

cat >"$dir/before" <<'AREAS'
0xffffc90000000000-0xffffc90000005000   20480 irq_init_percpu_irqstack+0xf7/0x150 vmap
0xffffc90000005000-0xffffc90000007000    8192 acpi_os_map_iomem+0x1ac/0x1c0 phys=0x000000007ffe0000 ioremap
0xffffc9000001d000-0xffffc90000022000   20480 alloc_thread_stack_node+0x4a/0x1d0 pages=4 vmalloc N0=4
0xffffc90000040000-0xffffc90000042000    8192 unpurged vm_area
AREAS
# While loaded: a buffer (vmap) and the session page (vmalloc_user).
cp "$dir/before" "$dir/loaded"
cat >>"$dir/loaded" <<'AREAS'
0xffffc90000400000-0xffffc90000407000   28672 fxt_buffer_alloc+0x9b/0x1f0 [fxtrace] vmap
0xffffc90000410000-0xffffc90000412000    8192 fxt_session_init+0x53/0x120 [fxtrace] pages=1 vmalloc N0=1
AREAS
# After rmmod, the rest of the kernel grew: 4 thread stacks, a per-CPU chunk.
cp "$dir/before" "$dir/churn"
cat >>"$dir/churn" <<'AREAS'
0xffffc90000022000-0xffffc90000027000   20480 alloc_thread_stack_node+0x4a/0x1d0 pages=4 vmalloc N0=4
0xffffc90000028000-0xffffc9000002d000   20480 alloc_thread_stack_node+0x4a/0x1d0 pages=4 vmalloc N0=4
0xffffc90000030000-0xffffc90000035000   20480 alloc_thread_stack_node+0x4a/0x1d0 pages=4 vmalloc N0=4
0xffffc90000038000-0xffffc9000003d000   20480 alloc_thread_stack_node+0x4a/0x1d0 pages=4 vmalloc N0=4
0xffffe8ffffc00000-0xffffe8ffffe00000 2097152 pcpu_get_vm_areas+0x0/0x1120 vmalloc
AREAS
leak='0xffffc90000400000-0xffffc90000407000   28672 0xffffffffc0a1b29b vmap'
cp "$dir/churn" "$dir/leak"
echo "$leak" >>"$dir/leak"
# An area an earlier, unrelated module left before this insmod.
old='0xffffc90000050000-0xffffc90000052000    8192 0xffffffffc0900010 pages=1 vmalloc N0=1'
{ cat "$dir/before"; echo "$old"; } >"$dir/before-old"
{ cat "$dir/churn"; echo "$old"; } >"$dir/after-old"

expect "nothing changed: no leak" 0 "" "$dir/before" "$dir/before"
expect "thread stacks and a per-CPU chunk more (2.1 MB): no leak" 0 "" \
	"$dir/before" "$dir/churn"
expect "a buffer's vmap area with its caller unloaded: the leak, exactly" 1 \
	"$leak" "$dir/before" "$dir/leak"
expect "the module's areas while it is loaded are not judged as leaks" 0 "" \
	"$dir/before" "$dir/loaded"
expect "an unloaded caller's area from before insmod is not this module's" 0 "" \
	"$dir/before-old" "$dir/after-old"
expect "an unreadable file is an error naming it" 2 \
	"vmalloc_leaks.sh: cannot read '$dir/absent'" "$dir/before" "$dir/absent"

echo "1..$n"
exit "$failed"
