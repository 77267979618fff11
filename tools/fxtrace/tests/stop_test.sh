#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace stop -o FILE` saves an orphaned session's buffers
# before it ends the session; when FILE cannot be written (a directory
# that does not exist, a device that is full, a planted symbolic link),
# it used to end the session all the same, and the buffers the user asked
# to save were gone.  Now the session is left orphaned, with a message that says so, and a
# second `fxtrace stop -o FILE` saves them.  The orphan is made as
# user/drain/tests/record_test.sh makes it: the drainer of a `fxtrace
# record` killed mid-run.  FILE may not be a trace fxtrace-drain wrote:
# `fxtrace stop -o orphan.fxt`, the killed drainer's own file, used to
# truncate it, and what `fxtrace recover` would have kept of it was gone;
# nor a libfxtrace spool, which recover saves.  A FILE that exists is
# replaced only once written whole: a write that fails (EFBIG here) used
# to leave it truncated.  It is synced before its rename and its
# directory after (it used to be neither: a crash could leave it empty).
# Runs as root in the guest with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../user/drain/tests/tap.sh" || exit 1

"$bin/fxtrace" record -B 64K -o "$out/orphan.fxt" -- "$progs/producer" 2 250000 50 \
	>/dev/null 2>"$out/orphan.stderr" &
rec=$!
sleep 2
drain=$(pgrep -P $rec)
producer=$(pgrep -P "$drain")
kill -KILL "$drain"
wait $rec
while kill -0 "$producer" 2>/dev/null; do sleep 0.1; done

# stop_refused WHAT OUT REASON: stop -o OUT fails with REASON, leaves the
# session orphaned, and writes nothing through OUT.
stop_refused() {
	local what=$1 target=$2 reason=$3 rc
	"$bin/fxtrace" stop -o "$target" >"$out/stop.out" 2>&1
	rc=$?
	sed 's/^/# /' "$out/stop.out"
	((rc == 1)) && grep -q "$reason" "$out/stop.out" &&
		grep -qxF "fxtrace stop: the session is left orphaned, its buffers unsaved: 'fxtrace stop -o FILE' saves them, 'fxtrace stop' discards them" "$out/stop.out" &&
		! grep -q "is ended" "$out/stop.out"
	result $? "stop -o $what: refused (exit $rc), the session not ended"
}

stop_refused "NODIR/FILE" "$out/nodir/saved.fxt" "No such file or directory"
# Created, then every write fails: the buffers were read, and are kept.
stop_refused "/dev/full" /dev/full "/dev/full: No space left on device"
printf 'scratch\n' >"$out/scratch"
ln -sf "$out/scratch" "$out/link.fxt"
stop_refused "SYMLINK" "$out/link.fxt" "symbolic link"
[[ $(cat "$out/scratch") == scratch ]]
result $? "stop -o SYMLINK: its target unchanged"

# The killed drainer's own file, and a finished trace (a flush mark at its
# end), are left as they were.
cp "$out/orphan.fxt" "$out/orphan.copy"
stop_refused "the orphan's trace" "$out/orphan.fxt" \
	"orphan.fxt is a trace fxtrace-drain wrote, maybe a killed drainer's: it is not overwritten ('fxtrace recover .*orphan.fxt' keeps what the drainer flushed to it; give -o another FILE)"
cmp -s "$out/orphan.fxt" "$out/orphan.copy"
result $? "stop -o the orphan's trace: the file unchanged ($(stat -c %s "$out/orphan.fxt") bytes)"
"$bin/fxtrace" recover -o "$out/recovered.fxt" "$out/orphan.fxt" >"$out/recover.out" 2>&1
result $? "recover -o OUT the orphan's trace: $(cat "$out/recover.out")"
stop_refused "a recovered trace" "$out/recovered.fxt" "recovered.fxt is a trace fxtrace-drain wrote"
# A libfxtrace spool (its buffer header's magic "FXB1" first; the rest
# need not be one here): what recover would save of it is kept.
printf 'FXB1, a spool a killed process left\n' >"$out/app.spool"
cp "$out/app.spool" "$out/app.copy"
stop_refused "a spool" "$out/app.spool" \
	"app.spool is a libfxtrace spool: it is not overwritten ('fxtrace recover .*app.spool' saves its records; give -o another FILE)"
cmp -s "$out/app.spool" "$out/app.copy"
result $? "stop -o a spool: the file unchanged"

