#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The command of pty_test.sh, run by `fxtrace record -u nobody` from a
# terminal (pty_harness.py).  Usage: pty_command.py DIR.
#
# It leaves a process behind that ignores SIGHUP and, once DIR/exited
# exists (the drainer has exited), writes to DIR/leftover what its fds 0-2
# are ("fdN: LINK" lines), whether it could write to fd 1 and what it read
# from fd 0 in 3 s.
# Meanwhile it says what its fds are ("fds: A B C"), the terminal's size
# ("size: ROWS COLS"), asks for a line ("ready>"), echoes it ("got: LINE"),
# asks for a resize ("resize>") and says the new size after SIGWINCH.
# It exits 3.
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time

out = sys.argv[1]


def fd_name(fd):
    try:
        return os.readlink('/proc/self/fd/%d' % fd)
    except OSError as e:
        return 'error:' + e.strerror


def size():
    rows, cols, _, _ = struct.unpack(
        'HHHH', fcntl.ioctl(1, termios.TIOCGWINSZ, b'\0' * 8))
    return '%d %d' % (rows, cols)


def leftover():
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    end = time.monotonic() + 30
    while not os.path.exists(os.path.join(out, 'exited')):
        if time.monotonic() > end:
            break
        time.sleep(0.05)
    try:
        os.write(1, b'LEFTOVER-WROTE\n')
        wrote = 'yes'
    except OSError as e:
        wrote = 'no: ' + e.strerror
    got = b''
    end = time.monotonic() + 3
    while time.monotonic() < end:
        try:
            r, _, _ = select.select([0], [], [], 0.1)
            if r:
                data = os.read(0, 4096)
                if not data:
                    break
                got += data
        except OSError:
            break
    with open(os.path.join(out, 'leftover.tmp'), 'w') as f:
        for fd in range(3):
            f.write('fd%d: %s\n' % (fd, fd_name(fd)))
        f.write('wrote: %s\nread: %r\n' % (wrote, got))
    os.rename(os.path.join(out, 'leftover.tmp'),
              os.path.join(out, 'leftover'))


if os.fork() == 0:
    try:
        leftover()
    finally:
        os._exit(0)

winched = []
signal.signal(signal.SIGWINCH, lambda *_: winched.append(1))
print('fds: ' + ' '.join(fd_name(fd) for fd in range(3)), flush=True)
print('size: ' + size(), flush=True)
print('ready>', flush=True)
line = sys.stdin.readline().rstrip('\n')
print('got: ' + line, flush=True)
print('resize>', flush=True)
end = time.monotonic() + 10
while not winched and time.monotonic() < end:
    time.sleep(0.05)
print('size2: ' + size(), flush=True)
sys.exit(3)
