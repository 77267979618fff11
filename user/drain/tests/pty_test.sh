#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace record -u nobody` run from a terminal gives the
# command a pseudo-terminal of its own (sudo's use_pty), so that a process
# it leaves behind cannot read what root types after record returns nor
# write to root's terminal.  pty_harness.py is root's terminal; the command
# (pty_command.py) leaves a process behind that, once record has exited,
# reports its fds 0-2, writes to fd 1 and reads fd 0 while the harness
# types a "password".  Checked: the command's fds 0-2 are one /dev/pts/N
# other than root's; what it prints shows on root's terminal and what is
# typed there reaches it; it gets the terminal's size and its changes; the
# leftover holds no fd on root's terminal, reads nothing of what is typed
# after and shows nothing there; root's terminal settings are back as they
# were; a stdin from /dev/null stays /dev/null; Ctrl-C typed reaches the
# command (exit 130); a stdin open read-only is read, a stdout open
# read-only is not written (stderr is), a stdin open write-only is not
# made raw; `record ... &` in an interactive bash relays what is typed
# after fg, and a record stopped in the foreground (kill -TSTP) makes the
# terminal raw again after fg, and a relay killed there leaves the
# drainer to restore the settings it took there, which the command's
# child does not hold; without -u the command keeps root's terminal.  In the guest with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

if ! command -v python3 >/dev/null; then
	echo "# SKIP: no python3 for the terminal harness"
	exit 77
fi
# What nobody runs and writes, wherever the tree is checked out.
userdir=$(mktemp -d /tmp/pty-test.XXXXXX)
trap 'rm -rf "$userdir"' EXIT
chmod 755 "$userdir"
cp "$here/pty_command.py" "$userdir/"

# harness NAME HARNESS-OPTIONS... -- COMMAND...: COMMAND on a new terminal
# (its files in $userdir/NAME, writable by nobody).
harness() {
	local dir=$userdir/$1
	shift
	mkdir -p "$dir" && chown nobody "$dir"
	python3 "$here/pty_harness.py" "$dir" "$@"
	echo "# $(basename "$dir"): rc $(cat "$dir/rc"), terminal $(cat "$dir/tty")"
	# awk ends the last line too: TAP lines start lines.
	tr -d '\r' <"$dir/screen" | head -n 40 | awk '{ print "#   screen: " $0 }'
	tr -d '\r' <"$dir/after" | awk '{ print "#   after:  " $0 }'
	[[ -e $dir/leftover ]] && sed 's/^/#   leftover /' "$dir/leftover"
}

# fds NAME: the "fds:" line the command printed.
fds() { tr -d '\r' <"$userdir/$1/screen" | sed -n 's/^fds: //p' | head -n 1; }

# ---- -u from a terminal: a pty of its own ------------------------------------
d=$userdir/user
harness user --type 'ready>=typed-line\r' --resize 'resize>=41x97' \
	--after 'SECRET-PASSWORD\r' --wait "$d/leftover" -- \
	"$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	python3 "$userdir/pty_command.py" "$d"
