#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace export -o OUT` and `fxtrace report --html=OUT`
# replace OUT only with an output written whole.  export used to truncate
# OUT first and leave it cut short, a JSON file no viewer opens, when the
# trace could not be read to its end (here the reader's memory limit) or
# a signal ended it: an earlier export was lost for nothing.  Now the
# output is written to a new file in OUT's directory and renamed over OUT
# on success; a failure or SIGTERM/SIGHUP leaves OUT as it was (no OUT
# where there was none) and no file behind.  A SIGKILL used to leave the
# new file (".OUT.XXXXXX"); it now has no name until it is written whole
# (O_TMPFILE), and none is left; where O_TMPFILE is refused it is named
# as before.  On success the new OUT keeps
# the old one's mode, but not a group's bits when it cannot keep the
# group; a FIFO named as OUT is still written directly.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
tmp=$(mktemp -d)
feeder=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[[ -n $feeder ]] && kill "$feeder" 2>/dev/null
	mountpoint -q "$tmp/full" && umount "$tmp/full"
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# only FILES...: the directory $dir/out holds these names and no others.
dir=$tmp
only() {
	local have
	have=$(find "$dir/out" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')
	[[ $have == "${*:+$* }" ]] || { echo "# in the directory: $have"; return 1; }
}

"$mktrace" "$tmp/t.fxt" 1 3000 || exit 1
old='{"an earlier export":1}'

# The trace read only to its first record: exit 1, OUT as it was.
for cmd in "export -o" "report --html="; do
	name=${cmd%% *} opt=${cmd#* }
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	printf '%s\n' "$old" >"$tmp/out/$name.out"
	# shellcheck disable=SC2086 # $cmd is the command and its option
	"$fxtrace" ${cmd/=/ } "$tmp/out/$name.out" --memory-limit=1 "$tmp/t.fxt" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	grep -q 'past its memory limit of 1 bytes' "$tmp/err" &&
		[[ $rc == 1 && $(cat "$tmp/out/$name.out") == "$old" ]] && only "$name.out"
	result $? "$name ${opt%=} OUT, the trace not read to its end: exit $rc, OUT unchanged, nothing else left"
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	# shellcheck disable=SC2086
	"$fxtrace" ${cmd/=/ } "$tmp/out/$name.new" --memory-limit=1 "$tmp/t.fxt" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	[[ $rc == 1 ]] && only ""
	result $? "$name ${opt%=} NEW, the trace not read to its end: exit $rc, no NEW, nothing left"
done

# A signal mid-export: the input is the trace, then a pipe kept open.
# The new file has no name while it is written (O_TMPFILE; here on tmpfs
# when there is one), so that even SIGKILL leaves nothing behind; where
# O_TMPFILE is refused (no_tmpfile.so) it is the named ".OUT.XXXXXX",
# which the handlers of SIGTERM and SIGHUP remove.
shm=
[[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] && shm=$(mktemp -d /dev/shm/fxtrace.XXXXXX)
# shellcheck disable=SC2317 # run by the trap
cleanup_shm() {
	cleanup
	[[ -n $shm ]] && rm -rf "$shm"
}
trap cleanup_shm EXIT
for case in "tmpfile TERM" "tmpfile HUP" "tmpfile KILL" "named TERM" "named HUP"; do
	read -r how sig <<<"$case"
	dir=$tmp
	preload=
	if [[ $how == named ]]; then
		preload=$top/${B:-build}/test/fxtrace/no_tmpfile.so
	elif [[ -n $shm ]]; then
		dir=$shm
	fi
	rm -rf "$dir/out" && mkdir "$dir/out"
	printf '%s\n' "$old" >"$dir/out/export.out"
	rm -f "$tmp/in"
	mkfifo "$tmp/in"
	{ cat "$tmp/t.fxt"; sleep 60; } >"$tmp/in" &
	feeder=$!
	LD_PRELOAD=$preload "$fxtrace" export -o "$dir/out/export.out" - <"$tmp/in" 2>"$tmp/err" &
	pid=$!
	# Wait for the export to have written past its first flush: its
	# only regular file open is the new file, named or not.
	for _ in $(seq 100); do
		sleep 0.1
		[[ -n $(find -L "/proc/$pid/fd" -mindepth 1 -type f -size +256k 2>/dev/null) ]] && break
	done
	named=$(find "$dir/out" -name '.export.out.*' | wc -l)
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	feeder=
	[[ $named == $([[ $how == named ]] && echo 1 || echo 0) ]] || echo "# $named named new files while it wrote"
	[[ $rc == $((128 + $(kill -l "$sig"))) && $(cat "$dir/out/export.out") == "$old" &&
		$named == $([[ $how == named ]] && echo 1 || echo 0) ]] && only export.out
	result $? "export -o OUT ($how new file, on $(stat -f -c %T "$dir")) ended by SIG$sig: exit $rc, OUT unchanged, nothing else left"
done
dir=$tmp
# Written whole: OUT replaced, with the old file's mode.
rm -rf "$tmp/out" && mkdir "$tmp/out"
printf '%s\n' "$old" >"$tmp/out/export.out"
chmod 0640 "$tmp/out/export.out"
"$fxtrace" export -o "$tmp/out/export.out" "$tmp/t.fxt" 2>"$tmp/err"
rc=$?
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out/export.out" &&
	[[ $rc == 0 && $(stat -c %a "$tmp/out/export.out") == 640 ]] && only export.out
result $? "export -o OUT: exit $rc, OUT the whole JSON, mode $(stat -c %a "$tmp/out/export.out") kept, nothing else left"
"$fxtrace" report --html="$tmp/out/page.html" "$tmp/t.fxt" >/dev/null 2>"$tmp/err"
rc=$?
[[ $rc == 0 && $(stat -c %a "$tmp/out/page.html") == 600 ]] &&
	grep -q '</html>' "$tmp/out/page.html" && only export.out page.html
result $? "report --html=NEW: exit $rc, the page written whole, mode 0600"

# A FIFO is written directly, not replaced.
mkfifo "$tmp/out/pipe"
cat "$tmp/out/pipe" >"$tmp/piped" &
"$fxtrace" export -o "$tmp/out/pipe" "$tmp/t.fxt" 2>"$tmp/err"
rc=$?
wait
[[ $rc == 0 && -p $tmp/out/pipe ]] && cmp -s "$tmp/piped" "$tmp/out/export.out"
result $? "export -o FIFO: exit $rc, the JSON through the FIFO, which stays"

# A file the caller may write in a directory it may not add to: written
# in place, as before (no new file can be made next to it).
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	printf '%s\n' "$old" >"$tmp/out/export.out"
	chown 65534:65534 "$tmp/out/export.out"
	chmod 0755 "$tmp" "$tmp/out"
	chmod 0644 "$tmp/t.fxt"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$fxtrace" export -o "$tmp/out/export.out" "$tmp/t.fxt" 2>"$tmp/err"
	rc=$?
	sed 's/^/# /' "$tmp/err"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out/export.out" &&
		[[ $rc == 0 ]] && only export.out
	result $? "export -o OUT, OUT's directory not ours: exit $rc, OUT written in place"

	# OUT 0640 in group 0, which uid 65534 is not in: the new OUT cannot
	# keep that group, so it does not keep the group's read either (it
	# used to be 0640 in 65534's own group).
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	chown 65534:65534 "$tmp/out"
	printf '%s\n' "$old" >"$tmp/out/export.out"
	chown 65534:0 "$tmp/out/export.out"
	chmod 0640 "$tmp/out/export.out"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$fxtrace" export -o "$tmp/out/export.out" "$tmp/t.fxt" 2>"$tmp/err"
	rc=$?
	sed 's/^/# /' "$tmp/err"
	got=$(stat -c '%u:%g %a' "$tmp/out/export.out")
	[[ $rc == 0 && $got == "65534:65534 600" ]] && only export.out
	result $? "export -o OUT of a group not the caller's: exit $rc, the new OUT $got, expected 65534:65534 600"
else
	echo "ok $((n += 1)) # SKIP no setpriv, or not root: cannot run as another user"
	echo "ok $((n += 1)) # SKIP no setpriv, or not root: cannot run as another user"
fi

# recover -o OUT replaces OUT the same way: a write that fails (a file
# size limit, EFBIG; as root also a full tmpfs, ENOSPC) leaves OUT as it
# was, says so, and leaves nothing else.  It used to truncate OUT first.
# The input mimics a drainer's file: a flush mark at 0x2038, 64 bytes
# after it; what recover copies, 8 KiB more than a page, does not fit in
# the page the truncated OUT would give back.
printf '\x10\x00\x04\x46\x78\x54\x16\x00\x62\x00\xff\x7f\x22\x00\x00\x00%s\0\0\0\0\0\0' \
	'fxtrace:flushed 0x0000000000002038' >"$tmp/marked.fxt"
head -c $((0x2000 + 64)) /dev/zero | tr '\0' x >>"$tmp/marked.fxt"
# recover_fails HOW ERRNO FILES...: recover -o $dir/out/old.out fails with
# ERRNO; the directory then holds FILES.  stdout and stderr through pipes,
# which the file size limit does not apply to.
recover_fails() {
	local how=$1 err=$2 rc out msg
	shift 2
	msg=$( (
		[[ $how == EFBIG ]] && trap '' XFSZ && ulimit -f 0
		"$fxtrace" recover -o "$dir/out/old.out" "$tmp/marked.fxt" | cat >"$tmp/cmd.out"
		exit "${PIPESTATUS[0]}"
	) 2>&1)
	rc=$?
	printf '%s\n' "$msg" | sed 's/^/# /'
	out=$(cat "$tmp/cmd.out")
	[[ $rc == 1 && -z $out && $(cat "$dir/out/old.out") == "$old" &&
		$msg == "fxtrace recover: $dir/out/old.out: $err (the file is left as it was)" ]] &&
		only "$@"
	result $? "recover -o OUT, the write failing ($how): exit $rc, OUT unchanged and said so, nothing else left"
}
rm -rf "$tmp/out" && mkdir "$tmp/out"
printf '%s\n' "$old" >"$tmp/out/old.out"
recover_fails EFBIG "File too large" old.out
if ((EUID == 0)) && mkdir "$tmp/full" && mount -t tmpfs -o size=64k fxtrace-full "$tmp/full" 2>/dev/null; then
	dir=$tmp/full
	mkdir "$dir/out"
	printf '%s\n' "$old" >"$dir/out/old.out"
	dd if=/dev/zero of="$dir/out/fill" bs=4k 2>/dev/null
	recover_fails ENOSPC "No space left on device" fill old.out
	umount "$tmp/full"
	dir=$tmp
fi

echo "1..$n"
exit $failed
