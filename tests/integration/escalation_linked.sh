#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A one-call escalation that grants a runner a write of the other name
# of a workspace file (a hard link).  The walk for hard links
# (broker/wslinks.h) judges only the trees the agent writes as it
# starts: a package store out of its reach holds no name it may write,
# so the workspace files linked from it do not count.  But an escalated
# run may write there: the agent, from inside its read-only sandbox
# under "airlock run", has a tool's run name the store's file (a write
# denial), a human grants the re-run a write of it, and while that run
# holds its rewrite, an approved deploy sources the workspace's lib.sh
# and a check reads it.  The deploy must be refused (workspace_linked:
# nobody asked) and the check's pass must count toward no gate (sealed,
# and the seal broken by the write through the other name); the
# rewrite itself happens (the runner was granted it).  Then the other
# order: the deploy approved (no runner wrote the store then) and
# running, and the escalation granted under it: the re-run is held
# (escalation_held) until the deploy has ended, then runs
# (escalation_applied), and the deploy runs what the approver was
# shown; while it is held the agent's plain build is refused the write
# and a second escalate of the same denial is refused (used); a second
# escalation granted meanwhile is held too, then refused
# workspace_linked once the first has run; a second deploy approved
# while they are held runs, and they wait for it too.  Then a check
# running when the escalation is granted: its pass, through the
# rewrite, counts toward no gate either (sealed as it ends).  Last, a
# held escalation cancelled, and the session ending with another held:
# refused (sessionEnded), never run.
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# The store and the workspace share a filesystem ($T's); the store is
# seen at /srv (this test's own mount namespace), which no sandbox shows
# but read-only (sandbox.readOnly), and no walk judges.
mkdir -p "$T/srv/store" "$T/srv/agenthome" "$ws/node_modules"
mount --bind "$T/srv" /srv || { echo "not ok - cannot bind $T/srv on /srv"; exit 1; }
printf 'greet() { echo original; }\n' >/srv/store/lib.sh
ln "$T/srv/store/lib.sh" "$ws/node_modules/lib.sh"
chmod -R a+rwX "$T/srv"
# Owned by the sandbox's uid (airlock run's agent_home()).
[ "$(id -u)" = 0 ] && chown 65534:65534 /srv/agenthome

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 30000
    escalation: ask
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 30000
  - name: deploy2
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy2.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 30000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  lib: ["sh", "check.sh"]
gates:
  required: [lib]
escalation: { forbid: [] }
sandbox:
  readOnly: [/srv/store]
approvals:
  approvers: [root]
  ttlSeconds: 60
agent:
  workspace: ro
  home: /srv/agenthome
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

# Up to 20 s for the test's go (/srv/store/go).
GO_WAIT='i=0; while [ ! -e /srv/store/go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done'
# The build: refused the write at first (read-only: a write denial);
# its escalated re-run, on the go, rewrites the store's lib.sh, holds
# the rewrite 3 s, and puts the original back.
cat >"$ws/build.sh" <<BUILD
: >>/srv/store/lib.sh || exit 1
$GO_WAIT
cp /srv/store/lib.sh /tmp/orig
printf 'greet() { echo REWRITTEN; }\n' >/srv/store/lib.sh
sleep 3
cat /tmp/orig >/srv/store/lib.sh
echo built
BUILD
# The deploy and the check read lib.sh a second after the go.
printf '%s\nsleep 1\n. ./node_modules/lib.sh\ngreet\n' "$GO_WAIT" >"$ws/deploy.sh"
printf '%s\nsleep 1\n. ./node_modules/lib.sh\ngreet | grep -qx REWRITTEN\n' "$GO_WAIT" >"$ws/check.sh"
# The agent: the build, its escalation; once the test says the
# escalated run has started, the deploy and the check; the status last.
cat >"$ws/attack.sh" <<'AGENT'
#!/bin/sh
exec 4<&3
send() { printf '%s\n' "$1" >&3; }
send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{}}}'
left=3
while [ $left -gt 0 ] && IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	*'"id":0,'*) continue ;;
	*'"id":1,'*)
		printf 'R1 %s\n' "$line"
		send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"escalate","arguments":{"callId":1,"denied":["d1"],"reason":"the build updates the store"}}}'
		(
			while [ ! -e "$HOME/deploy-now" ]; do sleep 0.1; done
			send '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
			send '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"lib"}}}'
		) &
		;;
	*'"id":'[234]','*)
		printf 'R%s %s\n' "$(printf '%s' "$line" | sed 's/.*"id":\([234]\),.*/\1/')" "$line"
		left=$((left - 1))
		;;
	esac
done
send '{"jsonrpc":"2.0","id":9,"method":"airlock/session/status","params":{}}'
while IFS= read -r line <&4; do
	case $line in
	*'"id":9,'*) printf 'R9 %s\n' "$line"; break ;;
	esac
