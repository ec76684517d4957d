#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
#   - find's expression is read as find reads it: "find . ! -name x
#     -delete", "find . -name x -o -delete", "-prune -o -delete" and
#     "-name '*'" wiped the workspace under the shipped default (any word
#     before -delete counted as a test that narrows it); they are now the
#     recursive removal rule's, and a test the rules cannot tell (-mtime)
#     waits for a human.  sh -c's $1 is the word find gives it: "find .
#     -exec sh -c 'rm -rf "$1"' _ {} \;" only waited for a human, who
#     could approve what the rules deny;
#   - mkdir, mknod and mkfifo -m set a setuid or setgid mode under the
#     shipped default, as install -m had: now the setuid/setgid rule's;
#   - a link made by the same string was not in the workspace when the
#     broker asked it: "ln -s / x && rm -rf x/" ran; a removal through a
#     link the string makes is now the removal of where it leads, or
#     waits for a human where that is out of the workspace or not known
#     (mv, cp -s);
#   - find -H r -delete removes what r leads to, and find -L follows each
#     link beneath its starting points: they ran through a link the
#     workspace held, out of it.
# Controls: find with a name that narrows (negated beside it), mkdir -m
# 755, and rm -rf of a link the string made (the link itself) still run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
mcp_start "$T/m.yaml" "$ws"

# ===== find's expression ====================================================
for cmd in 'find . ! -name x -delete' 'find . -not -name keep -delete' \
    "find . -name '*' -delete" 'find . -name x -o -delete' \
    'find . -path ./keep -prune -o -delete' 'find . -name x , -delete' \
    "find . -path './*' -delete" "find . -regex '.+' -delete" \
    'find . -name x -o -exec rm -rf {} +' \
    "find . -exec sh -c 'rm -rf \"\$1\"' _ {} \\;" \
    "find . -exec sh -c 'rm -rf \"\$@\"' sh {} +"; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done
id=1000 last=
shell_asks_denied "find -delete of the workspace's files, narrowed by a test the rules cannot tell" \
    'touch FM; find . -mtime +9 -delete'
check "... and nothing ran (FM)" test ! -e "$ws/FM"
touch "$ws/a.tmp" "$ws/keep.tmp" "$ws/b.c"
shell "find . -name '*.tmp' ! -name keep.tmp -delete && ls *.tmp *.c"
expect_ok_result "control: find with a name that narrows, beside a negated one, still runs"
expect_eq "... and deletes what it selects" "$(jr .result.structuredContent.stdout)" "b.c
keep.tmp"

# ===== mkdir, mknod, mkfifo -m ==============================================
for cmd in 'mkdir -m 4755 d' 'mkdir -m g+s d' 'mkdir -pm2755 d' \
    'mknod -m 4755 n p' 'mkfifo -m 6755 p' 'mkdir --mode=u+s d'; do
	shell_denied "$cmd" "rule 2 (chmod u+s|g+s"
done
# cp --preserve=mode copies a mode the rules cannot see (a file's, on
# disk): the rules let it run, and the write policy keeps the bit from
# landing.
cp /bin/true "$ws/suid"
chmod 4755 "$ws/suid"
shell 'cp --preserve=mode suid x && cp -a suid y'
expect_error_class "cp --preserve=mode of a setuid file: its changes refused" change_refused
expect_contains "... for the bit" "$(jr .result.structuredContent.message)" "setuid, setgid and sticky bits"
check "... and nothing landed" test ! -e "$ws/x" -a ! -e "$ws/y"
rm -f "$ws/suid"
shell 'mkdir -m 750 d && stat -c %a d'
expect_ok_result "control: mkdir -m without setuid or setgid still runs"
expect_eq "... and sets the mode" "$(jr .result.structuredContent.stdout)" "750"

# ===== removal through a link the same string makes =========================
mkdir -p "$T/outside/keep"
touch "$T/outside/keep/precious"
for cmd in 'ln -s / x && rm -rf x/' 'ln -s ../../../../../../.. up; rm -rf up/' \
    'ln -s .. y; rm -rf y/' 'ln -sf /etc e && rm -rf e/' 'ln -s x y; ln -s / x; rm -rf y/' \
    'ln -s / x; find x/ -name a -delete' 'ln -s / x; cd x && rm -rf etc/' \
    'ln -s .. y; rm -rf y/*'; do
	shell_denied "$cmd" "rule 5 (rm -rf|-fr"
done
shell_asks_denied "through a link the string makes, that leads out of the workspace" \
    "touch LO1; ln -s $T/outside o && rm -rf o/keep" 'touch LO4; ln -s .. y; rm -rf y/*.o'
shell_asks_denied "through a link the string makes, to where the rules cannot tell" \
    "touch LO2; ln -s $T/outside l && mv l m && rm -rf m/" \
    "touch LO3; cp -s $T/outside/keep/precious p && rm -rf p/"
for f in LO1 LO2 LO3 LO4; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
check "... and what the links led to is untouched" test -e "$T/outside/keep/precious"
# find -H removes what its starting point leads to, and -L goes through
# every link beneath it: a link the workspace holds (r -> ../outside)
ln -s ../outside "$ws/r"
shell_asks_denied "through a symlink that leads out of the workspace (r/)" \
    'touch LO5; find -H r -delete'
shell_asks_denied "find -L follows the links beneath its starting points" \
    'touch LO6; find -L . -name precious -delete'
for f in LO5 LO6; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
rm "$ws/r"
shell "ln -s $T/outside o && rm -rf o && ls -d o 2>&1 | wc -l"
expect_ok_result "control: rm -rf of a link the string made (the link itself) still runs"
check "... what it led to is untouched" test -e "$T/outside/keep/precious"
mcp_stop
finish
