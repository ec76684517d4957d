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
mcp_stop
finish
