#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The review of an approval-gated shell command marks what the command
# writes, or sets up, that runs later outside any sandbox, as the review
# of a write_file of the same path does (approval_runs_later.sh).  A
# command string "echo x >> ~/.bashrc; ls", "tee -a ~/.profile",
# "> .git/hooks/pre-commit", crontab or "git config core.hooksPath"
# showed on `airlock approve` as one more argument, with no warning row
# (only a string that ended in the start-up file's name, read whole as a
# path, had one).  Now each word and redirection target of the string
# (policy/shparse.h) that names one has its row; "echo x >> NOTES.md"
# has none.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
    default: ask
    unresolvable: ask
  - name: git_config
    command: ["git", "config", "{key}", "{value}"]
    input: { key: string, value: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
approvals:
  ttlSeconds: 60
EOF2
# run CALLID SCRIPT: the call, reviewed and said no to (approve's screen
# in $T/CALLID.out, pending -v's in $T/CALLIDv.out), then denied.
run() {
	local id
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"$1\",\"method\":\"tools/call\",\"params\":{\"name\":\"run\",\"arguments\":{\"command\":$(jq -n --arg s "$2" '$s')}}}"
	id=$(pending_tool run) || fail "$1: the command waits for approval"
	review_denied "$id" "$1"
	mcp_wait_id "$1" 20
	expect_error_class "$1: denied, nothing ran" approval_denied
}
mcp_start "$T/m.yaml" "$ws"

run rc "echo x >> ~/.bashrc; printf x | tee -a '~/.profile'; echo x >.git/hooks/pre-commit; echo '* * * * * sh x' | crontab -; git config core.hooksPath h; ls"
for f in rc rcv; do
	out=$(cat "$T/$f.out")
	expect_contains "$f: a row says the command writes ~/.bashrc" "$out" \
	    "  WARNING:   its command writes ~/.bashrc, which runs later, outside any sandbox: RUNS ON bash: every interactive shell runs it"
	expect_contains "$f: ... names tee's ~/.profile" "$out" \
	    "  WARNING:   its command names ~/.profile, which runs later, outside any sandbox: RUNS ON sh, bash: every login shell runs it"
	expect_contains "$f: ... writes a git hook" "$out" \
	    "  WARNING:   its command writes .git/hooks/pre-commit, which runs later, outside any sandbox: RUNS ON git: a hook it runs"
	expect_contains "$f: ... runs crontab" "$out" \
	    "  WARNING:   its command names crontab, which sets up what runs later, outside any sandbox: cron:"
	expect_contains "$f: ... sets core.hooksPath" "$out" \
	    "  WARNING:   its command names core.hooksPath, which sets up what runs later, outside any sandbox: git:"
done
expect_contains "... the last rows before the prompt" "$(tail -n 2 "$T/rc.out")" "WARNING:   its command names core.hooksPath"

# What it computes or globs, and a string the parser cannot read.
run var 'f=~/.zshrc; echo x >> "$f"; echo x >> ~/.b?sh_profile'
expect_contains "an assignment that names ~/.zshrc" "$(cat "$T/var.out")" \
    "  WARNING:   its command names f=~/.zshrc, which runs later, outside any sandbox: RUNS ON zsh:"
expect_contains "a glob that names ~/.bash_profile" "$(cat "$T/var.out")" \
    "  WARNING:   its command writes ~/.b?sh_profile, which runs later, outside any sandbox: RUNS ON bash:"
run twice 'cp ~/.bashrc b; echo x >> ~/.bashrc; echo y >> ~/.bashrc'
expect_eq "a file named and written twice has one row, that it writes" \
    "$(grep -c 'WARNING:   its command' "$T/twice.out")" 1
expect_contains "... that it writes" "$(cat "$T/twice.out")" "WARNING:   its command writes ~/.bashrc"
run case 'case x in *) echo x >> ~/.bashrc;; esac'
expect_contains "case ... esac, which the parser cannot read" "$(cat "$T/case.out")" \
    "  WARNING:   its command names ~/.bashrc, which runs later, outside any sandbox: RUNS ON bash:"

# Not a shell: a tool's own argv, with the agent's key in it.
mcp_send '{"jsonrpc":"2.0","id":"gc","method":"tools/call","params":{"name":"git_config","arguments":{"key":"core.hooksPath","value":"h"}}}'
id=$(pending_tool git_config) || fail "git config waits for approval"
echo n | "$AIRLOCK" approve "$id" >"$T/gc.out" 2>&1
"$AIRLOCK" deny --reason no "$id" >/dev/null 2>&1
mcp_wait_id gc 20
expect_contains "a tool's argv that sets core.hooksPath" "$(cat "$T/gc.out")" \
    "  WARNING:   its command names core.hooksPath, which sets up what runs later, outside any sandbox: git:"

run notes 'echo x >> NOTES.md; cat ~/.bashrc.d/x.sh'
expect_contains "a NOTES.md's review is shown" "$(cat "$T/notes.out")" "NOTES.md"
expect_not_contains "... with no warning" "$(cat "$T/notes.out")" "WARNING"
check "nothing was written" test ! -e "$ws/NOTES.md"
mcp_stop
finish
