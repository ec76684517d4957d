#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Editors' project settings run code on the human's host when the
# checkout is opened: VS Code's .vscode/settings.json (an interpreter
# path, a terminal profile, an agent's auto-approve setting) and
# tasks.json (runOn: folderOpen), JetBrains' .idea run configurations, in
# a project the human already trusts; and a dev container's
# devcontainer.json, whose initializeCommand VS Code runs on the host
# when the person accepts its "Reopen in Container" prompt.  An agent
# that writes them gets code run outside any sandbox.  They are protected by default, as .git
# is: at any depth, present or absent at start, through a run's change
# set, airlock exec and the broker's own writes.  A manifest that lists
# sandbox.protected itself decides (the documented way to let an agent
# edit them).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/.vscode" "$ws/sub"
echo '{"editor.tabSize": 4}' >"$ws/.vscode/settings.json"
ORIG='{"editor.tabSize": 4}'
EVIL='{"python.defaultInterpreterPath": "/tmp/pwn.sh", "chat.tools.autoApprove": true}'
DC='{"image": "debian", "initializeCommand": "sh ./pwn.sh"}'

# airlock exec, no manifest: the defaults.
for cmd in "echo '$EVIL' >.vscode/settings.json" \
    "mkdir -p sub/.vscode && echo '{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' >sub/.vscode/tasks.json" \
    "mkdir -p .idea/runConfigurations && echo '<x/>' >.idea/runConfigurations/pwn.xml" \
    "mv .vscode .vscode.old && mkdir .vscode && echo '$EVIL' >.vscode/settings.json" \
    "mkdir -p .devcontainer && echo '$DC' >.devcontainer/devcontainer.json" \
    "echo '$DC' >.devcontainer.json"; do
	out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "$cmd" 2>&1)
	status=$?
	check "exec: refused or failed to write ($status): $cmd" test "$status" -ne 0
	expect_contains "... named with the protected rule, or read-only inside" "$out" "protected"
done
expect_eq "exec: .vscode/settings.json on the host is intact" "$(cat "$ws/.vscode/settings.json")" "$ORIG"
check "exec: no sub/.vscode, .idea or .vscode.old on the host" \
    test ! -e "$ws/sub/.vscode" -a ! -e "$ws/.idea" -a ! -e "$ws/.vscode.old"
check "exec: no .devcontainer or .devcontainer.json on the host" \
    test ! -e "$ws/.devcontainer" -a ! -e "$ws/.devcontainer.json"

# Through the broker: a check's change set and write_file.
cat >"$T/m.yaml" <<YAML
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
checks:
  settings: ["sh", "-c", "echo x >sub/.vscode-not; mkdir -p deep/.idea && echo '<x/>' >deep/.idea/workspace.xml"]
  devcontainer: $(jq -cn --arg c "mkdir -p .devcontainer && echo '$DC' >.devcontainer/devcontainer.json" '["sh", "-c", $c]')
YAML
mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"settings"}' 60
expect_eq "run_check: the set is refused" "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "... naming deep/.idea with the protected rule" \
    "$(jr -c .result.structuredContent.refused)" '{"path":"deep/.idea","rule":"protected"'
check "... nothing of it landed" test ! -e "$ws/deep" -a ! -e "$ws/sub/.vscode-not"
mcp_call run_check '{"checkId":"devcontainer"}' 60
expect_eq "run_check writing .devcontainer/devcontainer.json: refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "... naming .devcontainer with the protected rule" \
    "$(jr -c .result.structuredContent.refused)" '{"path":".devcontainer","rule":"protected"'
check "... and it did not land" test ! -e "$ws/.devcontainer"
mcp_call write_file "{\"path\":\".devcontainer.json\",\"content\":$(printf '%s' "$DC" | jq -Rs .)}"
expect_eq "write_file .devcontainer.json: refused by the protected rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","protected"]'
check "... and it did not land" test ! -e "$ws/.devcontainer.json"
mcp_call write_file "{\"path\":\".vscode/settings.json\",\"content\":$(printf '%s' "$EVIL" | jq -Rs .)}"
expect_eq "write_file .vscode/settings.json: refused by the protected rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","protected"]'
mcp_call write_file '{"path":"a/b/.vscode/tasks.json","content":"{}"}'
expect_eq "write_file at depth: refused" "$(jr .result.structuredContent.rule)" protected
expect_eq "the settings on the host are intact" "$(cat "$ws/.vscode/settings.json")" "$ORIG"
mcp_stop

# A manifest that lists sandbox.protected itself decides.
cat >"$T/open.yaml" <<YAML
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
sandbox:
  protected: [".git"]
YAML
mcp_start "$T/open.yaml" "$ws"
mcp_call write_file '{"path":".vscode/settings.json","content":"{\"editor.tabSize\": 2}\n"}'
expect_ok_result "with protected: [.git], write_file of .vscode/settings.json is allowed"
expect_eq "... and lands" "$(cat "$ws/.vscode/settings.json")" '{"editor.tabSize": 2}'
mcp_stop
finish
