#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Ctrl-C typed at a terminal, as the kernel sends it (SI_KERNEL, to the
# foreground process group): runs COMMAND on a new pty as its controlling
# terminal, a session leader in the foreground, with stdin and stdout
# /dev/null and stderr ERR (none of its fds a terminal: fxtrace-drain
# gives a -u command no pty of its own then, and Ctrl-C stays a signal).
# Once READY is a non-empty file, Ctrl-C is typed once per GAP (ms before
# it, comma-separated); COMMAND's exit status (128+N for signal N) is
# written to RC once it has exited.
#
# Usage: ctrl_c.py READY GAPS ERR RC -- COMMAND ARGS...
import os
import sys
import time


def main():
    ready, gaps, err, rc_file = sys.argv[1:5]
    if sys.argv[5] != '--':
        sys.exit('usage: ctrl_c.py READY GAPS ERR RC -- COMMAND ARGS...')
    argv = sys.argv[6:]
    pid, master = os.forkpty()
    if not pid:
        null = os.open('/dev/null', os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.execvp(argv[0], argv)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
            not os.path.exists(ready) or not os.path.getsize(ready)):
        time.sleep(0.05)
    for gap in gaps.split(','):
        time.sleep(int(gap) / 1000)
        os.write(master, b'\x03')
    status = os.waitpid(pid, 0)[1]
    with open(rc_file, 'w') as f:
        f.write('%d\n' % (128 + os.WTERMSIG(status) if os.WIFSIGNALED(status)
                          else os.WEXITSTATUS(status)))


main()
