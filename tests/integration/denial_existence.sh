#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A filesystem denial is read from the command's own error lines and
# kept only when the path exists on the host, so the command learns
# whether a path it names exists.  Run as root, the runner looked as
# root: a tool the agent drives printed "cat: PATH: No such file or
# directory" for names in another user's 0700 home, and the tool's
# result listed a denial for each file that was there (the names in a
# private directory that the runner's user, on the host, may not even
# search).  Now a path counts only where the runner's own user could
# find it: every directory above it, and above where a link leads,
# searchable by that user.  Through the real MCP interface, as root.
if [ -z "${AIRLOCK_DENIAL_TEST_NS:-}" ]; then
	AIRLOCK_DENIAL_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

# This test's own /srv: a private home (0700, another user's) holding
# a file, a public directory holding one, and a link from the public
# one into the private home.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/alice/plans /srv/pub
echo merger >/srv/alice/plans/acme-merger.txt
echo notes >/srv/pub/notes.txt
chown -R 1234:1234 /srv/alice
chmod 700 /srv/alice
chmod 755 /srv/alice/plans /srv/pub
ln -s /srv/alice/plans /srv/pub/link

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }

# The agent's script: error lines naming host paths it cannot see.
cat >"$ws/build.sh" <<'SH'
for p in /srv/alice/plans/acme-merger.txt /srv/alice/plans/nothing.txt \
    /srv/pub/link/acme-merger.txt /srv/pub/notes.txt; do
	echo "cat: $p: No such file or directory" >&2
done
exit 1
SH

mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
denied=$(jr -c '[.result.structuredContent.denied[]? | .path]')
expect_eq "a path the runner's user could find on the host is still a denial" \
    "$(jr -c '[.result.structuredContent.denied[]? | select(.path == "/srv/pub/notes.txt") | [.layer, .access]]')" \
    '[["filesystem","read"]]'
expect_not_contains "a file in another user's 0700 home is no denial: its existence is not told" \
    "$denied" "acme-merger"
expect_not_contains "... nor through a link that leads there" "$denied" "/srv/pub/link"
expect_not_contains "... and a missing one is none either (the two read the same)" \
    "$denied" "nothing.txt"
expect_eq "the audit log records no denial of the private file" \
    "$(cat "$AIRLOCK_HOME"/sessions/*/audit.jsonl | jq -r 'select(.event == "sandbox_denial") | .fields.path' | grep -c acme)" 0
mcp_stop
finish