done
echo DONE
AGENT
chmod 755 "$ws/attack.sh"

: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/attack.sh" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
appr_reply 1 || { echo "not ok - no reply to the build"; cat "$T/run.err"; exit 1; }
expect_eq "the build was refused writing the store's lib.sh" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" \
    '["filesystem","/srv/store/lib.sh","write"]'
pending() {	# TOOL: its pending approval's id, if any
	"$AIRLOCK" pending --json 2>/dev/null |
	    jq -r --arg t "$1" '.pending[] | select(.tool == $t) | .id' | head -n 1
}
id=
for i in $(seq 200); do id=$(pending build); [ -n "$id" ] && break; sleep 0.1; done
[ -n "$id" ] || { echo "not ok - the escalation opened no approval"; cat "$OUT" "$T/run.err"; exit 1; }
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
sleep 1
touch /srv/agenthome/deploy-now
# The deploy is refused at once, or its approval asked: then granted.
asked=
for i in $(seq 200); do
	grep -q '^R3 ' "$OUT" && break
	asked=$(pending deploy)
	[ -n "$asked" ] && { "$AIRLOCK" approve "$asked" --yes >/dev/null 2>&1; sleep 1; break; }
	sleep 0.1
done
touch /srv/store/go
appr_reply 2 || { echo "not ok - no reply to the escalation"; cat "$OUT" "$T/run.err"; exit 1; }
expect_eq "the escalated build ran, and rewrote the store's lib.sh" \
    "$(jr -r .result.structuredContent.stdout)" built
appr_reply 3 || { echo "not ok - no reply to the deploy"; cat "$OUT" "$T/run.err"; exit 1; }
check "nobody was asked to approve the deploy" test -z "$asked"
expect_not_contains "the deploy never ran the rewrite" "$R" REWRITTEN
expect_eq "... it fails workspace_linked" "$(r_class)" workspace_linked
appr_reply 4 || { echo "not ok - no reply to the check"; cat "$OUT" "$T/run.err"; exit 1; }
expect_eq "the check passed only through the rewrite" \
    "$(jr .result.structuredContent.exitCode)" 0
expect_contains "... and was sealed: the workspace was written while it ran" \
    "$(jr '.result.content[1].text')" \
    "this result of lib does not count toward acceptance: the workspace was written"
appr_reply 9 || { echo "not ok - no status"; cat "$OUT" "$T/run.err"; exit 1; }
gate=$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "lib") | .state)]')
check "... so its pass counts toward no gate ($gate)" \
    test "${gate#\[false,\"}" != "$gate" -a "$gate" != '[false,"pass"]'
appr_agent_stop

# The other order: the deploy approved and running first, then the
# escalation granted (a new session: none of its runners was granted a
# write yet).  The deploy was judged when no runner could write the
# store; the re-run would rewrite lib.sh under it.  The agent sends
# $HOME/q/N (N = 1, 2, ...) as each appears, EXIT ends it; replies are
# printed as R<id>.
cat >"$ws/qagent.sh" <<'AGENT'
#!/bin/sh
exec 4<&3
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
me=$$
(
	n=1
	while :; do
		while [ ! -e "$HOME/q/$n" ]; do sleep 0.1; done
		if [ "$(cat "$HOME/q/$n")" = EXIT ]; then kill $me; exit 0; fi
		cat "$HOME/q/$n" >&3
		n=$((n + 1))
	done
) &
while IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	esac
	printf 'R%s %s\n' "$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')" "$line"
done
AGENT
chmod 755 "$ws/qagent.sh"
printf '%s\nsleep 1\n. ./node_modules/lib.sh\ngreet\n' "${GO_WAIT//go/go2}" >"$ws/deploy2.sh"
qn=0
q_start() {	# a new session of qagent.sh
	rm -rf /srv/agenthome/q /srv/store/go /srv/store/go2
	mkdir -m 755 /srv/agenthome/q
	qn=0
	: >"$OUT"
	"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/qagent.sh" \
	    >"$OUT" 2>"$T/run.err" &
	RUN_PID=$!
}
q() {	# RAW: the agent sends it
	qn=$((qn + 1))
	printf '%s\n' "$1" >/srv/agenthome/q/.next
	chmod 644 /srv/agenthome/q/.next
	mv /srv/agenthome/q/.next "/srv/agenthome/q/$qn"
}
q_call() {	# ID TOOL [ARGS]
	q '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"'"$2"'","arguments":'"${3:-{\}}"'}}'
}
q_escalate() {	# ID CALLID
	q_call "$1" escalate '{"callId":'"$2"',"denied":["d1"],"reason":"the build updates the store"}'
}
approve_pending() {	# TOOL
	local id= i
	for i in $(seq 200); do id=$(pending "$1"); [ -n "$id" ] && break; sleep 0.1; done
	[ -n "$id" ] || return 1
	"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
}
# trail: the session's runs and escalations, as EVENT:ID lines, in order.
trail() {
	jq -r 'select(.event | test("^(runner_start|runner_end|escalation_decision|escalation_held|escalation_applied|escalation_refused)$")) | "\(.event):\(.fields.id)"' \
	    "$(newest_session_log)" 2>/dev/null
}
in_trail() { trail | grep -qx "$1"; }
stop_q() { echo "not ok - $1"; cat "$OUT" "$T/run.err"; trail; exit 1; }

