#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Approvals against a live "airlock run": a scripted agent calls a tool
# that needs a human's approval and the test plays the human with
# airlock pending / approve / deny: approve (the call runs, its result
# reaches the agent), deny (approval_denied with the reason), expiry
# (approval_expired), a peer that is not an approver (refused, audited),
# replay of a used approval, a decision bound to the action's digest, and
# the request_approval tool.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
UC="$top_builddir/tests/unixclient"
ws=$(make_workspace)

manifest() {	# FILE TTL
	cat >"$1" <<EOF
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256 }
    sideEffect: none
    timeoutMs: 2000
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "deployed", "{target}"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
  - name: request_approval
    input: { action: string, reason: string, evidenceUris: string_list }
    output: { decision: approved_or_rejected, approver: string }
    sideEffect: none
    timeoutMs: 60000
approvals:
  approvers: [root]
  ttlSeconds: $2
EOF
}
manifest "$T/appr.yaml" 60
manifest "$T/short.yaml" 1

# The agent: one tools/call per line of its script file (in the
# workspace), each reply printed as "R<n> <reply>" once it arrives.
cat >"$ws/agent.sh" <<'EOF'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
n=0
while IFS= read -r call; do
	n=$((n + 1))
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' $n "$call" >&3
	while IFS= read -r line <&3; do
		case $line in
		*'"method":'*) printf 'N%d %s\n' $n "$line"; continue ;;
		esac
		break
	done
	printf 'R%d %s\n' $n "$line"
done <"$1"
echo DONE
EOF
chmod 755 "$ws/agent.sh"

