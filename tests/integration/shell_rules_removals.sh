#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
#   - removals other than rm -r were not read as removals: "truncate -s0
#     *" emptied every file of the workspace, "mv * /tmp" (and "mv ./*
#     ../x", "mv -t /tmp *") moved it away, "rm -f *" removed every file
#     at its top, "find . -exec rm {} +" every file beneath it (it asked),
#     "git rm -rf ." and "git rm -r '*'" every tracked one, and "tar -cf
#     /tmp/all.tar --remove-files ." all of it (these three were stopped
#     only by the write policy, as they write or remove .git), under the
#     shipped
#     default (which denies rm -rf . and find . -delete): each is now the
#     removal of what its glob or operand names, rm -rf . to the rules;
#   - "rm -rf */*", "rm -f */*" and "truncate -s0 */*", which remove or
#     empty all below the workspace's top directories, only waited for a
#     human: each is now rm -rf . to the rules, as "rm -rf *" is;
#   - git clean of the workspace removes what git does not track, which
#     the rules cannot tell: with no rule naming it, "git clean -fdx" ran;
#     now it waits for a human (as find . -mtime +7 -delete does);
#     mv's destination through a link ("mv * out/" with out -> a
#     directory outside) waits for a human, as rm -rf out/ does;
#   - an unresolvable find's words were each tried as a command: "find .
#     -newer passwd -delete" was denied by the rule for passwd (a reference
#     file is no command); find's words are now read as find reads them,
#     only -exec's commands are commands (find / -name passwd -delete is
#     still refused, as rm -rf / is);
#   - what the rules cannot see through waits for a human, and what holds
#     rm -rf . as written is refused (functions, aliases, xargs, $(echo
#     rm), eval, command, env, busybox, sh -c).
# Controls: mv into the workspace, truncate of one file and find -newer
# with a test that narrows run (git rm --cached writes .git/index, which
# the write policy refuses: tests/unit/test_shrules.c has it).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
git -C "$ws" init -q && git -C "$ws" add -A &&
    git -C "$ws" -c user.name=t -c user.email=t@t commit -qm init ||
    fail "a repository"
echo precious >"$ws/notes.txt"
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
audit="$sess/audit.jsonl"

# ===== played for real: each would have wiped the workspace ================
for cmd in 'truncate -s0 *' 'mv * /tmp' 'git rm -rf -q .' \
    'find . -exec rm {} +' 'rm -f *' "git rm -rq '*'" \
    'tar -cf /tmp/all.tar --remove-files .'; do
	shell "$cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	check "... and the workspace is whole" \
	    test -s "$ws/notes.txt" -a -s "$ws/README.md" -a -d "$ws/src"
done
check "the refusal is audited with the rule and the command" \
    grep -qE '"decision":"deny","id":[0-9]+,"reason":"rule 5 \(rm -rf\|.*on `truncate -s0 \*`' "$audit"

# ===== everything below the workspace's top directories ===================
# A star, a '/' and a star (rm -rf, rm -f of its files, truncate -s0)
# only waited for a human, who could approve what rm -rf . is denied.
for cmd in 'rm -rf */*' 'rm -f */*' 'truncate -s0 */*' 'rm -r ./*/*/'; do
	shell "$cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	check "... and src and tests are whole" test -s "$ws/src/todo.sh" -a -s "$ws/tests/run.sh"
done

# ===== and their other spellings ===========================================
for cmd in 'truncate -s 0 ./*' 'truncate --size=0 src/../*' 'mv ./* ../x' \
    'mv -t /tmp -- *' 'mv . /tmp/x' 'git rm -f -r *' 'git rm -rf :/' \
    'find . -exec rm -rf {} \;' 'find . -type f -exec truncate -s0 {} +' \
    'find . -exec mv {} /tmp \;' 'rm -f ./*'; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done
shell_denied 'find / -name passwd -delete' "rule 5 (rm -rf|-fr"
# mv's destination through a link out of the workspace, there already or
# made by the same string
mkdir -p "$T/outside"
ln -s "$T/outside" "$ws/out"
id=500 last=
shell_asks_denied "mv to a place that may lead out of the workspace through a link" \
    'mv * out/' 'mv -t out ./*' 'ln -s /tmp t; mv * t'
check "... and nothing left the workspace" test -z "$(ls -A "$T/outside")"
check "... and no link was made" test ! -e "$ws/t"
rm "$ws/out"

# ===== what waits for a human =============================================
id=1000 last=
touch "$ws/ref"
shell_asks_denied "narrowed by a test the rules cannot tell" \
    'touch G1; find . -newer passwd -delete' 'touch G2; find . -newer sudo -delete'
shell_asks_denied "truncate to a size that is not a fixed word" \
    'touch G3; truncate -s "$n" *'
shell_asks_denied "mv to a place that is not a fixed word" 'touch G4; mv * "$d"'
shell_asks_denied "a function definition" 'touch G5; f(){ rm -rf "$@"; }; f .'
shell_asks_denied "alias runs code" "touch G6; alias r='rm -rf'; r ."
shell_asks_denied "xargs runs a command" 'touch G7; echo . | xargs rm -rf'
shell_asks_denied "a command or process substitution" 'touch G8; $(echo rm) -rf .'
for f in G1 G2 G3 G4 G5 G6 G7 G8; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
for cmd in "eval 'rm -rf .'" 'command rm -rf .' 'env rm -rf .' \
    'busybox rm -rf .' "sh -c 'rm -rf .'"; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done

# ===== controls ==============================================================
mkdir -p "$ws/sub"
echo log >"$ws/log.txt"
touch "$ws/a.o" "$ws/b.txt"
shell 'mv b.txt sub/ && truncate -s0 log.txt && find . -newer ref -name "*.o" -delete'
expect_ok_result "control: mv into the workspace, truncate of a file, find -newer -name run"
check "... and do what they say" \
    test -e "$ws/sub/b.txt" -a ! -s "$ws/log.txt" -a ! -e "$ws/a.o" -a -s "$ws/notes.txt"
mcp_stop

# ===== git clean with no rule naming it ====================================
sed -e '/prefix: \[git, clean\]/,+2d' "$T/m.yaml" >"$T/noclean.yaml"
check "the rule set has no git clean rule" sh -c "! grep -q 'git, clean' '$T/noclean.yaml'"
echo untracked >"$ws/new.c"
mcp_start "$T/noclean.yaml" "$ws"
audit="$(newest_session)/audit.jsonl"
id=2000 last=
shell_asks_denied "git clean of the workspace removes the files git does not track" \
    'git clean -fdxq' 'git clean -fd :/'
check "the question is audited with why" \
    grep -qE '"decision":"approval_required","id":2001,"reason":"unresolvable: git clean of the workspace removes the files git does not track, which the rules cannot tell: ask, on `git clean -fdxq`' "$audit"
check "... and what git does not track is still there" test -s "$ws/new.c"
shell_denied 'git clean -fdx ..' "rule 5 (rm -rf|-fr"
shell 'git clean -nd'
expect_ok_result "control: git clean -n runs"
check "... and removes nothing" test -s "$ws/new.c"
mcp_stop
finish
