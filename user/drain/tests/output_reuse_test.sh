#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain leaves its output file alone until its session
# is initialized.  A second `fxtrace record` with the same output used to
# truncate a running or killed drainer's file before Initialize failed
# (EBUSY).  On the host, with no module: in a private mount namespace a
# regular file stands in for /dev/fxtrace, so fxtctl_open() maps it and
# Initialize fails (ENOTTY) on the same path as EBUSY.  The existing
# output must be unchanged; a symlink, or another user's file or FIFO, at
# the name is refused with what it is unchanged; a new output is mode 0600.
# A trace a killed drainer left unfinished (bytes after its flush mark) and
# a libfxtrace spool are refused before Initialize, as `fxtrace record -o`
# refuses them (tools/fxtrace/tests/output_keep_test.sh); a finished trace
# is not.  Skips without root or
# `unshare -m`.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1
trap 'rm -rf "$out"' EXIT
umask 022

if ! unshare -m true 2>/dev/null; then
	echo "# SKIP: unshare -m is not permitted here (needs root)"
	exit 77
fi
truncate -s 512K "$out/fakedev"

# drain OUT: fxtrace-drain -o OUT against the stand-in device; its stderr
# in $out/drain.err, its exit status returned.
drain() {
	# shellcheck disable=SC2016 # the inner bash expands them
	unshare -m bash -c 'mount -t tmpfs none /dev && touch /dev/fxtrace &&
		mount --bind "$1" /dev/fxtrace && exec "$2" -q -o "$3"' \
		_ "$out/fakedev" "$bin/fxtrace-drain" "$1" 2>"$out/drain.err"
	local rc=$?
	sed 's/^/# /' "$out/drain.err"
	return $rc
}

head -c 100000 /dev/urandom >"$out/t.fxt"
cp "$out/t.fxt" "$out/t.orig"
drain "$out/t.fxt"
[[ $? == 1 ]] && grep -q 'cannot initialize a session' "$out/drain.err"
result $? "Initialize fails on the stand-in device (exit 1)"
cmp -s "$out/t.fxt" "$out/t.orig"
result $? "the existing output is unchanged"

printf 'scratch\n' >"$out/scratch"
ln -s "$out/scratch" "$out/link.fxt"
drain "$out/link.fxt"
[[ $? == 1 ]] && grep -q 'symbolic link' "$out/drain.err"
result $? "-o SYMLINK is refused, with the reason"
[[ $(cat "$out/scratch") == scratch ]]
result $? "the symlink's target is unchanged"

drain "$out/new.fxt"
[[ $(stat -c %a "$out/new.fxt" 2>/dev/null) == 600 ]]
result $? "a new output is mode 0600 under umask 022"

# Another user's file or FIFO at the name: refused before anything else.
printf 'planted\n' >"$out/planted.fxt"
chown 65534:65534 "$out/planted.fxt"
chmod 666 "$out/planted.fxt"
drain "$out/planted.fxt"
[[ $? == 1 && $(cat "$out/planted.fxt") == planted ]] &&
	grep -q "planted.fxt: Operation not permitted (another user's file: it is not overwritten)" "$out/drain.err"
result $? "-o ANOTHER USER'S FILE is refused with the reason, the file unchanged"
mkfifo -m 666 "$out/planted.fifo"
chown 65534:65534 "$out/planted.fifo"
timeout 10 bash -c "$(declare -f drain); out=$out bin=$bin drain $out/planted.fifo"
rc=$?
[[ $rc == 1 ]] && grep -q "another user's file" "$out/drain.err"
result $? "-o ANOTHER USER'S FIFO with no reader: refused at once (exit $rc), not waited on"

unfinished_trace "$out/killed.fxt"
cp "$out/killed.fxt" "$out/killed.orig"
drain "$out/killed.fxt"
[[ $? == 1 ]] && cmp -s "$out/killed.fxt" "$out/killed.orig" &&
	grep -q "killed.fxt is a trace fxtrace-drain has not finished (its drainer still writes it, or was killed): it is not overwritten (after a kill, 'fxtrace recover $out/killed.fxt' keeps what the drainer flushed to it; give -o another FILE)" "$out/drain.err" &&
	! grep -q 'cannot initialize' "$out/drain.err"
result $? "-o A KILLED DRAINER'S UNFINISHED TRACE is refused before Initialize, unchanged"
# A spool: a buffer header's magic ("FXB1") at 0.
{ printf 'FXB1'; head -c 4092 /dev/zero; } >"$out/app.spool"
cp "$out/app.spool" "$out/spool.orig"
drain "$out/app.spool"
[[ $? == 1 ]] && cmp -s "$out/app.spool" "$out/spool.orig" &&
	grep -q "app.spool is a libfxtrace spool: it is not overwritten ('fxtrace recover $out/app.spool' saves its records; give -o another FILE)" "$out/drain.err" &&
	! grep -q 'cannot initialize' "$out/drain.err"
result $? "-o A SPOOL is refused before Initialize, unchanged"
# Cut at its flush mark: finished.
unfinished_trace "$out/finished.fxt"
truncate -s 56 "$out/finished.fxt"
drain "$out/finished.fxt"
[[ $? == 1 ]] && grep -q 'cannot initialize' "$out/drain.err"
result $? "-o A FINISHED TRACE goes on to Initialize, to be replaced"

echo "1..$n"
exit $failed
