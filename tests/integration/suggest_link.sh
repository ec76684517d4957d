#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock suggest and a denial whose path leads elsewhere: the agent,
# from inside its real sandbox under "airlock run", links a name in its
# persistent home (agent.home: on the host, seen by no runner) to a
# credential store and has a tool's run name a file through it.  The
# refusal is real (the path exists on the host) and names only the
# agent's home; a sandbox.readOnly entry for it would bind the store (a
# bind follows the link).  suggest must flag it WEAKENS, as it flags the
# store by name, and --apply must refuse it without --allow-weakening.
if [ -z "${AIRLOCK_SUGGEST_TEST_NS:-}" ]; then
	AIRLOCK_SUGGEST_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/u/.ssh
echo SECRET-KEY-42 >/srv/u/.ssh/key
chmod 755 /srv /srv/u /srv/u/.ssh

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
agent:
  home: /srv/agenthome
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }
cp "$T/m.yaml" "$T/m.orig"
printf 'cat /srv/agenthome/cache/key\n' >"$ws/build.sh"
printf '%s\n' '{"name":"build","arguments":{}}' >"$ws/calls"
cat >"$ws/link.sh" <<'AGENT'
#!/bin/sh
ln -s ../u/.ssh "$HOME/cache"
exec sh "$(dirname "$0")/agent.sh" "$1"
AGENT
chmod 755 "$ws/link.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/link.sh" \
    "$ws/calls" >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
appr_reply 1 || { echo "not ok - no reply to the build"; cat "$T/run.err"; exit 1; }
appr_agent_stop
expect_eq "the run names a file in the agent's home: a filesystem read denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" \
    '["filesystem","/srv/agenthome/cache/key","read"]'
S=$(basename "$(newest_session)")
out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_eq "suggest reads the session" "$rc" 0
expect_contains "suggest proposes the path as named" "$out" "/srv/agenthome/cache/key"
expect_contains "... flagged: through the link it is a credential store" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: /srv/agenthome/cache/key"
expect_contains "... naming where it leads" "$(cat "$T/err")" \
    "/srv/agenthome/cache/key leads to /srv/u/.ssh/key: /srv/u/.ssh/key is in a credential store"
# The agent can put the link back as a plain directory until the manifest
# is changed, and swap it again afterwards: its home is flagged as such.
rm /srv/agenthome/cache
mkdir /srv/agenthome/cache
echo plain >/srv/agenthome/cache/key
out=$("$AIRLOCK" suggest "$S" 2>"$T/err")
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_contains "a path in the agent's home is flagged even while it is plain" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: /srv/agenthome/cache/key is in the agent's home /srv/agenthome"
out=$("$AIRLOCK" suggest --apply --plan "$plan" "$S" 2>&1); rc=$?
expect_eq "--apply refuses it without --allow-weakening" "$rc" 1
expect_contains "... saying why" "$out" "not applied: 1 change(s) weaken a protected class"
check "... and the manifest is unchanged" cmp -s "$T/m.yaml" "$T/m.orig"
finish
