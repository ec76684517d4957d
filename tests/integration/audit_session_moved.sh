#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A session's log replaced whole by another session's.  Each log verifies
# on its own (same host key, its own session id inside), so before,
# `airlock audit verify STATE` said "2 valid and closed" (exit 0) with
# session A's own log gone, and `airlock sessions` listed A as closed and
# verified by the host key, with B's user, times and records (and
# `airlock suggest A` planned policy from B's denials).  A session
# directory's log must be that session's: sessions/ID/audit.jsonl naming
# another session is TAMPERED, copied or linked there.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
mkdir -p "$T/ws"
"$AIRLOCK" exec --workspace "$T/ws" -- true >/dev/null 2>&1
a=$(newest_session_log)
"$AIRLOCK" exec --workspace "$T/ws" -- true >/dev/null 2>&1
b=$(newest_session_log)
check "two sessions" test -n "$a" -a -n "$b" -a "$a" != "$b"
K="$AIRLOCK_HOME/keys/audit.pub"
check "the state directory verifies" "$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME"
ida=$(basename "$(dirname "$a")")
idb=$(basename "$(dirname "$b")")
expect_eq "a session directory is named by its log's session" \
    "$(head -n 1 "$a" | jq -r .session)" "$ida"

for how in copy link; do
	cp "$a" "$T/a.orig"
	if [ "$how" = copy ]; then
		cp "$b" "$a"
	else
		ln -sf "../$idb/audit.jsonl" "$a"
	fi
	check "$how: B's log verifies on its own at A's place (sanity)" \
	    "$AIRLOCK" audit verify --key "$K" "$a"
	out=$("$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME" 2>&1); rc=$?
	expect_eq "$how: the state directory does not verify" "$rc" 1
	expect_contains "$how: A's place is TAMPERED" "$out" \
	    "sessions/$ida/audit.jsonl: TAMPERED: line 1: the log of session $idb is in another session's directory"
	expect_contains "$how: B itself is valid" "$out" \
	    "sessions/$idb/audit.jsonl: valid and closed"
	expect_contains "$how: the summary counts it" "$out" "1 tampered"
	row=$("$AIRLOCK" sessions --json | jq -c --arg id "$ida" '.. | objects | select(.id? == $id)')
	expect_contains "$how: airlock sessions lists A as tampered" "$row" '"tampered"'
	expect_not_contains "$how: ... not verified by the host key" "$row" 'host-key'
	out=$("$AIRLOCK" suggest "$ida" 2>&1); rc=$?
	expect_eq "$how: airlock suggest A refuses" "$rc" 1
	expect_contains "$how: ... saying it is B's log" "$out" \
	    "is the log of session $idb, in another session's directory"
	rm -f "$a"
	cp "$T/a.orig" "$a"
done
check "A's own log back: the state directory verifies" \
    "$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME"

# Shipped copies, one file per session named by it (docs/AUDIT.md,
# central verification): before, A's copy replaced by B's left "2 valid
# and closed" (exit 0), session A gone and the count unchanged.
S="$T/ship"
mkdir "$S"
cp "$a" "$S/$ida.jsonl"
cp "$b" "$S/$idb.jsonl"
check "shipped copies verify" "$AIRLOCK" audit verify --key "$K" "$S"
cp "$b" "$S/$ida.jsonl"
out=$("$AIRLOCK" audit verify --key "$K" "$S" 2>&1); rc=$?
expect_eq "shipped: A's copy replaced by B's: exit 1" "$rc" 1
expect_contains "shipped: A's file is TAMPERED" "$out" \
    "$S/$ida.jsonl: TAMPERED: line 1: the log of session $idb is in another session's directory or file"
expect_contains "shipped: B's own is valid" "$out" "$S/$idb.jsonl: valid and closed"
cp "$a" "$S/$ida.jsonl"

# A session's own log replaced by one of its commit logs: the same
# session id, certified by the same host key, closed.  Before, verify
# said "valid and closed" and airlock sessions listed the session closed
# and verified, with nothing the agent did in it.
printf 'tools: []\nagent:\n  workspace: cow\n' >"$T/cow.yaml"
printf '#!/bin/sh\necho changed >note.txt\n' >"$T/agent.sh"
chmod 755 "$T/agent.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/cow.yaml" --workspace "$T/ws" \
    -- "$T/agent.sh" >/dev/null 2>"$T/cow.err"
c=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/cow.err" | tail -n 1)
check "a copy-on-write session" test -n "$c"
"$AIRLOCK" commit "$c" >/dev/null 2>&1
cl=$(ls "$AIRLOCK_HOME/sessions/$c/commits/"*.jsonl 2>/dev/null | head -n 1)
check "its commit has a log of its own" test -n "$cl"
check "the state directory with the commit log verifies" \
    "$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME"
cp "$AIRLOCK_HOME/sessions/$c/audit.jsonl" "$T/c.orig"
mv "$cl" "$AIRLOCK_HOME/sessions/$c/audit.jsonl"
check "the commit log verifies on its own (sanity)" \
    "$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME/sessions/$c/audit.jsonl"
out=$("$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME" 2>&1); rc=$?
expect_eq "a commit log in the place of the session's log: exit 1" "$rc" 1
expect_contains "... TAMPERED, saying what it is" "$out" \
    "sessions/$c/audit.jsonl: TAMPERED: line 1: the commit log of session $c"
row=$("$AIRLOCK" sessions --json | jq -c --arg id "$c" '.. | objects | select(.id? == $id)')
expect_contains "... and airlock sessions lists it as tampered" "$row" '"tampered"'
mv "$AIRLOCK_HOME/sessions/$c/audit.jsonl" "$cl"
cp "$T/c.orig" "$AIRLOCK_HOME/sessions/$c/audit.jsonl"
# A log counted twice: the commit log again under another name, at a
# place that names its session (every log has a session key of its own).
cp "$cl" "$AIRLOCK_HOME/sessions/$c/commits/2099-01-01T00:00:00-0.jsonl"
out=$("$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME" 2>&1); rc=$?
expect_eq "a log twice in the state directory: exit 1" "$rc" 1
expect_contains "the second place is TAMPERED, naming the first" "$out" \
    "commits/2099-01-01T00:00:00-0.jsonl: TAMPERED: line 1: the same log as $cl"
rm "$AIRLOCK_HOME/sessions/$c/commits/2099-01-01T00:00:00-0.jsonl"
# (an exec's session has no manifest file to plan against: suggest
# stops there, past the log's check)
expect_not_contains "... and airlock suggest takes it for A's" \
    "$("$AIRLOCK" suggest "$ida" 2>&1)" "another session's directory"
finish
