#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the users a session traces have no share of the drainer's
# open flows, as they have none of fxtrace.ko's (Documentation/drain.rst,
# Limits, "Traced users have no share"): `fxtrace record -u nobody` runs a
# command whose one process holds 16,385 flows open, past a process's
# share of 16,384; nobody is the pid filter's user once the command has
# set its uid, after the Start, and all 16,385 begins are in the trace.
# In the guest with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

# A copy nobody can run wherever the tree is checked out.
userdir=$(mktemp -d /tmp/traced-share.XXXXXX)
chmod 755 "$userdir"
cp "$progs/flow_hop" "$userdir/flow_hop"
"$bin/fxtrace" record -q -u nobody -e none -c hop -B 4M -o "$out/traced.fxt" -- \
	"$userdir/flow_hop" begins 1 16385 2>"$out/traced.stderr"
result $? "record -u nobody: exit 0"
sed 's/^/# /' "$out/traced.stderr"
begins=$("$bin/fxtrace" dump "$out/traced.fxt" | grep -c ' hop:hop ')
echo "# $begins flow begins in the trace"
[[ $begins == 16385 ]]
result $? "record -u nobody: the command's 16,385 open flows all kept (got $begins)"
check_strict "$out/traced.fxt" traced
rm -rf "$userdir"
echo "1..$n"
exit "$failed"
