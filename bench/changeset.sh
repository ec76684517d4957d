#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Change sets: a run_check that writes nothing and one that writes 1,000
# files, through "airlock serve" over MCP, for two airlock binaries side by
# side (e.g. this tree and one built at 963683d, before the overlay),
# interleaved call by call so both see the same load.
#
# usage: bench/changeset.sh OLD_AIRLOCK NEW_AIRLOCK [ROUNDS] [UID]
#   ROUNDS  calls of each kind per binary (default 15)
#   UID     run both as this ordinary user instead of root
# CHECKS="nothing" in the environment times only that kind.
# Prints, per kind and binary, the median and range of the round trip in
# ms, and the ratio NEW/OLD of the medians and the median of the per-round
# ratios; and the CPU time per call (the server, every process it reaped
# and its live children: user + system, from /proc/PID/stat), which a loaded machine
# disturbs less than wall time.  Between calls (untimed) the written files are removed on the
# host, so every 1,000-file run creates the same 1,000 new files.
set -eu
old=$1 new=$2 rounds=${3:-15} uid=${4:-}
dir=$(mktemp -d /tmp/airlock-csbench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cat >"$dir/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
checks:
  nothing: ["true"]
  write1000: ["sh", "-c", "mkdir gen && cd gen && i=0; while [ $i -lt 1000 ]; do echo $i >f$i; i=$((i+1)); done"]
EOF
chmod 644 "$dir/m.yaml"
for b in old new; do
	mkdir -p "$dir/$b/ws/src" "$dir/$b/home" "$dir/$b/run"
	echo "print(1)" >"$dir/$b/ws/src/main.py"
	chmod 700 "$dir/$b/run"
	[ -z "$uid" ] || chown -R "$uid:$uid" "$dir/$b"
done
who=${uid:+uid $uid}
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); ${who:-root}; $rounds rounds"
python3 - "$dir" "$old" "$new" "$rounds" "$uid" "${CHECKS:-nothing write1000}" <<'EOF'
import json, os, shutil, statistics, subprocess, sys, time

d, old, new, rounds, uid, kinds = sys.argv[1:7]
kinds = kinds.split()
rounds = int(rounds)

def start(name, binary):
    env = dict(os.environ, AIRLOCK_HOME=f"{d}/{name}/home",
               AIRLOCK_RUNTIME_DIR=f"{d}/{name}/run")
    cmd = [binary, "serve", "--manifest", f"{d}/m.yaml",
           "--workspace", f"{d}/{name}/ws"]
    if uid:
        env.update(HOME=f"{d}/{name}/home", XDG_STATE_HOME=f"{d}/{name}/home",
                   XDG_RUNTIME_DIR=f"{d}/{name}/run")
        cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}",
               "--clear-groups"] + cmd
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, text=True,
                         bufsize=1)
    p.next_id = 0
    call(p, "initialize", {"protocolVersion": "2025-06-18",
                           "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0",
                              "method": "notifications/initialized"}) + "\n")
    return p

def call(p, method, params):
    p.next_id += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": p.next_id,
                              "method": method, "params": params}) + "\n")
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("airlock serve exited")
        r = json.loads(line)
        if r.get("id") == p.next_id:
            return r

TICK = os.sysconf("SC_CLK_TCK")

def ticks(pid, fields):
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(x) for x in f[fields])

def cpu(p):
    # utime, stime, cutime, cstime of the server (setpriv execs it), and
    # utime, stime of its live children (the digest worker and the
    # lander, which last the session).
    t = ticks(p.pid, slice(11, 15))
    try:
        kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
    except OSError:
        kids = []
    t += sum(ticks(k, slice(11, 13)) for k in kids)
    return t * 1000 / TICK

def run_check(p, check):
    p.cpu0 = cpu(p)
    t = time.perf_counter()
    r = call(p, "tools/call", {"name": "run_check",
                               "arguments": {"checkId": check}})
    ms = (time.perf_counter() - t) * 1000
    sc = r.get("result", {}).get("structuredContent", {})
    if sc.get("exitCode") != 0:
        sys.exit(f"{check}: {json.dumps(r)[:400]}")
    return ms

procs = {"old": start("old", old), "new": start("new", new)}
times = {(k, b): [] for k in kinds for b in procs}
cpus = {(k, b): 0.0 for k in kinds for b in procs}
for r in range(rounds + 1):
    order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
    for kind in kinds:
        for b in order:
            ms = run_check(procs[b], kind)
            if kind == "write1000":
                if not os.path.isfile(f"{d}/{b}/ws/gen/f999"):
                    sys.exit(f"{b}: the 1,000 files did not land")
                shutil.rmtree(f"{d}/{b}/ws/gen")
            if r > 0:  # round 0 warms up
                times[(kind, b)].append(ms)
                cpus[(kind, b)] += cpu(procs[b]) - procs[b].cpu0
for p in procs.values():
    p.stdin.close()
    p.wait()

print(f"{'run_check':<12} {'binary':<5} {'median ms':>10} {'range ms':>16}"
      f" {'cpu ms/call':>12}")
for kind in kinds:
    for b in ("old", "new"):
        v = times[(kind, b)]
        print(f"{kind:<12} {b:<5} {statistics.median(v):>10.2f} "
              f"{min(v):>7.2f}-{max(v):<8.2f} "
              f"{cpus[(kind, b)] / len(v):>12.2f}")
    o, n = times[(kind, "old")], times[(kind, "new")]
    paired = [y / x for x, y in zip(o, n)]
    print(f"{kind:<12} new/old: {statistics.median(n) / statistics.median(o):.2f}x"
          f" (medians), {statistics.median(paired):.2f}x (median of per-round"
          f" ratios, range {min(paired):.2f}-{max(paired):.2f}),"
          f" cpu {cpus[(kind, 'new')] / cpus[(kind, 'old')]:.2f}x")
EOF
