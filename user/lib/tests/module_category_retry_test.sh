#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a category that libfxtrace could not
# register because the open slots were full (ENOSPC: only the reserved
# slots were left, Documentation/uapi.rst) is registered again when a
# session owned by the process's user starts, and the process's later
# events of it are in the trace, exactly once each: from the call site
# resolved before the retry, from one resolved after it, and from a
# second thread; TRACE_ENABLED of it is false before, and in a session
# of another user (the retry's ENOSPC: the reserve is not the daemon's
# user's), true after, and false again in a later session that does not
# enable it.  One user fills the open slots (the module reloaded with
# category_slots_per_user=4096 for that), then category_retry daemon runs
# as another user, and that user runs `fxtrace record -c late`.  Then,
# with 1,000 slots a user, the daemon's user takes its last slots in the
# session before the daemon's retry: the retry's EDQUOT is final and
# said once, and TRACE_ENABLED is false in that session.  The sessions
# are `record -a`: the daemon is no descendant of record's command, which
# a pid filter would leave untraced.  Reloads the
# module at the end with its parameters as they were.  In the guest as
# root with $FXTRACE_KO.  Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$root/build/bin
prog=$root/build/test/lib/category_retry
out=${FXTRACE_OUT:-$(mktemp -d)}
filler=60000
user=60100
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

if [[ $(id -u) != 0 || -z ${FXTRACE_KO:-} ]] || ! command -v setpriv >/dev/null; then
	echo "1..0 # SKIP needs root, setpriv and \$FXTRACE_KO (the module is reloaded)"
	exit 77
fi
as() {	# as UID CMD...: run CMD as UID, no groups
	local uid=$1
	shift
	setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
}

# The parameters as loaded, category_slots_per_user included (a later
# parameter of insmod's overrides an earlier one of the same name).
params=()
for p in /sys/module/fxtrace/parameters/*; do
	[[ -r $p ]] && params+=("$(basename "$p")=$(<"$p")")
done
reload() {
	rmmod fxtrace && insmod "$FXTRACE_KO" "${params[@]}" "$@"
}
reload category_slots_per_user=4096
result $? "the module reloaded with category_slots_per_user=4096"
# Filling the slots of the module as loaded would refuse every later
# test's categories.
if ((failed)); then
	[[ -d /sys/module/fxtrace ]] || insmod "$FXTRACE_KO" "${params[@]}"
	echo "1..$n"
	exit 1
fi
chmod 777 "$out"

# The open slots: 3,072 of 4,096, less those the module took itself.
as "$filler" "$prog" fill fill >"$out/fill.out"
read -r count err <"$out/fill.out"
echo "# $filler registered $count names, then $err"
[[ $err == ENOSPC && $count -gt 3000 ]]
result $? "one user fills the open slots: ENOSPC after them"

# A FIFO on a local file system (OUT may be a share that refuses one).
fifos=$(mktemp -d)
chmod 755 "$fifos"

# start_daemon TAG: category_retry daemon as $user (its category "late"
# refused), output in $out/TAG.out and TAG.err, released through a FIFO.
# Not through as(): $! must be the daemon itself (setpriv execs it), for
# the kill in wait_daemon.
start_daemon() {
	fifo=$fifos/$1
	mkfifo -m 666 "$fifo"
	# Read-write: opening a FIFO only to read waits for a writer.
	setpriv --reuid="$user" --regid="$user" --clear-groups \
		"$prog" daemon <>"$fifo" >"$out/$1.out" 2>"$out/$1.err" &
	daemon=$!
	for _ in $(seq 100); do
		grep -q enabled_before "$out/$1.out" && break
		sleep 0.1
	done
	sed 's/^/# daemon: /' "$out/$1.err"
}

# record_session TAG [CMD...]: a session owned by the daemon's user,
# `fxtrace record -c late` into $out/TAG.fxt, whose command runs CMD,
# releases the daemon and waits (up to 30 s) for its last line.
record_session() {
	local tag=$1
	shift
	# shellcheck disable=SC2016 # sh expands them
	as "$user" --inh-caps=+perfmon --ambient-caps=+perfmon \
		"$bin/fxtrace" record -q -a -c late -e none -B 64K -o "$out/$tag.fxt" -- \
		sh -c 'fifo=$1 last=$2; shift 2; "$@"; echo go >"$fifo"
			for i in $(seq 300); do
				grep -q enabled_after "$last" && break; sleep 0.1
			done' _ "$fifo" "$out/$tag.out" "$@" \
		>"$out/$tag-record.out" 2>"$out/$tag-record.err"
	result $? "fxtrace record as the daemon's user: exit 0"
	sed 's/^/# record: /' "$out/$tag-record.err"
}

# A record that failed never released the daemon: killed after 30 s, it
# fails here, and its device file is closed for the reload.  "end" through
# a writer that gives up: a dead daemon's FIFO has no reader.
wait_daemon() {
	# shellcheck disable=SC2016 # sh expands it
	timeout 5 sh -c 'echo end >"$1"' _ "$fifo"
	for _ in $(seq 300); do
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.1
	done
	kill "$daemon" 2>/dev/null
	wait "$daemon"
	result $? "the daemon: exit 0"
	sed 's/^/# daemon: /' "$out/$1.out"
}

start_daemon retry
grep -qx 'libfxtrace: category "late": No space left on device; not traced, retried when a session starts' \
	"$out/retry.err"
result $? "the refusal's warning says it will be retried"
# A session of the user who filled the open slots opens the reserve to
# that user only: the daemon's retry is refused again (ENOSPC, silent).
# shellcheck disable=SC2016 # sh expands them
as "$filler" --inh-caps=+perfmon --ambient-caps=+perfmon \
	"$bin/fxtrace" record -q -a -c late -e none -B 64K -o "$out/other.fxt" -- \
	sh -c 'echo check >"$1"
		for i in $(seq 300); do
			grep -q check_calls_during "$2" && break; sleep 0.1
		done' _ "$fifo" "$out/retry.out" \
	>"$out/other-record.out" 2>"$out/other-record.err"
result $? "fxtrace record as the user who filled the slots: exit 0"
sed 's/^/# record: /' "$out/other-record.err"
grep -qx 'trace_enabled_during 0' "$out/retry.out" &&
	grep -qx 'check_calls_during 1' "$out/retry.out"
result $? "TRACE_ENABLED(\"late\"): 0 in another user's session, still asking the library"
record_session retry
# Admitted, the category has its own byte: in a session of the daemon's
# user that does not enable it, TRACE_ENABLED is false although the
# session's state byte is set.
# shellcheck disable=SC2016 # sh expands them
as "$user" --inh-caps=+perfmon --ambient-caps=+perfmon \
	"$bin/fxtrace" record -q -a -c other -e none -B 64K -o "$out/other-late.fxt" -- \
	sh -c 'echo check >"$1"
		for i in $(seq 300); do
			grep -q trace_enabled_later "$2" && break; sleep 0.1
		done' _ "$fifo" "$out/retry.out" \
	>"$out/other-late-record.out" 2>"$out/other-late-record.err"
result $? "fxtrace record -c other as the daemon's user: exit 0"
sed 's/^/# record: /' "$out/other-late-record.err"
grep -qx 'trace_enabled_later 0' "$out/retry.out"
result $? "TRACE_ENABLED(\"late\"): 0 after the retry in a session without \"late\""
wait_daemon retry
grep -qx 'enabled_before 0' "$out/retry.out" && grep -qx 'enabled_after 1' "$out/retry.out"
result $? "fxt_category_enabled(\"late\"): 0 when refused, 1 after the retry"
grep -qx 'trace_enabled_before 0' "$out/retry.out" &&
	grep -qx 'trace_enabled_after 1' "$out/retry.out"
result $? "TRACE_ENABLED(\"late\"): 0 when refused, 1 after the retry"
# While refused, a check asks the library; once in, it is one load again.
grep -qx 'check_calls_before 1' "$out/retry.out" &&
	grep -qx 'check_calls_after 0' "$out/retry.out"
result $? "a check of \"late\" calls the library while refused, not after the retry"

"$bin/fxtrace" dump "$out/retry.fxt" | grep -o "instant  *late:[ab] .*" |
	sed 's/  */ /g' | sort >"$out/late.txt"
