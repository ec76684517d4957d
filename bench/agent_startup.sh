#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/agent_startup.sh: start-up of the four agent CLIs under airlock
# against bare and bubblewrap (issue 10), as ratios.  For each agent
# (claude, codex, gemini, opencode) it times `AGENT --version`
#   bare     AGENT --version
#   airlock  airlock run --manifest contrib/agents/PROFILE.yaml \
#              --workspace SCRATCH -- AGENT --version
#   bwrap    bwrap with a minimal comparable setup (read-only /usr and
#            /etc, fresh /proc, /dev and /tmp, every namespace unshared)
# and, as the sandbox floor, bare `true` against `airlock exec --workspace
# SCRATCH -- true`.  Runs are interleaved: each round runs every command
# once, in an order rotated by one every round, so all of them see the
# same load.  Every command runs with the same small environment (PATH,
# HOME, LANG, TERM and the scratch AIRLOCK_HOME/AIRLOCK_RUNTIME_DIR).
# Every run is checked (exit 0, and for the agents the version
# string the bare run printed): a failed run aborts the benchmark instead
# of being timed as a fast one.  Prints medians, p25-p75, min-max and the
# ratios airlock/bare and airlock/bwrap (ratio of the medians, and the
# median and range of the per-round ratios).  A benchmark, not a test: not
# part of make check.
#
# usage: bench/agent_startup.sh [BUILDDIR] [ROUNDS]     (default: . 15)
# Run as root (airlock run's agent home is /var/lib/airlock-agents/NAME).
set -eu
B=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-15}
SRC=$(cd "$(dirname "$0")/.." && pwd)
AIRLOCK=$B/airlock
[ -x "$AIRLOCK" ] || { echo "bench/agent_startup.sh: no $AIRLOCK (build first)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bench/agent_startup.sh: needs bwrap" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench/agent_startup.sh: needs python3" >&2; exit 1; }

# Scratch: the workspace (a file in it), airlock's state and runtime
# directories, all reachable by the sandbox uid (65534) where they must be.
T=$(mktemp -d /tmp/airlock-agent-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -m 755 "$T/ws" "$T/home"
mkdir -m 700 "$T/run"
echo "airlock agent start-up benchmark" > "$T/ws/README"
chmod 644 "$T/ws/README"
AIRLOCK_HOME=$T/home
AIRLOCK_RUNTIME_DIR=$T/run
export AIRLOCK_HOME AIRLOCK_RUNTIME_DIR
cd "$T/ws"

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS interleaved rounds"
python3 - "$AIRLOCK" "$SRC/contrib/agents" "$T" "$ROUNDS" <<'PY'
import os, shutil, statistics, subprocess, sys, time

airlock, profiles, tmp, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ws = os.path.join(tmp, "ws")
sessions = os.path.join(tmp, "home", "sessions")
BWRAP = ["bwrap", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
         "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
         "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
         "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent"]
AGENTS = [("claude", "claude-code"), ("codex", "codex"),
          ("gemini", "gemini"), ("opencode", "opencode")]

# The same small environment for every command.  The caller's may hold
# variables that change an agent's start-up by themselves (measured: with
# NODE_EXTRA_CA_CERTS set to a 144-certificate bundle, `codex --version`,
# a Node wrapper, takes about 60 ms more), and airlock run passes the
# agent only the profile's agent.env list: with the caller's environment,
# bare and bwrap would pay for variables the airlock run never sees.
ENV = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TERM",
       "AIRLOCK_HOME", "AIRLOCK_RUNTIME_DIR") if k in os.environ}

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=ENV)
    return time.perf_counter() - t0, p

# commands: (agent or "floor", variant, argv, expected stdout substring)
cmds = []
for agent, prof in AGENTS:
    path = shutil.which(agent)
    if path is None:
        print(f"# {agent}: not installed, skipped")
        continue
    _, p = run([agent, "--version"])
    version = p.stdout.decode(errors="replace").strip().splitlines()
    if p.returncode != 0 or not version:
        sys.exit(f"bench/agent_startup.sh: {agent} --version failed (exit {p.returncode})")
    version = version[0]
    print(f"# {agent}: {path} -> {os.path.realpath(path)}: {version}")
    cmds.append((agent, "bare", [agent, "--version"], version))
    cmds.append((agent, "airlock", [airlock, "run", "--manifest",
                 os.path.join(profiles, prof + ".yaml"), "--workspace", ws,
                 "--", agent, "--version"], version))
    cmds.append((agent, "bwrap", BWRAP + [agent, "--version"], version))
cmds.append(("floor", "bare", ["true"], None))
cmds.append(("floor", "airlock", [airlock, "exec", "--workspace", ws, "--", "true"], None))

def timed(c):
    agent, variant, argv, expect = c
    dt, p = run(argv)
    out = p.stdout.decode(errors="replace")
    if p.returncode != 0 or (expect is not None and expect not in out):
        sys.exit(f"bench/agent_startup.sh: {agent} {variant} failed: exit "
                 f"{p.returncode}, stdout {out.strip()!r}, stderr "
                 f"{p.stderr.decode(errors='replace').strip()[-600:]!r}\n  "
                 + " ".join(argv))
    if variant == "airlock" and os.path.isdir(sessions):
        shutil.rmtree(sessions)     # untimed: keep the state dir small
    return dt * 1000.0

# One untimed warm-up round (page cache, agent homes created).
for c in cmds:
    timed(c)
t = {(c[0], c[1]): [] for c in cmds}
for r in range(rounds):
    k = r % len(cmds)
    for c in cmds[k:] + cmds[:k]:
        t[(c[0], c[1])].append(timed(c))

def q(xs, f):
    xs = sorted(xs)
    i = f * (len(xs) - 1)
    lo = int(i)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)

def ratio(a, b):
    per = [x / y for x, y in zip(t[a], t[b])]
    return (statistics.median(t[a]) / statistics.median(t[b]),
            statistics.median(per), min(per), max(per))

print()
print("| agent | variant | median ms | p25-p75 ms | min-max ms |")
print("|---|---|---:|---:|---:|")
for (agent, variant), xs in t.items():
    print(f"| {agent} | {variant} | {statistics.median(xs):.1f} | "
          f"{q(xs, .25):.1f}-{q(xs, .75):.1f} | {min(xs):.1f}-{max(xs):.1f} |")
print()
print("Ratios: of the medians; in brackets the median and min-max of the per-round ratios.")
print()
print("| agent | airlock/bare | airlock/bwrap | airlock-bare ms |")
print("|---|---:|---:|---:|")
for agent in dict.fromkeys(a for a, _ in t):
    rb = ratio((agent, "airlock"), (agent, "bare"))
    s = (f"| {agent} | {rb[0]:.2f}x ({rb[1]:.2f}, {rb[2]:.2f}-{rb[3]:.2f}) | ")
    if (agent, "bwrap") in t:
        rw = ratio((agent, "airlock"), (agent, "bwrap"))
        s += f"{rw[0]:.2f}x ({rw[1]:.2f}, {rw[2]:.2f}-{rw[3]:.2f}) | "
    else:
        s += "- | "
    d = statistics.median(t[(agent, "airlock")]) - statistics.median(t[(agent, "bare")])
    print(s + f"{d:+.1f} |")
PY