tty=$(cat "$d/tty")
[[ $(cat "$d/rc") == 3 ]]
result $? "record -u from a terminal: exit 3, the command's"
read -r a b c <<<"$(fds user)"
[[ $a =~ ^/dev/pts/[0-9]+$ && $a != "$tty" && $b == "$a" && $c == "$a" ]]
result $? "the command's fds 0-2 are a pty of its own ($a $b $c), not root's terminal ($tty)"
grep -q 'got: typed-line' "$d/screen"
result $? "what it prints shows on root's terminal, what is typed there reaches it"
grep -q 'size: 37 101' "$d/screen" && grep -q 'size2: 41 97' "$d/screen"
result $? "its terminal has root's size, and follows it (SIGWINCH)"
[[ -e $d/leftover ]]
result $? "the process it left behind reported"
# fdN: its link, one a line (a pty hung up is "/dev/pts/N (deleted)").
mapfile -t left <<<"$(sed -n 's/^fd[012]: //p' "$d/leftover" 2>/dev/null)"
[[ ${#left[@]} == 3 && ${left[0]} != "$tty" && ${left[1]} != "$tty" &&
	${left[2]} != "$tty" ]]
result $? "the leftover's fds 0-2 are not root's terminal (${left[*]})"
! grep -q SECRET "$d/leftover" 2>/dev/null && [[ -e $d/leftover ]]
result $? "the leftover reads nothing of what root types after record returns"
! grep -q LEFTOVER-WROTE "$d/after"
result $? "what the leftover writes does not show on root's terminal"
[[ $(cat "$d/during" 2>/dev/null) == raw && $(cat "$d/termios") == same ]]
result $? "root's terminal was raw while relaying, its settings are back as they were"
sed 's/^/# /' "$d/termios"

# ---- a stdin from /dev/null stays -------------------------------------------
d=$userdir/null
harness null --stdin-null -- \
	"$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	python3 "$userdir/pty_command.py" "$d"
tty=$(cat "$d/tty")
read -r a b c <<<"$(fds null)"
[[ $(cat "$d/rc") == 3 && $a == /dev/null && $b =~ ^/dev/pts/[0-9]+$ &&
	$b != "$tty" && $c == "$b" ]]
result $? "stdin from /dev/null: it keeps /dev/null, its stdout and stderr are a pty of its own ($a $b $c)"
[[ $(cat "$d/termios") == same ]]
result $? "stdin from /dev/null: root's terminal settings unchanged"

# ---- Ctrl-C reaches the command through its pty ---------------------------
d=$userdir/intr
harness intr --type 'ready>=\x03' --timeout 20 -- \
	"$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'echo "ready>"; exec sleep 30'
[[ $(cat "$d/rc") == 130 ]]
result $? "Ctrl-C typed on root's terminal ends the command (exit 130)"
[[ $(cat "$d/termios") == same ]]
result $? "after Ctrl-C: root's terminal settings are back as they were"

# ---- a command that closes its fds on the pty, then opens /dev/tty ---------
# record's output in a file, its stdin the terminal: the command's fd 0 is
# its only fd on the pty; once it is closed the master was hung up (EIO)
# and the relay stopped: a prompt on /dev/tty never showed, the answer and
# Ctrl-C typed went nowhere.
d=$userdir/closed
# shellcheck disable=SC2016 # expanded by the inner shells
harness closed --type 'prompt>=answer\r' --type 'got answer=\x03' --timeout 30 -- \
	bash -c 'exec "$@" >"$0" 2>&1' "$userdir/closed.out" \
	"$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'exec </dev/null >/dev/null 2>&1; sleep 1; echo "prompt>" >/dev/tty
	read -r x </dev/tty; echo "got $x" >/dev/tty; exec sleep 30'
sed 's/^/#   record: /' "$userdir/closed.out"
grep -q 'got answer' "$d/screen"
result $? "fds on the pty closed: a prompt on /dev/tty shows, the answer typed reaches it"
[[ $(cat "$d/rc") == 130 && $(cat "$d/termios") == same ]]
result $? "fds on the pty closed: Ctrl-C still ends the command (exit 130), settings back"

# ---- root's terminal non-blocking, a lot of output --------------------------
# O_NONBLOCK on root's terminal (a program before left it set; the shell
# shares it): the relay's write to a full terminal failed with EAGAIN and
# the rest of the command's output was dropped.
d=$userdir/nonblock
harness nonblock --timeout 60 -- \
	python3 -c 'import fcntl, os, sys
fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[1], sys.argv[1:])' \
	"$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'seq 200000; echo END-OF-OUTPUT'
lines=$(tr -d '\r' <"$d/screen" | grep -c '^[0-9][0-9]*$')
grep -q END-OF-OUTPUT "$d/screen" && ((lines == 200000))
result $? "root's terminal non-blocking: all of a large output shows ($lines of 200000 lines)"

# ---- the drainer stopped by SIGTERM, or killed -------------------------------
for sig in TERM KILL; do
	d=$userdir/sig$sig
	harness "sig$sig" --signal "ready>=$sig" --timeout 20 -- \
		"$bin/fxtrace-drain" -q -u nobody -o "$out/pty.fxt" -- \
		sh -c 'echo "ready>"; exec sleep 30'
	[[ $(cat "$d/rc") != 137 || $sig == KILL ]] && [[ $(cat "$d/termios") == same ]]
	result $? "SIG$sig to the drainer: root's terminal settings are back as they were"
