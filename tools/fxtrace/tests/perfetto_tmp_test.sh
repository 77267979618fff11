#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace check --perfetto=json` exports the trace to
# /tmp/fxtrace-XXXXXX.json for the trace processor to import.  A SIGINT
# (Ctrl-C while a large trace is imported), SIGTERM or SIGHUP left that
# copy of the whole trace in /tmp.  Here a stand-in trace processor says
# which file it was given and waits; the check alone, sent each signal,
# must die of it, the file must be gone, and the stand-in must end too (it
# was left running on the removed file, holding its space).  Also: a
# check that ends normally leaves none.  No real trace processor needed.
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
mktrace=$top/${B:-build}/test/fxtrace/mktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$mktrace" "$tmp/t.fxt" 1 || exit 1
# Not a bash script: a non-interactive bash that gets SIGINT while it
# waits for a child goes on when the child did not die of it (bash(1),
# SIGNALS), so a bash stand-in sent SIGINT during its `mv` outlived the
# check and the SIGINT case failed now and then on a loaded machine.
cat >"$tmp/tp" <<'TP'
#!/usr/bin/perl
# The stand-in: `tp query FILE SQL`; FILE and its pid said in $TP_MARK
# (written whole, then renamed), then a wait in that pid.
open(my $f, '>', "$ENV{TP_MARK}.tmp") or die "$ENV{TP_MARK}.tmp: $!";
print $f "$ARGV[1]\n$$\n";
close($f) or die "$ENV{TP_MARK}.tmp: $!";
rename("$ENV{TP_MARK}.tmp", $ENV{TP_MARK}) or die "$ENV{TP_MARK}: $!";
sleep 60 if $ENV{TP_WAIT} eq '1';
exit 0;
TP
chmod +x "$tmp/tp"

python3 - "$fxtrace" "$tmp" <<'PY'
import os
import signal
import subprocess
import sys
import time

fxtrace, tmp = sys.argv[1], sys.argv[2]
mark = os.path.join(tmp, "mark")
n = failed = 0


def result(ok, what):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok"), n, "-", what, flush=True)
    failed |= not ok


def running(pid):
    """pid is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def check(wait):
    """The check started in a session of its own, once tp has its file:
    the check, the file and the stand-in's pid."""
    if os.path.exists(mark):
        os.unlink(mark)
    env = dict(os.environ, FXTRACE_TRACE_PROCESSOR=os.path.join(tmp, "tp"),
               TP_MARK=mark, TP_WAIT="1" if wait else "0")
    p = subprocess.Popen([fxtrace, "check", "--perfetto=json",
                          os.path.join(tmp, "t.fxt")], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    for _ in range(600):
        if os.path.exists(mark) or p.poll() is not None:
            break
        time.sleep(0.05)
    said = open(mark).read().split() if os.path.exists(mark) else []
    return p, said[0] if said else "", int(said[1]) if len(said) > 1 else 0


for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    p, json, tp = check(True)
    there = json.startswith("/tmp/fxtrace-") and os.path.exists(json)
    p.send_signal(sig)  # to the check alone, as `kill PID` does
    rc = p.wait()
    for _ in range(100):
        if not tp or not running(tp):
            break
        time.sleep(0.05)
    tp_ended = tp and not running(tp)
    os.killpg(p.pid, signal.SIGKILL)  # the stand-in, if still waiting
    gone = not os.path.exists(json)
    if not gone:
        os.unlink(json)
    result(there and rc == -sig and gone,
           f"{sig.name} while the trace processor runs: the check dies of it "
           f"(status {rc}), {json or 'no file'} removed")
    result(tp_ended,
           f"{sig.name}: the trace processor (pid {tp}) ends with the check")

p, json, _ = check(False)
rc = p.wait()
result(json.startswith("/tmp/fxtrace-") and not os.path.exists(json),
       f"a check that ends (status {rc}) leaves no {json or 'file'}")
print(f"1..{n}")
sys.exit(failed)
PY
