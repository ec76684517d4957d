#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The incremental workspace index (broker/wsindex.h): a refresh hashes only
# what changed, a gate still stops counting when one byte changes behind
# the broker's back with the mtime put back, the old 200k-entry cap is
# gone, and a workspace that cannot be digested is a non-retryable error.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env

M="$T/m.yaml"
cat >"$M" <<'EOF'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, artifactUri: string, durationMs: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  ok: ["true"]
gates:
  required: [ok]
EOF
status() { mcp_rpc airlock/session/status '{}'; }
gate() { jr -c '[.result.acceptanceMet, (.result.gates[] | select(.checkId == "ok") | .state)]'; }

ws="$T/ws"
mkdir -p "$ws/src/deep" "$ws/docs"
for i in $(seq 1 50); do printf 'file %s\n' "$i" >"$ws/src/f$i.c"; done
printf 'abcdef\n' >"$ws/src/deep/target.c"
printf 'readme\n' >"$ws/docs/README"
ln -s ../src/f1.c "$ws/docs/link"
old=$(date -d '2020-01-01 00:00:00' +%s)
find "$ws" -type f -exec touch -h -d "@$old" {} +
chmod -R a+rX "$ws"
mcp_start "$M" "$ws"

# Files created just now are racy (their ctime is within the window of
# the clock): each refresh hashes them again until they are older.
status
expect_eq "the index holds every regular file" "$(jr .result.workspaceIndex.files)" 52
expect_eq "the first refresh hashes every file" "$(jr .result.workspaceIndex.hashed)" 52
deadline=$((SECONDS + 20))
while status && [ "$(jr .result.workspaceIndex.racy)" != 0 ] &&
    [ $SECONDS -lt $deadline ]; do
	:
done
expect_eq "once older than the racy window no file is racy" "$(jr .result.workspaceIndex.racy)" 0
status
expect_eq "a refresh with nothing changed hashes nothing" "$(jr -c '.result.workspaceIndex | [.files, .hashed]')" '[52,0]'
check "the index reports its memory" test "$(jr .result.workspaceIndex.bytes)" -gt 0

mcp_call run_check '{"checkId":"ok"}'
expect_eq "the gate passes" "$(jr .result.structuredContent.exitCode)" 0
status
expect_eq "acceptance is met on this content" "$(gate)" '[true,"pass"]'
digest1=$(jr .result.workspaceDigest)

# One byte behind the broker's back, same size, mtime put back: only the
# ctime tells, and that is enough.
before=$(stat -c '%s %Y' "$ws/src/deep/target.c")
printf 'abcdeX\n' >"$ws/src/deep/target.c"
touch -d "@$old" "$ws/src/deep/target.c"
check "size and mtime are as they were" test "$(stat -c '%s %Y' "$ws/src/deep/target.c")" = "$before"
status
expect_eq "the gate no longer counts" "$(gate)" '[false,"stale"]'
check "the digest changed" test "$(jr .result.workspaceDigest)" != "$digest1"
expect_eq "exactly the changed file was hashed" "$(jr .result.workspaceIndex.hashed)" 1

# The content put back: the digest is of content, so the gate counts again.
printf 'abcdef\n' >"$ws/src/deep/target.c"
touch -d "@$old" "$ws/src/deep/target.c"
status
expect_eq "the same content gives the same digest" "$(jr .result.workspaceDigest)" "$digest1"
expect_eq "and the gate counts again" "$(gate)" '[true,"pass"]'

# A mode change (not executable -> executable) is part of the digest.
chmod +x "$ws/docs/README"
status
check "chmod +x changes the digest" test "$(jr .result.workspaceDigest)" != "$digest1"
chmod -x "$ws/docs/README"
# A symlink retargeted: not a regular file, read every time.
ln -sfn ../src/f2.c "$ws/docs/link"
status
check "a retargeted symlink changes the digest" test "$(jr .result.workspaceDigest)" != "$digest1"
ln -sfn ../src/f1.c "$ws/docs/link"
# A file swapped in by rename (new ino) with the same size and mtime.
printf 'abcdeY\n' >"$ws/src/deep/new.tmp"
touch -d "@$old" "$ws/src/deep/new.tmp"
mv "$ws/src/deep/new.tmp" "$ws/src/deep/target.c"
status
check "a file renamed over another changes the digest" test "$(jr .result.workspaceDigest)" != "$digest1"
printf 'abcdef\n' >"$ws/src/deep/target.c"
touch -d "@$old" "$ws/src/deep/target.c"
status
expect_eq "back to the original content" "$(jr .result.workspaceDigest)" "$digest1"

# The broker's own write: the file is in the index, the gate is stale.
mcp_call write_file '{"path":"src/new.c","content":"int x;\n"}'
check "write_file succeeds" test "$(jr .result.isError)" = false
status
expect_eq "a file the broker wrote is indexed" "$(jr .result.workspaceIndex.files)" 53
expect_eq "and makes the gate stale" "$(gate)" '[false,"stale"]'
mcp_stop >/dev/null 2>&1

# More entries than the old cap of 200000: the digest is computed.
big="$T/big"
mkdir -p "$big"
python3 - "$big" <<'EOF'
import os, sys
root = sys.argv[1]
for d in range(201):
    p = os.path.join(root, "d%03d" % d)
    os.mkdir(p)
    for f in range(1000):
        os.close(os.open(os.path.join(p, "f%04d" % f), os.O_CREAT | os.O_WRONLY, 0o644))
EOF
chmod -R a+rX "$big"
mcp_start "$M" "$big"
status
expect_eq "201000 files are digested (no entry cap)" "$(jr .result.workspaceIndex.files)" 201000
check "with a digest" test -n "$(jr .result.workspaceDigest | grep -E '^[0-9a-f]{64}$')"
mcp_stop >/dev/null 2>&1
rm -rf "$big"

# A path longer than PATH_MAX cannot be digested; no retry can help.
long="$T/long"
mkdir -p "$long"
( cd "$long" && for i in $(seq 1 20); do
	n=$(printf 'd%.0s' $(seq 1 250)); mkdir "$n" && cd "$n" || exit 1
  done && : >leaf )
chmod -R a+rX "$long"
mcp_start "$M" "$long"
mcp_call run_check '{"checkId":"ok"}'
expect_eq "run_check on an undigestable workspace is an error" "$(jr .result.isError)" true
err=$(jr '.result.content[0].text')
expect_eq "of class workspace_undigestable, not retryable" \
    "$(printf '%s' "$err" | jq -c '[.errorClass, .retryable]')" '["workspace_undigestable",false]'
expect_contains "the message says why" "$(printf '%s' "$err" | jq -r .message)" "path too long to digest"
mcp_stop >/dev/null 2>&1
finish
