#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules on a host whose /bin/sh is bash: "{NAME}>file" is bash's
# redirection that opens a new fd and sets NAME to its number, and it
# evaluates a subscript in NAME.  The reader took "{PATH}" for an
# argument: under an allow-list, ": {PATH}>/dev/null; git status" was
# allowed and set PATH to "10" or so, a directory of the workspace, so
# "git status" ran the agent's own ./11/git; and "echo hi
# {a[x]}>/dev/null" ran the substitution in the subscript x holds.
# Played for real with bash as the sandbox's /bin/sh (a mount namespace
# of its own, as shell_rules_bash.sh): both now wait for a human, and
# nothing of the agent's files runs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
if ! command -v unshare >/dev/null || [ "$(id -u)" -ne 0 ]; then
	echo "# SKIP needs root and unshare(1) to give /bin/sh another shell"
	exit 77
fi
ws=$(make_workspace)
# What the agent wrote earlier: a "git" in every directory a new fd's
# number names, and a value whose subscript creates a file.
for fd in $(seq 3 40); do
	mkdir "$ws/$fd"
	printf '#!/bin/sh\n: >pwned-path\n' >"$ws/$fd/git"
	chmod 755 "$ws/$fd/git"
done
printf 'a[$(>%s/pwned-arith)]\n' "$ws" >"$ws/arith.txt"

# An allow-list: what no rule allows waits for a human.
cat >"$T/m.yaml" <<EOF
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
    default: ask
    unresolvable: ask
    rules:
      - { prefix: [git, [status, diff, log]], decision: allow }
      - { prefix: [read], decision: allow }
      - { prefix: [echo], decision: allow }
      - { prefix: [":"], decision: allow }
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 60
EOF

mcp_start_bash_sh "$T/m.yaml" "$ws"
shell 'echo {a} >/dev/null; : >/dev/null; read -r x <arith.txt'
expect_ok_result "control: a brace word and a redirection apart run"

AIRLOCK=$REAL_AIRLOCK
shell_asks_denied "{NAME} redirection" ': {PATH}>/dev/null; git status' \
    'read x <arith.txt; echo hi {a[x]}>/dev/null' \
    'read x <arith.txt; echo hi {a[x]}\
>/dev/null'
check "the agent's git did not run" test ! -e "$ws/pwned-path"
check "nothing of the file ran" test ! -e "$ws/pwned-arith"
mcp_stop
finish