done
# The killed drainer's session.
"$bin/fxtrace" stop >/dev/null 2>&1

# ---- the drainer's progress line and summary on the same terminal ---------
d=$userdir/progress
harness progress -- "$bin/fxtrace" record -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'sleep 2.5; echo "done"'
python3 - "$d/screen" <<'PY'
import sys
s = open(sys.argv[1], 'rb').read()
# Raw mode keeps output processing: every newline still returns the carriage.
sys.exit(not (b'\r[ fxtrace-drain: ' in s and b'done' in s and
              b'fxtrace-drain: streaming session' in s and
              s.count(b'\n') == s.count(b'\r\n')))
PY
result $? "with -u, the drainer's progress line and summary show whole (every newline a CR LF)"

# ---- root's terminal open read-only or write-only ---------------------------
# reopen FD r|w COMMAND...: COMMAND with fd FD reopened read-only or
# write-only on the same terminal.
reopen='import os, sys
fd = int(sys.argv[1])
new = os.open(os.ttyname(fd), (os.O_RDONLY if sys.argv[2] == "r" else os.O_WRONLY) | os.O_NOCTTY)
os.dup2(new, fd)
os.close(new)
os.execvp(sys.argv[3], sys.argv[3:])'
# A stdin read-only (`</dev/tty`): typing is relayed.
d=$userdir/rdin
# shellcheck disable=SC2016 # expanded by the command's shell
harness rdin --type 'ready>=typed-line\r' --timeout 20 -- \
	python3 -c "$reopen" 0 r "$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'echo "ready>"; read -r x; echo "got $x"'
grep -q 'got typed-line' "$d/screen" && [[ $(cat "$d/rc") == 0 && $(cat "$d/termios") == same ]]
result $? "stdin read-only: what is typed reaches the command, exit 0, settings back"
# A stdout read-only, stderr the terminal: the output used to be written
# to fd 1 (EBADF) and dropped.
d=$userdir/rdout
harness rdout --timeout 20 -- \
	python3 -c "$reopen" 1 r "$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'echo "shown-on-terminal"'
grep -q 'shown-on-terminal' "$d/screen" && [[ $(cat "$d/rc") == 0 ]]
result $? "stdout read-only: the command's output shows through stderr, exit 0"
# A stdin write-only: nothing can read it, so it is not made raw (it was,
# and Ctrl-C typed then went nowhere); Ctrl-C interrupts record, which
# stops and passes it on to the command.  The command goes on after it
# (a sleep, ignoring the hangup of its pty), and once the trace is written
# the drainer sends it SIGTERM: record exits 143, the command's status (it
# was left running, 130).
d=$userdir/wrin
# shellcheck disable=SC2016 # expanded by the command's shell
harness wrin --type 'ready>=\x03' --timeout 20 -- \
	python3 -c "$reopen" 0 w "$bin/fxtrace" record -q -u nobody -e task -o "$out/pty.fxt" -- \
	sh -c 'echo $$ >"$0.pid"; trap "" HUP
	trap "echo interrupted >\"\$0\"; kill \$!; exec sleep 30" INT
	echo "ready>"; sleep 30 & wait' "$d/intr"
[[ $(cat "$d/during") == cooked && $(cat "$d/termios") == same ]]
result $? "stdin write-only: root's terminal is not made raw"
for _ in $(seq 30); do [[ -s $d/intr ]] && break; sleep 0.1; done
[[ $(cat "$d/rc") == 143 && $(cat "$d/intr" 2>/dev/null) == interrupted ]] &&
	grep -q 'fxtrace-drain: SIGTERM to sh (pid [0-9]* and its process group): still running 500 ms after the trace was written' "$d/screen"
result $? "stdin write-only: Ctrl-C stops record, the command gets SIGINT, then SIGTERM: its status, 143"
[[ -s $d/intr.pid ]] && kill -KILL "$(cat "$d/intr.pid")"

# ---- record started in the background of a job-control shell ----------------
# `record ... &` relays the output only; after fg what is typed reaches the
# command (it used to reach nobody: the relay decided once, at its start).
printf '#!/bin/sh\nexec "%s" record -q -u nobody -e task -o "%s" -- %s\n' \
	"$bin/fxtrace" "$out/pty.fxt" \
	"bash -c 'echo READY; read -r -t 20 x; echo \"got-\$x\"'" >"$userdir/job.sh"
