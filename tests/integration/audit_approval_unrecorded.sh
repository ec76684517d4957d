#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval the audit log cannot record is not asked for, and a grant
# it cannot record is not given (invariant 6: every approval is in the
# log).  The agent asks for an approval whose approval_created record
# (arguments, plus the evidence that repeats the reason) is larger than a
# record may be (AUDIT_MAX_LINE, 1 MiB) while the call itself fits a
# frame; the test plays a human who approves whatever is pending through
# the control socket.  Before the fix the record was silently dropped,
# the human's grant went through and the agent was told "approved": a
# log that verified "valid and closed" held an approval_granted for an
# approval it never recorded.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
command -v python3 >/dev/null || { echo "skip: python3 is missing"; exit 77; }

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: request_approval
    input: { action: string, reason: string, evidenceUris: string_list }
    output: { decision: approved_or_rejected, approver: string }
    sideEffect: none
    timeoutMs: 60000
approvals:
  approvers: [root]
  ttlSeconds: 60
YAML
. "$top_srcdir/tests/integration/approval_lib.sh"

# Call 1: ~1 MB of arguments (a frame is at most 1 MiB); its
# approval_created holds them and the reason once more (~1.25 MB).
# Call 2: an ordinary approval, which must still work.
python3 - "$ws/calls" <<'PY'
import json, sys
big = {"name": "request_approval", "arguments": {"action": "a" * 250000,
    "reason": "r" * 250000, "evidenceUris": ["u" * 250000, "v" * 250000]}}
small = {"name": "request_approval", "arguments": {"action": "merge",
    "reason": "small", "evidenceUris": []}}
with open(sys.argv[1], "w") as f:
    for c in (big, small):
        f.write(json.dumps(c, separators=(",", ":")) + "\n")
PY
check "the big call fits a frame" test "$(head -n 1 "$ws/calls" | wc -c)" -lt 1048576

# The human: approves the first pending approval whose reason is
# REASON_LEN long (with a note NOTE_LEN long), through the control socket
# (no 64 KiB client limit), for up to SECONDS; prints "approved",
# "refused: WHY" or "none".
cat >"$T/human.py" <<'PY'
import glob, json, socket, sys, time
d, want, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
note = "n" * int(sys.argv[4]) if len(sys.argv) > 4 else None
def call(path, req):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((json.dumps(req) + "\n").encode())
    buf = b""
    while b"\n" not in buf:
        c = s.recv(1 << 20)
        if not c:
            break
        buf += c
    s.close()
    return json.loads(buf)
end = time.time() + secs
while time.time() < end:
    for sock in glob.glob(d + "/*.sock"):
        try:
            r = call(sock, {"op": "pending"})
        except (OSError, ValueError):
            continue
        for p in r.get("pending", []):
            if len(p["arguments"].get("reason", "")) == want:
                req = {"op": "approve", "id": p["id"], "digest": p["digest"]}
                if note:
                    req["note"] = note
                r = call(sock, req)
                print("approved" if r.get("ok") else
                    "refused: %s" % r.get("error"))
                sys.exit(0)
    time.sleep(0.1)
print("none")
PY

appr_agent_start "$T/m.yaml" calls
h=$(python3 "$T/human.py" "$AIRLOCK_RUNTIME_DIR" 250000 4)
expect_eq "an approval the log cannot record is never pending for a human" "$h" none
appr_reply 1
expect_error_class "  the agent is refused: audit_unavailable" audit_unavailable
expect_not_contains "  and is not told approved" "$R" '"decision":"approved"'

h=$(python3 "$T/human.py" "$AIRLOCK_RUNTIME_DIR" 5 20)
expect_eq "an ordinary approval still reaches the human" "$h" approved
appr_reply 2
expect_eq "  and is granted" "$(jr .result.structuredContent.decision)" approved
appr_agent_stop

