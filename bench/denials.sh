#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/denials.sh: the cost of recording seccomp refusals (issue 18).
# Runs, interleaved (each round runs every case once, the order rotated
# by one every round), with the refusals as user notifications answered
# by airlock (notify) and as the kernel's plain EPERM
# (AIRLOCK_SECCOMP_NOTIFY=off):
#   true       airlock exec -- true
#   forks      airlock exec -- sh -c 'for i in 1..200; do /bin/true; done'
#              (every fork tries clone3 first: it stays a plain ENOSYS)
#   refusals   airlock exec -- python3: 5000 keyctl calls, all refused
# Prints medians, min-max, the notify/off ratio of the medians and the
# median and quartiles of the per-round ratios (same round, same load).
# A benchmark, not a test: not part of make check.
#
# With BASE=/path/to/airlock (e.g. a build of main before this change),
# that binary runs every case too, as "base", and notify/base is printed.
#
# usage: [BASE=AIRLOCK] bench/denials.sh [BUILDDIR] [ROUNDS]  (default: . 11)
set -eu
B=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-11}
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
chmod 777 "$WS"
exec python3 - "$B/airlock" "$WS" "$ROUNDS" "${BASE:-}" <<'PY'
import os, statistics, subprocess, sys, time
airlock, ws, rounds, base = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                             sys.argv[4])
keyctl = ("import ctypes;l=ctypes.CDLL(None,use_errno=True)\n"
          "for i in range(5000): l.syscall(250,0,0,0,0,0)\n")
cases = {
    "true": ["true"],
    "forks": ["sh", "-c", "i=0; while [ $i -lt 200 ]; do /bin/true; "
              "i=$((i+1)); done"],
    "refusals": ["python3", "-c", keyctl],
}
modes = {"notify": {}, "off": {"AIRLOCK_SECCOMP_NOTIFY": "off"}}
if base:
    modes["base"] = {}
runs = [(c, m) for c in cases for m in modes]
t = {r: [] for r in runs}
for k in range(rounds):
    order = runs[k % len(runs):] + runs[:k % len(runs)]
    for c, m in order:
        env = dict(os.environ, **modes[m])
        s = time.monotonic()
        p = subprocess.run([base if m == "base" else airlock, "exec",
                            "--workspace", ws, "--"] +
                           cases[c], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        t[(c, m)].append((time.monotonic() - s) * 1000)
        if p.returncode != 0:
            sys.exit("%s/%s failed: %d" % (c, m, p.returncode))
print("%-10s %-7s %9s %19s" % ("case", "mode", "median", "min-max (ms)"))
for c in cases:
    for m in modes:
        v = t[(c, m)]
        print("%-10s %-7s %9.1f %9.1f-%-9.1f" % (c, m, statistics.median(v),
              min(v), max(v)))
    r = sorted(a / b for a, b in zip(t[(c, "notify")], t[(c, "off")]))
    print("%-10s notify/off: ratio of medians %.2f; per-round ratio "
          "median %.2f, p25-p75 %.2f-%.2f" % (c,
          statistics.median(t[(c, "notify")]) /
          statistics.median(t[(c, "off")]), statistics.median(r),
          r[len(r) // 4], r[(3 * len(r)) // 4]))
    if base:
        r = sorted(a / b for a, b in zip(t[(c, "notify")], t[(c, "base")]))
        print("%-10s notify/base: ratio of medians %.2f; per-round ratio "
              "median %.2f, p25-p75 %.2f-%.2f" % (c,
              statistics.median(t[(c, "notify")]) /
              statistics.median(t[(c, "base")]), statistics.median(r),
              r[len(r) // 4], r[(3 * len(r)) // 4]))
    if c == "refusals":
        print("%-10s extra per refused call: %.1f us (difference of the "
              "medians / 5000)" % (c, (statistics.median(t[(c, "notify")])
              - statistics.median(t[(c, "off")])) * 1000 / 5000))
PY
