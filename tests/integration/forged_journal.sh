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
# a path no change set may write, or whose seal does not verify, is not
# rolled back: airlock refuses to start and leaves it for a human.
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

# 4. A journal naming only paths a change set may write is still no
# apply's: an rw agent asks the rollback, which runs as the user, for a
# setgid, world-writable directory (the chmod undo sets a mode whole).
# Journals are sealed with a key of the user's that no sandbox sees; a
# planted one is left for a human, and so is a real one moved to
# another trash.
newws 4
mkdir -m 755 "$ws4/shared"
out=$(cd "$ws4" && "$AIRLOCK" exec --workspace "$ws4" -- sh -c 'echo x >made' 2>&1)
expect_eq "a first apply (makes the sealing key)" "$?" 0
check "the key is the user's, private" test "$(stat -c %a "$AIRLOCK_HOME/keys/apply.key")" = 600
T2=.airlock-trash-fedcba9876543210
forge="mkdir $TRASH && printf '%s' '{\"version\":2,\"removals\":[],\"steps\":[{\"op\":\"chmod\",\"path\":\"shared\",\"mode\":3583}],\"seal\":\"$(printf '0%.0s' $(seq 64))\"}' >$TRASH/journal"
cat >"$T/agent4.sh" <<AGENT
#!/bin/sh
cd "$ws4" || exit 1
$forge && echo PLANTED
AGENT
chmod 755 "$T/agent4.sh"
out=$(timeout 60 "$AIRLOCK" run --manifest "$T/rw.yaml" --workspace "$ws4" -- "$T/agent4.sh" 2>&1)
expect_contains "rw agent: a journal asking for mode 6777 was planted" "$out" "PLANTED"
out=$(cd "$ws4" && "$AIRLOCK" exec --workspace "$ws4" -- true 2>&1)
expect_eq "forged seal: airlock exec refuses to run (74)" "$?" 74
expect_contains "forged seal: says the seal does not verify" "$out" "seal does not verify"
expect_eq "forged seal: the directory keeps its mode" "$(stat -c %a "$ws4/shared")" 755
check "forged seal: the trash is left for a human" test -e "$ws4/$TRASH/journal"
rm -rf "${ws4:?}/$TRASH"
# seal NAME JSON: the journal JSON sealed for trash NAME with the user's
# key, as applyjournal.h describes (keyed BLAKE2b-256 of the name, a NUL
# and the compact, key-sorted text).
seal() {
	python3 - "$AIRLOCK_HOME/keys/apply.key" "$1" "$2" <<'PY'
import hashlib, json, sys
key = open(sys.argv[1], "rb").read()
j = json.loads(sys.argv[3])
text = json.dumps(j, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
j["seal"] = hashlib.blake2b(sys.argv[2].encode() + b"\0" + text.encode(), key=key, digest_size=32).hexdigest()
print(json.dumps(j))
PY
}
J='{"version":2,"removals":[],"steps":[{"op":"chmod","path":"shared","mode":448}]}'
mkdir -m 700 "$ws4/$T2"
seal "$TRASH" "$J" >"$ws4/$T2/journal"
out=$(cd "$ws4" && "$AIRLOCK" exec --workspace "$ws4" -- true 2>&1)
expect_eq "a journal sealed for another trash: refused (74)" "$?" 74
expect_contains "moved journal: says the seal does not verify" "$out" "seal does not verify"
expect_eq "moved journal: the directory keeps its mode" "$(stat -c %a "$ws4/shared")" 755
seal "$T2" "$J" >"$ws4/$T2/journal"
out=$(cd "$ws4" && "$AIRLOCK" exec --workspace "$ws4" -- true 2>&1)
expect_eq "sealed for its own trash: rolled back, then the command runs (0)" "$?" 0
expect_eq "sealed: the mode it names is set back" "$(stat -c %a "$ws4/shared")" 700
check "sealed: the trash is gone" test ! -e "$ws4/$T2"

finish
