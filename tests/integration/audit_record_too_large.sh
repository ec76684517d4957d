#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A record the agent makes too large is still in the log (invariant 6:
# every decision is in the audit log).  The agent writes a build script
# (write_file) that the manifest's check runs: it makes 1100 files with
# ~1100-byte paths under .git/hooks.  The write policy refuses the change
# set whole, and its change_refused record used to list every refused
# entry (the first 1000): over 1 MiB, over AUDIT_MAX_LINE, so the broker
# dropped it and the log ("valid and closed") held no trace of the
# refusal or of the paths the run tried to write.  Now the record lists as
# many entries as fit (and the total), and any record still too large
# leaves a record_too_large in its place (tests/unit/test_audit.c).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
checks:
  build: ["sh", "build.sh"]
sandbox:
  protected: [ ".git" ]
YAML
mcp_start "$T/m.yaml" "$ws"

d=".git/hooks/$(printf 'x%.0s' $(seq 200))/$(printf 'y%.0s' $(seq 200))/$(printf 'z%.0s' $(seq 200))/$(printf 'w%.0s' $(seq 200))"
script="d=$d; mkdir -p \$d && for i in \$(seq 1 1100); do : >\$d/\$(printf 'f%0250d' \$i); done"
mcp_call write_file "$(jq -nc --arg c "$script" '{path: "build.sh", content: $c}')" 20
expect_ok_result "the agent writes its build script"
mcp_call run_check '{"checkId":"build"}' 120
expect_error_class "the run's change set is refused" change_refused
expect_contains "  all 1100 files and their directories" "$(jr .result.structuredContent.message)" "1106 entries refused"
mcp_stop

log="$(newest_session)/audit.jsonl"
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "the log verifies, valid and closed" "$?" 0
rec=$(jq -c 'select(.event == "change_refused") | .fields | {id, total, n: (.entries | length), first: .entries[0].path}' "$log")
expect_contains "the refusal is in the log (change_refused)" "$rec" '"total":1106'
expect_contains "  naming the first path the run tried to write" "$rec" '"first":".git"'
n=$(jq -r 'select(.event == "change_refused") | .fields.entries | length' "$log")
check "  with as many entries as fit ($n)" test "${n:-0}" -ge 100
expect_eq "  and no record was too large" \
    "$(jq -r 'select(.event == "record_too_large") | .fields.event' "$log")" ""
check "no line of the log is over 1 MiB" \
    test "$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$log")" -le 1048576

# A record the agent makes that JSON cannot hold: a sandbox denial is
# read from the command's error lines, and a path in one that is not
# UTF-8 made json_pack() fail, which stopped the broker ("out of memory
# building a denial"): the call had no answer, the session ended at the
# agent's will, its last batch unwritten and its log open.  Now such a
# path is no denial; the others of the run are recorded as before.
script="printf \"touch: cannot touch '/usr/\\377x': Read-only file system\\n\" >&2
printf \"touch: cannot touch '/usr/airlock-probe': Read-only file system\\n\" >&2"
mcp_start "$T/m.yaml" "$ws"
mcp_call write_file "$(jq -nc --arg c "$script" '{path: "build.sh", content: $c}')" 20
expect_ok_result "the agent writes a script naming a path that is not UTF-8"
mcp_call run_check '{"checkId":"build"}' 60
expect_eq "  the run is answered (the broker is still there)" "$(jr .result.structuredContent.exitCode)" 0
mcp_call write_file '{"path":"after.txt","content":"x"}' 20
expect_ok_result "  and the session goes on"
mcp_stop
expect_eq "  the session ends cleanly" "$?" 0
log="$(newest_session)/audit.jsonl"
"$AIRLOCK" audit verify "$log" >"$T/verify.out" 2>&1
expect_eq "  its log verifies, valid and closed" "$?" 0
expect_eq "  the run's other denial is recorded" \
    "$(jq -r 'select(.event == "sandbox_denial") | .fields.path' "$log")" "/usr/airlock-probe"
finish