# The builds run before the deploy is approved: a run's result waits
# to land while an approved run runs.
q_start
q_call 1 deploy
q_call 2 build
appr_reply 2 || stop_q "no reply to the build"
q_call 3 build
appr_reply 3 || stop_q "no reply to the second build"
approve_pending deploy || stop_q "the deploy's approval was not asked"
pass "the deploy's approval was asked (no runner writes the store yet)"
wait_for in_trail runner_start:1 || stop_q "the deploy did not start"
q_escalate 4 2
approve_pending build || stop_q "the escalation opened no approval"
wait_for in_trail escalation_held:4 || stop_q "the escalation granted while the deploy ran was not held"
pass "the escalation granted while the deploy runs is held"
# A second escalation granted during the same run.
q_escalate 5 3
approve_pending build || stop_q "the second escalation opened no approval"
wait_for in_trail escalation_held:5 || stop_q "the second escalation was not held"
pass "... a second escalation granted during the same run is held too"
# The agent tries the write while they are held: its plain build (its
# result lands once the deploy has ended), and the same denial
# escalated again.
q_call 6 build
denied6() {
	jq -c 'select(.event == "sandbox_denial" and .fields.id == 6) | .fields | [.path, .access]' \
	    "$(newest_session_log)" 2>/dev/null | grep -qx '\["/srv/store/lib.sh","write"\]'
}
wait_for denied6 || stop_q "the build run while the escalations are held was not refused the write"
pass "... the agent's build meanwhile is refused the write"
q_escalate 7 2
appr_reply 7 || stop_q "no reply to the second escalate of the same denial"
expect_eq "... the same denial escalated again is refused" \
    "$(r_class)/$(jr -r .result.structuredContent.reason)" escalation_refused/used
# A second deploy approved while both are held.
q_call 8 deploy2
approve_pending deploy2 || stop_q "the second deploy's approval was not asked"
wait_for in_trail runner_start:8 || stop_q "the second deploy did not start while the escalations were held"
pass "... a deploy approved while they are held runs"
# The first deploy ends (its result lands once no approved run runs).
touch /srv/store/go
wait_for in_trail runner_end:1 || stop_q "the deploy did not end"
sleep 0.5
check "the escalations are still held while the second deploy runs" \
    test -z "$(trail | grep -e '^escalation_applied' -e '^runner_start:[45]$')"
expect_eq "... which has not seen the rewrite either" \
    "$(cat /srv/store/lib.sh)" 'greet() { echo original; }'
touch /srv/store/go2
appr_reply 1 || stop_q "no reply to the deploy"
expect_eq "the deploy ran what the approver was shown" \
    "$(jr -r .result.structuredContent.stdout)" original
appr_reply 8 || stop_q "no reply to the second deploy"
expect_eq "the second deploy ran what its approver was shown" \
    "$(jr -r .result.structuredContent.stdout)" original
appr_reply 4 || stop_q "no reply to the escalation"
expect_eq "once both deploys ended, the escalated build ran, and rewrote the store's lib.sh" \
    "$(jr -r .result.structuredContent.stdout)" built
expect_eq "... granted, held, applied (audited), after both deploys' ends" \
    "$(trail | grep -e ':[1458]$' | tr '\n' ' ')" \
    "runner_start:1 escalation_decision:4 escalation_held:4 escalation_decision:5 escalation_held:5 runner_start:8 runner_end:1 runner_end:8 escalation_applied:4 runner_start:4 runner_end:4 "
appr_reply 5 || stop_q "no reply to the second escalation"
expect_eq "the second escalation is refused once the first ran: every linked file counts" \
    "$(r_class)" workspace_linked
expect_contains "... saying why" "$(jr -r .result.structuredContent.message)" \
    "given a write by an escalation (every such file counts for the rest of the session)"
appr_reply 6 || stop_q "no reply to the build run while they were held"
expect_eq "... and the build run while they were held was refused the write" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" \
    '["filesystem","/srv/store/lib.sh","write"]'
# Every field of the new records is documented (tests/lib.sh).
audit_doc_fields "$top_srcdir/docs/AUDIT.md" | grep -E '^escalation_(held|applied) ' |
    cut -d' ' -f1,2 >"$T/doc"
