#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An agent that writes the checkout directly (agent.workspace: rw) can
# plant repository metadata anywhere in it, and a run granted a secret
# that runs git there runs the agent's command with the secret.  The
# attack, from inside the agent's sandbox: src/.git with diff.external,
# then a check granted API_TOKEN that runs "git -C src diff".  Before,
# airlock run started, the check handed the secret back reversed (no
# redaction catches that), and the plant stayed in the human's checkout
# for their own git to run.  The runner cannot tell such a plant from a
# real nested repository (it is the checkout's own), so airlock run now
# refuses the combination before the agent starts: a manifest that grants
# a secret and lets the agent write the checkout directly does not run,
# and says to use cow, where the runner covers what the agent planted
# (cow_runner_nested_git.sh).  As root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-46'
. "$top_srcdir/tests/integration/cow_lib.sh"
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"diff"}}}'
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  diff: ["git", "-C", "src", "--no-optional-locks", "diff"]
agent:
  workspace: rw
EOF
chmod 644 "$T/m.yaml"
cat >"$T/agent.sh" <<EOF
#!/bin/sh
cd src && git init -q . && git add -A && git config diff.external $EXTERNAL && echo agent-edit >>todo.sh && echo SRC-GIT-PLANTED && cd ..
{ printf '%s\n' '$INIT' '$READY' '$CALL'; sleep 2
  printf '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"airlock://%s/artifacts/0001-diff.log"}}\n' "\$AIRLOCK_SESSION"
  sleep 1; } | $A connect
EOF
chmod 755 "$T/agent.sh"

attack() {	# WHO RUN-PREFIX...
	cow_run_setup "$@"
	run "$@"
	rc=$?
	out=$(cat "$T/out") err=$(cat "$T/err")
	check "$who: airlock run refuses to start (exit $rc)" test "$rc" -ne 0
	expect_contains "$who: ... saying why" "$err" "grants a secret (run_check: API_TOKEN) and lets the agent write the checkout directly (agent.workspace: rw)"
	expect_contains "$who: ... and what to do" "$err" "agent.workspace: cow"
	expect_not_contains "$who: the agent never ran" "$out" SRC-GIT-PLANTED
	expect_not_contains "$who: no secret came back" "$out" "$reversed"
	check "$who: nothing was planted in the checkout" test ! -e "$ws/src/.git"
	log=$(ls -d "$st"/sessions/*/audit.jsonl | head -n 1)
	check "$who: the log says why it did not run" grep -q '"run_refused"' "$log"
	check "$who: ... and verifies" "$A" audit verify -q "$log"

	# The same manifest as a copy-on-write session runs, and the plant
	# is covered (cow_runner_nested_git.sh).  A fresh checkout: without
	# the refusal the plant above is in this one, the checkout's own.
	rm -rf "$ws" "$st"/sessions
	cow_checkout "$ws"
	[ "$who" = user ] && chown -R 4242:4242 "$ws"
	RUN_COW=--cow run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: with --cow the agent runs and plants in its view" "$out" SRC-GIT-PLANTED
	expect_contains "$who: ... the check runs" "$out" '\"exitCode\":0'
	expect_not_contains "$who: ... and gives no secret back" "$out" "$reversed"
	check "$who: ... and the checkout is untouched" test ! -e "$ws/src/.git"
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
