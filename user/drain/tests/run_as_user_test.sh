#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: what fxtrace-drain -u USER leaves the command.  On the host,
# with no module: in a private mount namespace a regular file stands in for
# /dev/fxtrace (as in output_reuse_test.sh), and the output is a FIFO with
# no reader, so the drainer waits in its open while the command is held
# before exec, already USER.  Its /proc status is read there: USER's uid
# and group, no permitted, effective or inheritable capability.  The
# drainer is started with inheritable capabilities (setpriv --inh-caps):
# setuid() keeps that set, and exec would give the command whatever a
# file's inheritable capabilities name in it.  Skips without root,
# `unshare -m` or setpriv.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh"
trap 'rm -rf "$out"' EXIT

if ! unshare -m true 2>/dev/null || ! command -v setpriv >/dev/null ||
	! setpriv --inh-caps +net_raw true 2>/dev/null; then
	echo "# SKIP: unshare -m or setpriv --inh-caps is not permitted here (needs root)"
	exit 77
fi
truncate -s 512K "$out/fakedev"
mkfifo -m 600 "$out/hold.fifo"

# shellcheck disable=SC2016 # the inner bash expands them
unshare -m bash -c 'mount -t tmpfs none /dev && touch /dev/fxtrace &&
	mount --bind "$1" /dev/fxtrace && shift &&
	exec setpriv --inh-caps +net_raw,+sys_admin "$@"' \
	_ "$out/fakedev" "$bin/fxtrace-drain" -q -u nobody -o "$out/hold.fifo" \
	-- /bin/true 2>"$out/drain.err" &
launcher=$!

# The drainer waits for a reader of the FIFO; its child is the command.
child=
for _ in $(seq 100); do
	drainer=$(pgrep -f -- "-u nobody -o $out/hold.fifo" | sort -n | head -n 1)
	[[ -n $drainer ]] && child=$(pgrep -P "$drainer" | head -n 1)
	[[ -n $child ]] && grep -q '^Uid:[[:space:]]*65534' "/proc/$child/status" 2>/dev/null &&
		break
	child=
	sleep 0.1
done
[[ -n $child ]] && cp "/proc/$child/status" "$out/child.status"
sed -n 's/^\(Uid\|Gid\|Cap[A-Za-z]*\):/# &/p' "$out/child.status" 2>/dev/null
# Let the drainer go: it opens the FIFO, then fails Initialize.
timeout 10 cat "$out/hold.fifo" >/dev/null
wait "$launcher"
sed 's/^/# /' "$out/drain.err"

[[ -s $out/child.status ]]
result $? "the command is held before exec as nobody"
grep -q '^Gid:[[:space:]]*65534[[:space:]]' "$out/child.status"
result $? "its group is nobody's"
for set in CapPrm CapEff CapInh CapAmb; do
	grep -q "^$set:[[:space:]]*0*$" "$out/child.status"
	result $? "no capability in $set"
done

echo "1..$n"
exit $failed
