#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run granted a secret in a copy-on-write session sees the agent's view
# live.  Its runner masks the repositories planted before it started
# (cow_runner_nested_git.sh), but the agent can plant one while it runs:
# 1.5 s into a check that runs "git -C src diff" after 3 s, the agent
# makes src/.git with diff.external.  Before, git ran the agent's command
# with the secret in its environment and the agent read the secret back
# reversed from the result.  Now the broker watches the view from the
# run's start: written meanwhile, the run's output is withheld (nowhere:
# not the result, not the artifact, not a job's reads), nothing of it
# lands, the result says output_withheld, and the log has
# secret_output_withheld.  A run whose view nobody wrote is answered as
# before.  As root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-44'
. "$top_srcdir/tests/integration/cow_lib.sh"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: slowjob
    command: ["sh", "-c", "sleep 3; git -C src --no-optional-locks diff; head -c 400 /dev/zero | tr '\\0' x; echo; sleep 3"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
    jobs: { maxBlockMs: 5000 }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
checks:
  slow: ["sh", "-c", "sleep 3; echo CHECK-RAN >ran.txt; git -C src --no-optional-locks diff"]
agent:
  workspace: cow
EOF2
chmod 644 "$T/m.yaml"

# The agent: calls the slow check, PLANT meanwhile (after 1.5 s), then
# reads the check's artifact; or, with "job", starts slowjob as a job and
# reads its output while it runs (after git ran) and once it ended.
# slowjob prints 400 bytes after the diff, more than the redactor holds
# back of a running job's output (redact_release(): the longest form of
# the secret), so that a read while it runs would give the diff out.
agent_script() {	# PLANT [job]
	local calls
	if [ "${2:-}" = job ]; then
		calls="printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slowjob\",\"arguments\":{\"blockMs\":0}}}'; sleep 4.5
  printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"job-1\"}}}'; sleep 2.5
  printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"job_output\",\"arguments\":{\"jobId\":\"job-1\",\"waitMs\":5000}}}'; sleep 2"
	else
		calls="printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"slow\"}}}'; sleep 5
  printf '{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"airlock://%s/artifacts/0001-slow.log\"}}\\n' \"\$AIRLOCK_SESSION\"; sleep 1"
	fi
	cat >"$T/agent.sh" <<EOF2
#!/bin/sh
{ printf '%s\n' '$INIT' '$READY'; $calls; } | $A connect &
sleep 1.5
$1
wait
EOF2
	chmod 755 "$T/agent.sh"
}

attack() {	# WHO RUN-PREFIX...
	cow_run_setup "$@"

	agent_script "cd src && git init -q . && git add -A && git config diff.external $EXTERNAL && echo agent-edit >>todo.sh && echo SRC-GIT-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent planted src/.git while the check ran" "$out" SRC-GIT-PLANTED
	expect_not_contains "$who: the secret did not come back" "$out" "$reversed"
	expect_contains "$who: the run's output is withheld" "$out" output_withheld
	check "$who: withheld because its view was written (audited)" \
	    grep -q '"secret_output_withheld"' "$st"/sessions/*/audit.jsonl
	check "$who: nothing of the run landed in the session's view" \
	    bash -c '! grep -q "\"change_applied\"" "$@"' _ "$st"/sessions/*/audit.jsonl

	# A job granted the secret: nothing of its output before it ended.
	rm -rf "$ws" "$st"/sessions
	cow_checkout "$ws"
	[ "$who" = user ] && chown -R 4242:4242 "$ws"
	agent_script "cd src && git init -q . && git add -A && git config diff.external $EXTERNAL && echo agent-edit >>todo.sh && echo SRC-GIT-PLANTED" job
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: a job granted the secret started" "$out" '\"jobId\":\"job-1\"'
	expect_contains "$who: the agent planted src/.git while it ran" "$out" SRC-GIT-PLANTED
	expect_not_contains "$who: no read of the running job gave the secret" "$out" "$reversed"
	expect_contains "$who: the ended job failed, its output withheld" "$out" '"status":"failed","output":""'
	check "$who: withheld because its view was written (audited)" \
	    grep -q '"secret_output_withheld".*"slowjob"' "$st"/sessions/*/audit.jsonl

	# Nothing written while it runs: answered as before.
	agent_script "echo QUIET"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: a quiet run's output is given" "$out" '\"exitCode\":0'
	expect_not_contains "$who: ... not withheld" "$out" output_withheld
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
