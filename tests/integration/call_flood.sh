#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The broker's event loop holds at most 1024 watches (broker/loop.c), and
# every runner and every job_output or job_kill that waits holds one.  An
# agent that sent a thousand calls at once took the last one and the
# broker died ("too many watches"), its session, the agent and every run
# with it:
#   (a) job_output with waitMs on a running job: now at most 128 wait at
#       once, all jobs together; the rest are "busy" (retryable) at once,
#       and once the waiters are answered, others may wait again; a
#       job_kill waits for the job's end with no deadline (no watch),
#       as a read does while the job's writes land (a land may take as
#       long as the agent makes it): at most 256 wait so at once, the
#       rest are "busy" at once, and a thousand sent at once are all
#       answered;
#   (b) commands with runBudget.maxParallelProcesses unset (its default,
#       no limit): now at most 256 runners at once; the rest are "busy",
#       like calls past maxParallelProcesses;
#   (c) retries of a call still running, with its idempotencyKey: each
#       waited for its result with no timer nor bound (100000 retries held
#       265 MB of the broker's memory); now at most 256 wait at once, and
#       the rest are "busy" at once.
#   (d) airlock/session/status requests: each waited for a workspace
#       digest, all of them while a change set landed, with no bound
#       (300000 sent during a land of 40000 files held 200 MB of the
#       broker's memory, then were answered in one turn); now at most 64
#       wait at once, and the rest are refused (-32001, busy) at once;
#   (e) calls that wait for a digest before they run or ask a human (a
#       run_check, a call that needs approval): unbounded outside a land
#       (100000 sent while 100000 fresh files were digested held 145 MB);
#       now at most 256 wait at once, and the rest are "busy" at once.
# The agent floods from inside its sandbox, through "airlock connect".
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: server
    command: ["sh", "-c", "while :; do sleep 1; done"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
    jobs: { maxBlockMs: 5000 }
  - name: nap
    command: ["sleep", "40"]
    output: { exitCode: integer }
    sideEffect: none
    timeoutMs: 60000
  - name: slow
    command: ["sleep", "40"]
    input: { idempotencyKey: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
  - name: job_kill
    action: job_kill
    input: { jobId: string }
    output: { jobId: string, status: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
checks:
  t: ["true"]
YAML

# The agent.  send FRAME...: to the broker; upto PATTERN: waits (20 s at
# most) until a reply matching PATTERN came back.
cat >"$T/agent.sh" <<EOF
#!/bin/sh
exec 3>&-
mkfifo /tmp/in || exit 1
env -i $AIRLOCK connect </tmp/in >/tmp/out 2>/tmp/err &
exec 4>/tmp/in
send() { printf '%s\n' "\$@" >&4; }
upto() {
	i=0
	while ! grep -q "\$1" /tmp/out && [ \$i -lt 200 ]; do
		sleep 0.1; i=\$((i + 1))
	done
}
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "\$1" "\$2" "\$3"; }
# Until COUNT lines of the output match PATTERN, 20 s at most.
answered() {
	i=0
	while [ "\$(grep -c "\$1" /tmp/out)" -lt "\$2" ] && [ \$i -lt 200 ]; do
		sleep 0.1; i=\$((i + 1))
	done
}
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}'
call 2 server '{"blockMs":100}' >&4
upto '"id":2,.*"jobId":"job-1"'
# (a) 1100 job_output calls that wait, in one go.
i=1000; while [ \$i -lt 2100 ]; do
	call \$i job_output '{"jobId":"job-1","waitMs":600000}'; i=\$((i + 1))
done >&4
send '{"jsonrpc":"2.0","id":3,"method":"ping"}'
upto '"id":3,"result"'
call 4 job_kill '{"jobId":"job-1"}' >&4
upto '"id":4,"result"'
call 5 server '{"blockMs":100}' >&4
upto '"id":5,.*"jobId":"job-2"'
call 6 job_output '{"jobId":"job-2","waitMs":300}' >&4
upto '"id":6,"result"'
# And 1000 job_kill calls of it in one write: each waits for its end.
i=5000; while [ \$i -lt 6000 ]; do
	call \$i job_kill '{"jobId":"job-2"}'; i=\$((i + 1))
done >/tmp/kills
cat /tmp/kills >&4
upto '"id":5999,"result"'
# (c) A call with an idempotencyKey runs; 300 retries of it in one go;
# then it is cancelled, and the retries that waited get its answer.
call 7 slow '{"idempotencyKey":"k1"}' >&4
i=7000; while [ \$i -lt 7300 ]; do
	call \$i slow '{"idempotencyKey":"k1"}'; i=\$((i + 1))
done >&4
send '{"jsonrpc":"2.0","id":9,"method":"ping"}'
upto '"id":9,"result"'
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}'
upto '"id":7,'
# (b) 1100 commands at once.
i=3000; while [ \$i -lt 4100 ]; do
	call \$i nap '{}'; i=\$((i + 1))
done >&4
send '{"jsonrpc":"2.0","id":8,"method":"ping"}'
upto '"id":8,"result"'
# (d) 200 status requests in one write: each waits for a digest.
i=8000; while [ \$i -lt 8200 ]; do
	printf '{"jsonrpc":"2.0","id":%s,"method":"airlock/session/status","params":{}}\n' \$i
	i=\$((i + 1))
