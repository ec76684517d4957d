#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
# removals the removal reader did not read (shell_rules_removals.sh has
# the first ones):
#   - "zip -qrm /tmp/all.zip ." moved the whole workspace into an archive
#     out of it (zip -m removes what it archives, as tar --remove-files
#     does), and "zip -qm keep.zip *" every file at its top: each ran;
#   - "tee * </dev/null" emptied every file at its top (tee truncates each
#     file it names, as truncate -s0 * does): it ran;
#   - "find . -exec sh -c 'rm "$1"' _ {} \;" removes every file beneath
#     the workspace, as find . -exec rm {} \; does, which is denied: it
#     only waited for a human, who could approve it;
# each is now rm -rf . to the rules, and refused.
#   - "sed -i d ./*" emptied every file at the top (sed -i rewrites each
#     file it names with what its script prints, which the rules cannot
#     tell), and so did "f='*'; truncate -s0 $f" (an unquoted expansion,
#     which the shell splits and globs): both ran; each now waits for a
#     human, as "rm -f $f" and "truncate -s "$n" *" do.
# A removal that runs only after a cd succeeded, in the same shell, runs
# where the cd went: "cd build && find . -delete" was refused as find .
# -delete of the workspace is (the workspace's top was kept among the
# directories it may run in); it now runs, and empties build.  Where the
# cd may not have happened, or not in this shell, it is still refused:
# "(cd build) && ...", "true || cd build && ...", "cd build | cat && ...",
# "cd build; ...", and after shopt -s cdable_vars.
# Controls: zip -rm of one directory, tee of one file and tee -a of a glob
# run, and do what they say.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v zip >/dev/null || fail "zip is needed"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
echo precious >"$ws/notes.txt"
mcp_start "$T/m.yaml" "$ws"
audit="$(newest_session)/audit.jsonl"

# ===== played for real: each would have emptied or moved the workspace ====
for cmd in 'zip -qrm /tmp/all.zip .' 'tee * </dev/null' \
    "find . -exec sh -c 'rm \"\$1\"' _ {} \\;"; do
	shell "$cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	check "... and the workspace is whole" \
	    test -s "$ws/notes.txt" -a -s "$ws/README.md" -a -s "$ws/src/todo.sh"
done
check "the refusal is audited with the rule and the command" \
    grep -qE '"decision":"deny","id":[0-9]+,"reason":"rule 5 \(rm -rf\|.*on `zip -qrm /tmp/all.zip .`' "$audit"

# ===== and their other spellings ===========================================
for cmd in 'zip -qm keep.zip *' 'zip -q --move -r /tmp/x.zip ./' \
    "zip -qm /tmp/x.zip '*'" 'echo | tee -- ./*' 'find . -exec tee {} \;' \
    "find . -exec bash -c 'rm -f -- \"\$@\"' sh {} +"; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done
check "... and every file is still there" \
    test -s "$ws/notes.txt" -a -s "$ws/README.md" -a -s "$ws/tests/run.sh"

# ===== what now waits for a human ==========================================
id=500 last=
shell_asks_denied "sed -i rewrites each file it names, which may empty what rule 5" \
    'touch S1; sed -i d ./*' 'touch S2; sed --in-place -e d -- src/../*'
shell_asks_denied "a word that is not fixed where rule 5 looks" \
    "touch S3; f='*'; truncate -s0 \$f" "touch S4; f='./*'; tee \$f </dev/null"
for f in S1 S2 S3 S4; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
check "... and every file is still there" \
    test -s "$ws/notes.txt" -a -s "$ws/README.md" -a -s "$ws/src/todo.sh"
shell 'cp notes.txt n2.txt && sed -i s/precious/kept/ n2.txt && sed -i.bak d ./*.txt && mv notes.txt.bak notes.txt && rm n2.txt.bak'
expect_ok_result "control: sed -i of a file, sed -i.bak of a glob run"
check "... and do what they say" \
    test "$(cat "$ws/notes.txt")" = precious -a ! -s "$ws/n2.txt"
rm -f "$ws/n2.txt"

# ===== a cd that may not have run, or not in this shell =====================
mkdir -p "$ws/build/o"
echo obj >"$ws/build/o/a.o"
for cmd in '(cd build) && find . -delete' 'true || cd build && find . -delete' \
    'cd build | cat && find . -delete' 'cd nowhere; find . -delete' \
    'shopt -s cdable_vars; cd build && find . -delete'; do
	shell "$cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	check "... and the workspace is whole" \
	    test -s "$ws/notes.txt" -a -s "$ws/src/todo.sh" -a -s "$ws/build/o/a.o"
done
shell 'cd build && find . -delete'
expect_ok_result "control: find . -delete after cd build && runs"
check "... and empties build only" \
    test -d "$ws/build" -a -z "$(ls -A "$ws/build")" -a -s "$ws/notes.txt" \
    -a -s "$ws/src/todo.sh"
rmdir "$ws/build"

# ===== controls ==============================================================
mkdir -p "$ws/build"
echo obj >"$ws/build/a.o"
shell 'zip -qrm /tmp/b.zip build && echo log | tee out.log && echo more | tee -a *.txt >/dev/null'
expect_ok_result "control: zip -rm of a directory, tee of a file, tee -a of a glob run"
check "... and do what they say" \
    test ! -e "$ws/build" -a "$(cat "$ws/out.log")" = log -a \
    "$(cat "$ws/notes.txt")" = "$(printf 'precious\nmore')"
mcp_stop
finish
