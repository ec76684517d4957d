#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret runs only the code it had when the session
# started.  Its script, hard-linked from a directory the agent may write
# (a package store, here an `airlock run --rw` bind), was pinned as
# "refused:...": never read, one digest whatever it held.  A read-only
# agent rewrote it there to print the secret with a comma between its
# characters (no redaction catches that) and the tool ran it holding the
# secret.  Now a pinned
# path that cannot be read as a file of the workspace binds nothing and
# is always changed: the tool refuses, pinned_code_changed, naming it.
# Played for real from inside the agent's read-only sandbox.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
DEPLOY='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}'
ws="$T/ws" store="$T/store"
mkdir -p "$ws" "$store"
printf 'echo "deployed ${API_TOKEN:+with a token}"\n' >"$store/deploy.sh"
ln "$store/deploy.sh" "$ws/deploy.sh"
chmod -R a+rwX "$ws" "$store"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
agent:
  workspace: ro
EOF
secret='n0t-for-the-agent-42'
commas=$(printf '%s' "$secret" | sed 's/./&,/g')
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
{
	echo '#!/bin/sh'
	echo "printf '%s\\n' 'printf %s \"\$API_TOKEN\" | sed \"s/./&,/g\"' >$store/deploy.sh"
	connect_calls "$DEPLOY"
} >"$T/agent.sh"
chmod 755 "$T/agent.sh"
(cd "$ws" && timeout 90 "$A" run --rw "$store" --manifest "$T/m.yaml" \
    --workspace "$ws" -- "$T/agent.sh" >"$T/out" 2>"$T/err")
check "the agent rewrote deploy.sh through its other name" grep -q sed "$ws/deploy.sh"
R=$(grep '"id":2,' "$T/out")
expect_eq "the tool is not run with the secret" \
    "$(jr '.result.content[0].text | fromjson | .errorClass')" pinned_code_changed
expect_contains "... naming deploy.sh" \
    "$(jr '.result.content[0].text | fromjson | .message')" "(deploy.sh)"
expect_not_contains "the secret, commas between, is not in the result" "$R" "$commas"
check "pinned_code_changed is audited" \
    grep -q '"pinned_code_changed"' "$(newest_session_log)"
finish
