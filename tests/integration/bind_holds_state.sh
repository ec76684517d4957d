#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A manifest's read-only entry that holds airlock's own state directory
# (~/.local, for pip's tools, holds ~/.local/state/airlock) showed it to
# the sandbox: as an ordinary user (uid 4242), whose agent and runners
# run as that uid, the agent under `airlock run` and an exec tool under
# `airlock serve` read secrets.key and secrets.db (every secret, sealed
# with that key) and the host's audit key.  `airlock run --ro` refused
# such a path; the manifest's did not.  Now every bind that holds it is
# refused, naming it, unless sandbox.denyRead masks it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: switching to uid 4242 needs root"; TESTS_FINISHED=1; exit 77
fi
U=4242
A=$(realpath "$AIRLOCK")
chmod 755 "$T"
ws="$T/ws"; h="$T/home"
mkdir -p "$ws" "$h/.local/bin"
chown -R "$U:$U" "$ws" "$h"
as_user() {
	timeout 60 setpriv --reuid=$U --regid=$U --clear-groups env \
	    -u AIRLOCK_HOME -u AIRLOCK_RUNTIME_DIR -u AIRLOCK_PASSPHRASE \
	    HOME="$h" XDG_STATE_HOME="$h/.local/state" \
	    XDG_RUNTIME_DIR="$h/.local/run" PATH="$PATH" "$@"
}
printf 'user-secret-value-4242' | as_user "$A" secret set API_TOKEN
key="$h/.local/state/airlock/secrets.key"
check "the user's store is there" [ -s "$key" ]
khex=$(od -An -tx1 "$key" | tr -d ' \n')

manifest() {	# EXTRA-SANDBOX-LINE
	cat >"$T/m.yaml" <<YAML
sandbox:
  readOnly: ["$h/.local"]
$1
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
YAML
	chmod 644 "$T/m.yaml"
}
steal="od -An -tx1 $key | tr -d ' \\n'; echo; ls $h/.local/state/airlock/keys"
printf '#!/bin/sh\n%s\n' "$steal" >"$T/agent.sh"
chmod 755 "$T/agent.sh"

# (a) the agent itself, under airlock run.
manifest ""
out=$(cd "$ws" && as_user "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- "$T/agent.sh" 2>&1)
expect_contains "airlock run refuses the bind" "$out" \
    "read-only path $h/.local holds airlock's own state"
expect_not_contains "the agent did not read the key" "$out" "$khex"
expect_not_contains "nor list the audit keys" "$out" "audit.key"

# (b) an exec tool the agent calls, under airlock serve.
req=$(jq -cn --arg c "$steal" '{jsonrpc:"2.0",id:2,method:"tools/call",params:{name:"shell",arguments:{command:$c}}}')
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    "$req" | (cd "$ws" && as_user "$A" serve --manifest "$T/m.yaml" --workspace "$ws" 2>&1))
expect_contains "the tool's runner refuses the bind" "$out" \
    "holds airlock's own state"
expect_contains "as a sandbox_setup error" "$out" "sandbox_setup"
expect_not_contains "the tool did not read the key" "$out" "$khex"
expect_not_contains "nor list the audit keys" "$out" "audit.key"

# (c) masked by denyRead, the rest of ~/.local is bound and the store is not.
manifest "  denyRead: [\"$h/.local/state/airlock\"]"
out=$(cd "$ws" && as_user "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- sh -c "ls -d $h/.local/bin && $steal" 2>&1)
expect_contains "with the state masked, the bind is made" "$out" "$h/.local/bin"
expect_not_contains "and the key is not read" "$out" "$khex"
expect_not_contains "nor the audit keys listed" "$out" "audit.key"
finish
