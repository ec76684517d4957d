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
if [ "$(id -u)" != 0 ] || ! command -v git >/dev/null || ! command -v setpriv >/dev/null; then
	echo "# SKIP: needs root, git and setpriv"; TESTS_FINISHED=1; exit 77
fi
case $(uname -r) in
[1-4].*|5.[0-9].*|5.10.*)
	echo "# SKIP: overlayfs in a user namespace needs Linux >= 5.11"
	TESTS_FINISHED=1; exit 77 ;;
esac
A=$(realpath "$AIRLOCK")
chmod 755 "$T"
secret='n0t-for-the-agent-44'
reversed=$(printf '%s' "$secret" | rev)
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: slowjob
    command: ["sh", "-c", "sleep 3; git -C src --no-optional-locks diff; sleep 3"]
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
EXTERNAL='"sh -c \"printf %s \\\"\\\$API_TOKEN\\\" | rev; echo\""'

# The agent: calls the slow check, PLANT meanwhile (after 1.5 s), then
# reads the check's artifact; or, with "job", starts slowjob as a job and
# reads its output while it runs (after git ran) and once it ended.
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
	local who=$1 st="$T/$1/state" ws="$T/$1/ws"; shift
	mkdir -p "$T/$who"
	cp -a "$top_srcdir/contrib/example-project" "$ws"
	chmod -R u+w "$ws"
	git -C "$ws" init -q
	git -C "$ws" add -A
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm init
	mkdir -p "$st"
	[ "$who" = user ] && chown -R 4242:4242 "$T/$who"
	run() { "$@" env AIRLOCK_HOME="$st" HOME="$st" PATH="$PATH" \
	    timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" -- \
	    "$T/agent.sh" >"$T/out" 2>"$T/err"; }
	printf '%s' "$secret" | "$@" env AIRLOCK_HOME="$st" "$A" secret set API_TOKEN

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
	cp -a "$top_srcdir/contrib/example-project" "$ws"
	chmod -R u+w "$ws"
	git -C "$ws" init -q
	git -C "$ws" add -A
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm init
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
if grep -rqF -e "$secret" -e "$reversed" "$T/root/state/sessions" "$T/user/state/sessions"; then
	fail "the secret (or its reverse) is nowhere the agent or the log can read"
else
	pass "the secret (or its reverse) is nowhere the agent or the log can read"
fi
finish