OUT="$T/agent.out"
start_agent() {	# MANIFEST SCRIPT
	: >"$OUT"
	"$AIRLOCK" run --manifest "$1" --workspace "$ws" -- "$ws/agent.sh" "$ws/$2" \
	    >"$OUT" 2>"$T/run.err" &
	RUN_PID=$!
}
# reply N: waits (up to 20 s) for the agent's N-th reply; leaves it in $R.
reply() {
	local i
	R=
	for i in $(seq 200); do
		R=$(sed -n "s/^R$1 //p" "$OUT")
		[ -n "$R" ] && { mcp_error_body; return 0; }
		sleep 0.1
	done
	return 1
}
# pending_id TARGET: waits for a pending deploy of TARGET; prints its id.
pending_id() {
	local i id
	for i in $(seq 200); do
		id=$("$AIRLOCK" pending 2>/dev/null | awk -v t="\"target\":\"$1\"" '
		    /^[0-9a-f]+ / { id = $1; tool = $3; next }
		    index($0, t) { print id; exit }')
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}
pending_id_tool() {	# TOOL
	local i id
	for i in $(seq 200); do
		id=$("$AIRLOCK" pending 2>/dev/null | awk -v t="$1" '$3 == t { print $1; exit }')
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}
digest_of() { "$AIRLOCK" pending -v | awk -v id="$1" '$1 == id { on = 1; next } /^[0-9a-f]+ / { on = 0 } on && $1 == "digest:" { print $2; exit }'; }
stop_agent() {
	local i
	for i in $(seq 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$RUN_PID" 2>/dev/null
	wait "$RUN_PID"
}

# ===== Approve, deny, wrong peer, replay, digest ===================================
cat >"$ws/calls1" <<'EOF'
{"name":"deploy","arguments":{"target":"alpha"}}
{"name":"deploy","arguments":{"target":"beta"}}
{"name":"deploy","arguments":{"target":"gamma"}}
{"name":"deploy","arguments":{"target":"delta"}}
{"name":"request_approval","arguments":{"action":"merge the fix","reason":"the gate passes","evidenceUris":["airlock://x/artifacts/1"]}}
{"name":"request_approval","arguments":{"action":"push to main","reason":"because","evidenceUris":[]}}
{"name":"read_file","arguments":{"path":"README.md"}}
{"name":"deploy","arguments":{"target":"progress"},"_meta":{"progressToken":"tok-8"}}
EOF
start_agent "$T/appr.yaml" calls1
SOCKDIR="$AIRLOCK_RUNTIME_DIR"

id=$(pending_id alpha)
check "a call needing approval is pending (airlock pending lists it)" test -n "$id"
P=$("$AIRLOCK" pending)
expect_contains "airlock pending shows the tool" "$P" deploy
expect_contains "airlock pending shows the exact arguments" "$P" '{"target":"alpha"}'
PV=$("$AIRLOCK" pending -v)
expect_contains "airlock pending -v shows the digest" "$PV" "digest:"
check "the agent has no answer while the approval is pending" test -z "$(sed -n 's/^R1 //p' "$OUT")"
sess=$(newest_session)
check "the pending approval is audited" grep -q '"approval_created"' "$sess/audit.jsonl"
"$AIRLOCK" approve "$id" --yes >"$T/approve.out" 2>&1
expect_eq "airlock approve ID --yes succeeds" "$?" 0
reply 1
expect_ok_result "approved: the call runs"
expect_eq "approved: its result reaches the agent" "$(jr .result.structuredContent.stdout)" "deployed alpha"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>"$T/again.err"
expect_eq "approving the same id again fails (single use): no such pending approval" "$?" 66
expect_contains "  and says so" "$(cat "$T/again.err")" "no pending approval"
check "the grant is audited" grep -q '"approval_granted"' "$sess/audit.jsonl"

id=$(pending_id beta)
check "the next call is pending" test -n "$id"
"$AIRLOCK" deny "$id" >/dev/null 2>"$T/noreason.err"
expect_eq "airlock deny without --reason is a usage error" "$?" 64
expect_contains "  naming --reason" "$(cat "$T/noreason.err")" "reason"
"$AIRLOCK" deny "$id" --reason "not today, friend" >/dev/null 2>&1
expect_eq "airlock deny ID --reason R succeeds" "$?" 0
reply 2
expect_error_class "denied: the agent gets approval_denied" approval_denied
expect_contains "denied: the reason reaches the agent" "$(jr .result.structuredContent.message)" "not today, friend"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>"$T/afterdeny.err"
expect_eq "a denied approval cannot be approved afterwards" "$?" 66
expect_contains "  it is no longer pending" "$(cat "$T/afterdeny.err")" "no pending approval"
check "the denial is audited with its reason" grep -q '"approval_denied".*not today, friend' "$sess/audit.jsonl"

id_g=$(pending_id gamma)
check "gamma is pending" test -n "$id_g"
digest_g=$(digest_of "$id_g")
check "gamma's digest is shown" test -n "$digest_g"
# A peer who is not an approver: nobody, through the 0700 runtime dir.
setpriv --reuid=65534 --regid=65534 --clear-groups "$AIRLOCK" approve "$id_g" --yes >"$T/nobody.out" 2>&1
expect_eq "a non-approver uid cannot approve (0700 runtime dir): it sees nothing pending" "$?" 66
expect_not_contains "  and nothing was approved" "$(cat "$T/nobody.out")" "approved"
# The same with the socket reachable: the broker itself must refuse the
# peer (SO_PEERCRED) and audit the refusal.
sock="$SOCKDIR/$(basename "$sess").sock"
check "the session's control socket exists" test -S "$sock"
chmod 755 "$SOCKDIR"
chmod 666 "$sock"
setpriv --reuid=65534 --regid=65534 --clear-groups "$AIRLOCK" approve "$id_g" --yes >"$T/nobody2.out" 2>&1
expect_eq "a non-approver uid that reaches the socket is refused" "$?" 1
expect_contains "  as not an approver" "$(cat "$T/nobody2.out")" "not an approver"
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id_g" "$digest_g" |
    setpriv --reuid=65534 --regid=65534 --clear-groups "$UC" "$sock" 2>&1)
expect_contains "the socket answers a non-approver with an error" "$r" "not an approver"
chmod 700 "$SOCKDIR"
chmod 600 "$sock"
n=$(grep -c '"approval_refused_peer".*uid 65534' "$sess/audit.jsonl")
check "each refused peer is audited (airlock approve and the raw client: $n)" test "$n" -ge 2
check "gamma is still pending after the refusals" test "$(pending_id gamma)" = "$id_g"
check "the agent still has no answer for gamma" test -z "$(sed -n 's/^R3 //p' "$OUT")"

# A decision is bound to the action's digest.
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id_g" "$(printf '%064d' 0)" | "$UC" "$sock")
expect_contains "approving with another action's digest is refused" "$r" "digest does not match"
r=$(printf '{"op":"approve","id":"%s"}\n' "$id_g" | "$UC" "$sock")
expect_contains "approving without a digest is refused" "$r" "digest"
r=$(printf '{"op":"deny","id":"%s","digest":"%s"}\n' "$id_g" "$digest_g" | "$UC" "$sock")
expect_contains "a denial without a reason is refused by the socket" "$r" "reason"
r=$(printf 'not json at all\n' | "$UC" "$sock")
expect_contains "a malformed control request is refused" "$r" "error"
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id_g" "$digest_g" | "$UC" "$sock")
expect_contains "the right id and digest approve" "$r" '"ok":true'
reply 3
expect_eq "gamma ran after approval" "$(jr .result.structuredContent.stdout)" "deployed gamma"
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id_g" "$digest_g" | "$UC" "$sock")
expect_contains "replaying a used approval is refused" "$r" "no such pending approval"

id_d=$(pending_id delta)
check "changed arguments make a new pending approval" test -n "$id_d" -a "$id_d" != "$id_g"
digest_d=$(digest_of "$id_d")
check "with a different digest" test -n "$digest_d" -a "$digest_d" != "$digest_g"
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id_d" "$digest_g" | "$UC" "$sock")
expect_contains "the old action's digest does not approve the new one" "$r" "digest does not match"
"$AIRLOCK" approve "$id_g" --yes >/dev/null 2>"$T/oldid.err"
expect_eq "the old id does not approve the new action" "$?" 66
expect_contains "  it is no longer pending" "$(cat "$T/oldid.err")" "no pending approval"
check "the agent has no answer for delta yet" test -z "$(sed -n 's/^R4 //p' "$OUT")"
"$AIRLOCK" deny "$id_d" --reason "wrong target" >/dev/null 2>&1
reply 4
expect_error_class "delta denied" approval_denied

# request_approval: the decision is the result.
id=$(pending_id_tool request_approval)
check "request_approval waits for a human" test -n "$id"
expect_contains "request_approval shows the action to the human" "$("$AIRLOCK" pending)" "merge the fix"
"$AIRLOCK" approve "$id" --yes --note "looks good" >/dev/null 2>&1
reply 5
expect_eq "request_approval approved: decision approved" "$(jr .result.structuredContent.decision)" approved
expect_contains "request_approval names the approver" "$(jr .result.structuredContent.approver)" root
id=$(pending_id_tool request_approval)
"$AIRLOCK" deny "$id" --reason "not now" >/dev/null 2>&1
reply 6
expect_eq "request_approval denied: decision rejected (a result, not an error)" \
    "$(jr -c '[.result.isError, .result.structuredContent.decision]')" '[false,"rejected"]'
reply 7
expect_ok_result "an allowed tool needs no approval"
id=$(pending_id progress)
for i in $(seq 50); do grep -q '^N8 ' "$OUT" && break; sleep 0.1; done
N=$(sed -n 's/^N8 //p' "$OUT" | head -n 1)
R=$N
expect_eq "while waiting, the agent gets notifications/progress with its token" \
    "$(jr -c '[.method, .params.progressToken]')" '["notifications/progress","tok-8"]'
expect_contains "the progress message names the approval" "$(jr .params.message)" "$id"
"$AIRLOCK" deny "$id" --reason "enough" >/dev/null 2>&1
reply 8
expect_error_class "the call with a progress token is denied" approval_denied
stop_agent
expect_eq "the agent finished; airlock run exits 0" "$?" 0
check "the agent saw every reply" grep -q DONE "$OUT"
expect_contains "nothing pending after the session" "$("$AIRLOCK" pending)" "nothing pending"
check "the control socket is removed at the end" test ! -e "$sock"

# ===== Expiry ============================================================================
cat >"$ws/calls2" <<'EOF'
{"name":"deploy","arguments":{"target":"late"}}
{"name":"request_approval","arguments":{"action":"a","reason":"b","evidenceUris":[]}}
EOF
start_agent "$T/short.yaml" calls2
t0=$(date +%s)
reply 1
expect_error_class "no decision within ttlSeconds: approval_expired" approval_expired
expect_eq "expired: retryable" "$(jr .result.structuredContent.retryable)" true
reply 2
expect_error_class "request_approval expires too (fails closed)" approval_expired
t1=$(date +%s)
check "expiry came after about ttlSeconds ($((t1 - t0)) s)" test $((t1 - t0)) -le 8
stop_agent
sess=$(newest_session)
check "the expiry is audited" grep -q '"approval_expired"' "$sess/audit.jsonl"
check "the expired call did not run" bash -c '! grep -q "\"runner_start\"" "$1"' _ "$sess/audit.jsonl"

# ===== Without a usable runtime dir, approvals fail closed =================================
chmod 757 "$AIRLOCK_RUNTIME_DIR"
cat >"$ws/calls3" <<'EOF'
{"name":"deploy","arguments":{"target":"open"}}
EOF
start_agent "$T/appr.yaml" calls3
reply 1
expect_error_class "with an unsafe runtime dir a tool needing approval is refused" approval_required
stop_agent
chmod 700 "$AIRLOCK_RUNTIME_DIR"

# ===== Asked again after a denial (approval fatigue) ========================================
# An agent that was told no asks the same thing again, and again, until a
# tired person clicks yes: here it changes the workspace in between (so
# the workspace digest differs) and gives a new reason, then asks for one
# action three times at once.  The denied action is refused at once,
# nobody asked; one denial of the three copies denies them all.
{ manifest /dev/stdout 60 | sed '/^approvals:/,$d'; cat <<'EOF'
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF
} >"$T/fatigue.yaml"
cat >"$ws/fatigue.sh" <<'EOF'
#!/bin/sh
call() { printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' "$1" "$2" >&3; }
get() {
	while IFS= read -r line <&3; do
		case $line in *'"method":'*) continue ;; esac
		printf 'R %s\n' "$line"
		return
	done
}
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
call 1 '{"name":"deploy","arguments":{"target":"again"}}'; get
call 2 '{"name":"write_file","arguments":{"path":"junk.txt","content":"x"}}'; get
call 3 '{"name":"deploy","arguments":{"target":"again"},"_meta":{"reason":"fixed now, please"}}'; get
call 4 '{"name":"deploy","arguments":{"target":"twin"}}'
call 5 '{"name":"deploy","arguments":{"target":"twin"}}'
call 6 '{"name":"deploy","arguments":{"target":"twin"}}'
get; get; get
call 7 '{"name":"request_approval","arguments":{"action":"push to main","reason":"because","evidenceUris":[]}}'; get
call 8 '{"name":"request_approval","arguments":{"action":"push to main","reason":"the tests pass now","evidenceUris":["airlock://x/artifacts/2"]}}'; get
echo DONE
EOF
chmod 755 "$ws/fatigue.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/fatigue.yaml" --workspace "$ws" -- "$ws/fatigue.sh" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
# freply N: waits (up to 20 s) for the fatigue agent's reply to call N.
freply() {
	local i
	for i in $(seq 200); do
		R=$(sed -n 's/^R //p' "$OUT" | jq -c --argjson n "$1" 'select(.id == $n)' 2>/dev/null)
		[ -n "$R" ] && { mcp_error_body; return 0; }
		sleep 0.1
	done
	R=
	return 1
}
id=$(pending_id again)
check "the first ask is pending" test -n "$id"
"$AIRLOCK" deny "$id" --reason "no deploys today" >/dev/null 2>&1
freply 1
expect_error_class "the first ask is denied" approval_denied
freply 2
expect_ok_result "the agent changed the workspace"
check "  (the file is there)" test -f "$ws/junk.txt"
freply 3
expect_error_class "the same action asked again is refused at once" approval_denied
expect_contains "  saying it was denied and is not asked again" \
    "$(jr .result.structuredContent.message)" "does not ask again"
expect_eq "  not retryable" "$(jr .result.structuredContent.retryable)" false
sess=$(newest_session)
expect_eq "only the first ask reached a human" \
    "$(grep '"approval_created"' "$sess/audit.jsonl" | grep -c '"target":"again"')" 1
check "the refusal is audited, naming the denial" \
    grep -q "\"approval_repeat_refused\".*\"deniedApproval\":\"$id\"" "$sess/audit.jsonl"
for i in $(seq 200); do
	n=$("$AIRLOCK" pending --json 2>/dev/null | jq '[.pending[] | select(.arguments.target == "twin")] | length')
	[ "$n" = 3 ] && break
	sleep 0.1
done
expect_eq "three copies of one action are pending" "$n" 3
id=$(pending_id twin)
"$AIRLOCK" deny "$id" --reason "one is enough" >/dev/null 2>&1
for n in 4 5 6; do
	freply $n
	expect_error_class "copy $n is denied with the first" approval_denied
done
expect_eq "no copy is left pending to say yes to" \
    "$("$AIRLOCK" pending --json | jq '[.pending[] | select(.arguments.target == "twin")] | length')" 0
expect_eq "each copy's denial is audited" \
    "$(grep -c '"approval_denied".*"one is enough"' "$sess/audit.jsonl")" 3
# request_approval: a new reason or new evidence for an action denied is
# the same question again.
id=$(pending_id_tool request_approval)
"$AIRLOCK" deny "$id" --reason "not now" >/dev/null 2>&1
freply 7
expect_eq "request_approval denied: rejected" "$(jr .result.structuredContent.decision)" rejected
freply 8
expect_error_class "the same request_approval action with a new reason is refused at once" approval_denied
expect_contains "  not asked again" "$(jr .result.structuredContent.message)" "does not ask again"
expect_eq "  only the first reached a human" \
    "$(grep -c '"approval_created".*"push to main"' "$sess/audit.jsonl")" 1
stop_agent

# ===== A denial outlives the run: airlock run --resume ===================================
# The agent's session is copy-on-write; the human denies a deploy; the run
# ends; the agent resumes the session and asks the same thing again: it is
# refused at once, nobody is asked (the denial came back from the verified
# log's run_budget record).
manifest "$T/cow.yaml" 60
echo 'agent: { workspace: cow }' >>"$T/cow.yaml"
echo '{"name":"deploy","arguments":{"target":"resumed"}}' >"$ws/calls_resume"
start_agent "$T/cow.yaml" calls_resume
id=$(pending_id resumed)
check "the first run's ask is pending" test -n "$id"
"$AIRLOCK" deny "$id" --reason "not this week" >/dev/null 2>&1
reply 1
expect_error_class "the first run's ask is denied" approval_denied
stop_agent
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/run.err" | tail -1)
check "the run leaves a session to resume" test -n "$S"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/cow.yaml" --workspace "$ws" --resume "$S" -- \
    "$ws/agent.sh" "$ws/calls_resume" >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
reply 1
expect_error_class "after a resume, the denied action is refused at once" approval_denied
expect_contains "  saying a human denied it" "$(jr .result.structuredContent.message)" "approval $id"
stop_agent
sess=$(newest_session)
expect_eq "  nobody was asked in the resumed run" "$(grep -c '"approval_created"' "$sess/audit.jsonl")" 0
check "  the refusal is audited, naming the denial" \
    grep -q "\"approval_repeat_refused\".*\"deniedApproval\":\"$id\"" "$sess/audit.jsonl"
"$AIRLOCK" discard "$S" >/dev/null 2>&1

# ===== Ask and cancel in a loop: at most 16 approvals a minute ===========================
# The agent asks for 8 deploys at once, each with new arguments; once a
# call's approval is pending (its first progress notification) it cancels
# the call (notifications/cancelled: withdrawn, retryable); 5 rounds.
# Each ask and each withdrawal pages the human through the notify hook;
# before, all 40 were asked.  Now the 17th within a minute is refused at
# once (approval_rate_limited, retryable), nobody asked.
cat >"$ws/pager.sh" <<'EOF'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
for b in 1 2 3 4 5; do
	pend=
	for j in 1 2 3 4 5 6 7 8; do
		n=$((b * 10 + j))
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"page%s"},"_meta":{"progressToken":"p%d"}}}\n' \
		    $n "$(echo $n | tr 0-9 a-j)" $n >&3
	done
	seen=0
	while [ $seen -lt 8 ] && IFS= read -r line <&3; do
		case $line in
		*'"notifications/progress"'*)
			n=$(printf '%s' "$line" | sed -n 's/.*"progressToken":"p\([0-9]*\)".*/\1/p')
			case " $pend " in *" $n "*) continue ;; esac
			pend="$pend $n"; seen=$((seen + 1)) ;;
		*'"method":'*) ;;
		*) printf 'R %s\n' "$line"; seen=$((seen + 1)) ;;
		esac
	done
	for n in $pend; do
		printf '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"never mind"}}\n' $n >&3
	done
	for n in $pend; do
		while IFS= read -r line <&3; do
			case $line in *'"method":'*) continue ;; esac
			printf 'R %s\n' "$line"; break
		done
	done
