#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A symlink out of the workspace through another symlink.  The write
# policy read a link's target lexically from the link's directory, so
# d1/d2/s -> ../.. (the workspace root: inside) and, beside it,
# d1/d2/l -> s/../../../etc/passwd (three ".." after s: never above the
# root, read lexically) both landed, and l led to the host's /etc/passwd:
# ".." after s climbs from where s leads.  Now a ".." after a name is
# refused (rule symlink); s itself is refused too, as every link to the
# workspace root is (rule symlink_target: cow_commit_guards.sh).  Tried
# from inside airlock exec and through a runner of the broker.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
# Six levels deep: s climbs six to the root, and six ".." after it climb
# from the root to the host's / (the workspace is less deep than that).
D=d1/d2/d3/d4/d5/d6
CMD="mkdir -p $D && ln -s ../../../../../.. $D/s && ln -s s/../../../../../../etc/passwd $D/l && ln -s ../a.txt d1/ok"

ws="$T/ws1"
mkdir -p "$ws" && echo hi >"$ws/a.txt"
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c "$CMD" 2>&1)
expect_eq "exec: the chained link is refused (77)" "$?" 77
expect_contains "exec: named with the symlink rule" "$out" "refused: $D/l: symlink"
expect_contains "exec: the link to the root is refused too (symlink_target)" \
    "$out" "refused: $D/s: symlink_target"
check "exec: no link out of the workspace landed" test ! -L "$ws/$D/l"

ws="$T/ws2"
mkdir -p "$ws" && echo hi >"$ws/a.txt"
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
YAML
mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":\"$CMD\"}"
expect_contains "broker: the run's change set is refused" "$R" "change_refused"
expect_contains "broker: named with the symlink rule" "$R" "{\\\"path\\\":\\\"$D/l\\\",\\\"rule\\\":\\\"symlink\\\"}"
mcp_stop
check "broker: no link out of the workspace landed" test ! -L "$ws/$D/l"
check "broker: nothing of the run landed" test ! -e "$ws/d1"

finish
