#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A command template's element in braces that is not "{identifier}" is
# literal (airlock-manifest(5), command:), as the loader and "airlock
# check -v" read it.  The broker took every "{...}" element for a
# placeholder and, finding no argument of that name, dropped it: the
# runner got an argv the template does not allow, and the agent's next
# argument took the literal's place.  Under
#   command: ["sed", "-n", "{/^#/!p}", "{file}"]
# the file "w pwned.txt" (a good workspace_relative_path) became sed's
# program and wrote pwned.txt into the workspace from a tool that only
# prints; a Go template ("{{.Name}}" after --format) vanished the same
# way, its option taking the agent's argument as its template.
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
  - name: code_lines
    input: { file: workspace_relative_path }
    output: { exitCode: integer, stdout: string, stderr: string }
    command: ["sed", "-n", "{/^#/!p}", "{file}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
  - name: show
    input: { word: word }
    output: { exitCode: integer, stdout: string }
    command: ["printf", "%s|", "{{.Name}}", "{a b}", "{word}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
YAML
printf '# a comment\ncode line\n' >"$ws/f.sh"

cv=$("$AIRLOCK" check -v "$M")
expect_contains "airlock check -v reads the sed program as literal" "$cv" \
    'command: ["sed", "-n", "{/^#/!p}", "{file}"]'

mcp_start "$M" "$ws"

mcp_call code_lines '{"file":"f.sh"}'
expect_eq "the template's sed program runs on the agent's file" \
    "$(jr -c '[.result.isError, .result.structuredContent.stdout]')" \
    '[false,"code line\n"]'

# The attack: the agent's file argument as sed's program.
mcp_call code_lines '{"file":"w pwned.txt"}'
check "the agent's argument is not run as sed's program: nothing written" \
    test ! -e "$ws/pwned.txt"
expect_contains "the argument is read as a file, as the template says" \
    "$R" "can't read w pwned.txt"

mcp_call show '{"word":"w"}'
expect_eq "literal braces reach the runner, the placeholder is filled" \
    "$(jr .result.structuredContent.stdout)" '{{.Name}}|{a b}|w|'

# Placeholders are still the agent's only way in, and still no option.
mcp_call show '{"word":"-n"}'
expect_error_class "a placeholder's value starting with '-' is still refused" \
    invalid_arguments
mcp_call show '{"word":"w","a b":"x"}'
expect_error_class "braces that are no identifier name no argument" \
    invalid_arguments

mcp_stop
L=$(newest_session)/audit.jsonl
expect_eq "runner_start records the template's argv, literals kept" \
    "$(jq -c 'select(.event == "runner_start" and .fields.tool == "code_lines") | .fields.argv' "$L" | head -n 2 | paste -sd ' ')" \
    '["sed","-n","{/^#/!p}","f.sh"] ["sed","-n","{/^#/!p}","w pwned.txt"]'

finish
