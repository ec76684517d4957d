#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# maxAddedDependencies counts a broker write by the file it lands on, not
# by the name the agent gave: "./requirements.txt", "deps//package.json",
# or a link "alias" -> "deps" the agent's own check made (a write or a
# patch through it) each rewrote a dependency file with the budget at
# 0 and counted none (status: used 0), since the ledger compared the
# given string with the manifest's "requirements.txt".  And a run that
# made requirements.txt a link to reqs.txt was counted once, then every
# later run appended to reqs.txt uncounted.  And the manifest's own
# "./requirements.txt" matched no write.  And a run that retargeted a
# link on its way ("deps" -> "evil") was counted no dependency.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/deps"

manifest() {
	cat >"$T/m.yaml" <<EOF2
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
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
checks:
  alias: ["ln", "-s", "deps", "alias"]
  relink: ["sh", "-c", "mv requirements.txt reqs.txt && ln -s reqs.txt requirements.txt"]
  append: ["sh", "-c", "echo evilpkg==6.6.6 >>requirements.txt"]
  retarget: ["sh", "-c", "mkdir evil && echo EVIL >evil/package.json && rm deps && ln -s evil deps"]
dependencyFiles: [ "requirements.txt", "deps/package.json" ]
runBudget:
  maxChangedFiles: 50
  maxAddedDependencies: ${DEPS:-0}
EOF2
}
manifest

reset_deps() {
	echo "requests==2.0" >"$ws/requirements.txt"
	echo '{"dependencies":{}}' >"$ws/deps/package.json"
}
# used_deps: maxAddedDependencies' use, in $USED (not a subshell: the
# request ids must advance).
used_deps() {
	mcp_rpc airlock/session/status '{}'
	USED=$(jr .result.budgets.maxAddedDependencies.used)
}

# write_file PATH FILE: a session writes a dependency through PATH; it
# must be stopped by maxAddedDependencies 0 and FILE left alone.
write_alias() {
	local path=$1 file=$2 before

	reset_deps
	before=$(cat "$ws/$file")
	mcp_start "$T/m.yaml" "$ws"
	mcp_call write_file "{\"path\":\"$path\",\"content\":\"evilpkg==6.6.6\\n\"}"
	expect_eq "write_file $path: budget_exhausted" \
	    "$(jr .result.structuredContent.errorClass)" budget_exhausted
	expect_eq "write_file $path: $file unchanged" "$(cat "$ws/$file")" "$before"
	mcp_stop
}

# The control: the name as the manifest spells it is counted.
write_alias requirements.txt requirements.txt
write_alias ./requirements.txt requirements.txt
write_alias .//requirements.txt requirements.txt
write_alias deps//package.json deps/package.json
write_alias ./deps/./package.json deps/package.json

# A link of the agent's own making: a check's change set lands "alias"
# -> "deps" (a link inside the workspace: the write policy allows it; one
# to the workspace's root it refuses), then write_file goes through it.
reset_deps
rm -f "$ws/alias"
mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"alias"}' 60
expect_eq "the check's link landed" "$(readlink "$ws/alias")" deps
mcp_call write_file '{"path":"alias/package.json","content":"{\"dependencies\":{\"evilpkg\":\"6.6.6\"}}\n"}'
expect_eq "write_file alias/package.json: budget_exhausted" \
    "$(jr .result.structuredContent.errorClass)" budget_exhausted
expect_eq "deps/package.json unchanged" "$(cat "$ws/deps/package.json")" '{"dependencies":{}}'
mcp_stop

# apply_patch takes the same road (its parser refuses a "." component,
# not a link).
reset_deps
printf -- '--- a/alias/package.json\n+++ b/alias/package.json\n@@ -1 +1,2 @@\n {"dependencies":{}}\n+{"dependencies":{"evilpkg":"6.6.6"}}\n' >"$T/p.diff"
base=$(sha256sum <"$ws/deps/package.json" | cut -d' ' -f1)
mcp_start "$T/m.yaml" "$ws"
mcp_call apply_patch "{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$base\"}"
expect_eq "apply_patch of alias/package.json: budget_exhausted" \
    "$(jr .result.structuredContent.errorClass)" budget_exhausted