done >/tmp/statuses
cat /tmp/statuses >&4
answered '"id":8[01][0-9][0-9],' 200
# (e) 300 run_check calls in one write: each waits for a digest first.
i=9000; while [ \$i -lt 9300 ]; do
	call \$i run_check '{"checkId":"t"}'; i=\$((i + 1))
done >/tmp/checks
cat /tmp/checks >&4
answered '"id":9[0-2][0-9][0-9],' 300
exec 4>&-
cat /tmp/out
EOF
chmod 755 "$T/agent.sh"

timeout 120 "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "the session ends with the agent (exit status 0)" "$rc" 0 ||
    tail -5 "$T/err" | sed 's/^/# /'
check "the broker did not die of its watches" sh -c "! grep -q 'too many watches' '$T/err'"

# reply ID: the reply with that id.
reply() { grep "^{\"jsonrpc\":\"2.0\",\"id\":$1," "$T/out"; }
# busy FROM TO: how many replies with ids in [FROM, TO) say busy.
busy() {
	jq -r --argjson a "$1" --argjson b "$2" \
	    'select((.id | type) == "number" and .id >= $a and .id < $b) |
	    .result.content[0].text | fromjson? | .errorClass' "$T/out" |
	    grep -c '^busy$'
}

# (a)
check "a ping after 1100 waiting job_output calls is answered" test -n "$(reply 3)"
expect_eq "128 of them wait, the other 972 are busy" "$(busy 1000 2100)" 972
R=$(reply 2099)
expect_contains "... saying so" "$(jr '.result.content[0].text')" \
    '128 calls already wait on jobs; retry when one is answered'
expect_eq "... retryable" "$(jr '.result.content[0].text | fromjson | .retryable')" true
killed=$(jq -r 'select((.id | type) == "number" and .id >= 1000 and .id < 2100) |
    .result.structuredContent.status // empty' "$T/out" | grep -c '^killed$')
expect_eq "the job's kill answered the 128 that waited" "$killed" 128
R=$(reply 6)
expect_eq "then a job_output may wait again (its 300 ms ran out, no busy)" \
    "$(jr '.result.isError')" false
killed=$(jq -r 'select((.id | type) == "number" and .id >= 5000 and .id < 6000) |
    .result.structuredContent.status // empty' "$T/out" | grep -c '^killed$')
kbusy=$(busy 5000 6000)
expect_eq "1000 job_kill calls sent at once are all answered, killed or busy" \
    "$((killed + kbusy))" 1000
check "at most 256 wait for the job's end, the others are busy at once ($kbusy)" \
    test "$kbusy" -gt 0
R=$(jq -c 'select((.id | type) == "number" and .id >= 5000 and .id < 6000 and
    (.result.content[0].text | fromjson? | .errorClass) == "busy")' "$T/out" | head -1)
expect_contains "... saying so" "$(jr '.result.content[0].text')" \
    '256 calls already wait for jobs to end; retry when one is answered'

# (c)
expect_eq "256 retries of a running call wait, the other 44 are busy" \
    "$(busy 7000 7300)" 44
R=$(reply 7299)
expect_contains "... saying so" "$(jr '.result.content[0].text')" \
    '256 retries already wait for calls with their idempotencyKey still running; retry when this one has ended'
expect_eq "... retryable" "$(jr '.result.content[0].text | fromjson | .retryable')" true
waited=$(jq -r 'select((.id | type) == "number" and .id >= 7000 and .id < 7300) |
    .result.content[0].text | fromjson? | .errorClass' "$T/out" | grep -c '^cancelled$')
expect_eq "the 256 that waited got the call's own answer (cancelled)" "$waited" 256

# (b)
check "a ping after 1100 commands is answered" test -n "$(reply 8)"
expect_eq "256 of them run, the other 844 are busy" "$(busy 3000 4100)" 844
R=$(reply 4099)
expect_contains "... saying so" "$(jr '.result.content[0].text')" \
    '256 processes already run, as many as airlock runs at once for a session'
# (d)
statuses=$(jq -r 'select((.id | type) == "number" and .id >= 8000 and .id < 8200) |
    if .result.workspaceDigest then "status" else .error.code end' "$T/out")
expect_eq "200 status requests sent at once are all answered" \
    "$(printf '%s\n' "$statuses" | grep -c .)" 200
check "at most 64 wait for the digest, the others are refused at once" \
    test "$(printf '%s\n' "$statuses" | grep -c '^-32001$')" -gt 0
check "... and at least 64 get their status" \
    test "$(printf '%s\n' "$statuses" | grep -c '^status$')" -ge 64
R=$(reply 8199)
expect_contains "... saying so" "$(jr '.error.message')" \
    'busy: 64 status requests already wait for the workspace digest; ask again when one is answered'
# (e)
digest_busy=$(jq -r 'select((.id | type) == "number" and .id >= 9000 and .id < 9300) |
    .result.content[0].text' "$T/out" | grep -c 'calls already wait for the workspace digest')
check "of 300 run_check calls sent at once, at most 256 wait for the digest, the others are busy at once" \
    test "$digest_busy" -gt 0
R=$(reply 9299)
expect_contains "... saying so" "$(jr '.result.content[0].text')" \
    '256 calls already wait for the workspace digest; retry when one is answered'
expect_eq "... retryable" "$(jr '.result.content[0].text | fromjson | .retryable')" true
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$T/err" | tail -1)
expect_eq "256 nap runners started" \
    "$(grep -c '"event":"runner_start".*"tool":"nap"' "$log")" 256
check "the log verifies" "$AIRLOCK" audit verify "$log"
finish
