#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A secret changed in the store while a session runs is not handed out
# with its new value.  The redactor learns the granted values once, when
# the session starts; the store is read again at every call.  Before, a
# token a human rotated with `airlock secret set` mid-session reached the
# granted tool and came back to the agent in plain text (and into the
# artifact), and so did a value too short to redact.  Now the call is
# refused (secret_unavailable, audited as secret_refused) until the store
# holds the value the session redacts again.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["sh", "-c", "echo token=$API_TOKEN"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
EOF2
first='first-t0ken-value-1234'
rotated='r0tated-t0ken-value-5678'
printf '%s' "$first" | "$AIRLOCK" secret set API_TOKEN
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

mcp_call publish '{}'
expect_ok_result "the granted tool runs"
expect_eq "with its secret, redacted" "$(jr .result.structuredContent.stdout)" \
    "token=[REDACTED:API_TOKEN]"

# A human rotates the token while the session runs.
printf '%s' "$rotated" | "$AIRLOCK" secret set API_TOKEN
mcp_call publish '{}'
expect_error_class "a value set since the session started is not handed out" \
    secret_unavailable
expect_contains "the message says why" "$R" "changed in the store since the session started"
expect_not_contains "the new value is not in the result" "$R" "$rotated"

# A value too short to redact, set mid-session, is never granted either.
printf 'ab' | "$AIRLOCK" secret set API_TOKEN 2>/dev/null
mcp_call publish '{}'
expect_error_class "a value too short to redact is not handed out" \
    secret_unavailable
expect_not_contains "nor printed" "$R" "token=ab"

# The value the session started with runs again.
printf '%s' "$first" | "$AIRLOCK" secret set API_TOKEN
mcp_call publish '{}'
expect_ok_result "the session's value is handed out again"
expect_eq "still redacted" "$(jr .result.structuredContent.stdout)" \
    "token=[REDACTED:API_TOKEN]"
mcp_stop

check "the refusals are audited" \
    grep -q '"event":"secret_refused".*changed since the session started' \
    "$sess/audit.jsonl"
if grep -rqF -e "$rotated" -e "token=ab" "$AIRLOCK_HOME/sessions" "$T/notes" \
    "$T/serve.err"; then
	fail "no changed value is anywhere the agent or the log can read"
else
	pass "no changed value is anywhere the agent or the log can read"
fi
finish
