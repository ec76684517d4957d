#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""tty_drive.py --typescript F [--timeout S] [--steps-file G] [--step TEXT=>KEYS]...
-- CMD...:
run CMD on a terminal (a pty, 40x120) and answer its screens as a person
would, for tests/agents/run_agent.sh (Claude Code's interactive form).

Each step (the lines of G, then the --step ones) waits until TEXT shows on the terminal (in what CMD wrote
since the previous step, escape sequences dropped, whitespace ignored:
full-screen programs move the cursor between words), then types KEYS:
text, with {enter}, {up}, {down}, {esc} for those keys and {wait} for a
second's pause.  After the last step it waits for CMD to exit.

Everything CMD wrote goes to the typescript F.  Exit status: CMD's, or 1
when a step's TEXT did not show within the timeout (S seconds in all,
default 120; CMD is then sent SIGTERM, and what it still writes goes to F and the message names the step and ends
with the screen's last text).
"""

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

KEYS = {"enter": "\r", "up": "\x1b[A", "down": "\x1b[B", "esc": "\x1b"}


def plain(data):
    """The text of terminal output: escape sequences dropped, no
    whitespace."""
    s = data.decode("utf-8", "replace")
    s = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", "", s)   # OSC
    s = re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", " ", s)     # CSI
    s = re.sub(r"\x1b[()][0-9A-Za-z]|\x1b[=>78c]", "", s)
    return re.sub(r"\s+", "", s)


def type_keys(fd, keys):
    """Types KEYS ({name} for a key), one key at a time."""
    for tok in re.findall(r"\{[a-z]+\}|[^{]+|\{", keys):
        name = tok[1:-1] if tok.startswith("{") and tok.endswith("}") else None
        if name == "wait":
            time.sleep(1)
            continue
        os.write(fd, KEYS.get(name, tok).encode() if name else tok.encode())
        time.sleep(0.3)


def stop(pid, fd, ts):
    """Ends the command that overran: SIGTERM, then SIGKILL after 10 s;
    what it still writes (its last words) goes on to the typescript."""
    os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done != 0:
            break
        if select.select([fd], [], [], 0.1)[0]:
            try:
                ts.write(os.read(fd, 65536))
            except OSError:
                time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    while select.select([fd], [], [], 0.2)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        ts.write(data)
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--typescript", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--steps-file", help="steps, one TEXT=>KEYS a line, before the --step ones")
    ap.add_argument("--step", action="append", default=[])
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    steps = []
    if a.steps_file:
        with open(a.steps_file) as f:
            a.step[:0] = [line for line in f.read().splitlines() if line]
    for s in a.step:
        if "=>" not in s:
            ap.error("--step TEXT=>KEYS")
        text, keys = s.split("=>", 1)
        steps.append((re.sub(r"\s+", "", text), keys))

    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.execvp(a.cmd[0], a.cmd)
        finally:
            os._exit(127)
    deadline = time.monotonic() + a.timeout
    seen = b""         # output since the last step
    with open(a.typescript, "ab") as ts:
        while True:
            if steps and steps[0][0] in plain(seen):
                seen = b""
                time.sleep(0.5)     # the rest of the screen
                type_keys(fd, steps.pop(0)[1])
                continue
            if time.monotonic() > deadline:
                break
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    break
                ts.write(data)
                ts.flush()
                seen = (seen + data)[-200000:]
        if time.monotonic() > deadline:
            status = stop(pid, fd, ts)
        else:
            status = os.waitpid(pid, 0)[1]
    if steps:
        sys.stderr.write("tty_drive: %r did not show; the screen ended with: %s\n"
                         % (steps[0][0], plain(seen)[-600:]))
        return 1
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
