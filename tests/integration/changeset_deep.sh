#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A change set nested 2000 directories deep (a path still under 4 KiB)
# is refused, not walked until the stack runs out:
#   (a) an exec call that makes one: the broker answers change_refused,
#       nothing lands, and it keeps serving (it used to die of SIGSEGV,
#       ending the session);
#   (b) a copy-on-write agent session that makes one: airlock commit
#       refuses it (exit 1) and lands nothing, instead of crashing;
#       airlock discard throws it away (it built the diff first, and
#       refused too).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")
deep=$(printf 'a/%.0s' $(seq 2000))

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
agent:
  workspace: cow
EOF2

# (a) the broker.
mcp_start "$T/m.yaml" "$ws"
mcp_call shell "{\"command\":\"mkdir -p $deep && echo x >${deep}f\"}" 60
expect_error_class "a change set 2000 directories deep is refused" change_refused
expect_contains "as too deep" "$R" "nested deeper than"
mcp_rpc ping '{}'
expect_eq "the broker still serves" "$(jr '.result | tostring')" '{}'
check "nothing landed" test ! -e "$ws/a"
mcp_stop
expect_eq "serve exits 0" "$?" 0

# (b) airlock commit of a copy-on-write session.
printf '#!/bin/sh\nmkdir -p %s && echo x >%sf\n' "$deep" "$deep" >"$T/agent.sh"
chmod 755 "$T/agent.sh"
timeout 120 "$A" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
check "a session id is printed" test -n "$S"
timeout 60 "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit of a 2000-deep tree refuses (exit 1)" "$rc" 1
expect_contains "and says it is too deep" "$(cat "$T/cerr")" "nested deeper than"
check "nothing landed" test ! -e "$ws/a"
# The person can still throw it away: discard builds no change set and
# no diff (it refused with them, exit 1, and kept the tree), and empties
# the upper layer at the default limit of 1024 descriptors.
up="$AIRLOCK_HOME/sessions/$S/cow/upper"
(ulimit -n 1024; timeout 60 "$A" discard "$S" 2>"$T/xerr"); rc=$?
expect_eq "discard of a session whose diff fails succeeds" "$rc" 0
expect_eq "and empties its upper layer" "$(ls -A "$up")" ""
log=$(ls "$AIRLOCK_HOME/sessions/$S/commits/"*.jsonl 2>/dev/null | tail -1)
expect_contains "its log counts what it discarded" "$(grep -s cow_discard "$log")" '"upperEntries":'
expect_eq "after discard, the diff is empty" "$("$A" diff "$S" 2>&1; echo "rc=$?")" \
    "airlock: session $S: 0 entries, diff sha256 $(printf '' | sha256sum | cut -d' ' -f1)
rc=0"

# (c) an agent that writes the checkout itself (rw) makes one: the
# broker's watch of the workspace follows new directories as they come,
# and recursed 2000 deep until the broker died of SIGSEGV.  Now it stops
# at its depth bound, and the broker answers the agent after.
sed 's/workspace: cow/workspace: rw/' "$T/m.yaml" >"$T/rw.yaml"
{
	printf '#!/bin/sh
mkdir -p %s && echo x >%sf && sleep 1
' "$deep" "$deep"
	connect_calls '{"jsonrpc":"2.0","id":5,"method":"ping","params":{}}'
} >"$T/agent-rw.sh"
chmod 755 "$T/agent-rw.sh"
(cd "$ws" && timeout 120 "$A" run --manifest "$T/rw.yaml" --workspace "$ws" \
    -- "$T/agent-rw.sh" >"$T/out-rw" 2>"$T/err-rw")
expect_eq "rw: airlock run ends normally" "$?" 0
check "rw: the broker answered a ping after the deep tree was made" grep -q '"id":5,"result"' "$T/out-rw"
rm -rf "${ws:?}/a"
finish
