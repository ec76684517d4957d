#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# apply_patch through "airlock serve": the round trip of a one-line patch
# of a small file, and how long pings sent every 10 ms wait while
# patches of four 4 MiB files (16 MiB, the most one patch reads) apply.
# Each binary given is run in turn, ROUNDS times, interleaved, so that
# all see the same load; medians and ranges over the rounds.
# usage: bench/patch.sh [-r ROUNDS] [-n SMALL] AIRLOCK...
#   (default: 3 rounds, 200 small patches, ./airlock)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
n=200
while getopts r:n: o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: bench/patch.sh [-r ROUNDS] [-n SMALL] AIRLOCK..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$top/airlock"
command -v python3 >/dev/null || { echo "bench/patch.sh: needs python3" >&2; exit 1; }
tmp=$(mktemp -d /tmp/airlock-bench-patch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/m.yaml" <<'YAML'
tools:
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 60000
YAML
cat >"$tmp/drive.py" <<'EOF'
import hashlib, json, os, subprocess, sys, threading, time
airlock, ws, man, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ)
p = subprocess.Popen([airlock, "serve", "--workspace", ws, "--manifest", man],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    bufsize=0, env=env)
lock = threading.Lock()
def send(o):
    with lock:
        p.stdin.write((json.dumps(o) + "\n").encode())
def recv():
    line = p.stdout.readline()
    return json.loads(line) if line else None
sha = lambda b: hashlib.sha256(b).hexdigest()
def base(files):
    if len(files) == 1:
        return sha(open(os.path.join(ws, files[0]), "rb").read())
    return sha(b"".join(q.encode() + b"\0" + sha(open(os.path.join(ws, q),
        "rb").read()).encode() + b"\n" for q in files))
def text(files, a, b):
    return "".join("--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s\n+%s\n" %
        (q, q, a, b) for q in files)
def call(i, files, a, b):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "apply_patch", "arguments": {"patch": text(files, a, b),
        "expectedBaseSha": base(files)}}})
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
small = []
for k in range(n):
    a, b = ("one", "two") if k % 2 == 0 else ("two", "one")
    t0 = time.monotonic()
    call(k + 1, ["small.txt"], a, b)
    r = recv()
    small.append(time.monotonic() - t0)
    assert not r["result"].get("isError"), r
got, sent, lat = {}, {}, []
def reader():
    while True:
        r = recv()
        if r is None:
            return
        i = r.get("id")
        if isinstance(i, int) and i >= 100000:
            lat.append(time.monotonic() - sent[i])
        else:
            got[i] = r
threading.Thread(target=reader, daemon=True).start()
files = ["d%d/big.txt" % i for i in range(4)]
j, big = 100000, []
for k in range(4):
    a, b = ("a", "b") if k % 2 == 0 else ("b", "a")
    t0 = time.monotonic()
    call(50000 + k, files, a, b)
    while 50000 + k not in got:
        sent[j] = time.monotonic()
        send({"jsonrpc": "2.0", "id": j, "method": "ping"})
        j += 1
        time.sleep(0.01)
    big.append(time.monotonic() - t0)
    assert not got[50000 + k]["result"].get("isError"), got[50000 + k]
time.sleep(0.1)
p.stdin.close()
p.wait()
small.sort(); lat.sort(); big.sort()
print("%.2f %.1f %.1f %.3f" % (small[len(small) // 2] * 1000,
    lat[len(lat) // 2] * 1000, lat[-1] * 1000, big[len(big) // 2]))
EOF
echo "bench/patch.sh: $rounds rounds, $n small patches each, $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# columns: small patch round trip median (ms); ping wait behind 16 MiB patches: median, max (ms); 16 MiB patch median (s)"
r=1
while [ "$r" -le "$rounds" ]; do
	for a in "$@"; do
		ws="$tmp/ws"
		rm -rf "${ws:?}" "$tmp/home" "$tmp/run"
		mkdir -p "$ws" "$tmp/home" "$tmp/run"
		printf 'one\n' >"$ws/small.txt"
		for d in 0 1 2 3; do
			mkdir "$ws/d$d"
			{ echo a; head -c 4194302 /dev/zero | tr '\0' x | fold -w 99; } |
			    head -c 4194304 >"$ws/d$d/big.txt"
		done
		out=$(AIRLOCK_HOME="$tmp/home" AIRLOCK_RUNTIME_DIR="$tmp/run" \
		    python3 "$tmp/drive.py" "$a" "$ws" "$tmp/m.yaml" "$n")
		echo "round $r $a $out"
	done
	r=$((r + 1))
done | tee "$tmp/rows"
echo "# medians over rounds (ranges):"
for a in "$@"; do
	awk -v a="$a" '$3 == a { s[NR] = $4; p[NR] = $5; m[NR] = $6; b[NR] = $7; k++ }
	    function rng(v,   i, lo, hi) { lo = ""; for (i in v) { if (lo == "" || v[i] + 0 < lo) lo = v[i] + 0; if (hi == "" || v[i] + 0 > hi) hi = v[i] + 0 } return lo "-" hi }
	    END { printf "%s: small patch %s ms; ping median %s ms, max %s ms; 16 MiB patch %s s\n", a, rng(s), rng(p), rng(m), rng(b) }' "$tmp/rows"
done
