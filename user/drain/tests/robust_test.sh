#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-drain and `fxtrace record` when the output fails
# mid-session: a full file system (a 2 MiB tmpfs: ENOSPC), the file size
# limit (ulimit -f: EFBIG, and SIGXFSZ, which used to kill the drainer and
# leave its session orphaned), a FIFO whose reader exits (EPIPE) and
# /dev/full.  Each time the drainer exits 1 naming the file and the
# error, ends its session (the next one starts), waits for its command,
# and a regular file is left cut at its flush mark: `fxtrace check
# --strict` passes on it with no tick twice or out of order, and every
# save the drainer acknowledged is in it.  Then a FIFO read slowly: the
# stream, captured, is a whole trace that every command reads to its end
# (writes used to interleave in a full pipe, and the stream carried a
# flush mark at its start that cut it after 120 bytes).  A -u command
# that ignores SIGINT, SIGTERM and SIGHUP: the first signal is passed on
# and the drainer says so, one right after it is taken for the same, a
# SIGTERM a second later ends the wait.  In the guest with
# fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

# no_session NAME: the drainer's session is gone, not left orphaned.
no_session() {
	"$bin/fxtrace" list user >"$out/$1.list" 2>&1
	grep -q '^  session: none$' "$out/$1.list"
	result $? "$1: no session left behind"
	# Whatever is left, the next case starts clean.
	"$bin/fxtrace" stop >/dev/null 2>&1
}

# failed NAME RC ERROR: the drainer exited 1 (not killed), naming its
# output and the error.
failed() {
	local name=$1 rc=$2 error=$3 file=$4
	grep -v '^fxtrace-drain: saved buffer' "$out/$name.stderr" | sed 's/^/# /'
	((rc == 1))
	result $? "$name: exit 1 (exit $rc)"
	grep -qF "fxtrace-drain: $file: cannot write at 0x" "$out/$name.stderr" &&
		grep -q "$error" "$out/$name.stderr"
	result $? "$name: the message names $file and '$error'"
}

