#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_sessions (issue 15, item 4): reading and retention.
# `audit show --decision` matches every kind of refusal and a human's
# denial, and refuses an unknown value with the list of valid ones; the
# SESSION column shows whole ids; --since/--until; --json for jq.
# `airlock sessions` lists the sessions (id, user, agent, start, end,
# status, records, verified, pinned); `sessions prune --older-than AGE`
# removes old ones but never a pinned or a running one.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
W="$top_builddir/tests/unit/audit_writer"

# --- show --decision over every kind of record ---------------------------
L="$T/kinds.jsonl"
"$W" -n 0 -S "a-session-id-longer-than-fourteen" \
    -E 'decision={"tool":"t","decision":"allow"}' \
    -E 'decision={"tool":"t","decision":"deny","reason":"policy"}' \
    -E 'decision={"tool":"t","decision":"invalid","reason":"path"}' \
    -E 'decision={"tool":"t","decision":"approval_required"}' \
    -E 'approval_created={"tool":"t","id":"a1"}' \
    -E 'approval_granted={"tool":"t","approval":"a1","by":"alice"}' \
    -E 'approval_denied={"tool":"t","approval":"a2","by":"bob"}' \
    -E 'approval_expired={"tool":"t","approval":"a3"}' \
    -E 'egress={"host":"evil.example","decision":"deny"}' \
    -E 'egress={"host":"ok.example","decision":"allow"}' \
    -E 'sandbox_denial={"tool":"t","hint":"EACCES"}' \
    -E 'result={"tool":"t","isError":true,"errorClass":"path_refused"}' \
    -E 'result={"tool":"t","isError":true,"errorClass":"timeout"}' \
    -E 'secret_refused={"tool":"t","reason":"exec"}' \
    -E 'escalation_refused={"reason":"forbidden"}' \
    -E 'approval_token_refused={"refused":"bad_signature"}' \
    "$L" >/dev/null
events() {	# --decision VALUE: the events shown, one line
	"$AIRLOCK" audit show --json --decision "$1" "$L" |
	    jq -r '"\(.event):\(.fields.decision // "-")"' | tr '\n' ' '
}
expect_eq "--decision deny: every refusal, by policy, validation, human, expiry, proxy, sandbox" \
    "$(events deny)" \
    "decision:deny decision:invalid approval_denied:- approval_expired:- egress:deny sandbox_denial:- result:- secret_refused:- escalation_refused:- approval_token_refused:- "
expect_eq "--decision allow: by policy, by a human, by the proxy" \
    "$(events allow)" "decision:allow approval_granted:- egress:allow "
expect_eq "--decision invalid" "$(events invalid)" "decision:invalid "
expect_eq "--decision ask" "$(events ask)" "decision:approval_required approval_created:- "
expect_eq "--decision approval_required is ask" "$(events approval_required)" \
    "decision:approval_required approval_created:- "
expect_eq "--decision denied: a human's denial" "$(events denied)" "approval_denied:- "
expect_eq "--decision approved" "$(events approved)" "approval_granted:- "
expect_eq "--decision expired" "$(events expired)" "approval_expired:- "
out=$("$AIRLOCK" audit show --decision bogus "$L" 2>&1); rc=$?
expect_eq "--decision bogus: a usage error" "$rc" 64
expect_contains "--decision bogus: says so" "$out" 'unknown value "bogus"'
for v in allow deny invalid ask approved denied expired; do
	expect_contains "--decision bogus: lists $v" "$out" "  $v "
done
out=$("$AIRLOCK" audit show --decision deny "$L")
expect_contains "the SESSION column shows the whole id" "$out" \
    " a-session-id-longer-than-fourteen "
expect_eq "--since tomorrow: nothing" \
    "$("$AIRLOCK" audit show --json --since "$(date -u -d tomorrow +%F)" "$L" | wc -l)" 0
expect_eq "--until yesterday: nothing" \
    "$("$AIRLOCK" audit show --json --until "$(date -u -d yesterday +%F)" "$L" | wc -l)" 0
expect_eq "--since yesterday --until today: everything" \
    "$("$AIRLOCK" audit show --json --since "$(date -u -d yesterday +%F)" \
    --until "$(date -u +%F)" "$L" | wc -l)" "$(wc -l <"$L")"

# --- a real session's refused path is a deny ------------------------------
M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256, size: integer }
    sideEffect: none
    timeoutMs: 2000
