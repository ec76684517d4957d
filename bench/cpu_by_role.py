#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""Splits the CPU of `airlock exec -- CMD` runs by process role.

Reads `perf script -F comm,pid,tid,time,event,trace,ip,sym,dso` of a
`perf record -a -g -e cpu-clock -e sched:sched_process_fork -e
sched:sched_process_exec` taken over RUNS runs (bench/cpu_by_role.sh) on
stdin, and prints, per role, the CPU milliseconds a run and the biggest
parts of it: each sample is charged to the outermost system call in its
kernel stack, to a page fault, or to the user function it was in.

Roles: the exec (the process that ran the airlock binary), its threads,
the sandbox's child (the exec's child whose own child ran the command:
it builds the root and is the namespace's init), other children of the
exec (the user namespace's helper), the audit writer (comm
airlock-writer: a spare serves the runs) and the command.
usage: cpu_by_role.py RUNS HZ AIRLOCK_PATH CMD_NAME <perf-script-output
(CMD_NAME: the command's file name, e.g. "true": an exec of any path
ending in /CMD_NAME is the command)
"""
import collections
import re
import sys

runs, hz = int(sys.argv[1]), int(sys.argv[2])
binary, command = sys.argv[3], "/" + sys.argv[4]
parent, execd = {}, {}
kids = collections.defaultdict(list)
samples = []
FAULTS = ("do_wp_page", "do_anonymous_page", "filemap_map_pages",
          "do_read_fault", "do_cow_fault")


def part(frames):
    """What one sample's stack is charged to."""
    name = None
    for f in frames:
        m = re.search(r" (?:__x64_sys|__do_sys)_(\w+)", f)
        if m:
            name = m.group(1)
    if name is not None:
        return name
    if any("asm_exc_page_fault" in f for f in frames):
        kind = next((w for w in FAULTS if any(w in f for f in frames)),
                    "other")
        return "fault:" + kind
    if frames and "[kernel" not in frames[0]:
        words = frames[0].split()
        return "user:" + (words[1] if len(words) > 1 else "?")
    return "kernel"


def flush(head, frames):
    if head is None:
        return
    comm, pid, tid, event, rest = head
    if event.startswith("sched:sched_process_fork"):
        m = re.search(r" pid=(\d+) child_comm=\S* child_pid=(\d+)", rest)
        if m:
            p, c = int(m.group(1)), int(m.group(2))
            parent[c] = p
            kids[p].append(c)
    elif event.startswith("sched:sched_process_exec"):
        m = re.search(r"filename=(\S+) pid=(\d+)", rest)
        if m:
            execd[int(m.group(2))] = m.group(1)
    elif event.startswith("cpu-clock"):
        samples.append((pid, tid, comm, part(frames)))


head, frames = None, []
for line in sys.stdin:
    if line.strip() and not line[0].isspace():
        flush(head, frames)
        m = re.match(r"\s*(\S.*?)\s+(\d+)/(\d+)\s+[\d.]+:\s+(?:\d+\s+)?(\S+)(.*)",
                     line)
        head = (m.group(1), int(m.group(2)), int(m.group(3)), m.group(4),
                m.group(5)) if m else None
        frames = []
    elif line.strip():
        frames.append(line.strip())
flush(head, frames)


def role(pid, tid, comm):
    if comm == "airlock-writer":
        return "writer"
    if execd.get(pid) == binary:
        return "exec" if pid == tid else "exec thread"
    if execd.get(pid, "").endswith(command):
        return "command"
    p = parent.get(pid)
    if p is not None and execd.get(p) == binary:
        if any(execd.get(k, "").endswith(command)
               for k in kids.get(pid, [])):
            return "sandbox child"
        return "exec's other child"
    return None


per = collections.defaultdict(collections.Counter)
for pid, tid, comm, what in samples:
    r = role(pid, tid, comm)
    if r is not None:
        per[r][what] += 1
ms = 1000.0 / hz / runs
total = 0.0
for r, parts in sorted(per.items(), key=lambda kv: -sum(kv[1].values())):
    n = sum(parts.values())
    total += n * ms
    top = ", ".join("%s %.3f" % (k, v * ms) for k, v in parts.most_common(8))
    print("%-20s %6.3f ms/run  %s" % (r, n * ms, top))
print("%-20s %6.3f ms/run" % ("all roles", total))
