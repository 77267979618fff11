#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tools/guest/vmalloc_leaks.sh BEFORE AFTER
#
# The vmalloc and vmap areas an unloaded module left behind.  BEFORE and
# AFTER are copies of /proc/vmallocinfo from before insmod and after rmmod.
# Each area there names its caller, the code that made it ("%pS": vmalloc(),
# vmalloc_user(), kvmalloc() and vmap() all record their caller's return
# address); once the module is gone its addresses no longer resolve and the
# kernel prints them bare (0xffffffffc0a1b2c3).  An area of AFTER whose
# caller is a bare address and that BEFORE does not have was made by a
# module unloaded since: a leak.  Unlike VmallocUsed, this counts vmap()
# areas (the module's buffers) and is blind to the rest of the kernel's
# churn (thread stacks, BPF programs, per-CPU chunks).
#
# Prints the leaked areas' lines; exit 1 when there is one, 0 when none,
# 2 on bad usage.

set -euo pipefail
(($# == 2)) || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
for f in "$1" "$2"; do
	[[ -r $f ]] || { echo "vmalloc_leaks.sh: cannot read '$f'" >&2; exit 2; }
done

# An area is "START-END SIZE CALLER ...": keyed by its range and caller.
awk 'NR == FNR { seen[$1 " " $3] = 1; next }
     $3 ~ /^0x[0-9a-f]+$/ && !(($1 " " $3) in seen) { print; found = 1 }
     END { exit found }' "$1" "$2"
