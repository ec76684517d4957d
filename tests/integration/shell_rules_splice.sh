#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules against strings the rules' reader split differently from
# the sandbox's /bin/sh (Debian's dash here), or whose allowed command
# runs another one named in an option or a variable.  Each of these ran
# its hidden command (dd, which the shipped set asks about; touch, which
# the allow-list set does not allow) with no human asked:
#   - "${x:-{}" ends at the first "}" in both shells, but the reader
#     counted "{" as nesting and read the rest of the string as the
#     expansion's text;
#   - "${x:-"}"}": the reader ended the expansion inside the quotes;
#   - "${x:-'}" inside double quotes: dash reads ' as a character, the
#     reader as a quote;
#   - "ls &>/dev/null dd ...": dash reads "&" and then a redirection
#     before the command dd, the reader bash's "&>";
#   - "env -- X=1 dd ...": env sets X=1 after "--" too and runs dd; the
#     rules decided a program named "X=1"; "command -pp dd ..." runs dd
#     (-p twice), the rules decided "command";
#   - git's --upload-pack, GIT_EXTERNAL_DIFF, HOME (a .gitconfig the
#     same string writes, with core.fsmonitor), make's NAME:= value
#     (evaluated at once: $(shell ...), $(file ...)) and make -f - run a
#     command or make code under an allowed git or make;
#   - "timeout -- $x git status", "env -u $x git status": a value the
#     reader skipped unseen split into a duration (or a name) and a
#     command that ran, the rules deciding git status;
#   - "./nohup git diff", where ./nohup is not nohup but sh: the rules
#     saw through it as they do through nohup, and allowed git diff.
# Now each waits for a human (here: the approval expires unanswered) and
# nothing hidden runs; the controls show the same shapes without the
# splice still run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
printf 'test:\n\t@echo tested\n' >"$ws/Makefile"
echo a >"$ws/fa"
echo b >"$ws/fb"
git -C "$ws" init -q
cp /bin/sh "$ws/nohup"

approvals() { printf 'approvals:\n  approvers: [%s]\n  ttlSeconds: 1\n' "$(id -un)"; }
{
	cat "$top_srcdir/contrib/manifests/shell-rules.yaml"
	approvals
} >"$T/shipped.yaml"
{
	cat <<'EOF'
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
    default: ask
    unresolvable: ask
    rules:
      - { prefix: [echo], decision: allow }
      - { prefix: [ls], decision: allow }
      - { prefix: [git, diff], decision: allow }
      - { prefix: [make, test], decision: allow }
EOF
	approvals
} >"$T/allow.yaml"

# held NAME FILE WHY COMMAND: COMMAND waits for a human (who does not
# answer), the audit names WHY, and FILE was not created.
held() {
	shell "$4"
	expect_error_class "$1: waits for a human (expires unanswered)" approval_expired
	check "$1: the audited decision says why ($3)" \
	    bash -c 'grep "\"decision\":\"approval_required\"" "$1" | tail -n 1 |
		grep -qF -- "$2"' _ "$(newest_session)/audit.jsonl" "$3"
	check "$1: nothing hidden ran" test ! -e "$ws/$2"
}

dd_='dd if=/dev/zero count=1 of'
mcp_start "$T/shipped.yaml" "$ws"
shell 'readlink -f /bin/sh'
expect_ok_result "control: the sandbox's shell"
echo "# the sandbox's /bin/sh: $(jr .result.structuredContent.stdout)"
held '${x:-{}' P1 'a { inside ${...}' "echo \${x:-{}; $dd_=P1; echo }"
held '${x:-"}"}' P2 'rule 9 (dd): ask' "echo \${x:-\"}\"}; $dd_=P2; echo '\"'\\'"
held "\"\${x:-'}\"" P3 "a ' inside" "echo \"\${x:-'}\"; $dd_=P3; echo \"'}\""
held '&> read as & and >' P4 'rule 9 (dd): ask' "echo hi &>/dev/null $dd_=P4"
held 'env -- NAME=value' P7 'rule 9 (dd): ask' "env -- X=1 $dd_=P7"
held 'command -pp' P8 'rule 9 (dd): ask' "command -pp $dd_=P8"
held 'git --upload-pack' P5 'rule 9 (dd): ask' "git ls-remote --upload-pack='$dd_=P5 #' /nonexistent"
held 'GIT_EXTERNAL_DIFF' P6 'setting GIT_EXTERNAL_DIFF' "GIT_EXTERNAL_DIFF='$dd_=P6 #' git diff --no-index fa fb"
# git refuses ext:: URLs (a command) unless GIT_ALLOW_PROTOCOL allows it.
held 'GIT_ALLOW_PROTOCOL=ext' P11 'setting GIT_ALLOW_PROTOCOL' \
    "GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c $dd_=P11% #'"
# A wrapper's option value or timeout's duration that is not a fixed
# word: split, it ends the options early and what follows runs, with
# the rules deciding the git status after it.
held 'timeout -- $x (a duration)' P9 'a timeout option that is not a fixed word' \
    "for x in '5 sh -c :>P9'; do timeout -- \$x git status; done"
held 'env -u $x' P10 'a env option that is not a fixed word' \
    "for x in 'X sh -c :>P10'; do env -u \$x git status; done"
shell 'ls >/dev/null &>/dev/null; echo ${x:-"a b"} && echo "${y:-c}"'
expect_ok_result "control: quotes inside \${...} and &> still run"
expect_eq "... and print what they say" "$(jr .result.structuredContent.stdout)" "a b
c"
mcp_stop

mcp_start "$T/allow.yaml" "$ws"
held 'allow-list: ${x:-{}' A1 'a { inside ${...}' 'echo ${x:-{}; touch A1; echo }'
held 'allow-list: make NAME:=$(file ...)' A2 'runs make code' "make test 'X:=\$(file >A2,pwned)'"
held 'allow-list: GIT_EXTERNAL_DIFF' A3 'setting GIT_EXTERNAL_DIFF' "GIT_EXTERNAL_DIFF='$dd_=A3 #' git diff --no-index fa fb"
held 'allow-list: make -f - (a here-document)' A4 'runs make code' "make test -f - <<EOF
test:
	$dd_=A4
EOF"
# (.gitconfig written here: the agent's write of it waits for a human
# itself, shell_rules_runs_later.sh)
printf '[safe]\ndirectory = *\n[core]\nfsmonitor = "%s=A5; false #"\n' "$dd_" \
    >"$ws/.gitconfig"
held 'allow-list: HOME=. git diff (core.fsmonitor in ./.gitconfig)' A5 'setting HOME' \
    "HOME=. git diff"
rm -f "$ws/.gitconfig"
# A wrapper named by a path may be another program: the checkout's
# ./nohup is a copy of sh, which runs the file git as a script.
held 'allow-list: ./nohup git diff' A6 'a wrapper named by a path (./nohup)' \
    "echo ':>A6' >git; ./nohup git diff"
shell 'make test'
expect_ok_result "control: an allowed make test runs"
expect_contains "... and its recipe too" "$(jr .result.structuredContent.stdout)" tested
mcp_stop
finish
