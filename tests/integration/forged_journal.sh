#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A forged apply journal.  The next airlock started on a workspace rolls
# back every ".airlock-trash-*" it finds there: it unlinks the journal's
# written paths and renames the trash's files back to its removed paths.
# A sandboxed command that planted such a trash (through its change set)
# once made airlock itself write .git/config, with a core.fsmonitor that
# git status then ran on the host; so did an agent with a read-write
# workspace, whose .git is read-only.  Now a change set (and write_file)
# may not write a ".airlock-" name at the root, and a journal that names
# a path no change set may write is not rolled back: airlock refuses to
# start and leaves it for a human.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env

newws() {
	ws="$T/ws$1"
	eval "ws$1=\$ws"
	mkdir -p "$ws"
	(cd "$ws" && git init -q . && echo hi >a.txt)
	cp "$ws/.git/config" "$T/config.orig"
}
# The trash a forger writes: its journal puts trash/0 back as
# .git/config, after unlinking the .git/config the apply "wrote".
TRASH=.airlock-trash-0123456789abcdef
plant="mkdir $TRASH && printf '[core]\\n\\tfsmonitor = touch $T/pwned\\n' >$TRASH/0 && printf '%s' '{\"version\":1,\"removals\":[\".git/config\"],\"steps\":[{\"op\":\"write\",\"path\":\".git/config\"}]}' >$TRASH/journal"

# 1. From inside airlock exec: the trash is a change set like any other.
newws 1
out=$(cd "$ws1" && "$AIRLOCK" exec --workspace "$ws1" -- sh -c "$plant" 2>&1)
expect_eq "exec: a planted trash is refused (77)" "$?" 77
expect_contains "exec: named with the airlock rule" "$out" "refused: $TRASH/journal: airlock"
check "exec: no trash landed" test ! -e "$ws1/$TRASH"
out=$(cd "$ws1" && "$AIRLOCK" exec --workspace "$ws1" -- true 2>&1)
expect_eq "exec: the next run starts (0)" "$?" 0
check "exec: .git/config is untouched" cmp -s "$ws1/.git/config" "$T/config.orig"
(cd "$ws1" && git status >/dev/null 2>&1)
check "exec: git status runs no planted fsmonitor" test ! -e "$T/pwned"

# 2. The broker's own write_file: the same rule (it makes no directory,
# so it cannot plant a trash alone; a name of airlock's is refused all
# the same).
newws 2
cat >"$T/w.yaml" <<'YAML'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
YAML
mcp_start "$T/w.yaml" "$ws2"
mcp_call write_file "{\"path\":\"$TRASH\",\"content\":\"{}\"}"
expect_eq "write_file: a trash journal is refused" "$(jr '.result.isError')" true
expect_contains "write_file: named with the airlock rule" "$R" "\"rule\":\"airlock\""
mcp_stop
check "write_file: no trash in the workspace" test ! -e "$ws2/$TRASH"

# 3. An agent with a read-write workspace writes the trash directly (its
# .git is read-only); the next start must not roll it back.
newws 3
cat >"$T/rw.yaml" <<'YAML'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
agent:
  workspace: rw
YAML
cat >"$T/agent.sh" <<AGENT
#!/bin/sh
cd "$ws3" || exit 1
echo x >>.git/config 2>/dev/null && echo AGENT-WROTE-GIT
$plant && echo PLANTED
AGENT
chmod 755 "$T/agent.sh"
out=$(timeout 60 "$AIRLOCK" run --manifest "$T/rw.yaml" --workspace "$ws3" -- "$T/agent.sh" 2>&1)
expect_contains "rw agent: the trash was planted" "$out" "PLANTED"
expect_not_contains "rw agent: .git is read-only to it" "$out" "AGENT-WROTE-GIT"
out=$(timeout 60 "$AIRLOCK" run --manifest "$T/rw.yaml" --workspace "$ws3" -- true 2>&1)
rc=$?
check "rw agent: the next airlock run refuses to start" test "$rc" -ne 0
expect_contains "rw agent: it names the journal's path" "$out" "names .git/config"
out=$(cd "$ws3" && "$AIRLOCK" exec --workspace "$ws3" -- true 2>&1)
expect_eq "rw agent: airlock exec refuses too (74)" "$?" 74
check "rw agent: .git/config is untouched" cmp -s "$ws3/.git/config" "$T/config.orig"
check "rw agent: the forged trash is left for a human" test -e "$ws3/$TRASH/journal"
(cd "$ws3" && git status >/dev/null 2>&1)
check "rw agent: git status runs no planted fsmonitor" test ! -e "$T/pwned"

finish