chmod 755 "$userdir/job.sh"
d=$userdir/job
harness job --type "prompt> =$userdir/job.sh &\\r" --type 'READY=fg\r' \
	--type 'job.sh=hello\r' --type 'got-hello=' --type 'prompt> =exit\r' --timeout 40 -- \
	env -i PATH="$PATH" HOME=/root TERM=dumb PS1='prompt> ' \
	bash --norc --noprofile -i
grep -q 'got-hello' "$d/screen" && [[ $(cat "$d/rc") == 0 ]]
result $? "record & then fg: what is typed reaches the command"
# Stopped in the foreground (kill -TSTP, as nothing typed can: the
# terminal is raw), then fg: bash set its own settings when the job
# stopped, and the relay, reading all along, did not make the terminal raw
# again: a key typed (no Enter) waited in bash's line discipline and the
# command's one-character read timed out.
printf '#!/bin/sh\n(while [ ! -e "%s" ]; do sleep 0.1; done; kill -TSTP -$$) &\nexec "%s" record -q -u nobody -e task -o "%s" -- %s\n' \
	"$userdir/stop/ready" "$bin/fxtrace" "$out/pty.fxt" \
	"bash -c 'echo READY; : >$userdir/stop/ready; read -r -n 1 -t 5 x; echo \"got-\$x\"'" \
	>"$userdir/stop.sh"
chmod 755 "$userdir/stop.sh"
d=$userdir/stop
mkdir -p "$d" && chown nobody "$d"
harness stop --type "prompt> =$userdir/stop.sh\\r" --type 'Stopped=fg\r' \
	--type '> fg=' --type 'stop.sh=x' --type 'got-=' --type 'prompt> =exit\r' \
	--timeout 40 -- env -i PATH="$PATH" HOME=/root TERM=dumb PS1='prompt> ' \
	bash --norc --noprofile -i
grep -q 'got-x' "$d/screen" && [[ $(cat "$d/rc") == 0 && $(cat "$d/termios") == same ]]
result $? "stopped in the foreground, then fg: the terminal is raw again, a key reaches the command"

# Started in the background, the settings changed at bash's prompt (stty
# swtch ^B), then fg: the relay takes the job's settings in the foreground,
# those, and makes the terminal raw.  The relay killed there, the drainer
# restored those it had read at its start: the rest of the job (stty -a
# after record) ran with the stty undone.  Now the relay's, which it shares
# with the drainer, go back.
printf '#!/bin/sh\necho $$ >"%s"\n"%s" record -q -u nobody -e task -o "%s" -- %s\nstty -a\n' \
	"$userdir/relaykill/job.pid" "$bin/fxtrace" "$out/pty.fxt" \
	"bash -c 'echo READY; read -r -t 20 x; echo \"got-\$x\"; : >$userdir/relaykill/kill; sleep 2'" \
	>"$userdir/relaykill.sh"
