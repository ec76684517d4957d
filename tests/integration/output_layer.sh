#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The output layer over MCP (issue 13): a command's result within the cap
# with its failure lines and one marker; the artifact through
# resources/list, resources/read and read_output (ranges, grep); ranged
# read_file; only this session's artifacts; the artifact quota.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

M="$T/output.yaml"
cat >"$M" <<'YAML'
types:
  output_info:
    type: object
    fields: { uri: string, bytes: integer, lines: integer, truncated: boolean, kept: boolean, inlineChars: integer }
    required: [bytes, lines, truncated]
tools:
  - name: read_file
    input: { path: workspace_relative_path, startLine: integer?, endLine: integer? }
    output: { content: string, sha256: sha256, totalLines: integer, startLine: integer, endLine: integer, truncated: boolean }
    sideEffect: none
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, artifactUri: string, output: string, outputInfo: output_info }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: read_output
    action: read_output
    input: { uri: string, startLine: integer?, endLine: integer?, pattern: string?, context: integer? }
    output: { text: string, totalLines: integer, matches: integer, truncated: boolean }
    sideEffect: none
    timeoutMs: 2000
checks:
  big: ["awk", "BEGIN { for (i = 1; i <= 50000; i++) if (i == 10 || i == 25000) print \"error: broken at line \" i; else print \"unit \" i \" ok\"; exit 2 }"]
  small: ["sh", "-c", "echo all good"]
output:
  inlineChars: 10000
YAML

mcp_start "$M" "$ws"

# --- initialize advertises resources ---------------------------------------
mcp_stop
mcp_start_raw "$M" "$ws"
mcp_rpc initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"itest","version":"1"}}'
expect_eq "initialize advertises resources" "$(jr -c .result.capabilities.resources)" '{}'
mcp_send '{"jsonrpc":"2.0","method":"notifications/initialized"}'

# --- a big failing check ----------------------------------------------------
mcp_call run_check '{"checkId":"big"}'
expect_ok_result "run_check of 50,000 lines answers"
out=$(jr .result.structuredContent.output)
expect_eq "the exit status is the check's" "$(jr .result.structuredContent.exitCode)" 2
check "the inline output is within inlineChars" [ "$(jr '.result.structuredContent.output | length')" -le 10000 ]
check "the second text block is within inlineChars too" [ "$(jr '.result.content[1].text | length')" -le 10000 ]
expect_contains "the error at line 10 is kept" "$out" "error: broken at line 10"
expect_contains "the error at line 25,000 is kept (from the middle)" "$out" "error: broken at line 25000"
expect_contains "its context is kept and labelled" "$out" "[airlock: lines 24998-25002 of 50000, around a failure line]"
expect_contains "the tail is kept" "$out" "unit 50000 ok"
expect_eq "one marker line says what was cut" "$(printf '%s\n' "$out" | grep -c 'lines (.* bytes) not shown')" 1
uri=$(jr .result.structuredContent.artifactUri)
expect_contains "the marker names the artifact" "$out" "full text: $uri"
expect_contains "the marker names the tool to read it" "$out" "read_output {uri, startLine, endLine}"
expect_eq "outputInfo says uri, bytes, lines, truncated" \
    "$(jr -c '.result.structuredContent.outputInfo | [.uri == "'"$uri"'", .bytes > 600000, .lines, .truncated, .kept]')" \
    '[true,true,50000,true,true]'

mcp_call run_check '{"checkId":"small"}'
expect_eq "a short output is whole, not truncated" \
    "$(jr -c '[.result.structuredContent.output, .result.structuredContent.outputInfo.truncated]')" '["all good\n",false]'

# --- resources ----------------------------------------------------------------
mcp_rpc resources/list '{}'
expect_eq "resources/list lists the artifacts" "$(jr -c '[.result.resources[].uri] | index("'"$uri"'") != null')" true
expect_eq "resources/list gives size and mimeType" "$(jr -c '.result.resources[0] | [.mimeType, .size > 0]')" '["text/plain",true]'
mcp_rpc resources/templates/list '{}'
expect_contains "resources/templates/list gives the range template" "$(jr '.result.resourceTemplates[0].uriTemplate')" "/artifacts/{name}{?lines,grep,context}"
mcp_rpc resources/read "{\"uri\":\"$uri?lines=24999-25001\"}"
expect_eq "resources/read of a line range" "$(jr '.result.contents[0].text')" \
    "$(printf 'unit 24999 ok\nerror: broken at line 25000\nunit 25001 ok')"
mcp_rpc resources/read "{\"uri\":\"$uri\"}"
check "resources/read of the whole is capped" [ "$(jr '.result.contents[0].text | length')" -le 10000 ]
expect_contains "resources/read of the whole has the marker" "$(jr '.result.contents[0].text')" "not shown"
mcp_rpc resources/read "{\"uri\":\"$uri?grep=ERROR&context=0\"}"
expect_eq "resources/read with grep" "$(jr '.result.contents[0].text')" \
    "$(printf '10:error: broken at line 10\n--\n25000:error: broken at line 25000')"
other=$(printf '%s' "$uri" | sed 's|airlock://[^/]*/|airlock://another-session/|')
mcp_rpc resources/read "{\"uri\":\"$other\"}"
expect_eq "resources/read refuses another session's URI" "$(jr .error.code)" -32602
expect_contains "and says why" "$(jr .error.message)" "another session"
mcp_rpc resources/read "{\"uri\":\"${uri%/*}/..%2F..%2Ftrace.txt\"}"
expect_eq "resources/read refuses an unsafe name" "$(jr .error.code)" -32602
mcp_rpc resources/read "{\"uri\":\"${uri%/*}/../trace.txt\"}"
expect_eq "resources/read refuses .." "$(jr .error.code)" -32602

