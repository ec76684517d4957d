#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The output layer's economy (issue 13): bytes returned to the model per
# run_check against the raw output, and whether each failing line reached
# the model.  Usage: sh bench/output.sh (from a built tree).
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
mcp_stop
finish >/dev/null