chmod 755 "$userdir/relaykill.sh"
d=$userdir/relaykill
mkdir -p "$d" && chown nobody "$d"
(
	for _ in $(seq 300); do [[ -e $d/kill ]] && break; sleep 0.1; done
	# The drainer's relay, of the job's processes.
	relay=$(ps -eo pid=,ppid=,comm= | awk -v top="$(cat "$d/job.pid")" '
		{ parent[$1] = $2; comm[$1] = $3 }
		END { for (p in comm) if (comm[p] == "fxtrace-relay")
			for (q = parent[p]; q > 1; q = parent[q])
				if (q == top) print p }')
	echo "relay $relay" >"$d/killed"
	[[ -n $relay ]] && kill -KILL "$relay"
) &
killer=$!
harness relaykill --type "prompt> =$userdir/relaykill.sh &\\r" \
	--type 'READY=stty swtch ^B; fg\r' --type 'relaykill.sh=hello\r' \
	--type 'got-hello=' --type 'prompt> =exit\r' --timeout 40 -- \
	env -i PATH="$PATH" HOME=/root TERM=dumb PS1='prompt> ' \
	bash --norc --noprofile -i
wait $killer
sed 's/^/# /' "$d/killed"
killed=$(sed -n 's/^relay //p' "$d/killed")
tr -d '\r' <"$d/screen" | sed -n '/^got-hello$/,/^prompt> /p' | grep -q 'swtch = ^B;' &&
	[[ -n $killed && $(cat "$d/rc") == 0 ]]
result $? "the relay killed in the foreground: the drainer restores the settings it took there"

# The command's child, as USER until its exec, held the page the drainer
# shares with the relay (MAP_SHARED): another process of USER's could
# write there (ptrace, with fs.suid_dumpable=1) the settings root's
# terminal gets back.  exec_maps.so copies the child's map at its exec.
d=$userdir/maps
harness maps -- env LD_PRELOAD="$progs/exec_maps.so" EXEC_MAPS="$d/maps" \
	"$bin/fxtrace-drain" -q -u nobody -o "$out/pty.fxt" -- true
grep -E ' rw-s .*/dev/zero \(deleted\)$' "$d/maps" | sed 's/^/# shared: /'
[[ -s $d/maps && $(cat "$d/rc") == 0 ]] &&
	! grep -qE ' rw-s .*/dev/zero \(deleted\)$' "$d/maps"
result $? "the command's child holds no memory shared with the relay at its exec"

# ---- `stty tostop`: the drainer's messages from the background -------------
# With tostop a background job that writes to the terminal gets SIGTTOU.
# The drainer's progress line stopped it (the relay blocks SIGTTOU, so the
# command's output still showed) while the command, in a session of its
# own, ran on untraced: bash reported the job stopped, and its summary
# showed only once the harness had killed bash.  (record's own last lines,
# written once the trace is in, stop it as they would any job: the drainer
# is run directly.)
d=$userdir/tostop
# shellcheck disable=SC2016 # expanded by the harness's bash
harness tostop --type "prompt> =stty tostop; $bin/fxtrace-drain -u nobody -o $out/pty.fxt -- sh -c 'sleep 3; echo cmd-\$((40 + 2))' &\\r" \
	--type 'cmd-42=wait; echo "status $?"\r' --type 'status 0=exit\r' \
	--timeout 40 -- \
	env -i PATH="$PATH" HOME=/root TERM=dumb PS1='prompt> ' \
	bash --norc --noprofile --noediting -i
grep -q 'fxtrace-drain: streaming session' "$d/screen" &&
	! grep -q Stopped "$d/screen" && [[ $(cat "$d/rc") == 0 ]]
result $? "stty tostop, the drainer in the background: never stopped, its summary shows, bash exits 0"
# The stopped drainer's session, if it outlived the harness.
"$bin/fxtrace" stop >/dev/null 2>&1

# ---- stopped between its check of the foreground and making it raw ----------
# stop_before_raw.so stops the job just before the relay makes root's
# terminal raw; bash takes the terminal back and bg continues the job: the
# relay made the shell's terminal raw from the background (Enter was no
# newline any more and bash read no command after).
d=$userdir/stopraw
# shellcheck disable=SC2016 # expanded by the harness's bash
harness stopraw --type "prompt> =LD_PRELOAD=$progs/stop_before_raw.so $bin/fxtrace-drain -q -u nobody -o $out/pty.fxt -- sh -c 'sleep 4; echo cmd-done'\\r" \
	--type 'Stopped=bg\r' --type '&=echo "after-bg $((6 * 7))"\r' \
	--type 'after-bg 42=wait; exit\r' --timeout 40 -- \
	env -i PATH="$PATH" HOME=/root TERM=dumb PS1='prompt> ' \
	bash --norc --noprofile --noediting -i
grep -q 'after-bg 42' "$d/screen" && [[ $(cat "$d/rc") == 0 ]]
result $? "stopped before the relay makes the terminal raw, then bg: the shell's terminal stays cooked"
# The killed drainer's session, if it outlived the harness.
"$bin/fxtrace" stop >/dev/null 2>&1

# ---- without -u: root's terminal, as before ---------------------------------
d=$userdir/root
# shellcheck disable=SC2016 # expanded by the command's shell
harness root -- "$bin/fxtrace" record -q -e task -o "$out/pty.fxt" -- \
	sh -c 'echo "fds: $(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1)"'
tty=$(cat "$d/tty")
[[ $(fds root) == "$tty $tty" ]]
result $? "without -u the command keeps root's terminal ($tty)"

echo "1..$n"
exit $failed
