#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-probe writing into a FIFO whose reader has left.
# SIGPIPE used to kill fxtrace-probe (exit 141) and leave the command it
# ran going on, unwatched and untraced.  Now the write fails (EPIPE) and
# ends the run as any failed write does: the reason on stderr, the command
# sent SIGTERM and waited for, exit 1.  The command still gets SIGPIPE
# with its default action.  Runs as root in the guest.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../drain/tests/tap.sh
. "$here/../../drain/tests/tap.sh" || exit 1
target=$root/build/test/probe/target

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "ok 1 # SKIP the kernel has no BTF: no probe can load"
	echo "1..1"
	exit 0
fi

# A reader that opens the FIFO, reads nothing and leaves after a second;
# the target calls the probed function every millisecond for 100 s.
# In the guest's tmpfs: $out (9p) holds no FIFO.
fifo_dir=$(mktemp -d /tmp/probe-fifo.XXXXXX)
trap 'rm -rf "$fifo_dir"' EXIT
mkfifo "$fifo_dir/gone.fifo"
(exec 3<"$fifo_dir/gone.fifo" && sleep 1) &
start=$SECONDS
timeout 60 "$bin/fxtrace-probe" -o "$fifo_dir/gone.fifo" \
	-P "uprobe:$target:fxtprobe_target_work" -- "$target" 100000 1000 \
	>"$out/gone.stdout" 2>"$out/gone.stderr"
rc=$?
sed 's/^/# /' "$out/gone.stderr"
pid=$(awk '/^pid / { print $2 }' "$out/gone.stdout")
[[ $rc == 1 && $(cat "$out/gone.stderr") == "fxtrace-probe: $fifo_dir/gone.fifo: Broken pipe; the command is ended (SIGTERM)" ]]
result $? "the FIFO's reader gone: exit $rc after $((SECONDS - start)) s, the reason said"
[[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null
result $? "the command (pid ${pid:-?}) does not outlive fxtrace-probe"
[[ -n $pid ]] && kill "$pid" 2>/dev/null

# The command's exit seen before the writes of its last events fail
# (reaped_then_fail.so: the exit seen in the first poll, every write to
# the output failing after it): the command is not signalled again, its
# pid no longer its own, and the message does not say it was ended.
LD_PRELOAD=$root/build/test/probe/reaped_then_fail.so timeout 60 \
	"$bin/fxtrace-probe" -o "$out/reaped.fxt" \
	-P "uprobe:$target:fxtprobe_target_work" -- "$target" 100 \
	>"$out/reaped.stdout" 2>"$out/reaped.stderr"
rc=$?
sed 's/^/# /' "$out/reaped.stderr"
[[ $rc == 1 && $(cat "$out/reaped.stderr") == "fxtrace-probe: $out/reaped.fxt: Input/output error" ]]
result $? "the command reaped, then a failed write: exit $rc, no signal sent to its pid"

# The command's own SIGPIPE is the default one: `yes` into a closed pipe
# is killed by it (exit 141, passed on), not told EPIPE (exit 1).
"$bin/fxtrace-probe" -o "$out/yes.fxt" -P "uprobe:$target:fxtprobe_target_work" \
	-- yes 2>"$out/yes.stderr" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
sed 's/^/# /' "$out/yes.stderr"
((rc == 141))
result $? "the command's SIGPIPE: its default action (exit $rc)"

echo "1..$n"
exit $failed