jq -r 'select(.event | test("^escalation_(held|applied)$")) | .event as $e | .fields | keys[] | "\($e) \(.)"' \
    "$(newest_session_log)" | sort -u >"$T/real"
expect_eq "escalation_held and escalation_applied carry the fields docs/AUDIT.md names" \
    "$(cat "$T/real")" "$(cat "$T/doc")"
q EXIT
appr_agent_stop

# A check running when the escalation is granted: sealed as it ends.
# (It runs the check, then the build, its refusal escalated.)
rm -f /srv/store/go
cat >"$ws/attack2.sh" <<'AGENT'
#!/bin/sh
exec 4<&3
send() { printf '%s\n' "$1" >&3; }
send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"build","arguments":{}}}'
left=2
while [ $left -gt 0 ] && IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	*'"id":0,'*) continue ;;
	*'"id":2,'*)
		printf 'R2 %s\n' "$line"
		send '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"escalate","arguments":{"callId":2,"denied":["d1"],"reason":"the build updates the store"}}}'
		;;
	*'"id":'[13]','*)
		printf 'R%s %s\n' "$(printf '%s' "$line" | sed 's/.*"id":\([13]\),.*/\1/')" "$line"
		left=$((left - 1))
		;;
	esac
done
echo DONE
AGENT
chmod 755 "$ws/attack2.sh"
sed -e 's/"name":"deploy","arguments":{}/"name":"run_check","arguments":{"checkId":"lib"}/' \
    -e 's/^echo DONE$/send '"'"'{"jsonrpc":"2.0","id":9,"method":"airlock\/session\/status","params":{}}'"'"'; IFS= read -r line <\&4; printf "R9 %s\\n" "$line"/' \
    "$ws/attack2.sh" >"$ws/attack3.sh"
chmod 755 "$ws/attack3.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/attack3.sh" \
    >"$OUT" 2>"$T/run3.err" &
RUN_PID=$!
id=
for i in $(seq 200); do id=$(pending build); [ -n "$id" ] && break; sleep 0.1; done
[ -n "$id" ] || { echo "not ok - the third escalation opened no approval"; cat "$OUT" "$T/run3.err"; exit 1; }
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
sleep 1
touch /srv/store/go
appr_reply 1 || { echo "not ok - no reply to the third check"; cat "$OUT" "$T/run3.err"; exit 1; }
expect_eq "a check started before the escalation passed through the rewrite" \
    "$(jr .result.structuredContent.exitCode)" 0
expect_contains "... and was sealed as it ended" "$(jr '.result.content[1].text')" \
    "this result of lib does not count toward acceptance: the workspace was written"
appr_reply 9 || { echo "not ok - no third status"; cat "$OUT" "$T/run3.err"; exit 1; }
gate=$(jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "lib") | .state)]')
check "... so its pass counts toward no gate ($gate)" \
    test "${gate#\[false,\"}" != "$gate" -a "$gate" != '[false,"pass"]'
appr_agent_stop

# A held escalation cancelled, and the session ending while another is
# held: refused, never run.
q_start
q_call 1 deploy
q_call 2 build
appr_reply 2 || stop_q "no reply to the last build"
q_call 3 build
appr_reply 3 || stop_q "no reply to the last second build"
approve_pending deploy || stop_q "the last deploy's approval was not asked"
wait_for in_trail runner_start:1 || stop_q "the last deploy did not start"
q_escalate 4 2
approve_pending build || stop_q "the last escalation opened no approval"
wait_for in_trail escalation_held:4 || stop_q "the last escalation was not held"
q_escalate 5 3
approve_pending build || stop_q "the last second escalation opened no approval"
wait_for in_trail escalation_held:5 || stop_q "the last second escalation was not held"
q '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"not now"}}'
appr_reply 5 || stop_q "no reply to the cancelled escalation"
expect_eq "a held escalation cancelled is answered so" "$(r_class)" cancelled
expect_eq "... and audited in that state" \
    "$(jq -c 'select(.event == "cancel_request") | .fields | [.id, .stopped, .state]' "$(newest_session_log)")" \
    '[5,true,"escalation_held"]'
q EXIT
appr_agent_stop
expect_eq "the session ended with the other held: refused (sessionEnded), neither ran" \
    "$(jq -c 'select(.event == "escalation_refused") | .fields | [.id, .callId, .reason]' "$(newest_session_log)")/$(trail | grep -c -e '^escalation_applied' -e '^runner_start:[45]$')" \
    '[4,2,"sessionEnded"]/0'
expect_eq "... and the store's lib.sh was never rewritten" \
    "$(cat /srv/store/lib.sh)" 'greet() { echo original; }'
check "... and the session's log, its last records written at its end, verifies" \
    "$AIRLOCK" audit verify "$(newest_session_log)"
finish
