# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The redaction tests' tools and checks (tests/integration/secrets_*.sh),
# sourced after tests/lib.sh and mcp_lib.sh.  Such a test stores
# secrets, declares tools that print them in some form through the
# agent's MCP interface, and checks what comes back: redacted, and no
# piece of the secret in it (its own "leak VALUE < TEXT" decodes the
# forms it attacks with and prints the first piece of VALUE it finds,
# or "").

# secret_set NAME VALUE: stores VALUE (as it is) as the secret NAME.
secret_set() { printf '%s' "$2" | "$AIRLOCK" secret set "$1"; }

# script_tool NAME SECRETS [PRELUDE] < SCRIPT: prints a manifest's tool
# entry (for the list under "tools:") named NAME, with no input, that
# runs PRELUDE (shell functions the tools share) and then SCRIPT with
# bash -c, its stdout returned to the agent, granted SECRETS (a YAML
# flow list: "[ { name: API_TOKEN, env: API_TOKEN } ]", or "[]").
script_tool() { interpreted_tool bash "$@"; }
# python_tool NAME SECRETS < SCRIPT: the same, SCRIPT run by python3 -c.
python_tool() { interpreted_tool python3 "$@"; }
# interpreted_tool INTERPRETER NAME SECRETS [PRELUDE] < SCRIPT
interpreted_tool() {
	cat <<EOF
  - name: $2
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command:
      - $1
      - -c
      - |
EOF
	{
		[ -z "${4-}" ] || printf '%s\n' "$4"
		cat
	} | sed 's/^/        /'
	printf '    secrets: %s\n' "$3"
}

# tool_ran NAME WHAT: calls the tool NAME with no arguments, checks that
# it ran (the check named WHAT) and puts its stdout in $out.
tool_ran() {
	mcp_call "$1" '{}'
	expect_ok_result "$2"
	out=$(jr .result.structuredContent.stdout)
}

# near_miss_left WHAT LINES: calls the tool "nearmiss" (it prints the
# test's forms of values a byte off its secrets), checks that nothing
# in what came back was redacted (the check named WHAT) and that it
# came back whole, LINES lines or more.
near_miss_left() {
	local n
	tool_ran nearmiss "the near-miss tool ran"
	expect_not_contains "$1" "$out" 'REDACTED'
	n=$(printf '%s' "$out" | wc -l)
	check "... and printed whole ($n lines)" test "$n" -ge "$2"
}

# artifact_clean TOOL VALUE WHAT: the artifact of TOOL's run in the
# session $sess (the output the supervisor kept) holds no piece of
# VALUE, WHAT in the check's name ("the token").
artifact_clean() {
	local f
	f=$(echo "$sess"/artifacts/*-"$1".log)
	expect_eq "$(basename "$f") holds no piece of $3" \
	    "$(leak "$2" <"$f")" ""
}
