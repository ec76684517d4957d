#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A relative symlink too long to follow is refused for its length
# (symlink_length), played from inside airlock exec, an exec tool over
# MCP and a copy-on-write agent's commit:
# - a link through another link of the set (a -> b/<1.2 KB>, b ->
#   <3 KB>), which leads to a path over 4096 bytes, was refused as
#   symlink_target ("may not lead to what the git, airlock or protected
#   rule guards") though it leads to nothing guarded;
# - a link whose text is 1000 names deep, or that with its directory
#   is over 4096 bytes, was refused as symlink ("may not point outside
#   the workspace") though it stays in;
# where it leads cannot be told, and the refusal now says that.  A link
# that leaves stays the symlink rule's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")
# The links, made by sh inside the sandbox.
links='p() { python3 -c "import sys; print(sys.argv[1].join([sys.argv[2]] * int(sys.argv[3])))" "$@"; }
ln -s "$(p / "$(p "" c 200)" 15)" b && ln -s "b/$(p / "$(p "" r 200)" 6)" a &&
ln -s "$(p / b 1000)" deep && d=$(p / "$(p "" d 200)" 12) && mkdir -p "$d" &&
ln -s "$(p / "$(p "" e 200)" 9)" "$d/l" && ln -s ../../x out'
# refusals JSON: "path rule," of each refused entry ({path, rule}),
# sorted, a path over 100 bytes as its first letter and "...".
refusals() { jq -r '.[] | "\(.path | if length > 100 then .[0:1] + "..." else . end) \(.rule)"' <<<"$1" | sort | tr '\n' ','; }
want='a symlink_length,d... symlink_length,deep symlink_length,out symlink,'

out=$(cd "$ws" && "$A" exec --workspace "$ws" -- sh -c "$links" 2>&1)
expect_eq "exec: the links are refused" "$?" 77
expect_contains "exec: saying why" "$out" "where it leads cannot be told"
expect_eq "exec: each for its length, the one leaving for leaving" \
    "$(refusals "$(jq -c 'select(.event == "exec_end") | .fields.changeSet.refused' "$(newest_session_log)")")" "$want"
check "exec: nothing landed" test ! -L "$ws/a"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
EOF2
mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":$(printf '%s' "$links" | jq -Rs .)}" 60
expect_error_class "tool: refused" change_refused
expect_eq "tool: each for its length" \
    "$(refusals "$(jr -c .result.structuredContent.refused)")" "$want"
mcp_stop
check "tool: nothing landed" test ! -L "$ws/a"

if [ "$(id -u)" != 0 ]; then finish; exit; fi
printf 'tools: []\nagent:\n  workspace: cow\n' >"$T/cow.yaml"
printf '#!/bin/sh\n%s\n' "$links" >"$T/agent.sh"
chmod 755 "$T/agent.sh"
(cd "$T" && timeout 60 "$A" run --manifest "$T/cow.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err")
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
check "cow: a session was made" test -n "$S"
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: the commit is refused" "$?" 1
expect_contains "cow: a for its length" "$(cat "$T/cerr")" "refused: a: symlink_length"
expect_eq "cow: cow_commit_refused records each" \
    "$(refusals "$(jq -c 'select(.event == "cow_commit_refused") | .fields.entries' "$AIRLOCK_HOME"/sessions/"$S"/commits/*.jsonl 2>&1 | tail -n 1)")" "$want"
check "cow: nothing landed" test ! -L "$ws/a"
finish
