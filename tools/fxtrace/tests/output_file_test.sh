#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: trace files are created through fxtctl_create_output()
# (user/control/output_file.h): mode 0600 whatever the umask, never through
# a symbolic link or over a file with other hard links, never into a FIFO
# the caller did not name.  `fxtrace recover -o OUT SPOOL`, `fxtrace
# recover X.spool`, a libfxtrace program (FXTRACE_OUTPUT), `fxtrace export
# -o OUT` and `fxtrace report --html=OUT` are run
# against a planted symlink and hard link to a scratch file, which must be
# left as it was, with a message naming the file and the reason; fresh
# outputs must be 0600; `fxtrace recover FILE`, which cuts FILE in place,
# must not cut a symbolic link's target or a file with other hard links.  On the host, no module (`fxtrace stop -o` needs
# one; the drainer's -o is in user/drain/tests/output_reuse_test.sh).
# As root, the same commands against a file (and export -o against a
# FIFO) of uid 65534 planted at OUT, which must be refused unless that is
# the sudo user (SUDO_UID).
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/build/bin/fxtrace
prog=$top/build/test/lib/output_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
umask 022

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# A spool: the program killed after its first event keeps it.
FXTRACE_OUTPUT=$tmp/app.fxt "$prog" 60 >/dev/null &
pid=$!
for _ in $(seq 100); do
	[[ -s $tmp/app.fxt.spool ]] && break
	sleep 0.1
done
sleep 0.2
kill -KILL $pid
wait $pid 2>/dev/null
[[ -s $tmp/app.fxt.spool ]]
result $? "a killed libfxtrace program leaves its spool"
spool=$tmp/app.fxt.spool
trace=$tmp/trace.fxt
"$fxtrace" recover -o "$trace" "$spool" >/dev/null
result $? "a trace recovered from it, for export and report"

scratch=$tmp/scratch
reset_links() {
	rm -f "$tmp"/out* "$tmp"/link.fxt*
	printf 'scratch file: do not touch\n' >"$scratch"
	cp "$scratch" "$tmp/scratch.orig"
}

# refused KIND WHAT REASON COMMAND...: with OUT (and link.fxt) a KIND
# (symlink or hardlink) to the scratch file, COMMAND fails, says REASON
# and leaves the scratch file alone.
refused() {
	local kind=$1 what=$2 reason=$3 rc
	shift 3
	reset_links
	for name in "$tmp/out" "$tmp/link.fxt"; do
		if [[ $kind == symlink ]]; then ln -s "$scratch" "$name"; else ln "$scratch" "$name"; fi
	done
	cp "$spool" "$tmp/link.fxt.spool"
	"$@" >"$tmp/cmd.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/cmd.out"
	((rc != 0)) || [[ $what == libfxtrace* ]]
	result $? "$what, OUT a $kind: refused"
	grep -q "$reason" "$tmp/cmd.out"
	result $? "$what, OUT a $kind: the message says '$reason'"
	cmp -s "$scratch" "$tmp/scratch.orig"
	result $? "$what, OUT a $kind: the scratch file is unchanged"
}

for kind in symlink hardlink; do
	reason="symbolic link"
	[[ $kind == hardlink ]] && reason="other hard links"
	refused $kind "recover -o OUT SPOOL" "$reason" "$fxtrace" recover -o "$tmp/out" "$spool"
	refused $kind "recover OUT.spool" "$reason" "$fxtrace" recover "$tmp/link.fxt.spool"
	refused $kind "libfxtrace FXTRACE_OUTPUT=OUT" "$reason" \
		env FXTRACE_OUTPUT="$tmp/out" "$prog"
	refused $kind "export -o OUT" "$reason" "$fxtrace" export -o "$tmp/out" "$trace"
	refused $kind "report --html=OUT" "$reason" "$fxtrace" report --html="$tmp/out" "$trace"
done

# A FIFO planted where recover derives its output: refused, not waited on.
rm -f "$tmp/fifo.fxt"
mkfifo "$tmp/fifo.fxt"
cp "$spool" "$tmp/fifo.fxt.spool"
timeout 10 "$fxtrace" recover "$tmp/fifo.fxt.spool" >"$tmp/cmd.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmd.out"
((rc == 1)) && grep -q "not a regular file" "$tmp/cmd.out"
result $? "recover FIFO.spool: a FIFO is refused at once (exit $rc)"

# A FIFO as recover's input (a spool's owner can put one at its name):
# refused at once, not waited on.
rm -f "$tmp/in.spool"
mkfifo "$tmp/in.spool"
timeout 10 "$fxtrace" recover "$tmp/in.spool" >"$tmp/cmd.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmd.out"
((rc == 1)) && grep -q "in.spool: not a regular file" "$tmp/cmd.out"
result $? "recover FIFO: refused at once (exit $rc)"

