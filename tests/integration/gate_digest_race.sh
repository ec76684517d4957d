#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A gate binds its check's result to the workspace digest taken before the
# check runs.  The digest is computed off the loop, so the agent could
# write the workspace through the broker while it was being read: the
# digest kept the old content of a file the check then ran on new.  The
# attack: "flag" says broken; run_check, and while the digest hashes a
# large file write flag=fixed; the check passes on "fixed" and the gate was
# bound to "broken"; write flag=broken back, and acceptance was met on
# broken content.  Now a digest during which the broker wrote the
# workspace is taken again before the check starts, and a check during
# whose run the broker wrote it counts toward no gate.
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
    sideEffect: none
    timeoutMs: 60000
checks:
  fixed: ["sh", "-c", "grep -qx fixed flag"]
  slow: ["sh", "-c", "sleep 2.9; grep -qx fixed flag"]
gates:
  required: [fixed, slow]
EOF
status() { mcp_rpc airlock/session/status '{}'; }
gate() { jr -c "[.result.acceptanceMet, (.result.gates[] | select(.checkId == \"${1:-fixed}\") | .state)]"; }

ws="$T/ws"
mkdir -p "$ws/zz"
echo broken >"$ws/flag"
# Hashing it takes the digest worker about a second.
head -c 256M /dev/zero >"$ws/zz/big"
chmod -R a+rX "$ws"
mcp_start "$M" "$ws"

# The index warm, and past its racy window: "flag" is not read again.
sleep 3
status
status
expect_eq "nothing is racy" "$(jr .result.workspaceIndex.racy)" 0

# reading_big: waits until the broker's digest worker has the large
# file open (it hashes it for a while then), up to 20 s.
reading_big() {
	local deadline=$((SECONDS + 20)) p
	while [ $SECONDS -lt $deadline ]; do
		for p in $(pgrep -x airlock-digest); do
			ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$ws/zz/big" &&
			    return 0
		done
		sleep 0.01
	done
	return 1
}

# The large file changed: the next digest hashes it again.
touch "$ws/zz/big"
mcp_send '{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"fixed"}}}'
check "the digest worker reads the large file" reading_big
mcp_call write_file '{"path":"flag","content":"fixed\n"}'
expect_eq "the fix was written while the digest was taken" "$(jr .result.isError)" false
mcp_wait_id 50 120
expect_eq "the check passed on the fix" "$(jr .result.structuredContent.exitCode)" 0
# The digest was taken again, after the write: the result counts, for
# the content the check ran on.
status
expect_eq "... and its gate counts for that content" "$(gate)" '[false,"pass"]'

mcp_call write_file '{"path":"flag","content":"broken\n"}'
status
expect_eq "with the fix taken back, the gate does not count" "$(gate)" '[false,"stale"]'

# The same while the check runs (the digest was taken before the write):
# its result binds no digest.  First the index settles, so that this
# digest is quick and the write comes during the run.
deadline=$((SECONDS + 20))
while status && [ "$(jr .result.workspaceIndex.racy)" != 0 ] &&
    [ $SECONDS -lt $deadline ]; do
	sleep 0.5
done
mcp_send '{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}'
# The check is running once its sleep is.
deadline=$((SECONDS + 20))
until pgrep -fx "sleep 2.9" >/dev/null || [ $SECONDS -ge $deadline ]; do
	sleep 0.01
done
check "the slow check runs" pgrep -fx "sleep 2.9"
mcp_call write_file '{"path":"flag","content":"fixed\n"}'
mcp_wait_id 60 120
expect_eq "the slow check passed on the fix" "$(jr .result.structuredContent.exitCode)" 0
expect_contains "... and says it does not count" "$R" "workspace was written (or could not be watched) while it ran"
mcp_call write_file '{"path":"flag","content":"broken\n"}'
status
expect_eq "with the fix taken back, its gate does not count" "$(gate slow)" '[false,"stale"]'
mcp_stop
finish
