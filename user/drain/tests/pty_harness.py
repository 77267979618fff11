#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A terminal for a test: runs COMMAND on a new pty as its controlling
# terminal (COMMAND a session leader in the foreground, as a login shell's
# job would be), plays a user at the keyboard and records the screen.
#
# Usage: pty_harness.py DIR [options] -- COMMAND ARGS...
#   --stdin-null        COMMAND's stdin is /dev/null (stdout, stderr the pty)
#   --type PAT=TEXT     once PAT has appeared on the screen, type TEXT
#   --resize PAT=RxC    once PAT has appeared, resize the terminal to R x C
#   --signal PAT=SIG    once PAT has appeared, send COMMAND signal SIG (KILL)
#                       (rules are taken in order, each once)
#   --after TEXT        type TEXT once COMMAND has exited (root's next typing)
#   --wait FILE         then wait (up to 20 s) for FILE before the end
#   --timeout S         kill COMMAND after S seconds (default 60)
# \xNN in TEXT is that byte.  Writes in DIR: tty (the pty's name), screen
# (every byte shown while COMMAND ran), after (bytes shown after it
# exited), during ("raw" or "cooked": the terminal when the first rule
# fired, ICANON off or on), rc (its exit status, 128+N for signal N), termios ("same" when
# the terminal's settings after COMMAND equal those before, else both).
# DIR/exited is created once COMMAND has exited and its output is read.
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time


def unescape(text):
    return text.encode().decode('unicode_escape').encode('latin-1')


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    rules, after, wait, stdin_null, timeout = [], None, None, False, 60.0
    while args and args[0] != '--':
        opt = args.pop(0)
        if opt == '--stdin-null':
            stdin_null = True
        elif opt in ('--type', '--resize', '--signal'):
            pat, _, val = args.pop(0).partition('=')
            rules.append((opt, pat.encode(), val))
        elif opt == '--after':
            after = unescape(args.pop(0))
        elif opt == '--wait':
            wait = args.pop(0)
        elif opt == '--timeout':
            timeout = float(args.pop(0))
        else:
            sys.exit('pty_harness.py: unknown option ' + opt)
    command = args[1:]

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 37, 101, 0, 0))
    with open(os.path.join(out, 'tty'), 'w') as f:
        f.write(os.ttyname(slave) + '\n')
    before = termios.tcgetattr(slave)

    def attach():
        os.setsid()
        fcntl.ioctl(0 if not stdin_null else 1, termios.TIOCSCTTY, 0)

    stdin = open(os.devnull, 'rb') if stdin_null else slave
    proc = subprocess.Popen(command, stdin=stdin, stdout=slave, stderr=slave,
                            preexec_fn=attach, pass_fds=())
    screen, seen = b'', 0
    deadline = time.monotonic() + timeout

    def read_some(wait_s):
        r, _, _ = select.select([master], [], [], wait_s)
        if not r:
            return b''
        try:
            return os.read(master, 65536)
        except OSError:
            return b''

    while True:
        screen += read_some(0.05)
        while rules and rules[0][1] in screen[seen:]:
            if not os.path.exists(os.path.join(out, 'during')):
                lflag = termios.tcgetattr(slave)[3]
                with open(os.path.join(out, 'during'), 'w') as f:
                    f.write('cooked\n' if lflag & termios.ICANON else 'raw\n')
            kind, pat, val = rules.pop(0)
            seen = screen.index(pat, seen) + len(pat)
            if kind == '--type':
                os.write(master, unescape(val))
            elif kind == '--signal':
                proc.send_signal(getattr(signal, 'SIG' + val))
            else:
                rows, cols = (int(x) for x in val.split('x'))
                fcntl.ioctl(master, termios.TIOCSWINSZ,
                            struct.pack('HHHH', rows, cols, 0, 0))
        if proc.poll() is not None:
            break
        if time.monotonic() > deadline:
            proc.kill()
    # What it wrote last.
    while True:
        data = read_some(0.3)
        if not data:
            break
        screen += data
    rc = proc.returncode
    rc = 128 - rc if rc < 0 else rc
    # A relay left without its drainer (SIGKILL) restores them on its own.
    end = time.monotonic() + 2
    now = termios.tcgetattr(slave)
    while now != before and time.monotonic() < end:
        time.sleep(0.05)
        now = termios.tcgetattr(slave)
    with open(os.path.join(out, 'termios'), 'w') as f:
        f.write('same\n' if now == before else
                'before %r\nafter  %r\n' % (before, now))
    with open(os.path.join(out, 'screen'), 'wb') as f:
        f.write(screen)
    with open(os.path.join(out, 'rc'), 'w') as f:
        f.write('%d\n' % rc)

    # Root goes on typing on its terminal; whatever shows up now is not
    # COMMAND's any more.
    open(os.path.join(out, 'exited'), 'w').close()
    shown = b''
    if after is not None:
        os.write(master, after)
    end = time.monotonic() + 20
    while wait and not os.path.exists(wait) and time.monotonic() < end:
        shown += read_some(0.1)
    shown += read_some(0.5)
    with open(os.path.join(out, 'after'), 'wb') as f:
        f.write(shown)
    # Typing nobody read: drop it, as the next command's read would not.
    termios.tcflush(slave, termios.TCIFLUSH)


if __name__ == '__main__':
    main()
