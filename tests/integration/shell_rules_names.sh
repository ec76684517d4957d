#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules: builtins that take a variable's name can change PATH where
# the rules did not look.  With PATH unset, dash and bash look a command
# up in the working directory, so under an allow-list that allows
# "git status", "unset PATH; git status" ran the agent's own ./git; so
# did "export $x" with x=PATH=. (an expansion names any variable),
# "export P*" and "unset P*" (a glob matching the agent's file named
# "PATH=." or "PATH"), export "y"=$x (bash and dash split $x when the
# name is quoted), and, where /bin/sh is bash, "wait -n -p PATH"
# (PATH becomes a process id: a directory the agent made beforehand).
# GIT_DIR=evil git status (and GIT_COMMON_DIR) read the config of a
# repository the agent made under another name, whose core.fsmonitor
# ran the agent's command.  git clone's --config (also -cNAME=VALUE and
# --conf=) sets the new repository's config before it fetches:
# protocol.ext.allow=always let an "ext::" URL run a command under the
# rule that allows git clone.  GIT_TEST_FSMONITOR='cmd' git status ran
# cmd (git's test hooks are in every release).  An option's name that
# is a pattern ("--upl*" and a file named "--upload-pack=CMD", bash's
# "--u{p,p}load-pack=CMD") ran CMD under the rule that allows git clone.
# Played for real through the broker, with dash as Debian's /bin/sh and
# then with bash in a mount namespace of its own: each string now waits
# for a human, and the agent's git never runs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
# What the agent wrote earlier: a git of its own in the workspace and in
# every directory a small process id names, and files named for the glob.
for d in . $(seq 2 200); do
	mkdir -p "$ws/$d"
	printf '#!/bin/sh\n: >"%s/pwned-$2"\n' "$ws" >"$ws/$d/git"
	chmod 755 "$ws/$d/git"
done
: >"$ws/PATH=."
: >"$ws/PATH"
# ... and a repository of its own not named .git, whose config runs a
# command whenever git reads the tree (core.fsmonitor).
git init -q "$T/gd" && mv "$T/gd/.git" "$ws/evil" &&
    git config -f "$ws/evil/config" core.fsmonitor \
	": >'$ws/pwned-gitdir'; false" &&
    chmod -R a+rX "$ws/evil" || fail "a repository named evil"

# ... and the checkout's own repository, which git status reads.
git init -q "$ws" || fail "git init"
# ... and a file whose name is an option that runs a command, for a
# glob to expand to.
: >"$ws/--upload-pack=touch pwned-glob; false"

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
      - { prefix: [git, [status, diff, log, clone]], decision: allow }
      - { prefix: [[export, unset, wait, getopts, echo, ":"]], decision: allow }
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 60
EOF

mcp_start "$T/m.yaml" "$ws"
shell 'export FOO=$HOME BAR="$FOO x"; wait $!; git status 2>/dev/null; :'
expect_ok_result "control: an assignment's expansion and wait \$! run"
shell_asks_denied PATH 'unset PATH; git status unset' \
    'export x=PATH=.; export $x; git status export-x' \
    'export P*; git status export-glob' \
    'unset P*; git status unset-glob' \
    'export x=". PATH=."; export "y"=$x; git status quoted-name'
# GIT_DIR names the repository git reads: its config's fsmonitor ran
# under the rule that allows git status.
shell_asks_denied GIT_DIR 'GIT_DIR=evil git status' \
    'env GIT_COMMON_DIR=evil GIT_DIR=evil git status'
# git's test hooks are read by every release: GIT_TEST_FSMONITOR is
# core.fsmonitor, a command git status runs.
shell_asks_denied GIT_TEST_FSMONITOR \
    "GIT_TEST_FSMONITOR='touch pwned-fsmonitor; false' git status" \
    "export GIT_TEST_FSMONITOR='touch pwned-fsmonitor; false'; git status"
ext='ext::sh -c touch% pwned-clone'
shell_asks_denied "can make git run code" \
    "git clone -q --config protocol.ext.allow=always '$ext-config' d1" \
    "git clone -q -cprotocol.ext.allow=always '$ext-glued' d2" \
    "git clone -q --conf=protocol.ext.allow=always '$ext-abbrev' d3"
# A glob or (bash) a brace expansion where an option's name is: "--upl*"
# expands to that file's name, "--u{p,p}load-pack=..." to the option
# twice, and git ran the command under the rule that allows git clone.
shell_asks_denied "it may be an option that runs a command" \
    "git clone -q --upl* 'file://$ws' d4"
mcp_stop

mcp_start_bash_sh "$T/m.yaml" "$ws"
AIRLOCK=$REAL_AIRLOCK
shell_asks_denied PATH ': & wait -n -p PATH; git status wait-p' \
    'export x=PATH; : & wait -n -p $x; git status wait-p-x'
shell_asks_denied "it may be an option that runs a command" \
    "git clone -q --u{p,p}load-pack='touch pwned-brace; false' 'file://$ws' d5"
mcp_stop
for f in unset export-x export-glob unset-glob quoted-name wait-p wait-p-x \
    gitdir; do
	check "the agent's git did not run ($f)" test ! -e "$ws/pwned-$f"
done
check "GIT_TEST_FSMONITOR's command did not run" \
    test ! -e "$ws/pwned-fsmonitor"
for f in glob brace; do
	check "git clone's --upload-pack did not run ($f)" \
	    test ! -e "$ws/pwned-$f"
done
for f in config glued abbrev; do
	check "git clone's ext:: command did not run ($f)" \
	    test ! -e "$ws/pwned-clone-$f"
done
finish
