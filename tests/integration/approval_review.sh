#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The review shows the execution (issue 16 item 3): airlock pending -v and
# the approve prompt show what will run (argv, cwd, environment names, the
# pinned code's digest), the agent's stated reason (tools/call
# _meta.reason, or request_approval's reason) escaped for the terminal,
# and a patch's diff once, not three times; a pending approval larger
# than 64 KiB is listed and decided.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

cat >"$T/m.yaml" <<EOF
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh", "{target}"]
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    authorization: approval
    timeoutMs: 60000
  - name: request_approval
    input: { action: string, reason: string, evidenceUris: string_list }
    output: { decision: approved_or_rejected, approver: string }
    sideEffect: none
    timeoutMs: 60000
approvals:
  ttlSeconds: 60
EOF
printf '#!/bin/sh\necho "deploying $1"\n' >"$ws/deploy.sh"
sha_deploy=$(sha256sum "$ws/deploy.sh" | cut -d' ' -f1)
zero=$(printf '%064d' 0)
# The reason and the patch are ASCII here: JSON escapes become raw ESC and
# U+202E only in the broker.
cat >"$ws/calls" <<EOF
{"name":"deploy","arguments":{"target":"prod"},"_meta":{"reason":"ship the fix \\u001b[2J\\u001b[1;1Hall tests pass \\u202e"}}
{"name":"apply_patch","arguments":{"patch":"--- a/README.md\\n+++ b/README.md\\n@@ -1 +1,2 @@\\n # x\\n+UNIQUE-DIFF-LINE-7731\\n","expectedBaseSha":"$zero"}}
{"name":"request_approval","arguments":{"action":"merge","reason":"the gate is green","evidenceUris":[]}}
{"name":"request_approval","arguments":{"action":"release","reason":"$(head -c 200000 /dev/zero | tr '\0' y)","evidenceUris":[]}}
EOF
ESC=$'\033'
RLO=$'\342\200\256'
raw_controls() { grep -q "$ESC" "$1" || LC_ALL=C grep -q "$RLO" "$1"; }

appr_agent_start "$T/m.yaml" calls
id=$(appr_pending_id prod)
check "deploy waits" test -n "$id"
"$AIRLOCK" pending -v >"$T/pv.out" 2>&1
PV=$(cat "$T/pv.out")
expect_contains "pending -v: what will run, argv" "$PV" 'argv:      ["sh","deploy.sh","prod"]'
expect_contains "pending -v: the working directory" "$PV" "cwd:       $ws"
expect_contains "pending -v: the environment's names" "$PV" "env:       PATH"
expect_contains "pending -v: the pinned code and its digest" "$PV" "$sha_deploy  deploy.sh"
expect_contains "pending -v: the agent's stated reason, escaped" "$PV" 'reason:    ship the fix \e[2J\e[1;1Hall tests pass \u{202E}'
check "pending -v passes no raw ESC or bidi override" bash -c '! { grep -q "$1" "$3" || LC_ALL=C grep -q "$2" "$3"; }' _ "$ESC" "$RLO" "$T/pv.out"
echo n | "$AIRLOCK" approve "$id" >"$T/prompt.out" 2>&1
P=$(cat "$T/prompt.out")
expect_contains "the approve prompt shows what will run" "$P" 'argv:      ["sh","deploy.sh","prod"]'
expect_contains "the approve prompt shows the reason, escaped" "$P" 'ship the fix \e[2J'
check "the approve prompt passes no raw controls" bash -c '! { grep -q "$1" "$3" || LC_ALL=C grep -q "$2" "$3"; }' _ "$ESC" "$RLO" "$T/prompt.out"
R=$("$AIRLOCK" pending --json)
expect_eq "pending --json carries the raw reason for tools (JSON-escaped)" \
    "$(jr '.pending[0].evidence.agentReason' | grep -c "$ESC")" 1
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
appr_reply 1
expect_eq "approved: it ran" "$(jr .result.structuredContent.stdout)" "deploying prod"

id=$(for i in $(seq 200); do x=$("$AIRLOCK" pending --json | jq -r '.pending[] | select(.tool == "apply_patch") | .id'); [ -n "$x" ] && { echo "$x"; break; }; sleep 0.1; done)
check "apply_patch waits" test -n "$id"
"$AIRLOCK" pending -v >"$T/pv2.out" 2>&1
expect_eq "pending -v shows the diff once (not in the arguments or evidence again)" \
    "$(grep -c UNIQUE-DIFF-LINE-7731 "$T/pv2.out")" 1
expect_contains "the patch argument names the diff below" "$(cat "$T/pv2.out")" '"patch":"<the diff, shown below>"'
expect_contains "the diff keeps its line" "$(cat "$T/pv2.out")" "+UNIQUE-DIFF-LINE-7731"
expect_contains "no stated reason is said so" "$(cat "$T/pv2.out")" "reason:    (the agent stated none)"
"$AIRLOCK" pending >"$T/p2.out" 2>&1
expect_eq "the short listing does not repeat the diff" "$(grep -c UNIQUE-DIFF-LINE-7731 "$T/p2.out")" 0
echo n | "$AIRLOCK" approve "$id" >"$T/prompt2.out" 2>&1
expect_eq "the approve prompt shows the diff once" "$(grep -c UNIQUE-DIFF-LINE-7731 "$T/prompt2.out")" 1
"$AIRLOCK" deny "$id" --reason no >/dev/null 2>&1
appr_reply 2

for i in $(seq 200); do x=$("$AIRLOCK" pending --json | jq -r '.pending[] | select(.tool == "request_approval") | .id'); [ -n "$x" ] && break; sleep 0.1; done
expect_contains "request_approval's reason is the stated reason" "$("$AIRLOCK" pending -v)" "reason:    the gate is green"
"$AIRLOCK" deny "$x" --reason no >/dev/null 2>&1
appr_reply 3

# A pending approval whose listing is larger than 64 KiB (a 200 KB
# reason, twice in it) is listed and decided: the client read 64 KiB of
# the reply before, and said "nothing pending".
x=$(for i in $(seq 200); do x=$("$AIRLOCK" pending --json | jq -r '.pending[] | select(.arguments.action == "release") | .id'); [ -n "$x" ] && { echo "$x"; break; }; sleep 0.1; done)
check "a pending approval of 200 KB is listed" test -n "$x"
expect_contains "... pending names it" "$("$AIRLOCK" pending)" "$x"
"$AIRLOCK" approve "$x" --yes >/dev/null 2>&1
appr_reply 4
expect_eq "... and approve decides it" "$(jr .result.structuredContent.decision)" approved
appr_agent_stop

finish
