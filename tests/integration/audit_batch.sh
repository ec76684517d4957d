#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_batch: pipelined calls through "airlock serve" are signed in
# batches (one event-loop turn's records, only the last one signed), the
# log still verifies, every call has its records, and a reply is only
# read once the records before it are on disk and signed.
. "$top_srcdir/tests/lib.sh"

ws=$(make_workspace)
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
# read_file only, and no run budget: the 60 calls all run.
cat > "$T/m.yaml" <<'YAML'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
YAML
mkfifo "$T/in"
"$AIRLOCK" serve --workspace "$ws" --manifest "$T/m.yaml" <"$T/in" >"$T/out" 2>"$T/err" &
pid=$!
exec 3>"$T/in"
# wait_id ID: polls (5 s deadline) until the reply to ID was read.
wait_id() {
	i=0
	while ! grep -q "\"id\":$1," "$T/out" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
wait_id 1
# 30 reads and 30 refusals in one write: one or a few loop turns.
i=100
while [ $i -lt 130 ]; do
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}\n' $i
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../etc/passwd"}}}\n' $((i + 100))
	i=$((i + 1))
done > "$T/batch"
cat "$T/batch" >&3
wait_id 229
log=$(ls "$T"/home/sessions/*/audit.jsonl)
# The session is still open: what the agent has read must be on disk.
cp "$log" "$T/live.jsonl"
out=$("$AIRLOCK" audit verify "$T/live.jsonl" 2>&1); rc=$?
expect_eq "mid-session log: open, not tampered (exit 2)" "$rc" 2
expect_contains "mid-session log: open" "$out" "open (no session_end yet)"
expect_contains "the last reply's result record was written before it" \
    "$(grep '"event":"result"' "$T/live.jsonl" | grep -c '"id":229,')" 1
exec 3>&-
wait $pid
expect_eq "60 calls answered" \
    "$(grep -c '"id":[12][0-9][0-9],' "$T/out")" 60
expect_eq "30 reads succeeded" "$(grep -c '"isError":false' "$T/out")" 30
expect_eq "30 refusals" "$(grep -c 'invalid_arguments' "$T/out")" 30
check "the closed log verifies" "$AIRLOCK" audit verify "$log"
expect_eq "a result record per call" \
    "$(grep -c '"event":"result"' "$log")" 60
total=$(wc -l < "$log")
signed=$(grep -c '"sig":"' "$log")
check "records were signed in batches ($signed of $total signed)" \
    [ "$signed" -lt $((total / 2)) ]
# The signed end of the pipelined batch cut off: an unsigned tail.
n=$(grep -n '"id":229,' "$log" | grep '"event":"request"' | cut -d: -f1)
head -n "$n" "$log" > "$T/cut.jsonl"
out=$("$AIRLOCK" audit verify "$T/cut.jsonl" 2>&1); rc=$?
expect_eq "log cut inside a batch: exit 1" "$rc" 1
expect_contains "log cut inside a batch: named" "$out" \
    "not covered by a signature"
finish
