#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
# programs whose arguments the rules now read as the program reads them.
#   - install's mode (-m 4755, -m u+s, --mode=, -Dm4755, after the
#     operands) set the setuid or setgid bit under the shipped default, as
#     "chmod 4755" had before its mode was read: now the setuid/setgid
#     rule denies it; a mode that is not a fixed word and --strip-program
#     (a program install runs) wait for a human;
#   - find's -delete removes as rm -r does: "find / -delete" and "find .
#     -delete" ran under the shipped default, and are now the recursive
#     removal rule's; find's -exec command is a command: "find / -exec
#     rm -rf {} +" only waited for a human, who could approve what the
#     rules deny, and is now denied;
#   - GNU sed as gsed ran its e command's text ("gsed -n '1e sudo id' f"
#     ran sudo); busybox's and toybox's applet is now decided as a
#     command of its own ("busybox rm -rf /home/" and "busybox chmod 4755
#     f" only waited for a human);
#   - "rm -rf "$PWD/"" only waited for a human: the workspace by $PWD is
#     now "." as "$PWD" was;
#   - emacs -l FILE, --load, --script, -x and -f run Lisp from a file the
#     agent wrote, or standard input (-l /dev/stdin): they ran under the
#     shipped default, as sed -f had; now they wait for a human.
#   - rm -rf r/ with r a symlink the workspace holds (one the agent
#     planted) to a directory outside it ran under the shipped default,
#     the rules reading r/ as a directory beneath the workspace: the
#     broker now asks the workspace where the operand leads, from each
#     directory a cd in the string may have gone to (out of it waits for
#     a human; r -> . is the workspace, denied as rm -rf . is), and where
#     a cd goes (cd r went out of the workspace).
# Controls: find . -name '*.c', find . -name '*.o' -delete, install -m 644,
# sed -n 1p, python3's script file (an operand) and rm -rf of a link
# itself still run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
mcp_start "$T/m.yaml" "$ws"

shell 'echo fine'
expect_ok_result "control: an allowed command runs"

# denied CMD RULE: CMD (behind a mark and "false &&", so that nothing
# runs even where the rules let it) is refused by RULE, naming CMD.
n=0
denied() {
	n=$((n + 1))
	shell "touch MARK$n; false && $1"
	expect_error_class "$1: refused" denied
	expect_contains "... by $2" "$(jr .result.structuredContent.message)" "$2"
	check "... and nothing ran (MARK$n)" test ! -e "$ws/MARK$n"
}

# ===== install's mode as install reads it ===================================
for cmd in 'install -m 4755 a b' 'install -m u+s a b' 'install --mode=4755 a b' \
    'install -Dm4755 a b' 'install a b -m g=rxs' 'install --mo 2755 a b'; do
	denied "$cmd" "rule 2 (chmod u+s|g+s"
done
id=100 last=
shell_asks_denied "install with a mode that is not a fixed word" \
    'm=4755; touch IM; install -m "$m" IM IM2'
shell_asks_denied "install --strip-program=touch runs a command" \
    'touch IS; install -s --strip-program=touch IS IS2'
check "... and nothing ran (IM, IS)" test ! -e "$ws/IM" -a ! -e "$ws/IS"
shell 'touch a && install -m 644 a b && install -Dm755 a d/c && stat -c %a b d/c'
expect_ok_result "control: install without setuid or setgid still runs"
expect_eq "... and sets the modes" "$(jr .result.structuredContent.stdout)" "644
755"

# ===== find -delete and -exec ===============================================
for cmd in 'find / -delete' 'find -L .. -name x -delete' 'find . -delete' \
    'find -delete' 'find "$PWD/" -delete' 'find / -exec rm -rf {} +' \
    'find /home -execdir rm -r -- {} \;' 'find . -exec rm -rf {} +' \
    'busybox find / -delete'; do
	denied "$cmd" "rule 5 (rm -rf|-fr"
done
denied "find . -exec sudo id \\;" "rule 1 (sudo|doas"
denied "find . -exec chmod 4755 {} +" "rule 2 (chmod u+s|g+s"
mkdir -p "$ws/src/o"
touch "$ws/src/a.c" "$ws/src/o/x.o" "$ws/src/o/y.o"
shell "find . -name '*.c' && find . -name '*.o' -delete && ls src/o | wc -l"
expect_ok_result "control: find with a test, and -delete after one, still run"
expect_eq "... and find what they find, and delete it" \
    "$(jr .result.structuredContent.stdout)" "./src/a.c
