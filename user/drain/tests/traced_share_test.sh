#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the users a session traces have no share of the drainer's
# open flows, as they have none of fxtrace.ko's (Documentation/drain.rst,
# Limits, "Traced users have no share"): `fxtrace record -u nobody` runs a
# command whose one process holds 16,385 flows open, past a process's
# share of 16,384; nobody is the pid filter's user once the command has
# set its uid, after the Start, and all 16,385 begins are in the trace.
# With `fxtrace record -p PID`, a process of another user that gets PID
# after its process exits is not traced: fxtrace.ko refuses its ATTACH.
# A set-user-ID root drainer run by nobody traces nobody, its real uid;
# `record -p` of a process in nobody's user namespace traces nobody.
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

# ---- record -p PID: a process given the pid after it exits is not traced ----
# fxtrace.ko holds the filter's process, not its number: nobody's process
# that gets the number of uid 1's, gone, is no descendant of it, and its
# ATTACH is refused (EPERM, uapi.rst): none of its begins is in the trace.
# (Were it attached, the drainer, which reads the filter's user through a
# handle of its process, would not take nobody for traced either: its
# 16,385th begin would be refused.)
setpriv --reuid=1 --regid=1 --clear-groups sleep 600 &
victim=$!
"$bin/fxtrace" record -q -p "$victim" -e none -c hop -B 4M -o "$out/reused.fxt" \
	2>"$out/reused.stderr" &
rec=$!
for _ in $(seq 300); do
	"$bin/fxtrace" list user 2>/dev/null | grep -q 'session: started' && break
	sleep 0.1
done
kill "$victim"
wait "$victim" 2>/dev/null
# The next process made gets the victim's pid (nothing else forks here).
echo $((victim - 1)) >/proc/sys/kernel/ns_last_pid
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$userdir/flow_hop" begins 1 16385 &
hop=$!
wait "$hop"
kill -INT "$rec"
wait "$rec"
result $? "record -p: exit 0 after SIGINT"
sed 's/^/# /' "$out/reused.stderr"
[[ $hop == "$victim" ]]
result $? "record -p: nobody's process has the pid of uid 1's, gone ($hop, $victim)"
begins=$("$bin/fxtrace" dump "$out/reused.fxt" | grep -c ' hop:hop ')
echo "# $begins flow begins in the trace"
[[ $begins == 0 ]]
result $? "record -p: nobody's process, outside the filter's, writes no flow into the trace (got $begins)"
check_strict "$out/reused.fxt" reused

# ---- a set-user-ID root drainer traces the user who runs it ----
# fxtrace.ko traces the initializer's work by its real uid, the uid its
# work is charged to (uapi.rst, "Limits and the security model"); so does
# the drainer.  Run by nobody, setuid root, with no pid filter: nobody's
# process holds 16,385 flows open, past an untraced process's 16,384.
# (A drainer that took its effective uid, root, as the owner kept
# 16,384.)  The bit needs a mount without nosuid.
suiddir=
for dir in /var/tmp /root /tmp; do
	if [[ -d $dir ]] && ! findmnt -no OPTIONS -T "$dir" | grep -qw nosuid; then
		suiddir=$(mktemp -d "$dir/fxtrace-suid-drain.XXXXXX" 2>/dev/null) && break
	fi
done
if [[ -z $suiddir ]]; then
	echo "# SKIP: no directory on a mount without nosuid for a set-user-ID drainer"
else
	chmod 755 "$suiddir"
	install -o root -g root -m 4755 "$bin/fxtrace-drain" "$suiddir/fxtrace-drain"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$suiddir/fxtrace-drain" -q -c hop -B 4M -o "$out/suid.fxt" \
		2>"$out/suid.stderr" &
	drainer=$!
	for _ in $(seq 300); do
		"$bin/fxtrace" list user 2>/dev/null | grep -q 'session: started' && break
		sleep 0.1
	done
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$userdir/flow_hop" begins 1 16385
	result $? "set-user-ID drainer: nobody's process exits 0"
	kill -INT "$drainer"
	wait "$drainer"
	result $? "set-user-ID drainer run by nobody: exit 0 after SIGINT"
	sed 's/^/# /' "$out/suid.stderr"
	begins=$("$bin/fxtrace" dump "$out/suid.fxt" | grep -c ' hop:hop ')
	echo "# $begins flow begins in the trace"
	[[ $begins == 16385 ]]
	result $? "set-user-ID drainer run by nobody: nobody's 16,385 open flows all kept (got $begins)"
	check_strict "$out/suid.fxt" suid
	rm -rf "$suiddir"
fi

# ---- record -p PID of a process in a user namespace nobody made ----
# fxtrace.ko charges and traces such a process as the namespace's owner,
# nobody, whatever uid it has there (uapi.rst, "Limits and the security
# model"); so does the drainer.  The process, made by nobody, has uid 0 in
# its namespace mapped by root to the subordinate 100000 (its
# /proc/PID/status says 100000) and holds 16,385 flows open.  (A drainer
# that traced the status's uid kept 16,384.)  Python: unshare(2) and
# setresuid(2) before the exec, which keeps no capability of an unmapped
# uid.
mkfifo -m 666 "$userdir/mapped"
setpriv --reuid=65534 --regid=65534 --clear-groups python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) != 0:
    sys.exit("unshare(CLONE_NEWUSER): " + os.strerror(ctypes.get_errno()))
open(sys.argv[1]).read()
if libc.setresuid(0, 0, 0) != 0:
    sys.exit("setresuid(0): " + os.strerror(ctypes.get_errno()))
os.execv(sys.argv[2], sys.argv[2:])
' "$userdir/mapped" "$userdir/flow_hop" begins 1 16385 &
nsproc=$!
"$bin/fxtrace" record -q -p "$nsproc" -e none -c hop -B 4M -o "$out/userns.fxt" \
	2>"$out/userns.stderr" &
rec=$!
for _ in $(seq 300); do
	"$bin/fxtrace" list user 2>/dev/null | grep -q 'session: started' &&
		[[ $(readlink "/proc/$nsproc/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
	sleep 0.1
done
mapped=1
if echo '0 100000 1' >"/proc/$nsproc/uid_map"; then mapped=0; fi
result "$mapped" "userns: root maps uid 0 of nobody's namespace to 100000"
echo >"$userdir/mapped"
wait "$nsproc"
result $? "userns: nobody's namespaced process exits 0"
kill -INT "$rec"
wait "$rec"
result $? "userns: record -p exit 0 after SIGINT"
sed 's/^/# /' "$out/userns.stderr"
begins=$("$bin/fxtrace" dump "$out/userns.fxt" | grep -c ' hop:hop ')
echo "# $begins flow begins in the trace"
[[ $begins == 16385 ]]
result $? "userns: the process's 16,385 open flows all kept, traced as nobody (got $begins)"
check_strict "$out/userns.fxt" userns
rm -rf "$userdir"
echo "1..$n"
exit "$failed"
