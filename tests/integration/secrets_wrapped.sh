#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The redactor claims a secret's base64 and hex forms (`echo secret |
# base64` is caught), but the usual tools break those forms into lines:
# base64(1) at 76 columns, xxd -p at 60.  A token longer than 57 bytes (a
# GitHub fine-grained token is 93) came back whole from a granted tool
# that printed it through base64 or xxd -p (od and fold here): in its
# result, its artifact, a background job's reads and a file its change
# set landed in the workspace, where the agent reads it through its own
# view.  A hex or
# base64 form now matches with a line break ("\n" or "\r\n") between two
# of its characters.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
secret='ghp_Zq8xLr2Wv9Kt4Ym7Pn3Bc6Hd1Fs5Jg0Ae8Ui2Oy4Tx7Rw9Qe3Lk6Mn1Vb5Zc'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
# What the agent could join back up: each form without its line breaks.
b64=$(printf '%s' "$secret" | base64 -w0)
basic=$(printf 'ci:%s' "$secret" | base64 -w0)
hex=$(printf '%s' "$secret" | od -An -v -tx1 | tr -d ' \n')
ws=$(make_workspace)
mkdir -p "$ws/tests"
cat >"$ws/tests/b64file.sh" <<'SH'
printf %s "$API_TOKEN" | base64 >token.b64
echo wrote
SH

M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string, artifactUri: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["sh", "-c", "printf %s \"$API_TOKEN\" | base64; printf 'ci:%s' \"$API_TOKEN\" | base64; printf %s \"$API_TOKEN\" | base64 | sed 's/$/\\r/'; printf %s \"$API_TOKEN\" | od -An -v -tx1 | tr -d ' \\n' | fold -w 60; echo; printf %s \"$API_TOKEN\" | base64 -w 1 >&2"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: slow
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 20000
    command: ["sh", "-c", "printf %s \"$API_TOKEN\" | base64 | head -n1; sleep 1; printf %s \"$API_TOKEN\" | base64 | tail -n +2; echo done"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
    jobs: { maxBlockMs: 5000 }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  b64file: ["sh", "tests/b64file.sh"]
YAML

# joined TEXT: TEXT without its line breaks, as the agent would join it.
joined() { printf '%s' "$1" | tr -d '\r\n'; }

mcp_start "$M" "$ws"
sess=$(newest_session)
mcp_call publish '{}'
expect_ok_result "the granted tool ran"
out=$(jr .result.structuredContent.stdout)
txt=$(jr '.result.content[].text')
expect_contains "its base64 was redacted" "$out" "[REDACTED:API_TOKEN]"
for f in b64 basic hex; do
	eval "form=\$$f"
	expect_not_contains "its stdout holds no $f form broken into lines" "$(joined "$out")" "$form"
	expect_not_contains "... nor its text, stderr with it" "$(joined "$txt")" "$form"
done
n=$(printf '%s' "$txt" | grep -o 'REDACTED:API_TOKEN' | wc -l)
check "each of the 5 forms was redacted in the text ($n)" test "$n" -ge 5
art=$(find "$sess/artifacts" -name '*-publish.log' -type f)
check "the run's output was kept as an artifact" test -s "$art"
expect_not_contains "... which holds no base64 broken into lines" "$(joined "$(cat "$art")")" "$b64"
expect_not_contains "... nor hex" "$(joined "$(cat "$art")")" "$hex"

# A background job: the first line of the base64 must not be given out
# before the rest has come, nor after.
mcp_call slow '{"blockMs":300}'
expect_ok_result "the job starts"
all=$(jr .result.structuredContent.output)
status=$(jr .result.structuredContent.status)
deadline=$((SECONDS + 30))
while [ "$status" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-1","waitMs":5000}'
	status=$(jr .result.structuredContent.status)
	all+=$(jr .result.structuredContent.output)
done
expect_eq "the job ended" "$status" exited
expect_contains "its output came" "$all" "done"
expect_not_contains "no read gave out the base64's first line" "$all" "${b64:0:60}"
expect_not_contains "... nor its rest" "$(joined "$all")" "${b64:76}"

# The workspace: the agent reads it through its own view, unredacted.
mcp_call run_check '{"checkId":"b64file"}'
expect_error_class "a set holding the secret's base64 in lines is refused" change_refused
check "... and nothing of it landed" test ! -e "$ws/token.b64"
mcp_stop
expect_not_contains "the audit log holds no form of it" "$(joined "$(cat "$sess/audit.jsonl")")" "$b64"
finish
