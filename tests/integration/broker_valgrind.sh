#!/bin/sh
# The broker side under valgrind: a scripted session through "airlock
# serve" (every request kind, refused calls, invalid arguments, bad and
# oversized frames, a runner) reports no invalid access, no use of
# uninitialised memory and no leak definitely lost.  In the sanitizer
# build (valgrind cannot run ASan binaries) the same session runs under
# AddressSanitizer and LeakSanitizer instead.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws=$(make_workspace)
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
mkdir -p "$AIRLOCK_HOME" "$AIRLOCK_RUNTIME_DIR"
chmod 700 "$AIRLOCK_RUNTIME_DIR"
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, artifactUri: string, durationMs: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: deploy
    action: request_approval
    input: { action: string, reason: string, evidenceUris: string_list }
    output: { decision: approved_or_rejected, approver: string }
    sideEffect: external
    authorization: deny
    timeoutMs: 1000
checks:
  ok: ["true"]
YAML

{
	echo '{"jsonrpc":"2.0","id":"early","method":"tools/list"}'
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"vg","version":"1"}}}'
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	echo '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
	i=0
	while [ "$i" -lt 40 ]; do
		echo '{"jsonrpc":"2.0","id":"r'$i'","method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/todo.sh"}}}'
		echo '{"jsonrpc":"2.0","id":"d'$i'","method":"tools/call","params":{"name":"deploy","arguments":{"action":"a","reason":"b","evidenceUris":["x"]}}}'
		echo '{"jsonrpc":"2.0","id":"e'$i'","method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/shadow"}}}'
		echo '{"jsonrpc":"2.0","id":"t'$i'","method":"tools/call","params":{"name":"read_file","arguments":{"path":["x"],"extra":1}}}'
		echo '{"jsonrpc":"2.0","id":"n'$i'","method":"tools/call","params":{"name":"nope","arguments":{}}}'
		echo '{"jsonrpc":"2.0","id":"p'$i'","method":"ping"}'
		echo '{"jsonrpc":"2.0","id":"u'$i'","method":"no/such/method"}'
		echo '{"jsonrpc":"2.0","id":"x'$i'",'
		printf '{"jsonrpc":"2.0","id":"bad\377"}\n'
		echo '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}'
		echo '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'
		i=$((i + 1))
	done
	echo '{"jsonrpc":"2.0","id":"patch","method":"tools/call","params":{"name":"apply_patch","arguments":{"patch":"--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-x\n+y\n","expectedBaseSha":"0000000000000000000000000000000000000000000000000000000000000000"}}}'
	echo '{"jsonrpc":"2.0","id":"st","method":"airlock/session/status"}'
	echo '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"ok","idempotencyKey":"k1"}}}'
	echo '{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"nope","idempotencyKey":"k2"}}}'
	# An oversized frame (2 MiB), then a deeply nested one.
	head -c 2097152 /dev/zero | tr '\0' 'a'
	echo
	awk 'BEGIN { for (i = 0; i < 5000; i++) printf "["; print "" }'
	echo '{"jsonrpc":"2.0","id":"last","method":"ping"}'
} >"$T/session"

if grep -q __asan_init "$AIRLOCK"; then
	tool=asan
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
	    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" \
	    <"$T/session" >"$T/out" 2>"$T/err"
	rc=$?
else
	tool=valgrind
	valgrind --leak-check=full --errors-for-leak-kinds=definite \
	    --error-exitcode=99 --track-origins=yes \
	    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" \
	    <"$T/session" >"$T/out" 2>"$T/err"
	rc=$?
fi
echo "# broker run under $tool, exit $rc"
if [ "$rc" -ne 0 ]; then
	grep -E '==[0-9]+==' "$T/err" | head -60
fi
expect_eq broker_session_under_${tool}_exits_0 "$rc" 0
if [ "$tool" = valgrind ]; then
	check valgrind_reports_no_errors \
	    grep -q 'ERROR SUMMARY: 0 errors' "$T/err"
	check valgrind_reports_nothing_definitely_lost \
	    sh -c "grep -q 'All heap blocks were freed' '$T/err' ||
	    grep -q 'definitely lost: 0 bytes' '$T/err'"
else
	expect_not_contains asan_reports_nothing "$(cat "$T/err")" \
	    'ERROR: AddressSanitizer'
	expect_not_contains lsan_reports_nothing "$(cat "$T/err")" \
	    'ERROR: LeakSanitizer'
fi
out=$(cat "$T/out")
expect_contains broker_answered_the_last_ping "$out" '"id":"last","result":{}'
expect_contains read_file_was_served "$out" '"id":"r39","result":{"content"'
expect_contains oversized_frame_was_refused "$out" 'frame exceeds'
e0=$(grep '"id":"e0"' "$T/out" | head -n 1)
expect_eq traversal_was_refused "$(printf '%s' "$e0" | jq -r .result.isError)" true
expect_contains traversal_refused_for_its_dotdot "$e0" "'..' component"
n=$(grep -c '"code":-32700' "$T/out")
check bad_frames_got_parse_errors test "$n" -ge 40
expect_contains run_check_answered "$out" '"id":"c1","result"'
finish
