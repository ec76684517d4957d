#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval binds the workspace the approver was shown
# (approval_unwatched.sh): the grant digests it twice, compares the
# seals, and the watch of the agent's writes voids the yes for a write
# made after that.  The watch skipped the root's .airlock-* names
# (airlock's own: an apply's trash), which the digest holds: an agent
# that writes its workspace (agent.workspace: rw) rewrote .airlock-note,
# which the approved "deploy" prints, the moment the grant's second
# digest had read it, and the human's yes ran the rewrite ("EVIL").
# Now such a change is counted (not reported to the agent) and the yes
# is void.  The attack is made from inside the agent's sandbox.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
[ -x /usr/bin/python3 ] || { echo "# skip: no /usr/bin/python3"; exit 77; }

cat >"$T/m.yaml" <<EOF2
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh", "{target}"]
    sideEffect: external
    authorization: approval
    timeoutMs: 20000
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 30
agent:
  workspace: rw
EOF2
chmod 644 "$T/m.yaml"

# deploy.sh prints .airlock-note; zbig keeps each digest a while behind
# it (both are dated ahead: each digest hashes them again).
ws="$T/ws"
mkdir -p "$ws"
printf '#!/bin/sh\necho "deploying $1"\ncat .airlock-note\n' >"$ws/deploy.sh"
echo "note ok" >"$ws/.airlock-note"
head -c 64M /dev/zero >"$ws/zbig"

# The agent asks for a deploy with a progressToken and, once it is
# pending ("AGENT READY 2"), rewrites .airlock-note the moment the
# grant's second digest has read it (its second IN_CLOSE_NOWRITE).
{ cat "$top_srcdir/tests/integration/mcp_agent.py"; cat <<'EOF2'
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18"}})
line()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "deploy", "arguments": {"target": "prod"},
                 "_meta": {"progressToken": 2}}})
m = None
while True:
    m = line()
    if m is None or m.get("id") == 2:
        break
    if m.get("method") == "notifications/progress":
        m = None
        break
if m is None:
    libc = ctypes.CDLL(None, use_errno=True)
    ifd = libc.inotify_init1(0)
    # A time ahead of the clock is racy for good (broker/wsindex.h):
    # every digest reads both again, however slow the approval.
    ahead = int(time.time()) + 86400
    os.utime("zbig", (ahead, ahead))
    os.utime(".airlock-note", (ahead, ahead))
    libc.inotify_add_watch(ifd, b".airlock-note", 0x10)
    reads = 0
    say("READY 2")
    while True:
        r, _, _ = select.select(([ifd] if ifd >= 0 else []) +
                                ([] if buf else [rd]), [], [])
        if ifd in r:
            os.read(ifd, 4096)
            reads += 1
            if reads == 2:
                with open(".airlock-note", "w") as f:
                    f.write("note EVIL\n")
                say("rewrote it")
                ifd = -1
            continue
        m = line()
        if m is None or m.get("id") == 2:
            break
say("reply 2 " + json.dumps(m, separators=(",", ":")))
EOF2
} >"$ws/agent.py"
chmod -R a+rwX "$ws"

OUT="$T/out"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- \
    /usr/bin/python3 "$ws/agent.py" >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
at_exit 'kill $RUN_PID 2>/dev/null; wait $RUN_PID 2>/dev/null'

APPROVED=
for i in $(seq 300); do
	grep -q "^AGENT \(READY\|reply\) 2" "$OUT" && break
	sleep 0.1
done
if grep -q "^AGENT READY 2" "$OUT"; then
	APPROVED=$("$AIRLOCK" pending --json 2>/dev/null |
	    jq -r '.pending[] | select(.tool == "deploy") | .id' | head -n 1)
	"$AIRLOCK" approve "$APPROVED" --yes >/dev/null 2>&1
fi
for i in $(seq 300); do
	grep -q "^AGENT reply 2" "$OUT" && break
	# A voided approval is asked again: nobody says yes to it.
	id=$("$AIRLOCK" pending --json 2>/dev/null |
	    jq -r '.pending[] | select(.tool == "deploy") | .id' | head -n 1)
	[ -n "$id" ] && [ "$id" != "$APPROVED" ] &&
	    "$AIRLOCK" deny "$id" --reason stop >/dev/null 2>&1
	sleep 0.1
done
R=$(sed -n "s/^AGENT reply 2 //p" "$OUT")
mcp_error_body
check "a human approved the deploy" test -n "$APPROVED"
expect_contains "the agent rewrote .airlock-note after the grant's second digest read it" \
    "$(cat "$OUT")" "AGENT rewrote it"
expect_contains "the watch saw it: the approval was voided" "$R" "was voided at grant"
expect_not_contains "the rewritten .airlock-note did not reach a run" "$R" EVIL
expect_not_contains "... nor was it reported to the agent as a change" "$R" "modified .airlock-note"
runs=$(grep -c '"runner_start".*"deploy"' "$(newest_session)/audit.jsonl")
expect_eq "no runner started for it" "$runs" 0

for i in $(seq 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
kill "$RUN_PID" 2>/dev/null
wait "$RUN_PID"
finish