expect_eq "deps/package.json unchanged by the patch" "$(cat "$ws/deps/package.json")" '{"dependencies":{}}'
mcp_stop
rm -f "$ws/alias"

# A change set that makes the dependency file a link is counted once
# (maxAddedDependencies 1), and what later runs append through the link
# lands in reqs.txt: that is the dependency file too.
reset_deps
rm -f "$ws/reqs.txt"
DEPS=1 manifest
mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"relink"}' 60
used_deps
expect_eq "the link counts one dependency" "$USED" 1
mcp_call run_check '{"checkId":"append"}' 60
expect_eq "appending through it: refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "the refusal names maxAddedDependencies" \
    "$(jr -c .result.structuredContent.refused)" maxAddedDependencies
expect_eq "reqs.txt unchanged" "$(cat "$ws/reqs.txt")" "requests==2.0"
mcp_stop
# write_file of the link's target is the same door.
DEPS=0 manifest
mcp_start "$T/m.yaml" "$ws"
mcp_call write_file '{"path":"reqs.txt","content":"evilpkg==6.6.6\n"}'
expect_eq "write_file reqs.txt (requirements.txt -> reqs.txt): budget_exhausted" \
    "$(jr .result.structuredContent.errorClass)" budget_exhausted
expect_eq "reqs.txt unchanged by write_file" "$(cat "$ws/reqs.txt")" "requests==2.0"
mcp_stop
rm -f "$ws/requirements.txt" "$ws/reqs.txt"

# The manifest's own spelling: "./requirements.txt" and "deps//package.json"
# are the files a write lands on.  With neither file there when the
# session starts (no link to resolve), both were counted by their
# spelling and matched nothing.
rm -f "$ws/requirements.txt" "$ws/deps/package.json"
sed -i 's|^dependencyFiles: .*|dependencyFiles: [ "./requirements.txt", "deps//package.json/" ]|' "$T/m.yaml"
for path in requirements.txt deps/package.json; do
	mcp_start "$T/m.yaml" "$ws"
	mcp_call write_file "{\"path\":\"$path\",\"content\":\"evilpkg==6.6.6\\n\"}"
	expect_eq "manifest spelled ./: write_file $path: budget_exhausted" \
	    "$(jr .result.structuredContent.errorClass)" budget_exhausted
	expect_eq "$path not made" "$(test -e "$ws/$path" && echo made)" ""
	mcp_stop
done
manifest

# A link on the dependency file's way, retargeted: with "deps" a link to
# "vendor", a run that made it a link to "evil" and wrote
# evil/package.json changed what deps/package.json holds, and its change
# set ("deps", "evil/package.json") was counted no dependency.
DEPS=0 manifest
reset_deps
mv "$ws/deps" "$ws/vendor"
ln -s vendor "$ws/deps"
mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"retarget"}' 60
expect_eq "retargeting the link above the dependency file: refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "the refusal names the link and maxAddedDependencies" \
    "$(jr -c .result.structuredContent.refused)" '{"path":"deps","rule":"maxAddedDependencies"}'
expect_eq "deps still leads to vendor" "$(readlink "$ws/deps")" vendor
expect_eq "no evil/package.json" "$(test -e "$ws/evil" && echo made)" ""
mcp_stop
rm -f "$ws/deps"
mv "$ws/vendor" "$ws/deps"
manifest

# Writes elsewhere still land, counting no dependency.
reset_deps
mcp_start "$T/m.yaml" "$ws"
mcp_call write_file '{"path":"./notes.txt","content":"x\n"}'
expect_eq "write_file ./notes.txt: applied" "$(jr .result.isError)" false
expect_eq "notes.txt landed" "$(cat "$ws/notes.txt")" x
used_deps
expect_eq "no dependency counted" "$USED" 0
mcp_stop
finish
