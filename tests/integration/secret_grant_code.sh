#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A secret is never handed to code the agent could have changed
# (invariant 4), whichever built-in action the granted tool has:
#   (a) an exec tool granted a secret runs the agent's own shell string:
#       it is refused and nothing runs;
#   (b) a run_check tool granted a secret runs the check's code: once the
#       agent rewrote the check's script to print the secret reversed
#       (which no redaction catches), the check refuses with
#       pinned_code_changed instead of running it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tests"
printf '#!/bin/sh\necho "tests ok ${API_TOKEN:+with a token}"\n' >"$ws/tests/run.sh"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  unit: ["sh", "tests/run.sh"]
EOF2
secret='n0t-for-the-agent-42'
reversed=$(printf '%s' "$secret" | rev)
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

# (a) exec: the command is the agent's.
mcp_call shell '{"command":"printf %s \"$API_TOKEN\" | rev"}'
expect_error_class "an exec tool granted a secret is refused" denied
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"

# (b) run_check: the check's code as at session start runs with the secret.
mcp_call run_check '{"checkId":"unit"}'
expect_ok_result "the unchanged check runs"
expect_eq "granted its secret" "$(jr .result.structuredContent.stdout)" "tests ok with a token"
mcp_call write_file '{"path":"tests/run.sh","content":"#!/bin/sh\nprintf %s \"$API_TOKEN\" | rev\n"}'
expect_ok_result "the agent rewrites the check's script"
mcp_call run_check '{"checkId":"unit"}'
expect_error_class "the changed check is not run with the secret" pinned_code_changed
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"
expect_contains "the message names the changed file" "$R" "tests/run.sh"
mcp_stop

check "the refusals are audited" grep -q '"pinned_code_changed"' "$sess/audit.jsonl"
if grep -rqF -e "$secret" -e "$reversed" "$AIRLOCK_HOME/sessions" "$T/notes" "$T/serve.err"; then
	fail "the secret (or its reverse) is nowhere the agent or the log can read"
else
	pass "the secret (or its reverse) is nowhere the agent or the log can read"
fi
finish
