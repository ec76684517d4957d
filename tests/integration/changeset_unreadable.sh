#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A change set with a file or directory its owner cannot read: a run's
# chmod 000 or 200 of a file (or a-r after writing it), chmod 000 or
# 100 or 400 of a directory.  As an ordinary user (uid 4242) it failed the
# whole set ("nothing was applied: f: Permission denied", write_failed)
# and a copy-on-write session's diff, so the person could only discard
# everything.  Now each is refused by name, rule "unreadable" (recorded),
# the diff shows the rest and names them, and once the agent gives them
# back a mode they can be read with, the rest lands.  As root (which
# reads them all) such a set lands as before.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: switching to uid 4242 needs root"; TESTS_FINISHED=1; exit 77
fi
U=4242
A=$(realpath "$AIRLOCK")
chmod 755 "$T"
MAKE='echo s >f; chmod 000 f; echo w >wo; chmod 200 wo; echo l >late; chmod a-r late; mkdir d0 d1; echo x >d0/a; echo y >d1/b; mkdir d4; echo z >d4/c; chmod 000 d0; chmod 100 d1; chmod 400 d4; echo ok >fine.txt'
FIX='chmod 700 d0 d1 d4; chmod 600 f wo late'
cat >"$T/m.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  unread: { argv: ["sh", "-c", "$MAKE"], timeoutMs: 10000 }
EOF
{ cat "$T/m.yaml"; printf 'agent:\n  workspace: cow\n'; } >"$T/cow.yaml"
chmod 644 "$T/m.yaml" "$T/cow.yaml"
as_user() {
	timeout 60 setpriv --reuid=$U --regid=$U --clear-groups env -u AIRLOCK_HOME HOME="$st" \
	    XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" PATH="$PATH" "$@"
}
call() {	# [as_user]: one run_check of "unread"; prints its reply
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unread","idempotencyKey":"k"}}}' |
	    "$@" env HOME="$st" XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" \
	    "$A" serve --manifest "$T/m.yaml" --workspace "$ws" 2>"$T/err" | tail -1
}

# An ordinary user's run, through the agent's MCP interface.
ws="$T/ws"; st="$T/state"
mkdir -p "$ws" "$st"; chown -R "$U:$U" "$ws" "$st"
r=$(call as_user)
expect_contains "as uid $U the set is refused, not failed" "$r" '"errorClass\":\"change_refused\"'
for p in f wo late d0 d1 d4; do
	expect_contains "naming $p, rule unreadable" "$r" "{\\\"path\\\":\\\"$p\\\",\\\"rule\\\":\\\"unreadable\\\"}"
done
check "nothing landed" test ! -e "$ws/fine.txt"
rec=$(cat "$st"/airlock/*/audit.jsonl "$st"/airlock/*/*/audit.jsonl 2>/dev/null |
    jq -c 'select(.event == "change_refused") | [.fields.entries[] | select(.rule == "unreadable") | .path]')
expect_eq "the refusal is recorded (change_refused)" "$rec" '["d0","d1","d4","f","late","wo"]'

# Root reads them: its set lands as it did.
ws="$T/ws-root"; st="$T/state-root"
mkdir -p "$ws" "$st"
r=$(call)
expect_contains "as root the set lands" "$r" '"isError":false'
expect_eq "with the unreadable file" "$(cat "$ws/f")" s
expect_eq "in the mode the run gave it" "$(stat -c %a "$ws/f") $(stat -c %a "$ws/d1")" "0 100"

# A copy-on-write session as uid 4242: the diff, the commit.
ws="$T/ws-cow"; st="$T/state-cow"
mkdir -p "$ws" "$st"; chown -R "$U:$U" "$ws" "$st"
run_agent() {	# BODY [run options...]; leaves the session id in $S
	{ echo '#!/bin/sh'; printf '%s\n' "$1"; } >"$T/agent.sh"; shift
	chmod 755 "$T/agent.sh"
	as_user "$A" run --manifest "$T/cow.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}
run_agent "$MAKE"
check "as uid $U the session holds the agent's files" test -n "$S"
d=$(as_user "$A" diff "$S" 2>"$T/derr"); rc=$?
expect_eq "diff succeeds" "$rc" 0
expect_contains "showing the rest" "$d" "+ok"
expect_contains "naming the unreadable file" "$d" "unreadable f (mode 0000)"
expect_contains "and the unreadable directory" "$d" "unreadable directory d1/ (mode 0100)"
as_user "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit refuses" "$rc" 1
expect_contains "naming its rule" "$(cat "$T/cerr")" "refused: wo: unreadable"
check "nothing landed" test ! -e "$ws/fine.txt"
rec=$(jq -c 'select(.event == "cow_commit_refused") | [.fields.entries[].rule] | unique' \
    "$st"/airlock/sessions/"$S"/commits/*.jsonl)
expect_eq "the refusal is recorded (cow_commit_refused)" "$rec" '["unreadable"]'
S0=$S
run_agent "$FIX" --resume "$S0"
as_user "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "once the agent makes them readable, commit lands" "$rc" 0
expect_eq "the rest" "$(cat "$ws/fine.txt" "$ws/d0/a")" "ok
x"
finish