# Nor is a FIFO opened before it is refused, behind a symbolic link (as to
# a device, whose open alone may act): a writer blocked opening it would
# go on.  Root recovering the user's spool opens only a regular file.
rm -f "$tmp/in.spool"
ln -s "$tmp/writer.fifo" "$tmp/in.spool"
mkfifo "$tmp/writer.fifo"
(: >"$tmp/writer.fifo" && touch "$tmp/writer.done") &
writer=$!
timeout 10 "$fxtrace" recover "$tmp/in.spool" >"$tmp/cmd.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmd.out"
sleep 0.2
((rc == 1)) && [[ $(<"$tmp/cmd.out") == "fxtrace recover: $tmp/in.spool: not a regular file" && ! -e $tmp/writer.done ]]
result $? "recover SYMLINK to a FIFO: refused (exit $rc), the FIFO not opened"
kill $writer 2>/dev/null
wait $writer 2>/dev/null

# recover FILE cuts FILE in place: not through a symbolic link or with
# other hard links either.  A
# drainer's file is mimicked: magic, a flush mark at 0x38, 64 bytes after.
marked() {
	printf '\x10\x00\x04\x46\x78\x54\x16\x00\x62\x00\xff\x7f\x22\x00\x00\x00%s\0\0\0\0\0\0' \
		'fxtrace:flushed 0x0000000000000038' >"$1"
	head -c 64 /dev/zero | tr '\0' x >>"$1"
}
marked "$tmp/marked.fxt"
"$fxtrace" recover "$tmp/marked.fxt" >/dev/null &&
	[[ $(stat -c %s "$tmp/marked.fxt") == 56 ]]
result $? "recover FILE: a drainer's file is cut at its flush mark in place"
marked "$tmp/victim.fxt"
rm -f "$tmp/cut.fxt"
ln -s "$tmp/victim.fxt" "$tmp/cut.fxt"
"$fxtrace" recover "$tmp/cut.fxt" >"$tmp/cmd.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmd.out"
((rc == 1)) && grep -q "symbolic link" "$tmp/cmd.out" &&
	[[ $(stat -c %s "$tmp/victim.fxt") == 120 ]]
result $? "recover SYMLINK: refused with the reason, its target not cut"
rm -f "$tmp/cut.fxt"
ln "$tmp/victim.fxt" "$tmp/cut.fxt"
"$fxtrace" recover "$tmp/cut.fxt" >"$tmp/cmd.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmd.out"
((rc == 1)) && grep -q "other hard links" "$tmp/cmd.out" &&
	[[ $(stat -c %s "$tmp/victim.fxt") == 120 ]]
result $? "recover HARDLINK: refused with the reason, the file not cut"

# Fresh outputs: private.
rm -f "$tmp/new.fxt"
"$fxtrace" recover -o "$tmp/new.fxt" "$spool" >/dev/null &&
	"$fxtrace" check --strict --quiet "$tmp/new.fxt" >/dev/null 2>&1
result $? "recover -o NEW SPOOL writes a valid trace"
[[ $(stat -c %a "$tmp/new.fxt" 2>/dev/null) == 600 ]]
result $? "recover -o NEW: mode 0600 under umask 022"
printf 'old trace\n' >"$tmp/old.fxt"
"$fxtrace" recover -o "$tmp/old.fxt" "$spool" >/dev/null &&
	"$fxtrace" check --strict --quiet "$tmp/old.fxt" >/dev/null 2>&1
result $? "recover -o OLD SPOOL replaces a regular file"
"$fxtrace" recover -o /dev/null "$spool" >/dev/null
result $? "recover -o /dev/null: a named device will do"
rm -f "$tmp/lib.fxt"
FXTRACE_OUTPUT=$tmp/lib.fxt "$prog" >/dev/null &&
	[[ $(stat -c %a "$tmp/lib.fxt" 2>/dev/null) == 600 ]]
result $? "libfxtrace: a new FXTRACE_OUTPUT is mode 0600 under umask 022"
rm -f "$tmp/new.json" "$tmp/new.html"
"$fxtrace" export -o "$tmp/new.json" "$trace" &&
	[[ $(stat -c %a "$tmp/new.json" 2>/dev/null) == 600 ]]
result $? "export -o NEW: mode 0600 under umask 022"
"$fxtrace" report --html="$tmp/new.html" "$trace" >/dev/null &&
	[[ $(stat -c %a "$tmp/new.html" 2>/dev/null) == 600 ]]
