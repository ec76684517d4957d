#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""make mutants: mutation testing of airlock's security invariants.

usage: run.py [--list FILE] [--only ID[,ID...]] [--jobs N] [--no-baseline]
              [--share DIR]

Each entry of the list (tools/mutants/mutants.txt) names a file, an exact
text that must occur there exactly once, what to put in its place, and the
tests that must notice.  For each entry the runner applies the change,
rebuilds incrementally (make airlock and the unit tests it names), runs
only the mapped tests, and restores the file.  A mutant is killed when at
least one mapped test fails (or does not finish within --timeout); it
survives when all pass.  The run fails, naming each survivor, if any
mutant survives, if an entry is stale (its text is missing or not unique),
or if a mapped test fails on the unmutated tree (the baseline, run first:
a test that always fails would kill everything).

--share DIR splits the work between runs in separate trees side by side
(.ci/run): each takes the mutants no other run sharing DIR has taken.
Mutants that share a mapped test are taken together, so no test ever
runs twice at once, and the largest groups go first.  A run reports only
what it ran.

The tree is restored on every exit path: normal end, an exception, and
SIGINT/SIGTERM/SIGHUP (the original bytes are kept in memory and also in
FILE.mutant-orig until restored).
"""
import argparse
import os
import signal
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("top_builddir", TOP)


def parse(path):
    entries, cur = [], {}
    for n, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        if not line.strip():
            if cur:
                entries.append(cur)
                cur = {}
            continue
        if line.startswith("#"):
            continue
        key, sep, val = line.partition(":")
        if not sep or key not in ("id", "file", "from", "to", "tests",
                                  "why"):
            sys.exit("%s:%d: expected 'key: value' with key id, file, "
                     "from, to, tests or why" % (path, n))
        val = val[1:] if val.startswith(" ") else val
        # "\n" and "\t" in from/to stand for a newline and a tab.
        if key in ("from", "to"):
            val = val.replace("\\n", "\n").replace("\\t", "\t")
        # Without the blank line between two entries, the second's keys
        # replaced the first's: the first mutant was never run.
        if key in cur:
            sys.exit("%s:%d: a second '%s' in mutant %s: a blank line "
                     "ends each entry" % (path, n, key, cur.get("id", "?")))
        cur[key] = val
        cur.setdefault("line", n)
    if cur:
        entries.append(cur)
    for e in entries:
        for k in ("id", "file", "from", "to", "tests"):
            if k not in e:
                sys.exit("%s:%d: mutant %s has no '%s'" %
                         (path, e["line"], e.get("id", "?"), k))
    ids = [e["id"] for e in entries]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit("%s: duplicate ids: %s" % (path, ", ".join(sorted(dup))))
    return entries


def groups(entries):
    """|entries| in groups: mutants linked by a shared mapped test stay
    together.  The groups come largest first (an integration script
    weighs ten unit test programs), then in the list's order."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in entries:
        tests = e["tests"].split()
        for t in tests[1:]:
            parent[find(t)] = find(tests[0])
        find(tests[0])
    out = {}
    for e in entries:
        out.setdefault(find(e["tests"].split()[0]), []).append(e)
    weight = {g: sum(1 if t.endswith(".sh") else 0.1
                     for e in m for t in e["tests"].split())
              for g, m in out.items()}
    order = sorted(out, key=lambda g: (-weight[g], out[g][0]["line"]))
    return [out[g] for g in order]


def taken_here(share):
    """The entries this run takes: all of them without |share|, else
    each group whose claim (a directory in |share|) this run made."""
    def pick(entries):
        if not share:
            yield from entries
            return
        for i, group in enumerate(groups(entries)):
            try:
                os.mkdir(os.path.join(share, "group-%d" % i))
            except FileExistsError:
                continue
            yield from group
    return pick


class Restorer:
    """Keeps the original bytes of the file being mutated."""

    def __init__(self):
        self.path = None
        self.data = None

    def save(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        with open(path + ".mutant-orig", "wb") as f:
            f.write(self.data)
        self.path = path

    def restore(self):
        if self.path is None:
            return
        with open(self.path, "wb") as f:
            f.write(self.data)
        os.unlink(self.path + ".mutant-orig")
        self.path = None


# What the integration tests call besides ./airlock.
HELPERS = ["tests/unixclient", "tests/reaper", "tests/proxy_helper",
           "tests/escape/probe", "tests/unit/audit_writer"]


def unit_targets(tests):
    out = [t for t in tests if not t.endswith(".sh")]
    if len(out) != len(tests):
        out += HELPERS
    return out


def build(targets, log):
    cmd = ["make", "-s", "-C", BUILD, "-j%d" % JOBS, "airlock"] + targets
    return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode


def run_test(t, log, timeout):
    # A script stops at its first failure (tests/lib.sh): the verdict is
    # the same, and the checks after it took about half of the time.
    env = dict(os.environ, top_srcdir=TOP, top_builddir=BUILD, srcdir=TOP,
               AIRLOCK=os.path.join(BUILD, "airlock"),
               AIRLOCK_TEST_FAIL_FAST="1")
    if t.endswith(".sh"):
        cmd = ["sh", os.path.join(TOP, t)]
    else:
        cmd = [os.path.join(BUILD, t)]
    # A session of its own, so that whatever the test leaves running is
    # killed with it (subprocess's timeout kills only the shell).
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                         env=env, cwd=BUILD, start_new_session=True)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        rc = "timeout"
    finally:
        kill_leftovers(p)
    return rc