sed 's/^/# /' "$out/late.txt"
want='instant late:a scope="thread" k=1
instant late:a scope="thread" k=11
instant late:a scope="thread" k=12
instant late:a scope="thread" k=13
instant late:a scope="thread" k=2
instant late:a scope="thread" k=3
instant late:b scope="thread" k=1
instant late:b scope="thread" k=2
instant late:b scope="thread" k=3'
[[ $(<"$out/late.txt") == "$want" ]]
result $? "each event after the session started is in the trace once, none before"

# A retry refused for another reason than ENOSPC is final and said, as a
# first refusal is: with 1,000 slots a user, four users fill the open
# slots, and the daemon's user takes its last slots in the session just
# before the daemon's retry, which gets EDQUOT.
reload category_slots_per_user=1000
result $? "the module reloaded with category_slots_per_user=1000"
for uid in 60010 60011 60012 60013; do
	as "$uid" "$prog" fill "fill$uid" >"$out/fill$uid.out"
	read -r count err <"$out/fill$uid.out"
	echo "# $uid registered $count names, then $err"
done
[[ $err == ENOSPC ]]
result $? "four users fill the open slots: ENOSPC after them"
start_daemon quota
record_session quota "$prog" fill quota
grep -qx '1000 EDQUOT' "$out/quota-record.out"
result $? "the daemon's user takes its 1,000 slots in the session: EDQUOT after them"
wait_daemon quota
[[ $(<"$out/quota.err") == 'libfxtrace: category "late": No space left on device; not traced, retried when a session starts
libfxtrace: category "late": Disk quota exceeded; not traced' ]]
result $? "the retry refused with EDQUOT: said once, not retried"
grep -qx 'enabled_before 0' "$out/quota.out" && grep -qx 'enabled_after 0' "$out/quota.out"
result $? "fxt_category_enabled(\"late\"): 0, and 0 after the refused retry"
# The session exists, but the category is not in it: the session's state
# byte must not answer for it.
grep -qx 'trace_enabled_before 0' "$out/quota.out" &&
	grep -qx 'trace_enabled_after 0' "$out/quota.out" &&
	grep -qx 'check_calls_after 0' "$out/quota.out"
result $? "TRACE_ENABLED(\"late\"): 0, and 0 in the session after the refused retry, one load"
"$bin/fxtrace" dump "$out/quota.fxt" >"$out/quota.dump" &&
	! grep -q "late:" "$out/quota.dump"
result $? "the trace reads back, without any event of \"late\""

rm -r "$fifos"
reload
result $? "the module reloaded as it was"

echo "1..$n"
exit $failed
