#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# fileChanges over MCP (issue 13, item 6): a workspace change made by
# something other than the agent's own calls (here the host, and a
# background job's writes landing) reaches the tail of the agent's next
# result, once; the agent's own write_file and a blocking run's writes do
# not; .git and airlock's temporary files are never listed; the list is
# capped with a count of the rest.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/.git" "$ws/src"

M="$T/fc.yaml"
cat >"$M" <<'YAML'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: list_files
    input: { path: workspace_relative_path? }
    output: { files: string_list }
    sideEffect: none
    timeoutMs: 2000
  - name: make_file
    command: ["sh", "-c", "echo run > by_run.txt"]
    output: { exitCode: integer }
    sideEffect: workspace_write
    timeoutMs: 20000
  - name: job_writer
    command: ["sh", "-c", "sleep 0.3; echo job > by_job.txt"]
    output: { exitCode: integer }
    sideEffect: workspace_write
    timeoutMs: 20000
    jobs: { maxBlockMs: 5000 }
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
YAML

mcp_start "$M" "$ws"
files() { jr -c '[.result.structuredContent.fileChanges.files[]? | "\(.change) \(.path)"] | sort'; }

mcp_call list_files '{}'
expect_eq "nothing changed yet: no fileChanges" "$(jr -c .result.structuredContent.fileChanges)" null

echo "human" >"$ws/human.txt"
echo "edited" >>"$ws/README.md"
echo "x" >"$ws/src/deep.txt"
echo "x" >"$ws/.git/index.lock"
mcp_call list_files '{}'
expect_ok_result "the next call answers"
expect_eq "the host's changes are in structuredContent.fileChanges" "$(files)" \
    '["created human.txt","created src/deep.txt","modified README.md"]'
expect_contains "and at the tail of the text" "$(jr '.result.content[-1].text')" "[airlock: workspace files changed outside your calls since your last result; re-read before editing]"
expect_contains "... naming the file" "$(jr '.result.content[-1].text')" "created human.txt"
expect_eq "its own result comes first" "$(jr -c '.result.content[0].text | fromjson | has("files")')" true
mcp_call list_files '{}'
expect_eq "they are given once" "$(jr -c .result.structuredContent.fileChanges)" null
# A name that is not UTF-8 (Latin-1 é): JSON refused it as a key and the
# change was left out of the notice, which then said nothing at all.
echo "x" >"$ws/$(printf 'caf\351.txt')"
mcp_call list_files '{}'
expect_eq "a change under a name that is not UTF-8 is listed, U+FFFD for the byte" "$(files)" \
    "[\"created caf$(printf '\357\277\275').txt\"]"
rm -f "$ws/$(printf 'caf\351.txt')"
mcp_call list_files '{}'

rm "$ws/human.txt"
mkdir "$ws/newdir"
mcp_call list_files '{}'
expect_eq "a deletion and a new directory" "$(files)" '["created newdir","deleted human.txt"]'
echo y >"$ws/newdir/inner.txt"
mcp_call list_files '{}'
expect_eq "a new directory is watched from then on" "$(files)" '["created newdir/inner.txt"]'

mcp_call write_file '{"path":"mine.txt","content":"agent\n"}'
expect_ok_result "write_file writes"
expect_eq "the agent's own write is not in its result" "$(jr -c .result.structuredContent.fileChanges)" null
mcp_call list_files '{}'
expect_eq "nor in the next" "$(jr -c .result.structuredContent.fileChanges)" null

mcp_call make_file '{}'
expect_eq "a blocking run wrote" "$(cat "$ws/by_run.txt" 2>/dev/null)" run
expect_eq "a blocking run's writes are the agent's own" "$(jr -c .result.structuredContent.fileChanges)" null

mcp_call job_writer '{"blockMs":0}'
expect_eq "a job starts" "$(jr .result.structuredContent.status)" running
deadline=$((SECONDS + 30))
while [ "$(jr .result.structuredContent.status)" = running ] && [ $SECONDS -lt $deadline ]; do
	mcp_call job_output '{"jobId":"job-1","waitMs":5000}'
done
expect_eq "the job ended" "$(jr .result.structuredContent.status)" exited
all=$(files)
if [ "$all" = '[]' ]; then
	mcp_call list_files '{}'
	all=$(files)
fi
expect_eq "a job's writes landing are news to the agent" "$all" '["created by_job.txt"]'

for i in $(seq 1 30); do echo "$i" >"$ws/many$i.txt"; done
mcp_call list_files '{}'
expect_eq "at most 20 are listed" "$(jr -c '.result.structuredContent.fileChanges | [(.files | length), .more]')" '[20,10]'
expect_contains "the text counts the rest" "$(jr '.result.content[-1].text')" "[airlock: and 10 more]"
mcp_stop
finish
