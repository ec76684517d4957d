#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Runners write into an overlay; the broker walks its upper layer into a
# change set, checks every entry against the write policy and applies it
# all or nothing (issue 12).  Each attack is tried for real from a check
# run by run_check: setuid files, setgid world-writable directories, a
# nested .git, a protected path renamed away and recreated, a protected
# path absent at start, budgets counted from the change set; and a benign
# check whose files land owned by the workspace owner.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/.github/workflows"
echo "original workflow" >"$ws/.github/workflows/ci.yml"
echo "requests==2.0" >"$ws/requirements.txt"
ws_uid=$(stat -c %u "$ws")

# manifest FILE BUDGET-YAML
manifest() {
	cat >"$1" <<EOF
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
  - name: look
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: none
    timeoutMs: 20000
checks:
  setuid: ["sh", "-c", "cp /bin/sh sbash && chmod 4755 sbash && ls -l sbash"]
  setgid_dir: ["sh", "-c", "mkdir d && chmod 2777 d"]
  nested_git: ["sh", "-c", "mkdir -p src/.git && echo 'ref: refs/heads/main' >src/.git/HEAD && printf '[core]\\\\n\\\\tfsmonitor = touch /tmp/pwned\\\\n' >src/.git/config"]
  git_file: ["sh", "-c", "echo 'gitdir: /tmp/elsewhere' >src/.git"]
  github_rename: ["sh", "-c", "mv .github .github.old && mkdir -p .github/workflows && echo evil >.github/workflows/ci.yml"]
  absent_protected: ["sh", "-c", "mkdir -p secrets && echo key >secrets/key"]
  escaping_link: ["sh", "-c", "ln -s ../../../etc/shadow src/shadow"]
  fifo: ["sh", "-c", "mkfifo src/pipe"]
  hard_link: ["sh", "-c", "echo x >a && ln a b"]
  many: ["sh", "-c", "mkdir -p gen && for i in \$(seq 1 60); do echo \$i >gen/f\$i; done"]
  deps: ["sh", "-c", "echo evilpkg==6.6.6 >>requirements.txt"]
  benign: ["sh", "-c", "mkdir -p out && echo one >out/one.txt && echo two >out/two.txt && echo three >README.md && chmod 0750 out/two.txt && rm src/todo.sh"]
  nothing: ["true"]
  nonutf8: ["sh", "-c", "d=\$(printf '\\\\377'); mkdir -p \"\$d/.git\" && echo x >\"\$d/.git/config\""]
dependencyFiles: [ "requirements.txt" ]
sandbox:
  protected: [ ".git", ".github/workflows", "secrets" ]
runBudget:
$2
EOF
}

# refused NAME CHECK RULE PATH: the check's change set is refused naming
# PATH and RULE.
refused() {
	mcp_call run_check "{\"checkId\":\"$2\"}" 60
	expect_eq "$1: change_refused" "$(jr .result.structuredContent.errorClass)" change_refused
	if [ -n "$4" ]; then
		expect_contains "$1: names the entry and its rule" \
		    "$(jr -c .result.structuredContent.refused)" "{\"path\":\"$4\",\"rule\":\"$3\""
	else
		expect_contains "$1: names the rule" \
		    "$(jr -c .result.structuredContent.refused)" "\"rule\":\"$3\""
	fi
}

manifest "$T/cs.yaml" "  maxChangedFiles: 30
  maxAddedDependencies: 0"
mcp_start "$T/cs.yaml" "$ws"

refused "setuid copy" setuid special_bits sbash
check "setuid copy: no sbash on the host" test ! -e "$ws/sbash"
refused "setgid world-writable dir" setgid_dir special_bits d
check "setgid dir: no d on the host" test ! -e "$ws/d"
refused "nested .git directory" nested_git git src/.git
check "nested .git: no src/.git on the host" test ! -e "$ws/src/.git"
refused "a .git file" git_file git src/.git
check ".git file: no src/.git on the host" test ! -e "$ws/src/.git"
refused ".github renamed away and recreated" github_rename protected .github/workflows/ci.yml
expect_eq ".github rename: the workflow is intact" "$(cat "$ws/.github/workflows/ci.yml")" "original workflow"
check ".github rename: no .github.old on the host" test ! -e "$ws/.github.old"
refused "a protected path absent at start" absent_protected protected secrets
check "absent protected path: not created" test ! -e "$ws/secrets"
refused "a symlink out of the workspace" escaping_link symlink src/shadow
check "escaping symlink: not created" test ! -L "$ws/src/shadow"
refused "a FIFO" fifo special_file src/pipe
refused "a .git beneath a name that is not UTF-8" nonutf8 name ""
check "not UTF-8: no .git on the host" test -z "$(find "$ws" -name .git)"
refused "a hard link" hard_link hard_link a
check "hard link: nothing applied (not even the first name)" test ! -e "$ws/a"

