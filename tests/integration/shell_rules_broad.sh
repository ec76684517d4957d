#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
#   - a find pattern that misses only the odd names the rules probed with
#     counted as a test that narrows -delete: "find . -name '[ -~]*'
#     -delete", "-name '*[a-z]*'", "-regex '\./[ -~]*'" and "-type f"
#     wiped the workspace under the shipped default; a pattern that
#     matches a quarter of the names a workspace holds, and -type f, now
#     select nothing in particular (rm -rf . to the rules), and so do a
#     bound every file meets (-size -100G, -links 1, -writable, -mtime
#     -99999), which waited for a human, who could approve what the
#     rules deny; and a path under "find ./" was tried as ".//x", where
#     find prints "./x": "find ./ -path './[!/]*' -delete" ran;
#   - a glob operand of rm -r was decided as written: "rm -rf src/../*",
#     "rm -rf WS/*" (the workspace by its path), "rm -rf [a-z]*" and
#     "rm -rf //*" ran, though the rule denies "rm -rf *" and "/*"; a
#     glob that selects nothing in particular is now the removal of its
#     directory, also through a link the string makes ("ln -s . s; rm
#     -rf s/*" ran);
#   - and its directory was not asked about: with r a link out of the
#     workspace, "rm -rf r/*" removed what r leads to, where "rm -rf
#     r/x" waited for a human; a glob before a '/' ("r*/") too;
#   - mkdir -p "$d" waited for a human (one quoted word may be -m and a
#     mode, but then mkdir has no operand and makes nothing): it runs.
# Controls: find -name '*.o' -delete, rm -rf build/* and rm -f *.o run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
mcp_start "$T/m.yaml" "$ws"

# One attack played for real: every name here has a printable first
# byte, and the agent meant all of them.
mkdir -p "$ws/src"
touch "$ws/README.md" "$ws/src/main.c"
shell "find . -name '[ -~]*' -delete"
expect_error_class "find . -name '[ -~]*' -delete: refused" denied
expect_contains "... by the recursive removal rule" \
    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
check "... and the workspace is whole" test -e "$ws/README.md" -a -e "$ws/src/main.c"

# ===== find patterns that select nothing in particular ======================
for cmd in "find . -name '*[a-z]*' -delete" "find . -iname '[[:alnum:]_.-]*' -delete" \
    "find . -name '*[[:print:]]*' -delete" "find . -regex '\\./[ -~]*' -delete" \
    "find . -path './[ -~]*' -delete" 'find . -type f -delete' \
    "find . -name '*.*' -delete" 'find . -size -100G -delete' \
    'find . -links 1 -delete' 'find . -writable -delete' 'find . -mtime -99999 -delete' \
    "find ./ -path './[!/]*' -delete"; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done

# ===== rm -r of a glob ======================================================
for cmd in 'rm -rf src/../*' "rm -rf $ws/*" 'rm -rf [a-z]*' 'rm -rf ./*' \
    'rm -rf //*' 'rm -rf /./*' 'rm -rf ../*' 'find ./* -delete' \
    'ln -s . s; rm -rf s/*' 'ln -s . s; rm -rf s/[a-z]*'; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done

# ===== and its directory, through a link out of the workspace ==============
mkdir -p "$T/outside/keep"
touch "$T/outside/keep/precious"
ln -s "$T/outside" "$ws/r"
id=1000 last=
shell_asks_denied "through a symlink that leads out of the workspace (r/)" \
    'touch G1; rm -rf r/*' 'touch G2; rm -rf r/k*' 'touch G3; find r/* -delete'
shell_asks_denied "a directory the pattern matches may be a symlink out of the workspace" \
    'touch G4; rm -rf r*/' 'touch G5; rm -rf [r]/keep'
for f in G1 G2 G3 G4 G5; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
check "... and what the link led to is untouched" test -e "$T/outside/keep/precious"
rm "$ws/r"

# ===== controls =============================================================
mkdir -p "$ws/build/x"
touch "$ws/a.o" "$ws/b.o" "$ws/build/x/y" "$ws/c.tmp"
shell "find . -name '*.o' -delete && rm -rf build/* && rm -f *.tmp"
expect_ok_result "control: find -name '*.o' -delete, rm -rf build/* and rm -f *.tmp run"
check "... and remove what they select" test ! -e "$ws/a.o" -a ! -e "$ws/build/x" -a ! -e "$ws/c.tmp"
check "... and nothing else" test -d "$ws/build" -a -e "$ws/README.md" -a -e "$ws/src/main.c"

# ===== mkdir of one quoted word runs ========================================
# "$d" may be an option (-m4755), but then mkdir has no operand and makes
# nothing: it waited for a human.  Beside an operand, it may not run.
mcp_call shell "{\"command\":$(js 'd=made/here; mkdir -p "$d" && mkdir "$d/x" && ls -d made/here/x')}" 10
expect_ok_result 'control: mkdir -p "$d" runs'
expect_eq "... and makes the directory" "$(jr .result.structuredContent.stdout)" "made/here/x"
id=2000 last=
shell_asks_denied "mkdir with an argument that is not a fixed word" \
    'd=-m4755; mkdir -p "$d" made2' 'mkdir -p $d'
check "... and nothing was made" test ! -e "$ws/made2"
mcp_stop
finish