# --- read_output --------------------------------------------------------------
mcp_call read_output "{\"uri\":\"$uri\",\"startLine\":9,\"endLine\":11}"
expect_eq "read_output returns exactly a line range" "$(jr .result.structuredContent.text)" \
    "$(printf 'unit 9 ok\nerror: broken at line 10\nunit 11 ok')"
expect_eq "read_output gives the total lines" "$(jr .result.structuredContent.totalLines)" 50000
mcp_call read_output "{\"uri\":\"$uri\",\"pattern\":\"broken\",\"context\":1}"
expect_eq "read_output greps with context" "$(jr .result.structuredContent.text)" \
    "$(printf '9-unit 9 ok\n10:error: broken at line 10\n11-unit 11 ok\n--\n24999-unit 24999 ok\n25000:error: broken at line 25000\n25001-unit 25001 ok')"
expect_eq "read_output counts the matches" "$(jr .result.structuredContent.matches)" 2
mcp_call read_output "{\"uri\":\"$uri\",\"pattern\":\"ok\"}"
check "a grep matching everything is capped" [ "$(jr '.result.structuredContent.text | length')" -le 10000 ]
expect_contains "and says how many were left out" "$(jr .result.structuredContent.text)" "more matching lines not shown"
mcp_call read_output "{\"uri\":\"$other\"}"
expect_error_class "read_output refuses another session's artifact" path_refused
mcp_call read_output "{\"uri\":\"${uri%/*}/../trace.txt\"}"
expect_error_class "read_output refuses .." path_refused
mcp_call read_output "{\"uri\":\"${uri%/*}/9999-nothing.log\"}"
expect_error_class "read_output refuses an unknown artifact" not_found
mcp_call read_output "{\"uri\":\"$uri\",\"startLine\":60000}"
expect_error_class "read_output refuses a range past the end" invalid_arguments

# --- ranged read_file -----------------------------------------------------------
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "line %05d of a big file.\n", i }' >"$ws/big.txt"
sha=$(sha256sum <"$ws/big.txt" | cut -d' ' -f1)
check "the file is 600 KB" [ "$(stat -c %s "$ws/big.txt")" -ge 500000 ]
mcp_call read_file '{"path":"big.txt"}'
expect_ok_result "read_file of a 600 KB file answers (not too_large)"
expect_eq "it gives the whole file's sha256" "$(jr .result.structuredContent.sha256)" "$sha"
expect_eq "and its total lines" "$(jr .result.structuredContent.totalLines)" 20000
check "its content is within the cap" [ "$(jr '.result.structuredContent.content | length')" -le 10000 ]
expect_contains "its content is the head" "$(jr .result.structuredContent.content | head -n 1)" "line 00001 of a big file."
expect_contains "with the marker" "$(jr .result.structuredContent.content)" "read more with read_file {path, startLine, endLine}"
expect_eq "truncated is true" "$(jr .result.structuredContent.truncated)" true
mcp_call read_file '{"path":"big.txt","startLine":12000,"endLine":12004}'
expect_eq "a ranged read returns exactly those lines" "$(jr .result.structuredContent.content)" \
    "$(sed -n 12000,12004p "$ws/big.txt")"
expect_eq "with the range" "$(jr -c '[.result.structuredContent.startLine, .result.structuredContent.endLine, .result.structuredContent.truncated]')" '[12000,12004,false]'
expect_eq "and still the whole file's sha256" "$(jr .result.structuredContent.sha256)" "$sha"
patch=$(printf -- '--- a/big.txt\n+++ b/big.txt\n@@ -12000,1 +12000,1 @@\n-line 12000 of a big file.\n+line 12000 was patched.\n' | jq -Rs .)
mcp_call apply_patch "{\"patch\":$patch,\"expectedBaseSha\":\"$sha\"}"
expect_ok_result "apply_patch binds to the sha256 of a capped read"
mcp_call read_file '{"path":"big.txt","startLine":0}'
expect_error_class "read_file refuses line 0" invalid_arguments
mcp_call read_file '{"path":"big.txt","startLine":30000}'
expect_error_class "read_file refuses a range past the end" invalid_arguments
mcp_stop

# --- the artifact quota ----------------------------------------------------------
sed 's/^  inlineChars: 10000$/  inlineChars: 2000\n  artifactQuotaMb: 0/' "$M" >"$T/quota.yaml"
mcp_start "$T/quota.yaml" "$ws"
mcp_call run_check '{"checkId":"big"}'
expect_eq "past the quota the output is not kept" "$(jr -c '.result.structuredContent.outputInfo | [.kept, .uri]')" '[false,null]'
expect_contains "and the result says so" "$(jr .result.structuredContent.output)" "artifact quota (output.artifactQuotaMb)"
expect_contains "the failure lines are still inline" "$(jr .result.structuredContent.output)" "error: broken at line 25000"
check "within the tool's smaller cap" [ "$(jr '.result.structuredContent.output | length')" -le 2000 ]
mcp_rpc resources/list '{}'
expect_eq "nothing is listed" "$(jr -c .result.resources)" '[]'
mcp_stop

finish
