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
# Prints the agent's text, one write after 4000 bytes of its own, and runs on.
# Prints the agent's text as a line, then "ready" and a long line on
# stderr, and runs on.
printf '%s\n' 'printf "ERR %s\n" "$1"; printf "ready\n%04000d\n" 0 >&2; exec sleep 20' >"$ws/ev.sh"
printf '%s\n' 'trap "exit 0" TERM; printf "%04000d%s" 0 "$1"; sleep 20 & wait' >"$ws/serve.sh"

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
  - name: serve_ev
    input: { name: string }
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 20000
    command: ["sh", "ev.sh", "{name}"]
    jobs: { maxBlockMs: 5000, events: [ { match: "." } ] }
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
# 4005 bytes less the longest form but one: the hex (36 characters)
# broken into lines (3 * 36 - 2), 1024 bytes of escape sequences
# (REDACT_MAX_ESC), and laid out as a hex dump: a first change of line
# after an ASCII column of up to 264 bytes and an offset (289: up to 17,
# hexdump -x's 4 spaces after it), each of its 18 bytes on a line of its
# own (xxd -c 1: 18 * 34, the byte in the ASCII column, its padding, an
# offset), the rest of its last line (1040: a line of 256), and lines of
# characters under its first and last lines (2 * 274: od -t x1 -c -w64)
# and under 4 others (4 * 21 and 72 for its 36 characters).
expect_eq "... holding back the same tail, whatever it holds" "$wrong" 231

# The same for a job's pushed events (jobs.events): a line was pushed once
# no form of a secret could run past it, so the line of a guess the agent
# had a tool echo, in hex (a hex form may go on past a line break), was
# held back while it was the beginning of the secret's hex and pushed at
# once when it was not, the secret a byte at a time from any tool with an
# event rule, granted a secret or not.  Now a running job's events hold
# back the same tail as its reads, whatever it holds.
# pushed GUESS JOB: sets ev=1 if the guess's line was pushed by the time
# the stderr line printed after it was, and two reads later.
pushed() {
	local deadline=$((SECONDS + 20)) seen=

	: >"$T/notes"
	mcp_call serve_ev "{\"name\":\"$1\",\"blockMs\":0}"
	seen+=$(jr '.result.structuredContent.events[]?.line')$'\n'
	while ! grep -q '"line":"ready"' "$T/notes" &&
	    ! [[ $seen == *$'\n'ready$'\n'* ]] && [ $SECONDS -lt $deadline ]; do
		mcp_call job_output "{\"jobId\":\"$2\",\"waitMs\":500}"
		seen+=$(jr '.result.structuredContent.events[]?.line')$'\n'
	done
	mcp_call job_output "{\"jobId\":\"$2\",\"waitMs\":100}"
	seen+=$(jr '.result.structuredContent.events[]?.line')$'\n'
	mcp_call job_output "{\"jobId\":\"$2\",\"waitMs\":100}"
	seen+=$(jr '.result.structuredContent.events[]?.line')$'\n'
	check "$2: its stderr line was pushed" test $SECONDS -lt $deadline
	ev=0
	if grep -qF "\"line\":\"ERR $1\"" "$T/notes" ||
	    [[ $seen == *"ERR $1"* ]]; then
		ev=1
	fi
}
# hex of "sup3r/s", the secret's beginning, and a guess that is no hex at all (since the hex-dump forms, a line of hex digits is held back by the old rule too: whether it begins the secret no longer shows there)
pushed 73757033722f73 job-4
right=$ev
pushed qqqqqqqqqqqqqq job-5
wrong=$ev
expect_eq "an event is held back as long for a guess that begins the secret's hex as for one that does not" "$right" "$wrong"
expect_eq "... held back while it is in the stream's tail, whatever it holds" "$wrong" 0
mcp_stop
finish
