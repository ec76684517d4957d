#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A background job's event rules (jobs.events match:) push each matching
# line of its output to the agent, as notifications/message and at the
# tail of its next result.  Each line was redacted on its own, so a
# secret printed over several lines (base64(1) breaks at 76 columns, a
# PEM key is many lines) went out a piece per line, each too short for
# the redactor: the job's own reads gave [REDACTED:API_TOKEN] while its
# events gave the agent the whole base64 of the token, and every line of
# a multi-line key.  The rules now see the stream redacted as a whole, a
# line held back while a secret could still run past it (here the key's
# first two lines, and then its last line before its newline has come,
# when the key is whole but the line it ends in is not).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
secret='ghp_Zq8xLr2Wv9Kt4Ym7Pn3Bc6Hd1Fs5Jg0Ae8Ui2Oy4Tx7Rw9Qe3Lk6Mn1Vb5Zc'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
key=$(printf 'k3y-line-one-Qw7Er5Ty\nk3y-line-two-Ui9Op2As\nk3y-line-three-Df4Gh6Jk')
printf '%s' "$key" | "$AIRLOCK" secret set DEPLOY_KEY
b64=$(printf '%s' "$secret" | base64 -w0)
ws=$(make_workspace)
M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: slow
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 20000
    command: ["sh", "-c", "printf %s \"$API_TOKEN\" | base64 | head -n1; sleep 1; printf %s \"$API_TOKEN\" | base64 | tail -n +2; printf '%s\\n' \"$DEPLOY_KEY\" | head -n2; sleep 1; printf %s \"$DEPLOY_KEY\" | tail -n +3; sleep 1; echo; echo done"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN }, { name: DEPLOY_KEY, env: DEPLOY_KEY } ]
    jobs: { maxBlockMs: 5000, events: [ { match: "." } ] }
  - name: wide
    input: {}
    output: { exitCode: integer }
    sideEffect: none
    timeoutMs: 20000
    command: ["sh", "-c", "sleep 1; printf x; for i in $(seq 200); do printf '\\303\\251'; done; printf '\\n\\377 bad\\n'; sleep 1; echo wide-done"]
    jobs: { maxBlockMs: 5000, events: [ { match: "." } ] }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
YAML

# joined TEXT: TEXT without its line breaks, as the agent would join it.
joined() { printf '%s' "$1" | tr -d '\r\n'; }

mcp_start "$M" "$ws"
mcp_call slow '{"blockMs":300}'
expect_ok_result "the job starts"
events=$(jr '.result.structuredContent.events[]?.line')$'\n'
status=$(jr .result.structuredContent.status)
deadline=$((SECONDS + 30))
while [ "$status" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-1","waitMs":5000}'
	status=$(jr .result.structuredContent.status)
	events+=$(jr '.result.structuredContent.events[]?.line')$'\n'
done
expect_eq "the job ended" "$status" exited
# Events may come with the result after the last read, too.
mcp_call job_output '{"jobId":"job-1"}'
events+=$(jr '.result.structuredContent.events[]?.line')$'\n'
notes=$(cat "$T/notes" 2>/dev/null)
expect_contains "its lines were pushed" "$notes" '"line":"done"'
expect_contains "... the base64 redacted whole" "$notes" '"line":"[REDACTED:API_TOKEN]"'
expect_contains "... and the key" "$notes" '"line":"[REDACTED:DEPLOY_KEY]"'
expect_contains "the next results carried them too" "$events" $'\n[REDACTED:DEPLOY_KEY]\n'
for where in notes events; do
	eval "text=\$$where"
	expect_not_contains "no $where gave out the base64's first line" "$text" "${b64:0:60}"
	expect_not_contains "... nor its last" "$text" "${b64:76}"
	expect_not_contains "... nor the whole of it, joined" "$(joined "$text")" "$b64"
	expect_not_contains "no $where gave out the key's first line" "$text" "Qw7Er5Ty"
	expect_not_contains "... nor its last" "$text" "Df4Gh6Jk"
done

# An event's line is the command's bytes, cut to 300: json_pack() failed
# on a byte that is not UTF-8, or on an "é" cut in two at byte 300, and
# fatalx() stopped the broker (any job printing a long line of accented
# text did so).  Now the line is UTF-8, cut between characters.
mcp_call wide '{"blockMs":300}'
expect_ok_result "a job printing a long line of accented text starts"
status=$(jr .result.structuredContent.status)
deadline=$((SECONDS + 30))
while [ "$status" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-2","waitMs":5000}'
	status=$(jr .result.structuredContent.status)
done
expect_eq "  it ends, the broker still there" "$status" exited
notes=$(cat "$T/notes" 2>/dev/null)
expect_contains "  its long line was pushed, cut between characters" "$notes" \
    "\"line\":\"x$(for i in $(seq 149); do printf '\303\251'; done)\""
expect_contains "  a byte that is not UTF-8 as U+FFFD" "$notes" $'"line":"\xef\xbf\xbd bad"'
expect_contains "  and its last line" "$notes" '"line":"wide-done"'
mcp_stop
finish
