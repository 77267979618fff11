#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace export -o OUT`, `recover -o OUT` and `report
# --html=OUT` write a new file and rename it over OUT; they used to rename
# it without fsync(), so a crash (power loss) after the rename could leave
# OUT empty or cut short where a whole older OUT was (the rename reaching
# the disk before the data).  Now the new file is synced whole before the
# rename and OUT's directory after it.  sync_log.so logs each fsync() and
# rename() with the file's inode and size at that moment; the log must be
# exactly: fsync of OUT's final inode at its final size, its rename, fsync
# of OUT's directory.  A failing fsync (EIO) of the file is reported
# naming OUT, exits 1, leaves OUT as it was and no new file; of the
# directory, it says OUT may not survive a crash and exits 1; EINVAL (a
# file that cannot be synced) is no failure.  stop -o: stop_test.sh (guest).
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
sync_log=$top/${B:-build}/test/fxtrace/sync_log.so
no_tmpfile=$top/${B:-build}/test/fxtrace/no_tmpfile.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

"$mktrace" "$tmp/t.fxt" 1 3000 || exit 1
# A drainer's file for recover: a flush mark at 0x2038, 64 bytes after it.
printf '\x10\x00\x04\x46\x78\x54\x16\x00\x62\x00\xff\x7f\x22\x00\x00\x00%s\0\0\0\0\0\0' \
	'fxtrace:flushed 0x0000000000002038' >"$tmp/marked.fxt"
head -c $((0x2000 + 64)) /dev/zero | tr '\0' x >>"$tmp/marked.fxt"
printf '{"an earlier output":1}\n' >"$tmp/old"

# run CMD HOW [FAIL]: CMD (its OUT is $tmp/out/OUT) with the new file
# unnamed (tmpfile) or named from the start (named), fsync() failing as
# FAIL says; exit status in $rc, stderr in $err, the log in $log.
run() {
	local cmd=$1 how=$2 fail=${3:-} preload=$sync_log
	[[ $how == named ]] && preload="$sync_log $no_tmpfile"
	rm -rf "$tmp/out" "$tmp/log" && mkdir "$tmp/out"
	cp "$tmp/old" "$tmp/out/OUT"
	case $cmd in
	export) set -- export -o "$tmp/out/OUT" "$tmp/t.fxt" ;;
	recover) set -- recover -o "$tmp/out/OUT" "$tmp/marked.fxt" ;;
	report) set -- report --html="$tmp/out/OUT" "$tmp/t.fxt" ;;
	esac
	FXTRACE_SYNC_LOG=$tmp/log FXTRACE_SYNC_FAIL=$fail LD_PRELOAD=$preload \
		"$fxtrace" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	err=$(cat "$tmp/err")
	log=$(cat "$tmp/log" 2>/dev/null)
	sed 's/^/# /' "$tmp/err"
}

# only: $tmp/out holds OUT alone, nothing left beside it.
only() {
	local have
	have=$(find "$tmp/out" -mindepth 1 -printf '%f ')
	[[ $have == "OUT " ]] || { echo "# in the directory: $have"; return 1; }
}

for cmd in export recover report; do
	for how in tmpfile named; do
		run "$cmd" "$how"
		want="fsync file $(stat -c '%i %s' "$tmp/out/OUT")
rename $(stat -c %i "$tmp/out/OUT")
fsync dir $(stat -c %i "$tmp/out")"
		[[ $log == "$want" ]] || printf '# log:\n%s\n# expected:\n%s\n' "$log" "$want" | sed 's/^\([^#]\)/#   \1/'
		[[ $rc == 0 && $log == "$want" ]] && ! cmp -s "$tmp/out/OUT" "$tmp/old" && only
		result $? "$cmd OUT ($how new file): exit $rc; OUT synced whole, renamed, its directory synced, in that order"

		run "$cmd" "$how" "file EIO"
		[[ $rc == 1 && $err == "fxtrace $cmd: cannot write $tmp/out/OUT: Input/output error (the file is left as it was)" &&
			$log != *rename* ]] && cmp -s "$tmp/out/OUT" "$tmp/old" && only
		result $? "$cmd OUT ($how new file), its fsync failing (EIO): exit $rc, OUT named and unchanged, the new file removed"
	done

	run "$cmd" tmpfile "dir EIO"
	[[ $rc == 1 && $err == "fxtrace $cmd: cannot sync the directory of $tmp/out/OUT: Input/output error (the file is written whole, but a crash may undo its replacement)" ]] &&
		! cmp -s "$tmp/out/OUT" "$tmp/old" && only
	result $? "$cmd OUT, its directory's fsync failing (EIO): exit $rc, said so"

	run "$cmd" tmpfile "file EINVAL"
	[[ $rc == 0 && -z $err ]] && ! cmp -s "$tmp/out/OUT" "$tmp/old" && only
	result $? "$cmd OUT, fsync refused as for a file that cannot be synced (EINVAL): exit $rc, OUT written"
done

# A directory its user may write but not read (-wx, a drop box): the
# rename is allowed, but the directory cannot be opened to be synced.
# Nothing to wait for, as for EINVAL: OUT written, exit 0, nothing said.
# It used to exit 1 saying "cannot sync the directory", and stop -o then
# left the session running.
if ((EUID == 0)) && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	rm -rf "$tmp/out" "$tmp/log" && mkdir "$tmp/out"
	cp "$tmp/old" "$tmp/out/OUT"
	chown 65534 "$tmp/out" "$tmp/out/OUT" && chmod 0300 "$tmp/out"
	chmod 755 "$tmp" && chmod 644 "$tmp/t.fxt"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$fxtrace" export -o "$tmp/out/OUT" "$tmp/t.fxt" >/dev/null 2>"$tmp/err"
	rc=$?
	err=$(cat "$tmp/err")
	sed 's/^/# /' "$tmp/err"
	chmod 0700 "$tmp/out"
	[[ $rc == 0 && -z $err ]] && ! cmp -s "$tmp/out/OUT" "$tmp/old" && only
	result $? "export OUT into a directory it may not read (-wx): exit $rc, OUT written, nothing said"
fi

echo "1..$n"
exit $failed
