#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules on a host whose /bin/sh is bash: the body of a
# here-document with an unquoted delimiter is expanded like a word in
# "...", so bash evaluates there what it evaluates in an argument: a
# prompt expansion ${x@P} runs the substitutions in x's value, and
# $[x], ${a[x]} and ${!x} evaluate the subscript in x's value.  The
# rules made those unresolvable in a word, but read only substitutions
# in a body: "x='$(git push)'; cat <<EOF / ${x@P} / EOF" was allowed
# (no rule matched: cat, and an assignment) and ran git push.  Played
# for real with bash as the sandbox's /bin/sh (a mount namespace of its
# own, as shell_rules_bash.sh): each string now waits for a human and
# nothing of it runs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
if ! command -v unshare >/dev/null || [ "$(id -u)" -ne 0 ]; then
	echo "# SKIP needs root and unshare(1) to give /bin/sh another shell"
	exit 77
fi
ws=$(make_workspace)
# A value the agent wrote earlier: a subscript that creates a file.
printf 'a[$(>%s/pwned-arith)]\n' "$ws" >"$ws/arith.txt"

shell_rules_manifest "$T/m.yaml"

mcp_start_bash_sh "$T/m.yaml" "$ws"
shell 'x=ok; cat <<EOF
body ${x} $x
EOF'
expect_ok_result "control: a here-document with plain expansions runs"
expect_eq "control: its body is expanded" "$(jr .result.structuredContent.stdout)" "body ok ok"

AIRLOCK=$REAL_AIRLOCK
shell_asks_denied unresolvable "x='\$(>pwned-prompt)'; cat <<EOF
\${x@P}
EOF" 'read x <arith.txt; cat <<EOF
$[x]
EOF' 'read x <arith.txt; cat <<EOF
${a[x]}
EOF' 'read x <arith.txt; cat <<EOF
${!x}
EOF'
check "nothing of the prompt expansion ran" test ! -e "$ws/pwned-prompt"
check "nothing of the file ran" test ! -e "$ws/pwned-arith"
mcp_stop
finish
