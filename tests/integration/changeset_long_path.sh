#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A change set holding a path longer than a workspace path may be (4096
# bytes: 25 directories of 100 accented letters, 200 bytes each) cannot
# be looked up in the workspace, and is refused.  The refusal quotes the
# path, cut to fit its message:
#   (a) through the broker (an exec tool over MCP), cut inside a
#       character: JSON could not hold the message, the refusal was
#       built from NULL and the broker died of SIGSEGV, ending the
#       session at the agent's will; now the message is UTF-8, cut
#       between characters, and the broker goes on serving;
#   (b) it said only the path ("nothing was applied: a/a/a"), the why
#       cut off after it; the why now comes first ("a path longer than
#       4096 bytes"), in airlock exec and a copy-on-write diff alike;
#   (c) a run that removes a tree of the checkout holding such a path
#       (made by the owner, or an rw agent) failed with no why at all
#       ("nothing was applied: ", a refusal with an empty message, or
#       whatever the lander's buffer held): it says why now.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")
# A shell command making the long path and a file at its end.
n=$(printf "\303\251%.0s" $(seq 100))
long='n=$(printf "\303\251%.0s" $(seq 100)); p=.; for i in $(seq 25); do p=$p/$n; done; mkdir -p "$p" && echo x >"$p/f"'

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
EOF2

# (a) the broker.
# Beneath x and xy: one of the two messages is cut inside a character,
# wherever the cut falls.
mcp_start "$T/m.yaml" "$ws"
for d in x xy; do
	mcp_call shell "{\"command\":$(js "mkdir $d && cd $d && $long")}" 60
	expect_error_class "$d: a path of 5000 bytes: refused" change_refused
	expect_contains "$d: saying why" "$R" "a path longer than 4096 bytes"
	mcp_rpc ping '{}'
	expect_eq "$d: the broker still serves" "$(jr '.result | tostring')" '{}'
	check "$d: nothing landed" test ! -e "$ws/$d"
done
mcp_stop
expect_eq "serve exits 0" "$?" 0
L=$(newest_session)/audit.jsonl
expect_contains "change_refused is recorded with the why" \
    "$(jq -c 'select(.event == "change_refused") | .fields.entries' "$L")" \
    "a path longer than 4096 bytes"

# (b) airlock exec, and a copy-on-write agent's session.
(cd "$ws" && "$A" exec --workspace "$ws" -- sh -c "$long") >"$T/exec.out" 2>&1
check "exec: refused" test "$?" -ne 0
expect_contains "exec: saying why" "$(cat "$T/exec.out")" \
    "nothing was applied: a path longer than 4096 bytes"
check "exec: nothing landed" test ! -e "$ws/$n"
printf 'tools: []\nagent:\n  workspace: cow\n' >"$T/cow.yaml"
printf '#!/bin/sh\n%s\n' "$long" >"$T/agent.sh"
chmod 755 "$T/agent.sh"
timeout 60 "$A" run --manifest "$T/cow.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
check "cow: a session id is printed" test -n "$S"
"$A" diff "$S" >/dev/null 2>"$T/derr"
expect_contains "cow: the diff says why it cannot be shown" "$(cat "$T/derr")" \
    "a path longer than 4096 bytes"
"$A" commit "$S" 2>/dev/null
check "cow: the commit is refused" test "$?" -ne 0
check "cow: nothing landed" test ! -e "$ws/$n"
"$A" discard "$S" >/dev/null 2>&1
expect_eq "cow: discard throws it away" "$?" 0

# (c) the checkout's own long path, beneath what a run removes.
p=$ws/top
for i in $(seq 25); do p=$p/$n; done
mkdir -p "$p"
mcp_start "$T/m.yaml" "$ws"
mcp_call shell '{"command":"rm -rf top"}' 60
expect_error_class "removing a tree with a path of 5000 bytes: refused" change_refused
expect_contains "saying why" "$R" "a path longer than 4096 bytes: top/"
mcp_stop
(cd "$ws" && "$A" exec --workspace "$ws" -- rm -rf top) >"$T/exec.out" 2>&1
expect_contains "exec: saying why" "$(cat "$T/exec.out")" \
    "nothing was applied: a path longer than 4096 bytes: top/"
check "the tree is still there" test -e "$ws/top/$n/$n"
rm -rf "${ws:?}/top"
finish
