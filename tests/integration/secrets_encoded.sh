#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it by accident in a form its own tools
# give it, and the result goes to the agent.  Each form here came back
# in the clear, or in pieces the agent joins back up:
#  - coloured: grep --color=always puts the ANSI escape sequences of its
#    highlight between the secret's characters when its pattern matched
#    a part of it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
ws=$(make_workspace)

M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: colour
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["sh", "-c", "printf 'token: %s\\n' \"$API_TOKEN\" | grep --color=always Lr2; printf 'token: %s\\n' \"$API_TOKEN\" | grep --color=always -E 'Kt4|Pn'"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML

# plain TEXT: TEXT without its ANSI escape sequences, as the agent reads it.
plain() { printf '%s' "$1" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g'; }

mcp_start "$M" "$ws"
sess=$(newest_session)

mcp_call colour '{}'
expect_ok_result "the coloured tool ran"
out=$(jr .result.structuredContent.stdout)
n=$(printf '%s' "$out" | grep -c 'token: \[REDACTED:API_TOKEN\]')
check "both coloured lines were redacted ($n)" test "$n" -eq 2
expect_not_contains "no escape sequence is left inside the secret" "$(plain "$out")" "Lr2"
expect_not_contains "... nor the secret, its colours taken out" "$(plain "$(jr '.result.content[].text')")" "$secret"

mcp_stop
art=$(find "$sess/artifacts" -name '*-colour.log' -type f)
check "the run's output was kept as an artifact" test -s "$art"
expect_not_contains "... which holds no coloured secret" "$(plain "$(cat "$art")")" "$secret"
expect_not_contains "the audit log holds no form of it" "$(plain "$(cat "$sess/audit.jsonl")")" "$secret"
finish
