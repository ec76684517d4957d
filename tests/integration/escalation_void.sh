#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An escalation whose approval is voided still shows its widening.  The
# agent, in its real sandbox under "airlock run", has a tool's run refused
# a read of a file in its home and escalates it; while the human decides,
# the workspace changes, so the grant finds another workspace than the
# one shown and voids the approval (approval_rebind()).  The approval
# asked again binds the same widening (the execution's "widening"), but
# its evidence carried only what changed: "airlock pending" and "approve"
# showed an ordinary run of "build", with no ESCALATION line and no path,
# and a yes to it re-ran the call with the read allowed.
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# A tmpfs on /srv (this test's own mount namespace): the agent's home.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
chmod 755 /srv

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
    escalation: ask
escalation: { forbid: [] }
approvals:
  approvers: [root]
  ttlSeconds: 60
agent:
  home: /srv/agenthome
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

printf 'cat /srv/agenthome/cache/key\n' >"$ws/build.sh"
cat >"$ws/agent.sh" <<'AGENT'
#!/bin/sh
mkdir -p "$HOME/cache"
echo harmless-cache >"$HOME/cache/key"
exec 4<&3
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{}}}'
} >&3
while IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	*'"id":0,'*) continue ;;
	*'"id":1,'*)
		printf 'R1 %s\n' "$line"
		printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"escalate","arguments":{"callId":1,"denied":["d1"],"reason":"the build reads its cache"}}}' >&3
		;;
	*'"id":2,'*)
		printf 'R2 %s\n' "$line"
		break
		;;
	esac
done
echo DONE
AGENT
chmod 755 "$ws/agent.sh"

# pending_build [NOT-ID]: the id of a pending approval of build (not NOT-ID).
pending_build() {
	local i id
	for i in $(seq 200); do
		id=$("$AIRLOCK" pending --json 2>/dev/null |
		    jq -r --arg not "${1:-}" '.pending[] | select(.tool == "build" and .id != $not) | .id' | head -n 1)
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}

: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/agent.sh" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
appr_reply 1 || { echo "not ok - no reply to the build"; cat "$T/run.err"; exit 1; }
expect_eq "the build's read of the agent's cache is a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.denial, .layer, .path, .access]')" \
    '["d1","filesystem","/srv/agenthome/cache/key","read"]'
id=$(pending_build) || { echo "not ok - the escalation opened no approval"; cat "$OUT" "$T/run.err"; exit 1; }
expect_contains "the first approval shows the escalation" \
    "$("$AIRLOCK" pending 2>&1)" "ESCALATION: re-runs call 1 once with, for that run only:"
# The workspace changes while the human reads: the grant voids it.
echo "changed while the human decided" >"$ws/notes.txt"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
id2=$(pending_build "$id") || { echo "not ok - the void asked no one again"; cat "$OUT" "$T/run.err"; exit 1; }
pass "the grant found another workspace: the approval was voided and asked again"
"$AIRLOCK" pending >"$T/p.out" 2>&1
"$AIRLOCK" pending -v >"$T/pv.out" 2>&1
echo n | "$AIRLOCK" approve "$id2" >"$T/prompt.out" 2>&1
for f in p pv prompt; do
	expect_contains "$f: the approval asked again shows the escalation" "$(cat "$T/$f.out")" \
	    "ESCALATION: re-runs call 1 once with, for that run only:"
	expect_contains "$f: ... and exactly what the run gets" "$(cat "$T/$f.out")" \
	    "d1  read-only /srv/agenthome/cache/key"
done
expect_contains "the approval asked again says what changed" "$(cat "$T/pv.out")" "voidedApproval"
"$AIRLOCK" approve "$id2" --yes >/dev/null 2>&1
appr_reply 2 || { echo "not ok - no reply to the escalation"; cat "$OUT" "$T/run.err"; exit 1; }
appr_agent_stop
expect_contains "approved again: the re-run read the cache" "$(jr -r .result.structuredContent.stdout)" "harmless-cache"
sess=$(newest_session)
expect_eq "the audit log has the void and both approvals" \
    "$(jq -r 'select(.event == "approval_voided" or .event == "approval_granted") | .event' "$sess/audit.jsonl" | tr '\n' ' ')" \
    "approval_granted approval_voided approval_granted "
finish
