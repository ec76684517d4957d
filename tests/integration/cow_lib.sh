# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Helpers for the tests that attack a copy-on-write session's runners
# from inside its agent (bash; sourced after tests/lib.sh).  Sourcing it
# skips the test where it cannot run (not root, no git or setpriv, a
# kernel without overlayfs in a user namespace), then sets:
#   A               airlock's absolute path
#   INIT, READY     the agent's initialize request and notification
#   secret, reversed  the secret a check is granted, and its reverse
#   EXTERNAL        a git diff.external (quoted for git config) that
#                   prints $API_TOKEN reversed
# cow_checkout WS       the example project in WS, a git repository
# cow_run_setup WHO     $st, $ws for WHO (root or user), the secret set,
#                       and run() (airlock run of $T/m.yaml on $ws with
#                       the agent $T/agent.sh; output in $T/out; RUN_COW
#                       set to --cow adds it)
# cow_secret_nowhere    passes if neither form of the secret is in any
#                       session's files
# cow_manifest         $T/m.yaml: a cow agent, a run_check granted the
#                       secret, and the checks read from stdin (YAML,
#                       each line "  name: [argv...]")
# cow_agent_check CHECK BODY
#                       $T/agent.sh: runs BODY in its sandbox, then calls
#                       run_check CHECK and reads the check's artifact
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
reversed=$(printf '%s' "$secret" | rev)
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'
EXTERNAL='"sh -c \"printf %s \\\"\\\$API_TOKEN\\\" | rev; echo\""'

cow_checkout() {	# WS
	cp -a "$top_srcdir/contrib/example-project" "$1"
	chmod -R u+w "$1"
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -qm init
}

# cow_run_setup WHO RUN-PREFIX...: run() then runs as the prefix says.
cow_run_setup() {
	who=$1 st="$T/$1/state" ws="$T/$1/ws"
	shift
	RUN_AS=("$@")
	mkdir -p "$T/$who" "$st"
	cow_checkout "$ws"
	[ "$who" = user ] && chown -R 4242:4242 "$T/$who"
	printf '%s' "$secret" | "$@" env AIRLOCK_HOME="$st" "$A" secret set API_TOKEN
}
run() {
	"${RUN_AS[@]}" env AIRLOCK_HOME="$st" HOME="$st" PATH="$PATH" \
	    timeout 60 "$A" run ${RUN_COW:-} --manifest "$T/m.yaml" --workspace "$ws" -- \
	    "$T/agent.sh" >"$T/out" 2>"$T/err"
}

cow_manifest() {
	{
		cat <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 20000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
EOF2
		cat
		printf 'agent:\n  workspace: cow\n'
	} >"$T/m.yaml"
	chmod 644 "$T/m.yaml"
}

cow_secret_nowhere() {
	if grep -rqF -e "$secret" -e "$reversed" "$T"/*/state/sessions; then
		fail "the secret (or its reverse) is nowhere the agent or the log can read"
	else
		pass "the secret (or its reverse) is nowhere the agent or the log can read"
	fi
}

cow_agent_check() {	# CHECK BODY
	{
		echo '#!/bin/sh'
		printf '%s\n' "$2"
		cat <<EOF2
{ printf '%s\n' '$INIT' '$READY' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"$1"}}}'; sleep 2
  printf '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"airlock://%s/artifacts/0001-$1.log"}}\n' "\$AIRLOCK_SESSION"
  sleep 1; } | $A connect
EOF2
	} >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
}
