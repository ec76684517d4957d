#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""doc_command.py WRAPPING.md NAME [--interactive | --setup] [--task TEXT [-- ARG...]]
| --screens:
the agent command that
docs/WRAPPING.md gives for NAME (claude, codex, gemini, opencode), as one
line of shell words (for `eval set --`), so that make check-agents runs
the doc's text and not a copy of it.

The commands are the argvs after `--` of the section's `airlock run ...
-- NAME` lines (in its ```sh blocks) but those of `airlock run --setup`.
Without --interactive: the one with "TASK" in it, else the first; with
--interactive: one without "TASK" (Claude Code's and Gemini CLI's
commands are both: `-p "TASK"` is added by the caller); with --setup: the
first of the `airlock run --setup ... -- NAME` lines (Claude Code's
first start, run by the caller under `airlock run --setup`).

--task TEXT: "TASK" becomes TEXT, or, in a command without it, `-p TEXT`
is added (WRAPPING.md: 'Add -p "TASK" for a non-interactive run'), or,
with --interactive, TEXT as the first prompt (a positional argument); the
ARGs after `--` go before it (the test's model address).

doc_command.py WRAPPING.md NAME --screens: the first-start screens of
the section's table whose header begins "| The screen shows" (Claude
Code's), one line each, as tests/agents/tty_drive.py steps: TEXT=>KEYS,
TEXT the first "quoted" text of the row's first column and KEYS its Keys
column (Enter, Up, Down, Esc, comma-separated) as {enter}{up}...

Exit status: 0, 64 usage, or 1 (with a message) when the section or the
command (or table) asked for is missing.
"""

import re
import shlex
import sys

HEADINGS = {
    "claude": "### Claude Code",
    "codex": "### Codex",
    "gemini": "### Gemini CLI",
    "opencode": "### opencode",
}


def section(text, heading):
    """The text from the heading to the next heading of any level."""
    start = text.find("\n" + heading)
    if start < 0:
        return None
    rest = text[start + 1:]
    m = re.search(r"\n#{1,3} ", rest)
    return rest[:m.start()] if m else rest


def commands(sec):
    """The shell commands of the section's ```sh blocks, continuations
    joined."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", sec, re.S):
        out.extend(block.replace("\\\n", " ").splitlines())
    return out


def agent_argvs(text, name, setup=False):
    """The argvs of the section's `airlock run ... -- NAME` commands, of
    those with --setup before the `--` when |setup|, else of the others."""
    sec = section(text, HEADINGS[name])
    if sec is None:
        return [], "no section %r" % HEADINGS[name]
    out = []
    for line in commands(sec):
        words = shlex.split(line, comments=True)
        if words[:2] != ["airlock", "run"] or "--" not in words:
            continue
        argv = words[words.index("--") + 1:]
        if ("--setup" in words[:words.index("--")]) != setup:
            continue
        if argv and argv[0] == name:
            out.append(argv)
    if not out:
        return [], "no `airlock run %s... -- %s` command in %r" % (
            "--setup " if setup else "", name, HEADINGS[name])
    return out, None


KEY_NAMES = {"Enter": "{enter}", "Up": "{up}", "Down": "{down}", "Esc": "{esc}"}


def screens(text, name):
    """The rows of the section's "| The screen shows" table as
    tty_drive.py steps, or (None, why)."""
    sec = section(text, HEADINGS[name])
    if sec is None:
        return None, "no section %r" % HEADINGS[name]
    m = re.search(r"^\| The screen shows.*\n\|[-| ]+\n((?:\|.*\n)+)", sec, re.M)
    if m is None:
        return None, "no table of first-start screens (\"| The screen shows\")"
    out = []
    for row in m.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        shown = re.search(r'"([^"]+)"', cells[0])
        keys = [k.strip() for k in cells[-1].split(",")]
        if shown is None or len(cells) < 3 or any(k not in KEY_NAMES for k in keys):
            return None, "a screen's row needs a \"quoted\" text and Keys of %s: %r" % (
                ", ".join(KEY_NAMES), row)
        out.append("%s=>%s" % (shown.group(1), "".join(KEY_NAMES[k] for k in keys)))
    return out, None


def main():
    if len(sys.argv) == 4 and sys.argv[3] == "--screens" and sys.argv[2] in HEADINGS:
        with open(sys.argv[1]) as f:
            steps, err = screens(f.read(), sys.argv[2])
        if err is not None:
            sys.stderr.write("doc_command.py: %s: %s: %s\n" % (sys.argv[1], HEADINGS[sys.argv[2]], err))
            return 1
        print("\n".join(steps))
        return 0
    args = sys.argv[3:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    task = None
    if "--task" in args and args.index("--task") + 1 < len(args):
        task = args[args.index("--task") + 1]
    if len(sys.argv) < 3 or sys.argv[2] not in HEADINGS or ("--task" in args and task is None):
        sys.stderr.write("usage: doc_command.py WRAPPING.md claude|codex|gemini|opencode"
                         " [--interactive | --setup] [--task TEXT [-- ARG...]] | --screens\n")
        return 64
    with open(sys.argv[1]) as f:
        text = f.read()
    name = sys.argv[2]
    argvs, err = agent_argvs(text, name, setup="--setup" in args)
    if err is None:
        if "--interactive" in args:
            argvs = [a for a in argvs if "TASK" not in a]
            err = "no interactive command (one without \"TASK\")"
        else:
            argvs = [a for a in argvs if "TASK" in a] or argvs
    if not argvs:
        sys.stderr.write("doc_command.py: %s: %s: %s\n" % (sys.argv[1], HEADINGS[name], err))
        return 1
    argv = argvs[0]
    if task is not None:
        if "TASK" in argv:
            i = argv.index("TASK")
            argv = argv[:i] + extra + [task] + argv[i + 1:]
        elif "--interactive" in args:
            argv = argv + extra + [task]    # the first prompt, positional
        else:
            argv = argv + extra + ["-p", task]
    print(" ".join(shlex.quote(a) for a in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
