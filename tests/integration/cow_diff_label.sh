#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock diff escapes every name it shows, the file labels of diff(1)'s
# hunks too: a file the agent made in an earlier, committed session
# (shown escaped then) under a name with newlines, changed in a later
# one, had diff(1) print that name raw in its "---" and "+++" lines, so
# the review showed whole lines of the agent's choosing: a forged
# "diff --airlock" header that gave the hunk to another file.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")

cat >"$T/m.yaml" <<'Y'
tools: []
agent:
  workspace: cow
Y

run_agent() {	# BODY
	{ echo '#!/bin/sh'; printf '%s\n' "$1"; } >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
	timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}

# The directory names carry the "/"s of the forged header.
body='d=$(printf "x\ndiff --airlock a")/"README.md b"
mkdir -p "$d" && echo "$1" >"$d/README.md"'

# Session one: a new file, shown escaped; the person commits it.
run_agent "set -- one; $body"
check "a session id is printed" test -n "$S"
"$A" diff "$S" >"$T/d1" 2>/dev/null
expect_eq "the new file's diff has one header" \
    "$(grep -c '^diff --airlock' "$T/d1")" 1
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "it is committed" "$rc" 0
f="$ws/$(printf 'x\ndiff --airlock a')/README.md b/README.md"
expect_eq "and landed" "$(cat "$f" 2>/dev/null)" one

# Session two: the agent changes that file; the diff runs diff(1).
run_agent "set -- two; $body"
"$A" diff "$S" >"$T/d2" 2>/dev/null; rc=$?
expect_eq "diff succeeds" "$rc" 0
expect_contains "and shows the change" "$(cat "$T/d2")" "+two"
expect_eq "one entry, one header: no line of the name's" \
    "$(grep -c '^diff --airlock' "$T/d2")" 1
expect_eq "no line of the display starts inside a name" \
    "$(grep -vc '^\(diff --airlock \|sha256 \|--- \|+++ \|@@ \|[-+ ]\)' "$T/d2")" 0
expect_contains "the labels are escaped as the header is" "$(cat "$T/d2")" \
    '--- a/x\ndiff --airlock a/README.md b/README.md'
"$A" discard "$S" 2>/dev/null
finish
