#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A background job's output reaches the agent in pieces (blockMs, then
# job_output reads of what is new).  A granted secret that has only begun
# to arrive when a read is answered must not be given out in two halves,
# each too short for the redactor: a read holds back a tail that could
# still become a secret, and gives it once the rest has come (or the job
# has ended).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
secret='sup3r/s3cret+value'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
ws=$(make_workspace)
# Prints the agent's text, one write after 200 bytes of its own, and runs on.
printf '%s\n' 'trap "exit 0" TERM; printf "%0200d%s" 0 "$1"; sleep 20 & wait' >"$ws/serve.sh"

M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 20000
    command: ["sh", "-c", "printf 'token=%.9s' \"$API_TOKEN\"; sleep 1; printf '%s\\n' \"${API_TOKEN#?????????}\"; echo done; sleep 1; printf 'again %s' \"$API_TOKEN\""]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
    jobs: { maxBlockMs: 5000 }
  - name: serve
    input: { name: string }
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 20000
    command: ["sh", "serve.sh", "{name}"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
    jobs: { maxBlockMs: 5000 }
  - name: job_kill
    action: job_kill
    input: { jobId: string }
    output: { jobId: string, status: string }
    sideEffect: external
    timeoutMs: 5000
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
YAML

mcp_start "$M" "$ws"
mcp_call deploy '{"blockMs":300}'
expect_ok_result "the job starts"
expect_eq "... and is running" "$(jr .result.structuredContent.status)" running
all=$(jr .result.structuredContent.output)
status=running
deadline=$((SECONDS + 30))
while [ "$status" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-1","waitMs":5000}'
	status=$(jr .result.structuredContent.status)
	all+=$(jr .result.structuredContent.output)
done
expect_eq "the job ended" "$status" exited
expect_contains "the secret was redacted where it was printed whole" "$all" "token=[REDACTED:API_TOKEN]"
expect_contains "... and at the very end of the output" "$all" "again [REDACTED:API_TOKEN]"
expect_contains "the output after it came too" "$all" "done"
expect_not_contains "no read gave out the first part of the secret" "$all" "sup3r/s3c"
expect_not_contains "no read gave out the rest of it" "$all" "ret+value"

# What a read of a running job holds back must not depend on whether it
# begins like the secret: the agent had serve echo a guess at the end of
# what it printed, and a read gave it out unless it was the secret's
# beginning ("sup3r" held back, "sup3x" given), the secret a byte at a
# time.  The same number of bytes is given for either.
given() {	# NAME JOB: sets n, the bytes the first answer and a read gave
	mcp_call serve "{\"name\":\"$1\",\"blockMs\":0}"
	n=$(jr .result.structuredContent.output | tr -d '\n' | wc -c)
	# serve's one write may come after the first answer: wait for it.
	if [ "$n" -eq 0 ]; then
		mcp_call job_output "{\"jobId\":\"$2\",\"waitMs\":5000}"
		n=$(jr .result.structuredContent.output | tr -d '\n' | wc -c)
	fi
}
given sup3r job-2
right=$n
given sup3x job-3
wrong=$n
expect_eq "a read gives as much of a tail that begins like the secret as of one that does not" "$right" "$wrong"
expect_eq "... holding back the same tail, whatever it holds" "$wrong" 100
mcp_stop
finish
