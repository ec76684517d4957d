#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The output layer's economy (issue 13): a replayed session -- a large
# build log, a failing test suite, a recursive grep over a big tree (each
# a run_check), and a long-running server started as a background job
# (blockMs) whose new output the agent reads about once a second with
# job_output until it dies -- printing the bytes returned to the model
# per case against the raw output, and whether each failing line reached
# the model.  Byte counts are deterministic (the server's split over its
# reads varies with timing; its total does not much).
# Usage: sh bench/output.sh (from a built tree).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
AIRLOCK=${AIRLOCK:-$top_srcdir/airlock}
export top_srcdir AIRLOCK
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

# A build log: 40,000 compile lines, two compiler errors in the middle.
awk 'BEGIN { for (i = 1; i <= 40000; i++) {
	if (i == 12345) print "src/parse.c:812:17: error: expected ; before } token";
	else if (i == 30001) print "src/eval.c:77:3: error: implicit declaration of function frob";
	else printf "cc -O2 -Wall -c src/unit%05d.c -o obj/unit%05d.o\n", i, i } }' >"$ws/build.log"
# A failing test suite: 5,000 tests, three failing, a summary at the end.
awk 'BEGIN { for (i = 1; i <= 5000; i++) {
	if (i == 7 || i == 2500 || i == 4999) print "FAIL: test_case_" i " (assert x == y)";
	else print "PASS: test_case_" i }
	print "# 5000 tests, 3 failed" }' >"$ws/tests.log"
# A recursive grep over a big tree: 20,000 matches, success.
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "src/m%04d/file%02d.c:%d: TODO tidy this\n", i / 20, i % 20, i }' >"$ws/grep.log"

M="$T/bench.yaml"
cat >"$M" <<'YAML'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, artifactUri: string, output: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
  - name: serve
    command: ["sh", "-c", "i=0; while [ $i -lt 30 ]; do i=$((i + 1)); awk -v b=$i 'BEGIN { for (j = 1; j <= 2000; j++) printf \"127.0.0.1 - - GET /api/items/%d?page=%d HTTP/1.1 200 %d 1.%03dms\\n\", b * 10000 + j, j % 7, 1000 + j, j }'; [ $i = 15 ] && echo 'ERROR: database connection lost (pool exhausted)'; sleep 0.1; done; exit 1"]
    output: { jobId: string, status: string, output: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
    jobs:
      maxBlockMs: 10000
      events:
        - match: "ERROR"
        - exit: nonzero
  - name: job_output
    action: job_output
    input: { jobId: string, waitMs: integer? }
    output: { jobId: string, status: string, output: string, exitCode: integer? }
    sideEffect: none
    timeoutMs: 2000
checks:
  build: ["sh", "-c", "cat build.log; exit 2"]
  tests: ["sh", "-c", "cat tests.log; exit 1"]
  grep: ["sh", "-c", "cat grep.log"]
sandbox:
  limits: { outputBytes: 8388608 }
YAML
mcp_start "$M" "$ws"
printf '%-8s %12s %12s %8s %8s  %s\n' case raw_bytes reply inline ratio "failing lines kept"
for c in build tests grep; do
	mcp_call run_check "{\"checkId\":\"$c\"}" 60
	raw=$(stat -c %s "$ws/$c.log")
	got=${#R}
	want=$(grep -ciE 'error|fail' "$ws/$c.log" | head -n 1)
	[ "$c" = tests ] && want=3
	[ "$c" = grep ] && want=0
	kept=0
	while IFS= read -r line; do
		printf '%s' "$(jr .result.structuredContent.output)" |
		    grep -qF -- "$line" && kept=$((kept + 1))
	done < <(grep -iE '(error|fail):' "$ws/$c.log")
	inl=$(jr .result.structuredContent.output | wc -c)
	printf '%-8s %12d %12d %8d %7.0fx  %d/%d\n' "$c" "$raw" "$got" \
	    "$inl" "$(echo "$raw / $got" | bc -l)" "$kept" "$want"
done

# The server: started as a job, read about once a second (an agent doing
# other work between reads), until it exits.  Every reply and pushed
# notification counts.
: >"$T/notes"
mcp_call serve '{"blockMs":500}' 60
got=${#R}
inl=$(jr .result.structuredContent.output | wc -c)
all=$R$'\n'
calls=1
while [ "$(jr .result.structuredContent.status)" = running ] && [ $calls -lt 60 ]; do
	sleep 1
	mcp_call job_output '{"jobId":"job-1"}' 60
	got=$((got + ${#R}))
	inl=$((inl + $(jr .result.structuredContent.output | wc -c)))
	all+=$R$'\n'
	calls=$((calls + 1))
done
notes=$(cat "$T/notes")
got=$((got + ${#notes}))
all+=$notes
raw=$(sh -c "i=0; while [ \$i -lt 30 ]; do i=\$((i + 1)); awk -v b=\$i 'BEGIN { for (j = 1; j <= 2000; j++) printf \"127.0.0.1 - - GET /api/items/%d?page=%d HTTP/1.1 200 %d 1.%03dms\\n\", b * 10000 + j, j % 7, 1000 + j, j }'; [ \$i = 15 ] && echo 'ERROR: database connection lost (pool exhausted)'; done" | wc -c)
kept=0
grep -qF 'ERROR: database connection lost (pool exhausted)' <<<"$all" && kept=1
printf '%-8s %12d %12d %8d %7.0fx  %d/%d  (%d calls, status %s)\n' server "$raw" \
    "$got" "$inl" "$(echo "$raw / $got" | bc -l)" "$kept" 1 "$calls" \
    "$(jr -r .result.structuredContent.status)"
mcp_stop
finish >/dev/null