# A write that fails (a file size limit: EFBIG) leaves FILE as it was,
# byte for byte, or no file where there was none, says so, and leaves no
# other file: FILE is replaced only once written whole.  It used to be
# truncated first and left cut at the limit.  Output through a pipe, which
# the limit does not apply to.
# stop_efbig FILE: stop -o $out/keep/FILE under a 1 KiB file size limit
# fails (exit 1) without ending the session; its output in $msg.
stop_efbig() {
	local rc
	msg=$( (trap '' XFSZ && ulimit -f 1 && "$bin/fxtrace" stop -o "$out/keep/$1") 2>&1)
	rc=$?
	printf '%s\n' "$msg" | sed 's/^/# /'
	[[ $rc == 1 && ! $msg =~ "is ended" ]]
}
mkdir "$out/keep"
seq 1 2000 >"$out/keep/saved.fxt"
cp "$out/keep/saved.fxt" "$out/saved.copy"
stop_efbig saved.fxt &&
	[[ $msg == "fxtrace stop: $out/keep/saved.fxt: File too large (the file is left as it was)
fxtrace stop: the session is left orphaned, its buffers unsaved: 'fxtrace stop -o FILE' saves them, 'fxtrace stop' discards them" ]] &&
	cmp "$out/keep/saved.fxt" "$out/saved.copy" && [[ $(ls -A "$out/keep") == saved.fxt ]]
result $? "stop -o FILE, a write failing (EFBIG): exit 1, FILE unchanged and said so, nothing else left, the session not ended"
stop_efbig new.fxt &&
	[[ $msg == "fxtrace stop: $out/keep/new.fxt: File too large (no file is made)
fxtrace stop: the session is left orphaned, its buffers unsaved: 'fxtrace stop -o FILE' saves them, 'fxtrace stop' discards them" ]] &&
	[[ $(ls -A "$out/keep") == saved.fxt ]]
result $? "stop -o NEW, a write failing (EFBIG): exit 1, no file made and said so, the session not ended"

# FILE's fsync() failing (EIO, from sync_log.so): the buffers were read
# but may not be on the disk, so the session is not ended, FILE is left
# as it was and the new file removed.  It used to be renamed unsynced and
# the session ended: a crash could then leave FILE empty.
sync_log=$root/build/test/fxtrace/sync_log.so
msg=$(FXTRACE_SYNC_FAIL="file EIO" LD_PRELOAD=$sync_log "$bin/fxtrace" stop -o "$out/keep/saved.fxt" 2>&1)
rc=$?
printf '%s\n' "$msg" | sed 's/^/# /'
[[ $rc == 1 && $msg == "fxtrace stop: cannot write $out/keep/saved.fxt: Input/output error (the file is left as it was)
fxtrace stop: the session is left orphaned, its buffers unsaved: 'fxtrace stop -o FILE' saves them, 'fxtrace stop' discards them" ]] &&
	cmp "$out/keep/saved.fxt" "$out/saved.copy" && [[ $(ls -A "$out/keep") == saved.fxt ]]
result $? "stop -o FILE, its fsync failing (EIO): exit $rc, FILE unchanged and said so, nothing else left, the session not ended"

# The directory's fsync() failing (EIO) after the rename: FILE holds the
# buffers, and the session is left for another try, said as it is.  The
# message used to say the buffers were unsaved.
msg=$(FXTRACE_SYNC_FAIL="dir EIO" LD_PRELOAD=$sync_log "$bin/fxtrace" stop -o "$out/keep/dir.fxt" 2>&1)
rc=$?
printf '%s\n' "$msg" | sed 's/^/# /'
[[ $rc == 1 && $msg == "fxtrace stop: cannot sync the directory of $out/keep/dir.fxt: Input/output error (the file is written whole, but a crash may undo its replacement)
fxtrace stop: the session is left orphaned: $out/keep/dir.fxt holds its buffers, but a crash may undo that: 'fxtrace stop -o FILE' saves them again, 'fxtrace stop' ends it" ]] &&
	"$bin/fxtrace" check --quiet "$out/keep/dir.fxt" >/dev/null
result $? "stop -o FILE, its directory's fsync failing (EIO): exit $rc, FILE whole, the session not ended, said so"
rm -f "$out/keep/dir.fxt"

# The buffers are still there to save, and then the session ends.  FILE
# exists, but is no drainer's trace: it is overwritten, synced whole
# before its rename and its directory after (sync_log.so's log).
mkdir "$out/synced"
printf 'notes, no trace\n' >"$out/synced/saved.fxt"
FXTRACE_SYNC_LOG=$out/sync.log LD_PRELOAD=$sync_log \
	"$bin/fxtrace" stop -o "$out/synced/saved.fxt" >"$out/stop.out" 2>&1
rc=$?
sed 's/^/# /' "$out/stop.out"
((rc == 0)) && grep -q '^\[ fxtrace stop: [1-9][0-9]* buffers written to ' "$out/stop.out" &&
	grep -q '^\[ fxtrace stop: the orphaned session (uid 0, [0-9]* buffers) is ended \]$' "$out/stop.out"
result $? "stop -o FILE after the refusals: the buffers saved, the session ended (exit $rc)"
want="fsync file $(stat -c '%i %s' "$out/synced/saved.fxt")
rename $(stat -c %i "$out/synced/saved.fxt")
fsync dir $(stat -c %i "$out/synced")"
log=$(cat "$out/sync.log" 2>/dev/null)
printf '# sync log:\n%s\n# expected:\n%s\n' "$log" "$want" | sed 's/^\([^#]\)/#   \1/'
[[ $log == "$want" ]]
result $? "stop -o FILE: synced whole, renamed, its directory synced, in that order"
check_strict "$out/synced/saved.fxt" saved
"$bin/fxtrace" stop >"$out/stop.out" 2>&1
[[ $? == 0 && $(cat "$out/stop.out") == "[ fxtrace stop: no session ]" ]]
result $? "stop: nothing left to stop"

echo "1..$n"
exit $failed