0"

# ===== sed by other names, busybox's and toybox's applet ====================
printf 'a line\n' >"$ws/f"
denied "gsed -n '1e sudo id' f" "rule 1 (sudo|doas"
denied "gsed 's/.*/sudo id/e' f" "rule 1 (sudo|doas"
denied "busybox rm -rf /home/" "rule 5 (rm -rf|-fr"
denied "toybox chmod 4755 f" "rule 2 (chmod u+s|g+s"
shell_asks_denied "a sed script that runs commands (e)" "gsed 's/.*/touch GSED/e' f"
check "... and nothing ran (GSED)" test ! -e "$ws/GSED"
shell 'sed -n 1p f'
expect_ok_result "control: sed -n 1p still runs"
expect_eq "... and prints the line" "$(jr .result.structuredContent.stdout)" "a line"

# ===== the workspace by $PWD ================================================
for cmd in 'rm -rf "$PWD/"' 'rm -rf "${PWD}/."' 'rm -rf $PWD/'; do
	denied "$cmd" "rule 5 (rm -rf|-fr"
done

# ===== emacs loading Lisp ===================================================
printf '(shell-command "touch EMACSL")\n' >"$ws/x.el"
shell_asks_denied "emacs -l runs Lisp the rules cannot see" \
    'emacs --batch -l x.el' 'emacs -batch -l /dev/stdin <x.el'
shell_asks_denied "emacs --load=x.el runs Lisp the rules cannot see" \
    'emacs --batch --load=x.el'
shell_asks_denied "emacs --script runs Lisp the rules cannot see" \
    'emacs --script x.el'
# emacs loads site-start.el from its load path, --batch or not
printf '(shell-command "touch EMACSL")\n' >"$ws/site-start.el"
shell_asks_denied "setting EMACSLOADPATH changes what runs" \
    'EMACSLOADPATH=.: emacs --batch f'
check "... and nothing ran (EMACSL)" test ! -e "$ws/EMACSL"
# An interpreter's script file is its operand, as python3's: decided by
# the interpreter's own prefix (the shipped default allows both).
printf 'print("py")\n' >"$ws/x.py"
shell 'python3 x.py'
expect_ok_result "control: python3 with a script file still runs"
expect_eq "... and runs it" "$(jr .result.structuredContent.stdout)" py
# ===== rm -r through a symlink the workspace holds ============================
# A link the agent planted (r -> a directory outside the workspace; self
# -> the workspace itself): rm -rf r/ removes what r leads to, and the
# rules, reading words, saw r/ beneath the workspace: under the shipped
# default it ran.  The broker now asks the workspace where the operand
# leads: out of it waits for a human, the workspace itself is ".".
mkdir -p "$T/outside/keep"
touch "$T/outside/keep/precious"
ln -s ../outside "$ws/r"
ln -s . "$ws/self"
mkdir -p "$ws/src/up"
ln -s ../../.. "$ws/src/up/top"
shell_asks_denied "rm -rf through a symlink that leads out of the workspace (r/)" \
    'touch RL1; false && rm -rf r/'
shell_asks_denied "rm -rf through a symlink that leads out of the workspace" \
    'touch RL2; false && rm -rf r/keep' 'touch RL3; false && find r/ -delete' \
    "touch RL4; false && rm -rf $ws/src/up/top/"
# ... also from where a cd went, and cd itself through such a link
# (cd r went out of the workspace, where cd /tmp waits for a human).
shell_asks_denied "rm -rf through a symlink that leads out of the workspace (up/top/)" \
    'touch RL5; cd src && false && rm -rf up/top/'
shell_asks_denied "cd through a symlink that leads out of the workspace (r)" \
    'touch RL6; cd r && false && rm -rf keep'
denied 'rm -rf self/' "rule 5 (rm -rf|-fr"
denied 'rm -rfv ./self/.' "rule 5 (rm -rf|-fr"
for f in RL1 RL2 RL3 RL4 RL5 RL6; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
shell 'mkdir -p build/x && rm -rf build/ && rm -rf r self && ls -d r self build 2>&1 | wc -l'
expect_ok_result "control: rm -rf of a directory, and of the links themselves, still runs"
check "... the links are gone from the workspace" test ! -L "$ws/r" -a ! -L "$ws/self"
check "... and what r led to is untouched" test -e "$T/outside/keep/precious"
mcp_stop
finish