# whole NAME FILE: the file left is a whole trace, cut at its flush mark,
# holding every save the drainer acknowledged (-v).
whole() {
	local name=$1 file=$2 size beyond
	check_strict "$file" "$name"
	"$progs/count_ticks" "$file" >"$out/$name.count"
	result $? "$name: ticks in order, none twice"
	size=$(stat -c %s "$file")
	beyond=$(sed -n 's/^fxtrace-drain: saved buffer .* at 0x[0-9a-f]*-0x\([0-9a-f]*\),.*/\1/p' \
		"$out/$name.stderr" | while read -r end; do ((16#$end > size)) && echo "$end"; done | wc -l)
	echo "# $name: $size bytes, $(value ticks "$out/$name.count") ticks, $(grep -c '^fxtrace-drain: saved buffer' "$out/$name.stderr") saves acknowledged, $beyond beyond the end"
	((beyond == 0))
	result $? "$name: holds every save the drainer acknowledged"
}

# ---- ENOSPC: a 2 MiB tmpfs fills up mid-session ---------------------------
small=$(mktemp -d /tmp/robust-small.XXXXXX)
mount -t tmpfs -o size=2M none "$small"
result $? "enospc: a 2 MiB tmpfs"
timeout 120 "$bin/fxtrace-drain" -v -c app -B 64K -o "$small/t.fxt" -- \
	"$progs/producer" 2 200000 100 >"$out/enospc.producer" 2>"$out/enospc.stderr"
failed enospc $? 'No space left on device' "$small/t.fxt"
grep -qF "fxtrace-drain: $small/t.fxt: cut at its flush mark" "$out/enospc.stderr"
result $? "enospc: says the file was cut at its flush mark"
# The command ran to its end (it prints its drops last) before the exit.
grep -q '^fxtrace-drain: not tracing any more; waiting for .*producer (pid [0-9]*) to exit$' \
	"$out/enospc.stderr" && grep -q '^dropped [0-9]*$' "$out/enospc.producer"
result $? "enospc: the drainer waited for its command"
mv "$small/t.fxt" "$out/enospc.fxt"
whole enospc "$out/enospc.fxt"
no_session enospc
umount "$small" && rmdir "$small"

# The same through `fxtrace record`: its exit status, and the next record.
small=$(mktemp -d /tmp/robust-small.XXXXXX)
mount -t tmpfs -o size=2M none "$small"
timeout 120 "$bin/fxtrace" record -e task -c app -B 64K -o "$small/r.fxt" -- \
	"$progs/producer" 2 200000 100 >"$out/record.producer" 2>"$out/record.stderr"
failed record $? 'No space left on device' "$small/r.fxt"
mv "$small/r.fxt" "$out/record.fxt"
check_strict "$out/record.fxt" record
umount "$small" && rmdir "$small"
timeout 60 "$bin/fxtrace" record -q -e task -c app -o "$out/next.fxt" -- \
	"$progs/producer" 1 100 0 >/dev/null 2>"$out/next.stderr"
result $? "record: the next record works"

# ---- EFBIG: the file size limit (SIGXFSZ must not kill the drainer) --------
(
	ulimit -f 1024
	exec timeout 120 "$bin/fxtrace-drain" -v -c app -B 64K -o "$out/efbig.fxt" -- \
		"$progs/producer" 2 200000 100
) >"$out/efbig.producer" 2>"$out/efbig.stderr"
failed efbig $? 'File too large' "$out/efbig.fxt"
whole efbig "$out/efbig.fxt"
no_session efbig
# The command does not inherit the blocked SIGXFSZ: it dies of it.
(
	ulimit -f 1
	# shellcheck disable=SC2016 # expanded by the command's shell
	exec timeout 60 "$bin/fxtrace-drain" -q -c app -o /dev/null -- \
		/bin/sh -c 'head -c 4096 /dev/zero >"$1"' sh "$out/xfsz.out"
) 2>"$out/xfsz.stderr"
rc=$?
sed 's/^/# /' "$out/xfsz.stderr"
((rc == 128 + 25))
result $? "efbig: the command still gets SIGXFSZ (exit $rc)"
no_session xfsz

# ---- EPIPE: the reader of a FIFO exits -------------------------------------
fifo_dir=$(mktemp -d /tmp/robust-fifo.XXXXXX)
mkfifo "$fifo_dir/t.fifo"
head -c 1000 "$fifo_dir/t.fifo" >/dev/null &
timeout 120 "$bin/fxtrace-drain" -c app -B 64K -o "$fifo_dir/t.fifo" -- \
	"$progs/producer" 2 200000 100 >"$out/epipe.producer" 2>"$out/epipe.stderr"
failed epipe $? 'Broken pipe (its reader is gone)' "$fifo_dir/t.fifo"
wait
no_session epipe

# ---- A FIFO read slowly: the stream is whole, in order --------------------
# 64 KiB at a time, 20 ms apart: the pipe is full most of the time.
mkfifo "$fifo_dir/slow.fifo"
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
with open(sys.argv[2], "wb") as out:
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        out.write(b)
        time.sleep(0.02)' "$fifo_dir/slow.fifo" "$fifo_dir/slow.fxt" &
reader=$!
timeout 300 "$bin/fxtrace-drain" -c app,kernel:sched,kernel:task -B 64K -o "$fifo_dir/slow.fifo" -- \
	"$progs/producer" 4 50000 50 >"$out/slow.producer" 2>"$out/slow.stderr"
result $? "slow: fxtrace-drain exits 0"
wait $reader
grep -v 'dropped as its producer reports' "$out/slow.stderr" | sed 's/^/# /'
mv "$fifo_dir/slow.fxt" "$out/slow.fxt"
check_strict "$out/slow.fxt" slow
exact slow 4 50000
# No flush mark at its start: stats reads it all.
"$bin/fxtrace" stats "$out/slow.fxt" >"$out/slow.stats" 2>"$out/slow.stats.stderr"
result $? "slow: fxtrace stats exits 0"
sed 's/^/# /' "$out/slow.stats.stderr"
bytes=$(awk '$1 == "bytes" { print $2 }' "$out/slow.stats")
[[ ! -s $out/slow.stats.stderr && $bytes == "$(stat -c %s "$out/slow.fxt")" ]]
result $? "slow: fxtrace stats reads all of it ($bytes bytes)"
rm -r "$fifo_dir"

# ---- ENOSPC from a device: /dev/full ---------------------------------------
timeout 60 "$bin/fxtrace-drain" -c app -o /dev/full -- \
	"$progs/producer" 1 1000 0 >"$out/full.producer" 2>"$out/full.stderr"
failed full $? 'No space left on device' /dev/full
grep -q ', 0 bytes written to /dev/full$' "$out/full.stderr"
result $? "full: the summary says 0 bytes written"
no_session full

# ---- -u: a command that ignores SIGINT, SIGTERM and SIGHUP -----------------
# The first signal is passed on to the command's process group and the
# wait goes on, saying so, naming the group (it said "(pid N)" alone); a
# SIGTERM later ends the wait, leaving the command running (the wait used
# to pass every signal on and last for ever).  Two signals are two
# whatever their gap (drain_test.sh, sigkill2).
"$bin/fxtrace-drain" -q -u nobody -o /dev/full -- \
	sh -c 'trap "" INT TERM HUP; exec sleep 120' </dev/null >/dev/null 2>"$out/ignore.stderr" &
drainer=$!
for _ in $(seq 100); do
	grep -q 'waiting for sh (pid [0-9]*) to exit$' "$out/ignore.stderr" && break
	sleep 0.1
done
cmd=$(sed -n 's/.*waiting for sh (pid \([0-9]*\)) to exit$/\1/p' "$out/ignore.stderr")
kill -INT "$drainer"
for _ in $(seq 50); do
	grep -q 'passed on' "$out/ignore.stderr" && break
	sleep 0.1
done
sleep 1
kill -0 "$drainer" 2>/dev/null
result $? "ignore: the first signal does not end the wait"
grep -qx "fxtrace-drain: SIGINT passed on to sh (pid $cmd and its process group); waiting for it to exit, or for another SIGINT, SIGTERM or SIGHUP to leave it running" \
	"$out/ignore.stderr" && [[ $(grep -c 'passed on' "$out/ignore.stderr") == 1 ]]
result $? "ignore: the drainer says it passed SIGINT on to sh (pid $cmd) and its process group, and what it waits for, once"
kill -TERM "$drainer"
for _ in $(seq 50); do
	kill -0 "$drainer" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$drainer" 2>/dev/null; then
	kill -KILL "$drainer"
	rc=killed
else
	wait "$drainer"
	rc=$?
fi
sed 's/^/# /' "$out/ignore.stderr"
[[ $rc == 1 ]]
result $? "ignore: a SIGTERM a second later ends the wait, exit 1 (exit $rc)"
grep -qx "fxtrace-drain: Terminated: sh left running (pid $cmd)" "$out/ignore.stderr" &&
	[[ -n $cmd ]] && kill -0 "$cmd" 2>/dev/null
result $? "ignore: the command is left running, and the drainer says so, naming it"
[[ -n $cmd ]] && kill -KILL "$cmd" 2>/dev/null
no_session ignore

echo "1..$n"
exit $failed
