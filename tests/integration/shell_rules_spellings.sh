#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker:
#   - programs that run command text given as arguments, or read their
#     program from standard input, ran under the shipped default: dc -e
#     ('!' runs a command), gnuplot -e, guile -c, emacs --eval, mvn
#     exec:exec -Dexec.executable=, cmake -P /dev/stdin and ctest -S
#     /dev/stdin (execute_process).  Each now waits for a human, and
#     dc's "!" command text meets the rules (sudo there is denied);
#   - chmod's mode read as chmod reads it: an octal mode with a setuid or
#     setgid digit (4777, 04777), a symbolic clause adding "s" (u=rwxs,
#     +xs, o-w,u+s, a word "-x,u+s" among the options, a mode after
#     "-R --") set the bit under the shipped default; now the
#     setuid/setgid rule denies them; --reference waits for a human.
#     (The lander refuses a run whose changes hold such a bit all the
#     same: the rule is the layer in front of it.)
#   - rm's arguments read as rm reads them: rm -rfv /home, rm -rf --
#     /home, rm -rf /home/, rm --rec -f /home, rm -rf build /etc, and the
#     workspace by its absolute path, as "$PWD", as ../ws or src/.. ran
#     under the shipped default; the recursive-removal rule denies them;
#   - GNU sed's e command and s///e flag (sed -n '1e sudo id' f, sed
#     's/.*/sudo id/e' f, also behind --expression and a second -e) ran
#     their command text; a script that runs commands is now unresolvable
#     and its command text meets the rules, and sed -f waits for a human.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
mcp_start "$T/m.yaml" "$ws"

shell 'echo fine'
expect_ok_result "control: an allowed command runs"

# ===== programs that run command text =====================================
id=100 last=
shell_asks_denied "dc -e runs code text" "dc -e '!touch DC' ; touch DC2"
shell_asks_denied "gnuplot -e runs code text" "gnuplot -e 'system(\"touch GNUPLOT\")'"
shell_asks_denied "guile -c runs code text" "guile -c '(system \"touch GUILE\")'"
shell_asks_denied "emacs --eval runs code text" \
    "emacs --batch --eval '(shell-command \"touch EMACS\")'"
shell_asks_denied "mvn -Dexec.executable=touch runs a command" \
    'mvn -q -o exec:exec -Dexec.executable=touch -Dexec.args=MVNEXEC'
shell_asks_denied "cmake -P reads a script from a descriptor" \
    "cmake -P /dev/stdin <<'EOF'
execute_process(COMMAND touch CMAKEP)
EOF"
shell_asks_denied "ctest -S reads a script from a descriptor" \
    "ctest -S /dev/stdin <<'EOF'
execute_process(COMMAND touch CTESTS)
EOF"
shell "dc -e '!sudo id'; touch DC3"
expect_error_class "dc -e '!sudo id' is refused" denied
expect_contains "... by the sudo rule, its command read as code" \
    "$(jr .result.structuredContent.message)" "rule 1 (sudo|doas"
for f in DC DC2 DC3 GNUPLOT GUILE EMACS MVNEXEC CMAKEP CTESTS; do
	check "... and nothing ran ($f)" test ! -e "$ws/$f"
done
shell 'cmake -P /dev/null && echo cmake-ran'
expect_ok_result "control: cmake -P with a script file still runs"

# ===== chmod's mode as chmod reads it ======================================
# The deny rule for setuid and setgid bits named a few words (u+s, 4755
# ...): these spellings set the bit under the shipped default.
n=0
for mode in 4777 04777 u=rwxs +xs a+rwxs g+s,u+s o-w,u+s -x,u+s '-R -- 6755' \
    +4000 u+x,=2755; do
	n=$((n + 1))
	shell "touch SUID$n && chmod $mode SUID$n"
	expect_error_class "chmod $mode: refused" denied
	expect_contains "... by the setuid/setgid rule" \
	    "$(jr .result.structuredContent.message)" "rule 2 (chmod u+s|g+s"
	check "... and nothing ran (SUID$n)" test ! -e "$ws/SUID$n"
done
shell_asks_denied "chmod --reference=suidfile copies a mode the rules cannot see" \
    'touch REF && chmod --reference=suidfile REF'
check "... and nothing ran (REF)" test ! -e "$ws/REF"
shell 'touch plain && chmod 755 plain && chmod -R go-w plain && stat -c %a plain'
expect_ok_result "control: chmod without setuid or setgid still runs"
expect_eq "... and sets the mode" "$(jr .result.structuredContent.stdout)" 755

# ===== rm's arguments as rm reads them =====================================
# The recursive-removal rules named words at fixed places: a cluster with
# another letter, "--", a trailing slash, an abbreviated long option, a
# second operand, and the workspace by its absolute path, as "$PWD" or
# climbed out of and back into, all ran under the shipped default.
# ("false &&" keeps the removal from running even where the rules let
# it; the mark shows whether the string ran.)
n=0
for cmd in 'rm -rfv /home' 'rm -vrf /home' 'rm -rf -- /home' 'rm -rf /home/' \
    'rm --rec -f /home' 'rm -r -f -- /' 'rm -rf build /etc' "rm -rf $ws" \
    'rm -rf "$PWD"' "rm -rf ../${ws##*/}" 'rm -rf src/..'; do
	n=$((n + 1))
	shell "touch RM$n; false && $cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the recursive removal rule" \
	    "$(jr .result.structuredContent.message)" "rule 5 (rm -rf|-fr"
	expect_contains "... naming the command" \
	    "$(jr .result.structuredContent.message)" "on \`${cmd//\"/}\`"
	check "... and nothing ran (RM$n)" test ! -e "$ws/RM$n"
done
shell 'mkdir -p build/x && rm -rfv build/ && test ! -e build && echo removed'
expect_ok_result "control: rm -rfv of a directory in the workspace still runs"
expect_contains "... and removes it" "$(jr .result.structuredContent.stdout)" removed

# ===== GNU sed's e command and s///e flag ==================================
# sed's e runs its text (or the pattern space) as a command, and s///e
# the replacement: under the shipped default these ran whatever they
# said, sudo too.  Now a script that runs commands is unresolvable, its
# command text read as code (sudo there is denied), and so is one read
# from a file (-f).
printf 'a line\n' >"$ws/f"
n=0
for cmd in "sed -n '1e sudo id' f" "sed 's/.*/sudo id/e' f" \
    "sed --expression='1e sudo id' f" "sed -i.bak -e 's/a/b/' -e '2e sudo id' f"; do
	n=$((n + 1))
	shell "touch SED$n; $cmd"
	expect_error_class "$cmd: refused" denied
	expect_contains "... by the sudo rule" \
	    "$(jr .result.structuredContent.message)" "rule 1 (sudo|doas"
	check "... and nothing ran (SED$n)" test ! -e "$ws/SED$n"
done
shell_asks_denied "a sed script that runs commands (e)" \
    "sed 's/.*/touch SEDE/e' f" "sed -n '1e touch SEDE' f"
echo '1e touch SEDF' >"$ws/script.sed"
shell_asks_denied "sed -f reads a script the rules cannot see" "sed -n -f script.sed f"
check "... and nothing ran (SEDE, SEDF)" test ! -e "$ws/SEDE" -a ! -e "$ws/SEDF"
shell "sed 's/a/e/' f && sed -i 's/line/LINE/g' f && cat f"
expect_ok_result "control: ordinary sed scripts still run"
expect_eq "... and edit the file" "$(jr .result.structuredContent.stdout)" "e line
a LINE"
mcp_stop
finish
