#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A gate binds its check's result to the workspace digest; the digest
# held a file's content and whether it was executable, but no other mode
# bit.  A check reads the tree as its modes let it: a directory nobody
# may enter lists as empty, a file nobody may read is skipped by the
# usual "[ -r "$f" ] || continue".  The attack, by an agent that has
# only an exec tool and run_check: "chmod 000 t" (a mode change lands
# through the change-set policy), run_check passes (its failing test is
# never seen), "chmod 755 t": the digest was the same throughout, so
# acceptance was met on a workspace whose check fails.  The same with a
# file's read bits, and for an approval: the approver was shown a
# workspace whose hooks/ nobody could enter, the agent opened it before
# the grant, and the yes ran the hook.  Now a file's and a directory's
# permission bits are part of the digest: the gate goes stale once the
# mode is put back, and the approval is voided at the grant.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
# As an ordinary user the broker's digest reads as the runner does: what
# the runner cannot read fails the digest (workspace_undigestable), and
# nothing counts.  As root the digest reads everything, the runner (uid
# 65534) only what the modes let it.
[ "$(id -u)" -eq 0 ] || { echo "# skip: the runner reads as the digest does unless root"; exit 77; }

M="$T/m.yaml"
cat >"$M" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, artifactUri: string, durationMs: integer, stdout: string }
    sideEffect: none
    timeoutMs: 60000
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
checks:
  unit: ["sh", "run.sh"]
gates:
  required: [unit]
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF2
ws="$T/ws"
mkdir -p "$ws/t" "$ws/u" "$ws/hooks"
cat >"$ws/run.sh" <<'EOF2'
for f in t/*.sh u/*.sh; do [ -r "$f" ] || continue; sh "$f" || exit 1; done
echo all passed
EOF2
printf 'echo failing; exit 1\n' >"$ws/t/a.sh"
printf 'echo ok\n' >"$ws/u/b.sh"
cat >"$ws/deploy.sh" <<'EOF2'
for h in hooks/*.sh; do [ -r "$h" ] && sh "$h"; done
echo deployed
EOF2
printf 'echo HOOK-RAN\n' >"$ws/hooks/pre.sh"
chmod -R a+rX "$ws"
chmod 000 "$ws/hooks"
mcp_start "$M" "$ws"
sess=$(newest_session)
status() { mcp_rpc airlock/session/status '{}'; }
gate() { jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "unit") | .state)]'; }
shell() { mcp_call sh "{\"command\":$(jq -Rn --arg c "$1" '$c')}"; }

mcp_call run_check '{"checkId":"unit"}'
expect_eq "the check fails on the workspace as it is" "$(jr .result.structuredContent.exitCode)" 1

# ===== a directory closed for the check, opened after ==============================
shell "chmod 000 t"
expect_eq "the agent closes t/ (a mode change lands)" "$(jr .result.structuredContent.exitCode)" 0
check "... in the workspace" test "$(stat -c %a "$ws/t")" = 0
mcp_call run_check '{"checkId":"unit"}'
expect_eq "the check passes: it never saw t/a.sh" "$(jr .result.structuredContent.exitCode)" 0
status
expect_eq "... and its gate counts for that workspace" "$(gate)" '[true,"pass"]'
shell "chmod 755 t"
check "the agent opens t/ again" test "$(stat -c %a "$ws/t")" = 755
status
expect_eq "the gate is stale once t/ is open again: acceptance not met" "$(gate)" '[false,"stale"]'
mcp_call run_check '{"checkId":"unit"}'
expect_eq "(the check fails there)" "$(jr .result.structuredContent.exitCode)" 1

# ===== a file made unreadable for the check, readable after =======================
shell "chmod 000 t/a.sh"
mcp_call run_check '{"checkId":"unit"}'
expect_eq "the check passes without t/a.sh" "$(jr .result.structuredContent.exitCode)" 0
status
expect_eq "... its gate counts" "$(gate)" '[true,"pass"]'
shell "chmod 644 t/a.sh"
status
expect_eq "the gate is stale once t/a.sh is readable again" "$(gate)" '[false,"stale"]'

# ===== an approval shown hooks/ closed, opened before the grant ====================
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
id=$(mcp_pending deploy)
check "deploy waits for a human" test -n "$id"
shell "chmod 755 hooks"
check "the agent opens hooks/ while the approval is pending" test "$(stat -c %a "$ws/hooks")" = 755
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
id2=$(mcp_pending deploy "$id")
check "the yes is void: a new approval is pending in its place" test -n "$id2" -a "$id2" != "$id"
v=$(grep '"approval_voided"' "$sess/audit.jsonl" | tail -n 1)
expect_contains "... the workspace changed, at the grant" "$v" '"when":"grant"'
check "no deploy ran on the old yes" test "$(grep -c '"runner_start".*"deploy"' "$sess/audit.jsonl")" -eq 0
[ -n "$id2" ] && "$AIRLOCK" deny "$id2" --reason "hooks opened" >/dev/null 2>&1
mcp_wait_id 100
expect_error_class "denied once the human saw it" approval_denied

mcp_stop
finish
