#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules on a host whose /bin/sh is bash: with extglob on (by
# "shopt -s extglob" on an earlier line of the same string, as bash runs
# a -c string a line at a time), "@(...)", "!(...)", "*(...)", "+(...)"
# and "?(...)" are patterns that bash reads to the matching ")" as part of
# one word, with no comments in them.  The reader took "echo @(x #) ; dd
# ...", for "echo @", a subshell and a comment that hid "; dd ...": the
# shipped rules allowed the string and bash ran dd, which they ask about.
# Played for real with bash as the sandbox's /bin/sh (a mount namespace
# of its own, as shell_rules_bash.sh): each string now waits for a human,
# and dd does not run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
if ! command -v unshare >/dev/null || [ "$(id -u)" -ne 0 ]; then
	echo "# SKIP needs root and unshare(1) to give /bin/sh another shell"
	exit 77
fi
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"

mcp_start_bash_sh "$T/m.yaml" "$ws"
shell '! (false) && echo @ "(x)"'
expect_ok_result "control: \"!\" and a subshell apart, and a quoted ( run"

AIRLOCK=$REAL_AIRLOCK
dd_='dd if=/dev/zero count=1 of'
shell_asks_denied extglob "shopt -s extglob
echo @(x #) ; $dd_=pwned-at
)" "shopt -s extglob
echo \$@(x #) ; $dd_=pwned-param
)" "shopt -s extglob
echo +\\
(x #) ; $dd_=pwned-bnl
)"
for f in at param bnl; do
	check "dd did not run ($f)" test ! -e "$ws/pwned-$f"
done

# The operand of =~ in [[ ... ]] is read the same way: bash takes "|"
# and "(...)" in it as text, and blanks, operators, "#" and newlines
# inside the parentheses.  The reader took "[[ x =~ (a #) ]]; sh -s ..."
# for an unresolvable [[ and a comment: a human was asked about a
# string whose "sh -s" the shipped rules deny, and bash ran it when
# approved (as it runs the echo here).  Now the command is seen, and
# denied at once.
npending() { "$AIRLOCK" pending 2>/dev/null | awk '$3 == "shell"' | wc -l; }
call_async 150 "$(js '[[ x =~ (a #) ]]; echo ran-after-regex')"
pid=$(pending_shell "${last:-}")
check "control: [[ ... ]] waits for a human" test -n "$pid"
"$AIRLOCK" approve "$pid" --yes >/dev/null 2>&1
mcp_wait_id 150
expect_contains "control: approved, bash runs what follows (a #)" \
    "$(jr .result.structuredContent.stdout)" ran-after-regex
n0=$(npending)
k=0
for cmd in "[[ x =~ (a #) ]]; sh -s <<<'touch pwned-regex'" \
    "[[ x =~ y && x =~ (a |
#) ]] || sh -s <<<'touch pwned-regex'"; do
	k=$((k + 1))
	mcp_call shell "{\"command\":$(js "$cmd")}" 10
	expect_error_class "[[ =~ (... #) ]] then sh -s ($k): denied at once" \
	    denied
	expect_contains "... by the shell-from-stdin rule" \
	    "$(jr .result.structuredContent.message)" "(sh|bash|dash"
done
expect_eq "... with no approval opened" "$(npending)" "$n0"
check "sh -s did not run" test ! -e "$ws/pwned-regex"
mcp_stop
finish
