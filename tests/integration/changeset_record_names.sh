#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Records that list names a run chose fit a line of the audit log even
# when the names are control characters.  change_applied's modesDropped,
# change_refused's entries and exec_end's refused were bounded by the
# paths' length (256 KiB), but JSON writes a control character in 6
# bytes: a run's 1000 files of 250 \001 bytes each, chmod 666, made a
# change_applied of 1.5 MiB, over a line of the log, and a
# record_too_large stood for the record of a set that landed; so did
# 1000 FIFOs so named for change_refused, and 64 of them at 3.7 KiB
# paths for airlock exec's exec_end; and airlock commit's
# cow_commit_refused listed every entry refused, whatever their size;
# and the run_budget record, which carries the paths a copy-on-write
# session changed into its resumed run, named 256 KiB of them by their
# length: a run's 1000 such files made it too large, and the session
# could not be resumed ("recorded no run budget").  Now each lists as
# many as fit as JSON writes them (and counts them all).  From inside
# the sandbox: an exec tool over MCP, airlock exec, and a copy-on-write
# agent (natively, and through its exec tool).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
EOF2
# Names of 250 \001 bytes and a number.
names='c=$(printf "\001%.0s" $(seq 250))'
mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":$(js "$names; mkdir d && cd d && for i in \$(seq 1000); do : >\"\$c\$i\"; done && chmod 666 *")}" 60
expect_ok_result "1000 files of control characters, chmod 666: the set lands"
mcp_call sh "{\"command\":$(js "$names; mkdir e && cd e && for i in \$(seq 1000); do mkfifo \"\$c\$i\"; done")}" 60
expect_error_class "1000 FIFOs so named: refused" change_refused
mcp_stop
L=$(newest_session)/audit.jsonl
expect_eq "no record was too large" \
    "$(jq -r 'select(.event == "record_too_large") | .fields.event' "$L")" ""
expect_eq "change_applied counts the bits dropped" \
    "$(jq -r 'select(.event == "change_applied") | .fields.modesDroppedTotal' "$L")" 1000
n=$(jq -r 'select(.event == "change_applied") | .fields.modesDropped | length' "$L")
check "  and lists as many as fit ($n)" test "${n:-0}" -ge 100
expect_eq "change_refused counts the FIFOs" \
    "$(jq -r 'select(.event == "change_refused") | .fields.total' "$L")" 1000
n=$(jq -r 'select(.event == "change_refused") | .fields.entries | length' "$L")
check "  and lists as many as fit ($n)" test "${n:-0}" -ge 100
check "no line of the log is over 1 MiB" \
    test "$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$L")" -le 1048576

# airlock exec: 64 FIFOs at paths of 15 such directories.
rm -rf "$ws/d" "$ws/e"
(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c "$names"'; p=.; for i in $(seq 14); do p=$p/$c; done; mkdir -p "$p" && cd "$p" && for i in $(seq 64); do mkfifo f$i; done') >"$T/exec.out" 2>&1
expect_eq "exec: refused" "$?" 77
L=$(newest_session)/audit.jsonl
expect_eq "exec: no record was too large" \
    "$(jq -r 'select(.event == "record_too_large") | .fields.event' "$L")" ""
expect_eq "exec: exec_end counts the refused" \
    "$(jq -r 'select(.event == "exec_end") | .fields.changeSet.refusedTotal' "$L")" 64
n=$(jq -r 'select(.event == "exec_end") | .fields.changeSet.refused | length' "$L")
check "  and lists as many as fit ($n)" test "${n:-0}" -ge 10

# A copy-on-write agent's 1000 FIFOs so named: the commit is refused.
printf 'tools: []\nagent:\n  workspace: cow\n' >"$T/cow.yaml"
{ echo '#!/bin/sh'; echo "$names"'; mkdir f && cd f && for i in $(seq 1000); do mkfifo "$c$i"; done'; } >"$T/agent.sh"
chmod 755 "$T/agent.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/cow.yaml" --workspace "$ws" -- "$T/agent.sh" >"$T/out" 2>"$T/err"
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
check "cow: a session id is printed" test -n "$S"
"$AIRLOCK" commit "$S" >"$T/commit.out" 2>&1
expect_eq "cow: the commit is refused" "$?" 1
C=$(ls "$AIRLOCK_HOME/sessions/$S/commits/"*.jsonl 2>/dev/null | head -1)
expect_eq "cow: no record was too large" \
    "$(jq -r 'select(.event == "record_too_large") | .fields.event' "$C" 2>&1)" ""
expect_eq "cow: cow_commit_refused counts the entries" \
    "$(jq -r 'select(.event == "cow_commit_refused") | .fields.total' "$C" 2>&1)" 1000
n=$(jq -r 'select(.event == "cow_commit_refused") | .fields.entries | length' "$C" 2>&1)
check "  and lists as many as fit ($n)" test "${n:-0}" -ge 100
"$AIRLOCK" discard "$S" >/dev/null 2>&1

# A copy-on-write agent whose exec tool makes 1000 such files: the
# session's run_budget names them, and the session resumes.
cat >"$T/cow.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
agent:
  workspace: cow
EOF2
A=$(realpath "$AIRLOCK")
cat >"$T/agent.py" <<PY
#!/usr/bin/python3
import json, subprocess
p = subprocess.Popen(["$A", "connect"], stdin=subprocess.PIPE,
    stdout=subprocess.PIPE, env={}, bufsize=0)
def rpc(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i,
        "method": method, "params": params}) + "\n").encode())
    return json.loads(p.stdout.readline())
rpc(0, "initialize", {"protocolVersion": "2025-06-18",
    "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
r = rpc(1, "tools/call", {"name": "sh", "arguments": {"command":
    'c=\$(printf "\\001%.0s" \$(seq 250)); mkdir g && cd g && '
    'for i in \$(seq 1000); do : >"\$c\$i"; done'}})
print("RAN %s" % r.get("result", {}).get("structuredContent", {}).get("exitCode"), flush=True)
p.stdin.close()
p.wait()
PY
chmod 755 "$T/agent.py"
timeout 120 "$AIRLOCK" run --manifest "$T/cow.yaml" --workspace "$ws" -- "$T/agent.py" >"$T/out" 2>"$T/err"
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
expect_eq "cow: the agent's run made its files" "$(cat "$T/out")" "RAN 0"
L="$AIRLOCK_HOME/sessions/$S/audit.jsonl"
expect_eq "cow: no record was too large" \
    "$(jq -r 'select(.event == "record_too_large") | .fields.event' "$L" 2>&1)" ""
n=$(jq -r 'select(.event == "run_budget") | .fields.changedFiles | length' "$L" 2>&1)
check "cow: run_budget names as many as fit ($n)" test "${n:-0}" -ge 100
expect_eq "cow: and counts the rest" \
    "$(jq -r 'select(.event == "run_budget") | .fields.changedUncounted' "$L" 2>&1)" $((1000 - ${n:-0}))
printf '#!/bin/sh\necho resumed\n' >"$T/agent2.sh"
chmod 755 "$T/agent2.sh"
timeout 60 "$AIRLOCK" run --manifest "$T/cow.yaml" --workspace "$ws" --resume "$S" -- "$T/agent2.sh" >"$T/out" 2>"$T/err"
expect_eq "cow: the session resumes" "$? $(cat "$T/out")" "0 resumed"
"$AIRLOCK" discard "$S" >/dev/null 2>&1
finish
