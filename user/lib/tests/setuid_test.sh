#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: libfxtrace in a setuid-root program ignores FXTRACE_OUTPUT
# (secure_getenv()): output_prog, setuid root, run as uid 65534 with
# FXTRACE_OUTPUT naming a root-only file leaves the file as it was and
# makes no spool; the same program without the setuid bit writes its
# trace.  Needs root (chown, setpriv) and a mount without nosuid; skips
# otherwise.  Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
prog=$root/build/test/lib/output_prog
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

if (($(id -u) != 0)); then
	echo "# SKIP: needs root (a setuid-root program, run as another user)"
	exit 77
fi
# The build tree may be on a nosuid mount, where the bit would do nothing
# and the test would pass on any library.
tmp=
for dir in /var/tmp /root /tmp; do
	if [[ -d $dir ]] && ! findmnt -no OPTIONS -T "$dir" | grep -qw nosuid; then
		tmp=$(mktemp -d "$dir/fxtrace-setuid.XXXXXX") && break
	fi
done
if [[ -z $tmp ]]; then
	echo "# SKIP: no directory on a mount without nosuid"
	exit 77
fi
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 700 "$tmp/protected" "$tmp/open"
chown 65534:65534 "$tmp/open"
secret=$tmp/protected/secret
printf 'root-only: do not touch\n' >"$secret"
chmod 600 "$secret"
cp "$secret" "$tmp/secret.orig"
install -o root -g root -m 4755 "$prog" "$tmp/suid_prog"
install -o root -g root -m 755 "$prog" "$tmp/plain_prog"

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

nobody env FXTRACE_OUTPUT="$secret" FXTRACE_CATEGORIES='*' FXTRACE_MODE=circular \
	FXTRACE_BUFFER_SIZE=64K "$tmp/suid_prog" >"$tmp/suid.out" 2>"$tmp/suid.err"
result $? "setuid program runs"
grep -qx 'uid 65534 euid 0' "$tmp/suid.out"
result $? "it runs as uid 65534, euid 0 ($(cat "$tmp/suid.out"))"
cmp -s "$secret" "$tmp/secret.orig"
result $? "FXTRACE_OUTPUT's root-only file is unchanged"
[[ ! -e $secret.spool ]]
result $? "no spool next to it"
grep -q 'FXTRACE_OUTPUT is ignored in a setuid' "$tmp/suid.err"
result $? "it says FXTRACE_OUTPUT is ignored"
sed 's/^/# /' "$tmp/suid.err"

nobody env FXTRACE_OUTPUT="$tmp/open/t.fxt" "$tmp/plain_prog" >/dev/null
result $? "the same program, not setuid, runs"
"$root/build/bin/fxtrace" check --strict --quiet "$tmp/open/t.fxt" >"$tmp/check.out" 2>&1
result $? "and writes its trace"

echo "1..$n"
exit $failed
