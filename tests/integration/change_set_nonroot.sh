#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Change sets as an ordinary user: the runner's overlay is mounted inside
# its user namespace (userxattr; kernel >= 5.11), a benign write lands in
# the workspace owned by the user, and a setuid file is refused.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
U=4242
chmod 755 "$T"
ws="$T/ws"; st="$T/state"
mkdir -p "$ws" "$st"
echo "old" >"$ws/keep.txt"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  write: { argv: ["sh", "-c", "echo new >keep.txt; mkdir -p out; echo built >out/result.txt"], timeoutMs: 10000 }
  setuid: { argv: ["sh", "-c", "cp /bin/true sx; chmod 4755 sx"], timeoutMs: 10000 }
EOF
chmod 644 "$T/m.yaml"
chown -R "$U:$U" "$ws" "$st"
call() {	# CHECK: one run_check as uid $U; prints its reply
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"$1\",\"idempotencyKey\":\"k\"}}}" |
	    timeout 60 setpriv --reuid=$U --regid=$U --clear-groups env HOME="$st" \
	    XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" \
	    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" 2>"$T/err" | tail -1
}
r=$(call write)
expect_contains "as uid $U, a check that writes runs (its overlay mounts in its user namespace)" "$r" '"isError":false'
expect_eq "the change set landed: a modified file" "$(cat "$ws/keep.txt")" new
expect_eq "the change set landed: a new file in a new directory" "$(cat "$ws/out/result.txt" 2>/dev/null)" built
expect_eq "the new file belongs to the user" "$(stat -c %u "$ws/out/result.txt" 2>/dev/null)" "$U"
r=$(call setuid)
expect_contains "a setuid file is refused" "$r" 'change_refused'
check "and it is not on the host" test ! -e "$ws/sx"
finish
