#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run's chmod of the workspace root itself ("chmod 700 .", "chmod 777
# .", "chmod g+s ."): the collect walk compared each name of the upper
# layer with the checkout's, never the upper root with the checkout's
# root, so the change was neither landed nor told: lost without a word.
# The root's mode is the owner's (who may read the whole tree hangs on
# it): it never lands, and the run is told it did not, as any other mode
# bit that does not land (modesDropped: path "."), through the broker
# (an exec tool), airlock exec, and a copy-on-write agent's diff and
# commit.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
chmod 750 "$ws"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
EOF2
sh_call() { mcp_call sh "{\"command\":$(printf '%s' "$1" | jq -Rs .)}" 60; }
drops() { jr -c '[.result.structuredContent.modesDropped[]? | [.path, .mode, .landed]]'; }

mcp_start "$T/m.yaml" "$ws"
sh_call 'chmod 700 . && stat -c %a .'
expect_ok_result "tool: chmod 700 of the root: the run succeeds"
expect_contains "tool: inside, the root was 700" "$(jr -r .result.structuredContent.stdout)" 700
expect_eq "tool: the root keeps the owner's mode" "$(stat -c %a "$ws")" 750
expect_eq "tool: the result tells the root's mode did not land" "$(drops)" '[[".","0700","0750"]]'
sh_call 'chmod g+s . && echo x >f && stat -c %a .'
expect_ok_result "tool: chmod g+s of the root with a file: the set lands"
expect_contains "tool: inside, the root was setgid" "$(jr -r .result.structuredContent.stdout)" 2750
expect_eq "tool: the file lands" "$(cat "$ws/f" 2>&1)" x
expect_eq "tool: the root keeps the owner's mode (no setgid bit)" "$(stat -c %a "$ws")" 750
expect_eq "tool: the root's drop told" "$(drops)" '[[".","2750","0750"]]'
sh_call 'echo y >g'
expect_eq "tool: an untouched root is not told" "$(drops)" '[]'
mcp_stop
sess=$(newest_session)
expect_eq "tool: a change_applied of 0 entries records the root's drop" \
    "$(jq -c 'select(.event == "change_applied" and .fields.entries == 0) | [.fields.modesDropped[] | [.path, .mode, .landed]]' "$sess/audit.jsonl" 2>&1)" \
    '[[".","0700","0750"]]'

# airlock exec tells it on stderr and in exec_end.
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c 'chmod 777 .' 2>&1)
expect_contains "exec: the drop is told" "$out" "exec: .: mode 0777 landed as 0750 (the workspace root's mode is the owner's)"
expect_eq "exec: the root keeps the owner's mode" "$(stat -c %a "$ws")" 750
expect_eq "exec: exec_end lists the drop" \
    "$(jq -c 'select(.event == "exec_end") | .fields.changeSet.modesDropped' "$(newest_session_log)" 2>&1)" \
    '[{"landed":"0750","mode":"0777","path":"."}]'

# A copy-on-write agent: its diff and commit tell it.
if [ "$(id -u)" != 0 ]; then finish; exit; fi
A=$(realpath "$AIRLOCK")
cat >"$T/c.yaml" <<'EOF2'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
agent:
  workspace: cow
EOF2
printf '#!/bin/sh\nchmod 700 . && stat -c %%a .\n' >"$T/agent.sh"
chmod 755 "$T/agent.sh"
(cd "$T" && timeout 60 "$A" run --manifest "$T/c.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err")
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
check "cow: a session was made" test -n "$S"
expect_eq "cow: inside, the root was 700" "$(cat "$T/out")" 700
"$A" diff "$S" >/dev/null 2>"$T/derr"
expect_contains "cow: the diff tells the root's mode does not land" \
    "$(cat "$T/derr")" ".: mode 0700 lands as 0750"
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: the commit succeeds" "$?" 0
expect_contains "cow: ... telling of the drop" "$(cat "$T/cerr")" ".: mode 0700 landed as 0750"
expect_eq "cow: the root keeps the owner's mode" "$(stat -c %a "$ws")" 750
log=$(sed -n 's/.*; log \(.*\)$/\1/p' "$T/cerr")
expect_eq "cow: cow_applied records it" \
    "$(jq -c 'select(.event == "cow_applied") | .fields.modesDropped' "$log" 2>&1)" \
    '[{"landed":"0750","mode":"0700","path":"."}]'
finish