def kill_leftovers(p):
    """SIGKILL the test's session and every process still running a binary
    of this build tree: a mutated airlock that hangs or ignores SIGTERM
    (an exec's writer, a serve, a runner) would otherwise outlive its test
    and load the machine, or answer the next mutant's test."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    p.wait()
    prefix = os.path.realpath(BUILD) + os.sep
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            exe = os.readlink("/proc/%s/exe" % d)
        except OSError:
            continue
        if exe.startswith(prefix):
            try:
                os.kill(int(d), signal.SIGKILL)
            except OSError:
                pass


def main():
    global JOBS
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", default=os.path.join(TOP, "tools", "mutants",
                                                   "mutants.txt"))
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--share", default="")
    args = ap.parse_args()
    JOBS = args.jobs
    listed = parse(args.list)
    entries = listed
    if args.only:
        want = set(args.only.split(","))
        entries = [e for e in entries if e["id"] in want]
        if not entries:
            sys.exit("mutants: no entry with id %s" % args.only)
    logdir = os.path.join(BUILD, "mutants-log")
    os.makedirs(logdir, exist_ok=True)
    restorer = Restorer()

    def on_signal(signum, frame):
        restorer.restore()
        sys.exit("mutants: interrupted (signal %d); tree restored" % signum)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    # A leftover from a run killed with SIGKILL: put it back first.
    for e in entries:
        orig = os.path.join(TOP, e["file"]) + ".mutant-orig"
        if os.path.exists(orig):
            os.replace(orig, os.path.join(TOP, e["file"]))
            print("mutants: restored %s from an interrupted run" % e["file"])

    # Every entry, not only those asked for: a change that moves the
    # text of a mutant the run skips is found now, not by the next
    # whole run.
    stale = []
    for e in listed:
        text = open(os.path.join(TOP, e["file"])).read()
        if text.count(e["from"]) != 1:
            stale.append("%s (%s: text found %d times)" %
                         (e["id"], e["file"], text.count(e["from"])))
    if stale:
        print("mutants: stale entries, fix tools/mutants/mutants.txt:")
        for s in stale:
            print("  " + s)
        return 1

    all_tests = sorted({t for e in entries for t in e["tests"].split()})
    t0 = time.time()
    with open(os.path.join(logdir, "build.log"), "w") as log:
        if build(unit_targets(all_tests), log) != 0:
            print("mutants: the unmutated tree does not build (see %s)" %
                  log.name)
            return 1
    if not args.no_baseline:
        bad = []
        for t in all_tests:
            with open(os.path.join(logdir, "baseline-" +
                                   t.replace("/", "_") + ".log"), "w") as log:
                rc = run_test(t, log, args.timeout)
            if rc != 0:
                bad.append("%s (%s)" % (t, rc))
        if bad:
            print("mutants: mapped tests fail on the unmutated tree: " +
                  ", ".join(bad))
            return 1
        print("mutants: baseline: %d tests pass (%.0f s)" %
              (len(all_tests), time.time() - t0))

    survivors, broken, killed, ran = [], [], 0, 0
    if args.share:
        os.makedirs(args.share, exist_ok=True)
    try:
        for e in taken_here(args.share)(entries):
            ran += 1
            path = os.path.join(TOP, e["file"])
            restorer.save(path)
            with open(path, "w") as f:
                f.write(restorer.data.decode().replace(e["from"], e["to"]))
            start = time.time()
            logp = os.path.join(logdir, e["id"] + ".log")
            with open(logp, "w") as log:
                tests = e["tests"].split()
                if build(unit_targets(tests), log) != 0:
                    # A mutant that does not compile tests nothing: its
                    # from/to text is wrong, and it fails the run.
                    verdict = "BROKEN (does not build)"
                    broken.append(e)
                else:
                    verdict = None
                    for t in tests:
                        rc = run_test(t, log, args.timeout)
                        if rc != 0:
                            verdict = "killed by %s (%s)" % (t, rc)
                            break
            restorer.restore()
            if verdict is None:
                survivors.append(e)
                verdict = "SURVIVED"
            elif e not in broken:
                killed += 1
            print("%-32s %-44s %5.1f s" % (e["id"], verdict,
                                           time.time() - start))
            sys.stdout.flush()
    finally:
        restorer.restore()
        with open(os.path.join(logdir, "rebuild.log"), "w") as log:
            build(unit_targets(all_tests), log)
    print("mutants: %d killed, %d survived, %d broken, %d in all (%.0f s)%s" %
          (killed, len(survivors), len(broken), ran, time.time() - t0,
           " (of %d; the rest to the runs sharing %s)" %
           (len(entries), args.share) if args.share else ""))
    for e in survivors:
        print("SURVIVED: %s (%s): %s" % (e["id"], e["file"],
                                         e.get("why", "")))
    for e in broken:
        print("BROKEN: %s (%s): the mutated file does not build (see %s)" %
              (e["id"], e["file"], os.path.join(logdir, e["id"] + ".log")))
    return 1 if survivors or broken else 0


if __name__ == "__main__":
    sys.exit(main())
