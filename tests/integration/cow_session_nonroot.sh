#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Copy-on-write agent sessions as an ordinary user (uid 4242): the
# agent's overlay is mounted in its user namespace (userxattr; Linux >=
# 5.11), a runner in the session sees the agent's edit and its own write
# lands in the session, the real checkout is untouched until airlock
# commit, which lands the files owned by the user; a setuid file the
# agent makes is refused by commit; a session resumes.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: switching to uid 4242 needs root"; TESTS_FINISHED=1; exit 77
fi
case $(uname -r) in
[1-4].*|5.[0-9].*|5.10.*)
	echo "SKIP: overlayfs in a user namespace needs Linux >= 5.11 ($(uname -r))"
	TESTS_FINISHED=1; exit 77 ;;
esac
U=4242
A=$(realpath "$AIRLOCK")
chmod 755 "$T"
ws="$T/ws"; st="$T/state"
mkdir -p "$ws/src" "$st"
echo "old" >"$ws/src/keep.txt"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  build: { argv: ["sh", "-c", "cat src/keep.txt && echo built >src/out.txt"], timeoutMs: 10000 }
agent:
  workspace: cow
EOF
chmod 644 "$T/m.yaml"
chown -R "$U:$U" "$ws" "$st"
as_user() {
	timeout 60 setpriv --reuid=$U --regid=$U --clear-groups env -u AIRLOCK_HOME HOME="$st" \
	    XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" PATH="$PATH" "$@"
}
run_agent() {	# BODY [run options...]; leaves the session id in $S
	local body=$1; shift
	{ echo '#!/bin/sh'; printf '%s\n' "$body"; } >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
	as_user "$A" run --manifest "$T/m.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"build","idempotencyKey":"b"}}}'

run_agent "echo new >src/keep.txt
printf '%s\n' '$INIT' '$READY' '$CALL' | $A connect
echo \"AGENT-SEES \$(cat src/out.txt)\""
out=$(cat "$T/out")
# What airlock said, when the agent's output is missing (for the log).
grep -q AGENT-SEES "$T/out" || sed 's/^/# run: /' "$T/err"
check "as uid $U a cow session starts (the overlay mounts in its user namespace)" test -n "$S"
expect_contains "the runner sees the agent's edit" "$out" 'new\\n'
expect_contains "the agent sees the runner's write" "$out" "AGENT-SEES built"
expect_eq "the real checkout is untouched" "$(cat "$ws/src/keep.txt")" old
check "the runner's file is not in the real checkout" test ! -e "$ws/src/out.txt"
check "the session directory is the user's" test "$(stat -c %u "$st/airlock/sessions/$S/cow/upper")" = $U
d=$(as_user "$A" diff "$S" 2>/dev/null)
expect_contains "diff shows the edit" "$d" "+new"
expect_contains "diff shows the runner's file" "$d" "+built"
as_user "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit succeeds" "$rc" 0
expect_eq "the edit landed" "$(cat "$ws/src/keep.txt")" new
expect_eq "the runner's file landed" "$(cat "$ws/src/out.txt")" built
expect_eq "the new file belongs to the user" "$(stat -c %u "$ws/src/out.txt")" $U
log=$(ls "$st/airlock/sessions/$S/commits/"*.jsonl | tail -1)
check "the commit log verifies" as_user "$A" audit verify -q "$log"

S0=$S
run_agent 'cp /bin/true sx && chmod 4755 sx && echo SETUID-MADE' --resume "$S0"
expect_contains "resumed as uid $U; the agent makes a setuid file in its overlay" "$(cat "$T/out")" SETUID-MADE
expect_eq "the resumed run keeps the session" "$S" "$S0"
check "the setuid file is not in the real checkout" test ! -e "$ws/sx"
as_user "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit refuses it" "$rc" 1
expect_contains "naming its rule" "$(cat "$T/cerr")" "refused: sx: special_bits"
check "and it is still not in the real checkout" test ! -e "$ws/sx"
finish
