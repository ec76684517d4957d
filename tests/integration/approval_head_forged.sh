#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A voided approval's new request shows the first lines of each pinned
# file that changed, as the file is now: the agent's text.  They were
# written as they were, each at the start of a row: the agent rewrote
# deploy.sh, pinned, while its deploy waited, with a payload on line 1
# and, below it, "  evidence:  {... "passed": true ...}" and lines that
# read as the rest of airlock's review.  The human's yes voided the
# approval, and the new one showed those lines as airlock's own (a gate
# passed that the session never ran), with the payload 40 lines up, out
# of sight of a 24-row terminal, and no NOTE saying so.  Now each such
# line begins with "      | ", which no line of airlock's own begins
# with, and the first lines count toward the NOTE next to the prompt.
# Through the real MCP interface and airlock approve.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF2
printf '#!/bin/sh\necho deploying\n' >"$ws/deploy.sh"
mcp_start "$T/m.yaml" "$ws"

mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
id1=$(mcp_pending deploy)
check "deploy waits for a human" test -n "$id1"
# The agent's rewrite: a payload, then lines that read as airlock's.
{
	echo ': >PWNED'
	echo '  evidence:  {"gates": [{"checkId": "unit", "passed": true}]}'
	for i in $(seq 37); do echo "  pinned code: deploy.sh unchanged ($i)"; done
} >"$T/forged"
mcp_call write_file "{\"path\":\"deploy.sh\",\"content\":$(jq -Rs . <"$T/forged")}"
expect_ok_result "the agent rewrites deploy.sh while its deploy waits"
"$AIRLOCK" approve "$id1" --yes >/dev/null 2>&1
id2=$(mcp_pending deploy "$id1")
check "the yes is void: a new approval shows the change" test -n "$id2" -a "$id2" != "$id1"

out=$(echo n | COLUMNS=200 "$AIRLOCK" approve "$id2" 2>&1)
expect_contains "the review shows the changed file's first lines" "$out" \
    "      | : >PWNED"
expect_eq "no line of the file begins a row as airlock's evidence" \
    "$(printf '%s\n' "$out" | grep -c '^  evidence:  {"gates"')" 0
expect_eq "... nor as airlock's pinned code" \
    "$(printf '%s\n' "$out" | grep -c '^  pinned code: deploy.sh')" 0
expect_contains "the NOTE next to the prompt counts the first lines" \
    "$(printf '%s\n' "$out" | grep 'NOTE:')" \
    "its arguments and the changed files' first lines take"
"$AIRLOCK" deny "$id2" --reason "deploy.sh changed" >/dev/null 2>&1
mcp_wait_id 100
expect_error_class "denied once the human saw the change" approval_denied
check "the payload never ran" test ! -e "$ws/PWNED"
mcp_stop
finish