done
echo DONE
EOF
chmod 755 "$ws/pager.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/appr.yaml" --workspace "$ws" -- "$ws/pager.sh" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
for i in $(seq 400); do grep -q DONE "$OUT" && break; sleep 0.1; done
check "the paging agent ran its 5 rounds" grep -q DONE "$OUT"
stop_agent
sess=$(newest_session)
bodies() { sed -n 's/^R //p' "$OUT" | jq -c '.result.content[0].text | fromjson? // empty'; }
cls() { bodies | jq -r '.errorClass' | grep -c "^$1\$"; }
expect_eq "16 approvals were asked of a human" "$(grep -c '"approval_created"' "$sess/audit.jsonl")" 16
expect_eq "  and withdrawn by the agent's cancels" "$(grep -c '"approval_withdrawn"' "$sess/audit.jsonl")" 16
expect_eq "the other 24 asks were refused at once" "$(cls approval_rate_limited)" 24
expect_eq "  each audited" "$(grep -c '"approval_rate_refused"' "$sess/audit.jsonl")" 24
R=$(bodies | jq -c 'select(.errorClass == "approval_rate_limited")' | head -1)
expect_contains "  saying why and when to ask again" "$(jr .message)" "approvals were asked of a human in the last minute"
expect_eq "  retryable" "$(jr .retryable)" true

finish
