#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/cow_session.sh: what a copy-on-write agent session costs (issue
# 12 item 3), side by side in one run.  On a workspace of NFILES files
# (default 20000, in 200 directories) each round times, in an order
# rotated by one every round so that all see the same load:
#   plain   airlock run --workspace WS -- /bin/true       (agent.workspace ro)
#   cow     airlock run --cow --workspace WS -- /bin/true (new session: the
#           session directory, the stat record of the checkout, the overlay)
#   resume  airlock run --resume S --workspace WS -- /bin/true
# then, outside the rotation, an agent of the session writes 1,000 files
# and the round times "airlock diff S" and "airlock commit S" of them
# (the files landing in WS, which is cleaned for the next round).
# Every run is checked (exit status, and the commit's files on disk): a
# failed run aborts instead of being timed.  Prints medians, p25-p75,
# min-max and ratios (of medians, and median/range of per-round ratios)
# against plain.  A benchmark, not a test: not part of make check.
#
# usage: bench/cow_session.sh [BUILDDIR] [ROUNDS] [NFILES]  (default . 9 20000)
# Run as root or as an ordinary user (Linux >= 5.11).
set -eu
B=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-9}
NFILES=${3:-20000}
A=$B/airlock
[ -x "$A" ] || { echo "bench/cow_session.sh: no $A (build first)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench/cow_session.sh: needs python3" >&2; exit 1; }
T=$(mktemp -d /tmp/airlock-cow-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -p "$T/ws" "$T/home" "$T/run"
chmod 700 "$T/run"
export AIRLOCK_HOME=$T/home AIRLOCK_RUNTIME_DIR=$T/run
python3 - "$T/ws" "$NFILES" <<'EOF'
import os, sys
ws, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(ws, "d%03d" % (i % 200))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("file %d\n" % i)
EOF
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
EOF
cat >"$T/write.sh" <<'EOF'
#!/bin/sh
mkdir -p out && i=0 && while [ $i -lt 1000 ]; do echo "new $i" >out/n$i.txt; i=$((i+1)); done
EOF
chmod 755 "$T/write.sh"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
run() {	# NAME CMD...: appends "NAME MS ROUND" to $T/times
	local name=$1 t0 t1
	shift
	t0=$(ms)
	"$@" >/dev/null 2>"$T/last.err" || { echo "bench: $name failed:" >&2; cat "$T/last.err" >&2; exit 1; }
	t1=$(ms)
	echo "$name $((t1 - t0)) $r" >>"$T/times"
}
session() { sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/last.err" | tail -1; }
# One session to resume (made before timing starts).
"$A" run --cow --manifest "$T/m.yaml" --workspace "$T/ws" -- /bin/true 2>"$T/last.err"
S=$(session)
: >"$T/times"
for r in $(seq "$ROUNDS"); do
	order="plain cow resume"
	for _ in $(seq $((r % 3))); do set -- $order; order="$2 $3 $1"; done
	for k in $order; do
		case $k in
		plain)	run plain "$A" run --manifest "$T/m.yaml" --workspace "$T/ws" -- /bin/true ;;
		cow)	run cow "$A" run --cow --manifest "$T/m.yaml" --workspace "$T/ws" -- /bin/true ;;
		resume)	run resume "$A" run --resume "$S" --manifest "$T/m.yaml" --workspace "$T/ws" -- /bin/true ;;
		esac
	done
	"$A" run --resume "$S" --manifest "$T/m.yaml" --workspace "$T/ws" -- "$T/write.sh" >/dev/null 2>&1
	run diff1000 "$A" diff "$S"
	run commit1000 "$A" commit "$S"
	[ "$(ls "$T/ws/out" | wc -l)" = 1000 ] || { echo "bench: the commit did not land 1000 files" >&2; exit 1; }
	rm -rf "$T/ws/out"
	"$A" discard "$S" >/dev/null 2>&1	# records the checkout anew
	rm -rf "$T/home/sessions/"*/commits
done
python3 - "$T/times" "$NFILES" "$ROUNDS" <<'EOF'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
by = {}
per = {}
for name, v, r in rows:
    by.setdefault(name, []).append(int(v))
    per.setdefault(r, {})[name] = int(v)
def q(v, p):
    v = sorted(v); k = (len(v) - 1) * p; f = int(k); c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)
print("workspace: %s files; %s rounds; ms" % (sys.argv[2], sys.argv[3]))
print("%-11s %7s %13s %13s" % ("", "median", "p25-p75", "min-max"))
for n in ["plain", "cow", "resume", "diff1000", "commit1000"]:
    v = by[n]
    print("%-11s %7.0f %6.0f-%-6.0f %6d-%-6d" % (n, st.median(v), q(v, .25), q(v, .75), min(v), max(v)))
for n in ["cow", "resume"]:
    rr = [per[r][n] / per[r]["plain"] for r in per]
    print("%s/plain: %.2fx (medians); per round median %.2fx, range %.2f-%.2fx" % (
        n, st.median(by[n]) / st.median(by["plain"]), st.median(rr), min(rr), max(rr)))
EOF