result $? "report --html=NEW: mode 0600 under umask 022"

# A report that fails (here the memory limit stops the read) writes no
# page: one of an earlier run is left as it was, a new one is not left
# empty.
printf '<html>an earlier report</html>\n' >"$tmp/old.html"
cp "$tmp/old.html" "$tmp/old.html.orig"
rm -f "$tmp/failed.html"
for page in old.html failed.html; do
	"$fxtrace" report --memory-limit=1 --html="$tmp/$page" "$trace" >"$tmp/cmd.out" 2>"$tmp/cmd.err"
	rc=$?
	sed 's/^/# /' "$tmp/cmd.err"
	((rc == 1)) && [[ ! -s $tmp/cmd.out ]] && grep -q "past its memory limit of 1 bytes" "$tmp/cmd.err"
	result $? "report --html=$page, the report failing: exit 1 (exit $rc), the reason said"
done
cmp -s "$tmp/old.html" "$tmp/old.html.orig"
result $? "report --html=OLD, the report failing: OLD unchanged"
[[ ! -e $tmp/failed.html ]]
result $? "report --html=NEW, the report failing: no NEW left"

# OUT the input itself (or standard input's file): refused before it is
# created, which would truncate the input; the input is left whole.
for what in "export -o" "export - -o" "report --html=" "recover -o"; do
	input=$trace
	[[ $what == recover* ]] && input=$spool
	cp "$input" "$tmp/self.fxt"
	case $what in
	"export -o") "$fxtrace" export -o "$tmp/self.fxt" "$tmp/self.fxt" ;;
	"export - -o")
		# shellcheck disable=SC2094 # reading and writing it is the point
		"$fxtrace" export -o "$tmp/self.fxt" - <"$tmp/self.fxt"
		;;
	report*) "$fxtrace" report --html="$tmp/self.fxt" "$tmp/self.fxt" ;;
	recover*) "$fxtrace" recover -o "$tmp/self.fxt" "$tmp/self.fxt" ;;
	esac >"$tmp/cmd.out" 2>"$tmp/cmd.err"
	rc=$?
	sed 's/^/# /' "$tmp/cmd.err"
	src=$tmp/self.fxt
	[[ $what == "export - -o" ]] && src=-
	cmd=${what%% *}
	((rc == 1)) && [[ ! -s $tmp/cmd.out ]] && cmp -s "$input" "$tmp/self.fxt" &&
		[[ $(cat "$tmp/cmd.err") == "fxtrace $cmd: $tmp/self.fxt is the input $src: writing it would destroy it" ]]
	result $? "$what FILE FILE: refused (exit $rc), FILE unchanged"
done

# Under sudo (root only) the file is the user's who ran it, still 0600.
if ((EUID == 0)); then
rm -f "$tmp/sudo.fxt"
SUDO_UID=65534 SUDO_GID=65533 "$fxtrace" recover -o "$tmp/sudo.fxt" "$spool" >/dev/null &&
	[[ $(stat -c %u:%g:%a "$tmp/sudo.fxt" 2>/dev/null) == 65534:65533:600 ]]
result $? "recover -o NEW under sudo: the sudo user's, mode 0600"
rm -f "$tmp/sudo.json"
SUDO_UID=65534 SUDO_GID=65533 "$fxtrace" export -o "$tmp/sudo.json" "$trace" &&
	[[ $(stat -c %u:%g:%a "$tmp/sudo.json" 2>/dev/null) == 65534:65533:600 ]]
result $? "export -o NEW under sudo: the sudo user's, mode 0600"
SUDO_UID=bad SUDO_GID=65533 "$fxtrace" recover -o "$tmp/bad.fxt" "$spool" >/dev/null &&
	[[ $(stat -c %u "$tmp/bad.fxt" 2>/dev/null) == "$(id -u)" ]]
result $? "recover -o NEW with a SUDO_UID that is no number: left as made"
printf 'root file\n' >"$tmp/rootfile.json"
chmod 644 "$tmp/rootfile.json"
SUDO_UID=65534 SUDO_GID=65533 "$fxtrace" export -o "$tmp/rootfile.json" "$trace" &&
	[[ $(stat -c %u:%a "$tmp/rootfile.json" 2>/dev/null) == 0:644 ]]