sess=$(newest_session)
log="$sess/audit.jsonl"
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "the log verifies, valid and closed" "$?" 0
# Every approval granted is one the log recorded asking for.
created=$(jq -r 'select(.event == "approval_created") | .fields.id' "$log" | sort)
granted=$(jq -r 'select(.event == "approval_granted") | .fields.approval' "$log" | sort)
expect_eq "one approval granted" "$(printf '%s\n' "$granted" | grep -c .)" 1
expect_eq "every approval_granted has its approval_created" \
    "$(comm -13 <(printf '%s\n' "$created") <(printf '%s\n' "$granted") | grep -c .)" 0
n=$(jq -r 'select(.event == "result" and .fields.id == 1) | .fields.errorClass' "$log")
expect_eq "the refusal of call 1 is in the log" "$n" audit_unavailable

# A grant the log cannot record (a full disk: the state directory on a
# 256 KiB tmpfs, filled; the human's 8 KiB note needs a new page) is not
# given: the human is told, the approval stays pending, the agent gets no
# answer.  Once the disk has room, the same approval can be granted.
# Before the fix the grant went through unrecorded, and the agent's
# "approved" result (a short record that fit the log's last page once
# the failed line was cut back) was logged without any approval_granted.
printf '%s\n' '{"name":"request_approval","arguments":{"action":"ship","reason":"full","evidenceUris":[]}}' >"$ws/calls2"
mkdir "$T/home2"
cat >"$T/inner.sh" <<INNER
mount -t tmpfs -o size=256k tmpfs "$T/home2" || exit 99
export AIRLOCK_HOME="$T/home2"
ws="$ws" AIRLOCK="$AIRLOCK" T="$T"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/approval_lib.sh"
appr_agent_start "$T/m.yaml" calls2
# Wait until the approval is pending.
for i in \$(seq 200); do
	python3 - "$AIRLOCK_RUNTIME_DIR" <<'PY' && break
import glob, json, socket, sys
for sock in glob.glob(sys.argv[1] + "/*.sock"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sock)
    s.sendall(b'{"op":"pending"}\n'); r = json.loads(s.makefile().readline())
    sys.exit(0 if r.get("pending") else 1)
sys.exit(1)
PY
	sleep 0.1
done
dd if=/dev/zero of="$T/home2/fill" bs=1k 2>/dev/null
python3 "$T/human.py" "$AIRLOCK_RUNTIME_DIR" 4 5 8192 >"$T/full.out"
sleep 0.5
sed -n 's/^R1 //p' "\$OUT" >"$T/early.out"
rm -f "$T/home2/fill"
python3 "$T/human.py" "$AIRLOCK_RUNTIME_DIR" 4 5 >"$T/room.out"
appr_reply 1
printf '%s\n' "\$R" >"$T/late.out"
appr_agent_stop
cp -r "$T/home2/sessions" "$T/sessions2"
INNER
OUT="$T/agent2.out" unshare -m bash "$T/inner.sh"
rc=$?
check "the test's private tmpfs was mounted" [ "$rc" -ne 99 ]
expect_contains "a grant the full log cannot record is refused to the human" \
    "$(cat "$T/full.out")" "refused: the audit log cannot record the grant"
expect_eq "  and the agent has no answer meanwhile" "$(cat "$T/early.out")" ""
expect_eq "once the disk has room, the pending approval can be granted" \
    "$(cat "$T/room.out")" approved
R=$(cat "$T/late.out")
expect_eq "  and the agent is told approved" "$(jr .result.structuredContent.decision)" approved
log=$(ls "$T"/sessions2/*/audit.jsonl)
"$AIRLOCK" audit verify "$log" >"$T/verify2.out" 2>&1
expect_eq "that log verifies, valid and closed" "$?" 0
expect_eq "it holds one approval_granted, the recorded one" \
    "$(jq -r 'select(.event == "approval_granted") | .fields.by' "$log" | grep -c .)" 1
expect_eq "  without the unrecordable note" \
    "$(jq -r 'select(.event == "approval_granted") | .fields.note // "none"' "$log")" none
finish
