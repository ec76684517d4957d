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
# A log counted twice: B's whole log again as a commit log of B's (the
# place names B, and every log has a session key of its own).
mkdir "$(dirname "$b")/commits"
cp "$b" "$(dirname "$b")/commits/2026-12-06T10:00:00-0.jsonl"
out=$("$AIRLOCK" audit verify --key "$K" "$AIRLOCK_HOME" 2>&1); rc=$?
expect_eq "a log twice in the state directory: exit 1" "$rc" 1
expect_contains "the second place is TAMPERED, naming the first" "$out" \
    "commits/2026-12-06T10:00:00-0.jsonl: TAMPERED: line 1: the same log as $b"
rm -r "$(dirname "$b")/commits"
# (an exec's session has no manifest file to plan against: suggest
# stops there, past the log's check)
expect_not_contains "... and airlock suggest takes it for A's" \
    "$("$AIRLOCK" suggest "$ida" 2>&1)" "another session's directory"
finish