result $? "export -o EXISTING under sudo: overwritten, but still root's and its mode"
# Another user's file planted at the name (mode 0666, so that writing
# it is allowed): its owner would read what root writes.  Refused, left
# alone; under sudo, the sudo user's own file is written.
planted() {
	printf 'planted\n' >"$tmp/planted"
	chown 65534:65534 "$tmp/planted"
	chmod 666 "$tmp/planted"
}
for what in "recover -o OUT" "export -o OUT" "report --html=OUT" "libfxtrace FXTRACE_OUTPUT=OUT"; do
	planted
	case $what in
	recover*) "$fxtrace" recover -o "$tmp/planted" "$spool" ;;
	export*) "$fxtrace" export -o "$tmp/planted" "$trace" ;;
	report*) "$fxtrace" report --html="$tmp/planted" "$trace" ;;
	*) FXTRACE_OUTPUT=$tmp/planted "$prog" ;;
	esac >"$tmp/cmd.out" 2>&1
	sed 's/^/# /' "$tmp/cmd.out"
	grep -q "planted: Operation not permitted (another user's file: it is not overwritten)" "$tmp/cmd.out" &&
		[[ $(cat "$tmp/planted") == planted ]]
	result $? "$what, OUT another user's file: refused with the reason, the file unchanged"
done
# A FIFO of another user's where export -o (which takes a FIFO it is
# named) writes: refused, its reader gets nothing.
rm -f "$tmp/fifo-planted"
mkfifo -m 666 "$tmp/fifo-planted"
chown 65534:65534 "$tmp/fifo-planted"
timeout 10 cat "$tmp/fifo-planted" >"$tmp/fifo-read" &
reader=$!
timeout 10 "$fxtrace" export -o "$tmp/fifo-planted" "$trace" >"$tmp/cmd.out" 2>&1
rc=$?
# The reader waits for a writer export did not open: an empty one ends it.
# shellcheck disable=SC2016 # the inner bash expands $1
timeout 5 bash -c ': >"$1"' _ "$tmp/fifo-planted"
wait $reader
sed 's/^/# /' "$tmp/cmd.out"
((rc == 1)) && [[ ! -s $tmp/fifo-read ]] &&
	grep -q "fifo-planted: Operation not permitted (another user's file: it is not overwritten)" "$tmp/cmd.out"
result $? "export -o OUT, OUT another user's FIFO: refused with the reason (exit $rc), nothing read from it"
# Another user's FIFO with no reader: refused at once, not waited on.
timeout 10 "$fxtrace" export -o "$tmp/fifo-planted" "$trace" >"$tmp/cmd.out" 2>&1
rc=$?
((rc == 1)) && grep -q "another user's file" "$tmp/cmd.out"
result $? "export -o OUT, OUT another user's FIFO with no reader: refused at once (exit $rc)"
# EPERM that is not an owner's refusal (an immutable file of root's) says
# only what open() said.
printf 'immutable\n' >"$tmp/immutable"
if chattr +i "$tmp/immutable" 2>/dev/null; then
	"$fxtrace" export -o "$tmp/immutable" "$trace" >"$tmp/cmd.out" 2>&1
	rc=$?
	chattr -i "$tmp/immutable"
	sed 's/^/# /' "$tmp/cmd.out"
	((rc == 1)) && grep -q "immutable: Operation not permitted$" "$tmp/cmd.out"
	result $? "export -o IMMUTABLE: EPERM without the owner's reason (exit $rc)"
fi
planted
SUDO_UID=65534 SUDO_GID=65534 "$fxtrace" export -o "$tmp/planted" "$trace" >/dev/null &&
	[[ $(head -c 1 "$tmp/planted") == "{" ]]
result $? "export -o under sudo into the sudo user's own file: written"
# Any user's libfxtrace: not into another user's file either.
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	printf 'root file\n' >"$tmp/rootfile.fxt"
	chmod 666 "$tmp/rootfile.fxt"
	chmod 1777 "$tmp"
	FXTRACE_OUTPUT=$tmp/rootfile.fxt setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$prog" >"$tmp/cmd.out" 2>&1
	sed 's/^/# /' "$tmp/cmd.out"
	grep -q "another user's file" "$tmp/cmd.out" &&
		[[ $(cat "$tmp/rootfile.fxt") == "root file" ]]
	result $? "libfxtrace as uid 65534 into root's file: refused, the file unchanged"
	chmod 700 "$tmp"
fi
# Where chown fails (ids not mapped in a user namespace) the file is
# written all the same, and stays root's.
if unshare -Ur true 2>/dev/null; then
	rm -f "$tmp/ns.json"
	SUDO_UID=65534 SUDO_GID=65533 unshare -Ur "$fxtrace" export -o "$tmp/ns.json" "$trace" &&
		[[ -s $tmp/ns.json ]]
	result $? "export -o NEW under sudo where chown fails: written all the same"
fi
fi

echo "1..$n"
exit $failed
