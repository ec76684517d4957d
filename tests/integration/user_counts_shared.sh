#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Every sandbox of every session runs as the same uid (sandbox.uid as
# root, the user's own without), and the kernel keeps some budgets per
# uid: 128 inotify instances (fs.inotify.max_user_instances), the
# pending signals (RLIMIT_SIGPENDING).  One sandbox that took them all
# made inotify_init1() fail with EMFILE, and sigqueue() with EAGAIN, in
# another session's sandbox for as long as it held them.  Now each
# sandbox's user namespace caps its share (an eighth: runner_int.h,
# RUNNER_USER_SHARE), so the hog is refused by its own cap and the other
# session's sandbox still gets both.  Run as root with a runner uid of
# the test's own (spending 65534's budget would refuse the sandboxes of
# tests running beside it), then as an ordinary uid (the runners are its
# own).  A session's sandboxes together take no more than that share
# either, as root (runner_session_nest()): eight at once took the uid's
# 128 instances; now a job that holds the session's share leaves the
# session's next sandbox none, and the other session's sandbox its own.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v python3 >/dev/null || { echo "not ok - python3 is missing"; exit 1; }
# No spare audit writer outlives an exec (as uid $V, in $T).
export AIRLOCK_EXEC_SPARE=0
U=$((62000 + $$ % 1000))
V=$((U + 1000))
chmod 755 "$T"
ws=$(make_workspace)
A="$T/atk" D="$T/io"
mkdir "$A" "$D"
chmod 777 "$D"
at_exit 'touch "$D/done"'
printf 'tools: []\nsandbox:\n  uid: %s\n  gid: %s\n' "$U" "$U" > "$T/m.yaml"

# Takes inotify instances, then queued signals, until refused; says how
# many it got and why it stopped, and holds them until told.
cat > "$A/budget.py" <<'PY'
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d, role = sys.argv[1], sys.argv[2]
def inotify(limit):
    n = 0
    while n < limit:
        if libc.inotify_init1(0) < 0:
            return n, os.strerror(ctypes.get_errno())
        n += 1
    return n, "held"
def sigqueue(limit):
    sig = signal.SIGRTMIN
    signal.pthread_sigmask(signal.SIG_BLOCK, [sig])
    n = 0
    while n < limit:
        if libc.sigqueue(os.getpid(), sig, ctypes.c_void_p(0)) != 0:
            return n, os.strerror(ctypes.get_errno())
        n += 1
    return n, "held"
limit = 1 if role == "other" else 1 << 30
i, s = inotify(limit), sigqueue(limit)
report = "inotify %d %s\nsignals %d %s\n" % (i + s)
print(report, end="", flush=True)
if d == "-":	# a session's tool: the report on stdout only, then held
    time.sleep(60 if role == "hog" else 0)
    sys.exit(0)
open("%s/%s.txt" % (d, role), "w").write(report)
open("%s/%s-up" % (d, role), "w").close()
for _ in range(600):
    if role != "hog" or os.path.exists(d + "/done"):
        break
    time.sleep(0.05)
PY

# The eighth of a budget a sandbox may take (at least 1).
share() { [ "$1" -gt 0 ] && [ "$1" -lt 8 ] && echo 1 || echo $(($1 / 8)); }
inst=$(share "$(cat /proc/sys/user/max_inotify_instances)")
sigs=$(share "$(ulimit -i)")

# round NAME OWNER: the hog in one airlock exec, then the other session's
# sandbox in a second one while the hog holds what it took.
round() {
	rn=$1 owner=$2
	rm -f "$D"/*
	as_uid "$owner" "$AIRLOCK" exec --manifest "$T/m.yaml" \
	    --workspace "$ws" --ro "$A" --rw "$D" \
	    -- python3 "$A/budget.py" "$D" hog >"$T/hog.out" 2>&1 &
	hog=$!
	check "$rn: the hog is up (sanity)" wait_for test -e "$D/hog-up"
	expect_eq "$rn: the hog is refused by its own share of the uid's budgets" \
	    "$(cat "$D/hog.txt" 2>/dev/null)" \
	    "$(printf 'inotify %s Too many open files\nsignals %s Resource temporarily unavailable' "$inst" "$sigs")"
	as_uid "$owner" "$AIRLOCK" exec --manifest "$T/m.yaml" \
	    --workspace "$ws" --ro "$A" --rw "$D" \
	    -- python3 "$A/budget.py" "$D" other >"$T/other.out" 2>&1
	expect_eq "$rn: another session's sandbox still gets an inotify instance and a queued signal" \
	    "$(cat "$D/other.txt" 2>/dev/null)" \
	    "$(printf 'inotify 1 held\nsignals 1 held')"
	touch "$D/done"
	wait "$hog"
}

round "as root, runner uid $U" 0

# One session (airlock serve, as root): the hog as a background job, then
# a second sandbox of the same session takes what it can, then another
# session's sandbox.
rm -f "$D"/*
cat >"$T/s.yaml" <<YAML
tools:
  - name: hog
    command: ["python3", "$A/budget.py", "-", "hog"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
    jobs:
      maxBlockMs: 5000
  - name: take
    command: ["python3", "$A/budget.py", "-", "take"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 70000
sandbox:
  uid: $U
  gid: $U
  readOnly: ["$A"]
YAML
mcp_env
mcp_start "$T/s.yaml" "$ws"
mcp_call hog '{"blockMs":0}'
expect_eq "session: the hog runs as a background job (sanity)" \
    "$(jr .result.structuredContent.status)" running
jid=$(jr .result.structuredContent.jobId)
hog_out() {
	mcp_call job_output "{\"jobId\":\"$jid\",\"waitMs\":2000}"
	out=$(jr .result.structuredContent.output)
	case "$out" in *signals*) return 0 ;; esac
	return 1
}
check "session: the hog is up (sanity)" wait_for hog_out
expect_eq "session: the hog is refused by its own share" "$out" \
    "$(printf 'inotify %s Too many open files\nsignals %s Resource temporarily unavailable' "$inst" "$sigs")"
mcp_call take '{}'
expect_eq "session: its next sandbox is refused by the session's share, which the hog holds" \
    "$(jr '.result.content[1].text')" \
    "$(printf 'inotify 0 Too many open files\nsignals 0 Resource temporarily unavailable')"
"$AIRLOCK" exec --manifest "$T/m.yaml" --workspace "$ws" --ro "$A" \
    --rw "$D" -- python3 "$A/budget.py" "$D" other >"$T/other.out" 2>&1
expect_eq "session: another session's sandbox still gets an inotify instance and a queued signal" \
    "$(cat "$D/other.txt" 2>/dev/null)" \
    "$(printf 'inotify 1 held\nsignals 1 held')"
mcp_stop

mkdir "$T/st$V"
chown "$V:$V" "$T/st$V"
chown -R "$V:$V" "$ws"
round "as uid $V" "$V"
finish
