#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A hard link to a denyRead file made while a session runs (by the user,
# a checkout or a package manager outside every sandbox; a link made
# before the session refuses it at start) is another name the runner's
# mask, made from names, does not cover.  read_file refuses it; search
# named it "its matches are withheld" whenever grep matched it, so the
# agent learnt whether the denied file held a guess ("PIN=4" shown,
# "PIN=5" not: the secret a guess at a time).  Such a file is left out of
# search now, matched or not: the results for a right and a wrong guess
# are the same.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/docs"
echo "PIN=4711" >"$ws/pin.txt"
echo "public PIN=0000 example" >"$ws/docs/readme.txt"
cat >"$T/m.yaml" <<EOF2
tools:
  - name: search
    input: { pattern: string, path: "workspace_relative_path?" }
    output: { matches: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 10000
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string }
    sideEffect: none
    timeoutMs: 2000
sandbox:
  denyRead: [ "$ws/pin.txt" ]
EOF2

mcp_start "$T/m.yaml" "$ws"
# The first runner walks the denied paths and finds no other name.
mcp_call search '{"pattern":"PIN="}'
expect_ok_result "search_before_link_runs"
expect_contains "search_before_link_finds_public" "$R" "docs/readme.txt:1:"
expect_not_contains "search_before_link_hides_pin" "$R" "4711"

ln "$ws/pin.txt" "$ws/docs/notes.txt"
mcp_call read_file '{"path":"docs/notes.txt"}'
expect_error_class "read_file_of_link_refused" path_refused

mcp_call search '{"pattern":"PIN=47"}'
right=$(jr -c ".result.structuredContent | del(.callId)")
mcp_call search '{"pattern":"PIN=58"}'
wrong=$(jr -c ".result.structuredContent | del(.callId)")
expect_not_contains "search_link_hides_content" "$right" "4711"
expect_not_contains "search_link_not_named" "$right" "notes.txt"
expect_eq "search_right_and_wrong_guess_alike" "$right" "$wrong"
# A pattern that matches elsewhere too: only the public file is shown.
mcp_call search '{"pattern":"PIN="}'
expect_contains "search_after_link_finds_public" "$R" "docs/readme.txt:1:"
expect_not_contains "search_after_link_not_named" "$R" "notes.txt"
mcp_stop
finish
