#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_fields (issue 15, item 2): the records are complete and
# docs/AUDIT.md says what is in them.  A real session (airlock serve with
# reads, a refused path, a command, a failing check; then airlock run) is
# read back; for every event the docs' table lists and the session wrote,
# each documented field is in the records and each field in the records
# is documented.  runner_start carries argv as run, cwd, environment
# names and never values, the sandbox and limits; session_start the host,
# user, uid, version, manifest digest and path, workspace and agent argv.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

M="$T/m.yaml"
cat >"$M" <<'YAML'
types:
  word: { type: string, maxLength: 64 }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256, size: integer }
    sideEffect: none
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
  - name: deploy
    input: { target: word }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "deploying", "{target}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
checks:
  fail: ["sh", "-c", "echo FAIL here; exit 3"]
YAML

mcp_start "$M" "$ws"
mcp_call read_file '{"path":"README.md"}'
mcp_call read_file '{"path":"../outside"}'
mcp_call deploy '{"target":"production"}'
expect_contains "the deploy ran" "$R" "deploying production"
mcp_call run_check '{"checkId":"fail"}'
mcp_stop
L=$(newest_session)/audit.jsonl
"$AIRLOCK" audit verify -q "$L" >/dev/null
expect_eq "the session's log verifies" "$?" 0

rs=$(jq -c 'select(.event == "runner_start" and .fields.tool == "deploy") | .fields' "$L")
expect_eq "runner_start: argv as run" "$(jq -c .argv <<<"$rs")" \
    '["echo","deploying","production"]'
expect_eq "runner_start: cwd" "$(jq -r .cwd <<<"$rs")" "."
expect_eq "runner_start: workspace" "$(jq -r .workspace <<<"$rs")" "$ws"
expect_contains "runner_start: environment names" "$(jq -c .envNames <<<"$rs")" '"PATH"'
expect_not_contains "runner_start: never environment values" "$rs" "/usr/bin"
expect_eq "runner_start: the sandbox's network" "$(jq -r .sandbox.network <<<"$rs")" none
expect_contains "runner_start: the sandbox's read-only binds" \
    "$(jq -c .sandbox.readOnly <<<"$rs")" '"/usr"'
check "runner_start: the limits" test "$(jq -r .limits.processes <<<"$rs")" -gt 0

ss=$(jq -c 'select(.event == "session_start") | .fields' "$L")
expect_eq "session_start: host" "$(jq -r .host <<<"$ss")" "$(hostname)"
expect_eq "session_start: uid" "$(jq -r .uid <<<"$ss")" "$(id -u)"
expect_eq "session_start: user" "$(jq -r .user <<<"$ss")" "$(id -un)"
expect_eq "session_start: version" "$(jq -r .version <<<"$ss")" \
    "$("$AIRLOCK" --version | awk '{ print $2; exit }')"
expect_eq "session_start: manifest path" "$(jq -r .manifest <<<"$ss")" "$M"
expect_eq "session_start: manifest digest" "$(jq -r .manifestDigest <<<"$ss" | wc -c)" 65
expect_eq "session_start: workspace" "$(jq -r .workspace <<<"$ss")" "$ws"

# airlock run: agentArgv and agent_end.
timeout 60 "$AIRLOCK" run --manifest "$M" --workspace "$ws" -- sh -c 'exit 0' \
    >/dev/null 2>&1
R2=$(newest_session)/audit.jsonl
expect_eq "session_start of run: agent argv (resolved on PATH)" \
    "$(jq -c 'select(.event == "session_start") | .fields.agentArgv | [(.[0] | test("/sh$")), .[1:]]' "$R2")" \
    '[true,["-c","exit 0"]]'

# The docs' table (audit_doc_fields, tests/lib.sh).
DOC="$top_srcdir/docs/AUDIT.md"
audit_doc_fields "$DOC" >"$T/doc"
check "the docs' table parses" test -s "$T/doc"
cat "$L" "$R2" | jq -r '.event as $e | .fields | keys[] | "\($e) \(.)"' |
    sort -u >"$T/real"
seen=$(cut -d' ' -f1 "$T/real" | sort -u)
for ev in session_start session_config initialize request decision \
    runner_start runner_end result check_failure agent_end session_end; do
	check "the session wrote $ev" grep -qx "$ev" <<<"$seen"
done
missing= undocumented=
while read -r ev name opt; do
	grep -qx "$ev" <<<"$seen" || continue
	[ "$opt" = 1 ] && continue
	grep -qx "$ev $name" "$T/real" || missing="$missing $ev.$name"
done <"$T/doc"
expect_eq "every documented field is in the real records" "$missing" ""
while read -r ev name; do
	grep -qE "^$ev $name [01]\$" "$T/doc" || undocumented="$undocumented $ev.$name"
done <"$T/real"
expect_eq "every field in the real records is documented" "$undocumented" ""
finish