YAML
session() {
	mcp_start "$M" "$ws"
	mcp_call read_file '{"path":"README.md"}'
	mcp_call read_file '{"path":"../../etc/shadow"}'
	mcp_stop
	S=$(basename "$(newest_session)")
}
session
s1=$S
out=$("$AIRLOCK" audit show --json --decision deny "$AIRLOCK_HOME/sessions/$s1/audit.jsonl")
# Its decision and its result (errorClass invalid_arguments), as a call
# the manifest denies shows its decision and its result (denied).
expect_eq "a real refused path: --decision deny shows it" \
    "$(jq -r '"\(.event) \(.fields.decision // .fields.errorClass) \(.session)"' <<<"$out")" \
    "decision invalid $s1
result invalid_arguments $s1"

# --- sessions list ---------------------------------------------------------
session
s2=$S
out=$("$AIRLOCK" sessions)
expect_contains "sessions: a header" "$out" \
    "ID                     USER       AGENT        START"
row=$(grep "^$s1 " <<<"$out")
expect_contains "sessions: the first session, its user and agent" "$row" \
    "$s1 $(printf '%-10s' "$(id -un)") serve"
expect_contains "sessions: closed, verified by the host key" "$row" \
    " closed "
expect_contains "sessions: verified by the host key" "$row" " host-key "
j=$("$AIRLOCK" sessions --json)
expect_eq "sessions --json: one object per session" "$(jq -s length <<<"$j")" 2
expect_eq "sessions --json: fields" \
    "$(jq -r "select(.id == \"$s2\") | \"\(.user) \(.agent) \(.status) \(.verified) \(.pinned) \(.records > 5) \(.end != null)\"" <<<"$j")" \
    "$(id -un) serve closed host-key false true true"
# A tampered one says so.
sed -i '3d' "$AIRLOCK_HOME/sessions/$s2/audit.jsonl"
expect_contains "sessions: a tampered log is listed as tampered" \
    "$("$AIRLOCK" sessions | grep "^$s2 ")" " tampered "

# --- pin, prune ------------------------------------------------------------
out=$("$AIRLOCK" sessions pin "$s1" legal hold 2>&1)
expect_eq "pin: exit 0" "$?" 0
expect_contains "pin: the note is kept" "$(cat "$AIRLOCK_HOME/sessions/$s1/PINNED")" \
    "legal hold"
expect_contains "sessions: pinned" "$("$AIRLOCK" sessions | grep "^$s1 ")" " yes"
# A running session: a writer holds its log.
mkdir -p "$AIRLOCK_HOME/sessions/20991231T000000-aaaaaa"
"$W" -n 2 -H 60 "$AIRLOCK_HOME/sessions/20991231T000000-aaaaaa/audit.jsonl" >/dev/null &
wpid=$!
for i in $(seq 100); do
	[ -s "$AIRLOCK_HOME/sessions/20991231T000000-aaaaaa/audit.jsonl" ] && break
	sleep 0.1
done
out=$("$AIRLOCK" sessions prune --older-than 1d)
expect_eq "prune --older-than 1d: nothing this recent goes" "$(ls "$AIRLOCK_HOME/sessions" | wc -l)" 3
expect_contains "prune says how many" "$out" "removed 0 session(s) older than 1d"
out=$("$AIRLOCK" sessions prune --older-than 0s --dry-run)
expect_contains "prune --dry-run names what it would remove" "$out" "would remove $s2"
expect_eq "prune --dry-run removes nothing" "$(ls "$AIRLOCK_HOME/sessions" | wc -l)" 3
out=$("$AIRLOCK" sessions prune --older-than 0s)
expect_contains "prune: removes the old unpinned session" "$out" "removed $s2"
expect_contains "prune: keeps the pinned one" "$out" "kept $s1 (pinned)"
expect_contains "prune: keeps the running one" "$out" \
    "kept 20991231T000000-aaaaaa (running)"
check "prune: the removed session is gone" test ! -e "$AIRLOCK_HOME/sessions/$s2"
check "prune: the pinned session is whole" \
    "$AIRLOCK" audit verify -q "$AIRLOCK_HOME/sessions/$s1/audit.jsonl"
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
"$AIRLOCK" sessions unpin "$s1" >/dev/null
"$AIRLOCK" sessions prune --older-than 0s >/dev/null
check "unpinned, it goes too" test ! -e "$AIRLOCK_HOME/sessions/$s1"

# --- bad input ----------------------------------------------------------
out=$("$AIRLOCK" sessions prune --older-than 30 2>&1); rc=$?
expect_eq "prune --older-than without a unit: usage error" "$rc" 64
expect_contains "it says what an age is" "$out" "a number and s, m, h, d or w"
out=$("$AIRLOCK" sessions prune 2>&1); rc=$?
expect_eq "prune without --older-than: usage error" "$rc" 64
out=$("$AIRLOCK" sessions pin ../../etc 2>&1); rc=$?
expect_eq "pin ../../etc: refused" "$rc" 64
expect_contains "pin ../../etc: not a session id" "$out" "not a session id"
out=$("$AIRLOCK" sessions pin 20000101T000000-ffffff 2>&1); rc=$?
expect_eq "pin of an unknown session: exit 66" "$rc" 66
finish
