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
# file's inheritable capabilities name in it.  With no terminal among its
# fds 0-2 the command keeps them; run from a terminal (pty_harness.py, root's
# terminal), the held command's fds 0-2 that were that terminal are a pty of
# its own (sudo's use_pty), what it and the drainer print shows on root's
# terminal, and the terminal's settings are back as they were after the
# drainer (the whole of it, with a session, is pty_test.sh in the guest).
# Skips without root, `unshare -m` or setpriv.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1
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
	-- /bin/true </dev/null >"$out/drain.out" 2>"$out/drain.err" &
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
[[ -n $child ]] && cp "/proc/$child/status" "$out/child.status" &&
	links=$(readlink "/proc/$child/fd/0" "/proc/$child/fd/1" "/proc/$child/fd/2" | paste -sd ' ')
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
[[ $links == "/dev/null $out/drain.out $out/drain.err" ]]
result $? "no terminal among the drainer's fds: the command keeps them ($links)"

# held NAME HARNESS-OPTIONS...: the drainer -u nobody on a terminal of
# pty_harness.py's, its files in $out/NAME; the links of the held command's
# fds 0-2 in $links, of its other fds in $others.  With $extra_fds set, the
# drainer is started with root's terminal on fds 3 (as /dev/tty) and 4 (by
# its name) too, not close-on-exec.
extra_fds=
held() {
	local dir=$out/$1 child=
	shift
	mkdir "$dir" "$dir/pts" && mkfifo -m 600 "$dir/hold.fifo"
	# The stand-in /dev keeps /dev/pts (and ptmx) for the command's pty.
	# shellcheck disable=SC2016 # the inner bash expands them
	python3 "$here/pty_harness.py" "$dir" "$@" -- \
		unshare -m bash -c '[[ -z $3 ]] || exec 3<>/dev/tty 4<>"$(tty)"
		mount --bind /dev/pts "$2" &&
		mount -t tmpfs none /dev && mkdir /dev/pts &&
		mount --move "$2" /dev/pts && ln -s pts/ptmx /dev/ptmx &&
		touch /dev/fxtrace && mount --bind "$1" /dev/fxtrace &&
		shift 3 && exec "$@"' \
		_ "$out/fakedev" "$dir/pts" "$extra_fds" "$bin/fxtrace-drain" -q -u nobody \
		-o "$dir/hold.fifo" -- /bin/true &
	local harness=$!
	# As nobody, it has its fds (pty_attach() comes before setuid()).
	for _ in $(seq 100); do
		child=$(pgrep -u 65534 -f "^$bin/fxtrace-drain .*-o $dir/hold.fifo")
		[[ -n $child ]] && break
		sleep 0.1
	done
	links=
	[[ -n $child ]] && links=$(readlink "/proc/$child/fd/0" "/proc/$child/fd/1" \
		"/proc/$child/fd/2" | paste -sd ' ')
	others=
	[[ -n $child ]] && others=$(find "/proc/$child/fd" -mindepth 1 \
		! -name 0 ! -name 1 ! -name 2 -printf '%l\n' 2>/dev/null | paste -sd ' ')
	timeout 10 cat "$dir/hold.fifo" >/dev/null
	wait "$harness"
	echo "# $(basename "$dir"): terminal $(cat "$dir/tty"), the held command's fds: $links; others: $others"
	tr -d '\r' <"$dir/screen" | awk '{ print "#   screen: " $0 }'
}

if ! command -v python3 >/dev/null; then
	echo "# no python3: the terminal checks are skipped"
	echo "1..$n"
	exit $failed
fi
held tty
tty=$(cat "$out/tty/tty")
read -r a b c <<<"$links"
[[ $a =~ ^/dev/pts/[0-9]+$ && $a != "$tty" && $b == "$a" && $c == "$a" ]]
result $? "from a terminal: the command's fds 0-2 are a pty of its own ($links), not root's terminal ($tty)"
grep -q "nobody: /dev/fxtrace: .*not recorded" "$out/tty/screen"
result $? "from a terminal: what the held command prints (its warning) shows on root's terminal"
grep -q "cannot initialize a session" "$out/tty/screen"
result $? "from a terminal: so does what the drainer prints"
[[ $(cat "$out/tty/termios") == same ]]
result $? "from a terminal: root's terminal settings are back as they were"
sed 's/^/# /' "$out/tty/termios"

# Root's terminal on other fds of the drainer (a shell's exec 3<>/dev/tty,
# a launcher's leak): the command does not get it there either.
extra_fds=1 held fds
tty=$(cat "$out/fds/tty")
read -r a b c <<<"$links"
[[ $a =~ ^/dev/pts/[0-9]+$ && $a != "$tty" && $b == "$a" ]] &&
	! grep -qw -e "$tty" -e /dev/tty <<<"$others"
result $? "root's terminal on fds 3 and 4 of the drainer: no fd of the command is root's terminal ($links; $others)"
[[ $(cat "$out/fds/termios") == same ]]
result $? "root's terminal on fds 3 and 4: its settings are back as they were"

held null --stdin-null
tty=$(cat "$out/null/tty")
read -r a b c <<<"$links"
[[ $a == /dev/null && $b =~ ^/dev/pts/[0-9]+$ && $b != "$tty" && $c == "$b" ]]
result $? "stdin from /dev/null: it keeps it, its stdout and stderr are a pty of its own ($links)"
[[ $(cat "$out/null/termios") == same ]]
result $? "stdin from /dev/null: root's terminal settings unchanged"

# No pty to be had (a /dev without ptmx): no command, and why.
mkdir "$out/nopty"
# shellcheck disable=SC2016 # the inner bash expands them
python3 "$here/pty_harness.py" "$out/nopty" -- \
	unshare -m bash -c 'mount -t tmpfs none /dev && touch /dev/fxtrace &&
	mount --bind "$1" /dev/fxtrace && shift && exec "$@"' \
	_ "$out/fakedev" "$bin/fxtrace-drain" -q -u nobody -o "$out/nopty/t.fxt" \
	-- /bin/sh -c 'touch "$0"' "$out/nopty/ran"
tr -d '\r' <"$out/nopty/screen" | awk '{ print "#   screen: " $0 }'
[[ $(cat "$out/nopty/rc") == 1 && ! -e $out/nopty/ran ]] &&
	grep -q "fxtrace-drain: -u nobody: cannot open a pseudo-terminal: " "$out/nopty/screen"
result $? "no pseudo-terminal to be had: exit 1 saying so, before the command"

echo "1..$n"
exit $failed