# The broker's own writes obey the same rules.
mcp_call write_file '{"path":"src/.git/config","content":"[core]\\n\\tfsmonitor = x\\n"}'
expect_eq "write_file into a nested .git: refused by the git rule" "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
mcp_call write_file '{"path":"lib/secrets/k","content":"x"}'
expect_eq "write_file beneath a protected pattern at depth: refused" "$(jr .result.structuredContent.rule)" protected
check "broker writes: nothing created" test ! -e "$ws/src/.git" -a ! -e "$ws/lib"

mcp_call look '{"command":"touch ro-probe"}' 60
check "a tool that does not write gets a read-only workspace" test "$(jr .result.structuredContent.exitCode)" != 0
check "read-only tool: nothing created" test ! -e "$ws/ro-probe"

mcp_call run_check '{"checkId":"nothing"}' 60
expect_eq "a check that writes nothing succeeds" "$(jr .result.structuredContent.exitCode)" 0

mcp_call run_check '{"checkId":"benign"}' 60
expect_eq "benign check: applied" "$(jr .result.structuredContent.exitCode)" 0
expect_eq "benign check: new files land" "$(cat "$ws/out/one.txt" "$ws/out/two.txt" 2>&1)" "one
two"
expect_eq "benign check: a modified file lands" "$(cat "$ws/README.md")" "three"
check "benign check: a deleted file is deleted" test ! -e "$ws/src/todo.sh"
expect_eq "benign check: owned by the workspace owner" \
    "$(stat -c %u "$ws/out" "$ws/out/one.txt" "$ws/out/two.txt" "$ws/README.md" | sort -u)" "$ws_uid"
expect_eq "benign check: modes without special bits" \
    "$(stat -c %a "$ws/out/two.txt")" 750
check "benign check: no file with special bits in the workspace" \
    test -z "$(find "$ws" -perm /7000)"

refused "60 files with maxChangedFiles 30" many maxChangedFiles ""
check "60 files: none created" test ! -e "$ws/gen"
mcp_rpc airlock/session/status '{}'
expect_eq "60 files: the stop names maxChangedFiles" "$(jr .result.stopReason)" maxChangedFiles
mcp_stop
sess=$(newest_session)
check "refusals are audited as change_refused with the entries" \
    grep -q '"change_refused".*"sbash"' "$sess/audit.jsonl"

manifest "$T/deps.yaml" "  maxAddedDependencies: 0"
mcp_start "$T/deps.yaml" "$ws"
refused "a dependency appended with maxAddedDependencies 0" deps maxAddedDependencies requirements.txt
expect_eq "dependency: requirements.txt unchanged" "$(cat "$ws/requirements.txt")" "requests==2.0"
mcp_stop

check "no file with special bits anywhere in the workspace" \
    test -z "$(find "$ws" -perm /6000)"

# As root the upper layer is a detached tmpfs: in no mount table, nothing
# in the session directory; scripts written in the run execute, removed
# trees are removed.
if [ "$(id -u)" -eq 0 ]; then
	cat >"$T/tmpfs.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  waits: ["sh", "-c", "echo x >mark; i=0; while [ ! -e upper-tmpfs-go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done"]
  script: ["sh", "-c", "echo 'echo ran' >run.sh && chmod 755 run.sh && ./run.sh && rm src/todo.sh.gone 2>/dev/null; mkdir -p src/gone && rm -r lib"]
EOF
	rm -f "$ws/upper-tmpfs-go"
	before=$(grep -c . /proc/self/mountinfo)
	mcp_start "$T/tmpfs.yaml" "$ws"
	MCP_ID=$((MCP_ID + 1))
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":$MCP_ID,\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"waits\"}}}"
	i=0
	while ! pgrep -f upper-tmpfs-go >/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	during=$(grep -c . /proc/self/mountinfo)
	sess=$(newest_session)
	touch "$ws/upper-tmpfs-go"
	until [ "$(reply_id)" = "$MCP_ID" ]; do
		mcp_recv 60
		[ -n "$R" ] || break
	done
	rm -f "$ws/upper-tmpfs-go"
	check "tmpfs upper: the run was seen running" test "$i" -lt 200
	expect_eq "tmpfs upper: the host's mount table unchanged during a run" "$during" "$before"
	check "tmpfs upper: nothing in the session directory" test ! -e "$sess/changes"
	expect_eq "tmpfs upper: the run's file lands" "$(cat "$ws/mark" 2>&1)" x
	rm -f "$ws/mark"
	mkdir -p "$ws/lib/deep"
	echo keep >"$ws/lib/deep/f"
	mcp_call run_check '{"checkId":"script"}' 60
	expect_eq "tmpfs upper: a script written in the run executes" \
	    "$(jr .result.structuredContent.exitCode)" 0
	check "tmpfs upper: the script lands executable" test -x "$ws/run.sh"
	check "tmpfs upper: a directory tree removed in the run is removed" \
	    test ! -e "$ws/lib"
	check "tmpfs upper: an empty directory lands" test -d "$ws/src/gone"
	rm -rf "$ws/run.sh" "$ws/src/gone"
	mcp_stop
fi
finish
