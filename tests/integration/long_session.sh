#!/bin/sh
# A long session keeps the broker's memory and descriptors flat: "airlock
# serve" answers thousands of tool calls (reads, refused calls, invalid
# arguments, bad frames, pings, unknown methods, and a couple of hundred
# run_check runners), and its VmRSS and open descriptor count after 5000
# calls match those after the first 500.
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

mkfifo "$T/in"
"$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" <"$T/in" \
    >"$T/out" 2>"$T/err" &
pid=$!
exec 3>"$T/in"

# send FIRST COUNT CHECKS: COUNT calls with ids from FIRST, one in every
# COUNT/CHECKS a run_check; prints the number of replies to expect.
send() {
	awk -v first="$1" -v n="$2" -v checks="$3" 'BEGIN {
		every = checks > 0 ? int(n / checks) : 0
		for (i = 0; i < n; i++) {
			id = first + i
			if (every > 0 && i % every == every - 1) {
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"run_check\",\"arguments\":{\"checkId\":\"ok\",\"idempotencyKey\":\"k%d\"}}}\n", id, id
				continue
			}
			k = i % 10
			if (k < 5)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"src/todo.sh\"}}}\n", id
			else if (k == 5)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{\"action\":\"a\",\"reason\":\"b\",\"evidenceUris\":[]}}}\n", id
			else if (k == 6)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"../../etc/passwd\"}}}\n", id
			else if (k == 7)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":1}}}\n", id
			else if (k == 8)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", id
			else if (int(i / 10) % 2)
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"no/such\"}\n", id
			else
				printf "{\"jsonrpc\":\"2.0\",\"id\":%d,, broken\n", id
		}
	}' >&3
}

# wait_replies N: waits (up to 120 s) until the broker has written N lines.
wait_replies() {
	i=0
	while [ "$(wc -l <"$T/out")" -lt "$1" ]; do
		i=$((i + 1))
		if [ "$i" -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		sleep 0.1
	done
}

rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status"; }
nfds() { ls "/proc/$pid/fd" | wc -l; }

printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"long","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
send 1 500 50
check broker_answers_first_500_calls wait_replies 501
rss1=$(rss); fds1=$(nfds)
send 501 4500 150
check broker_answers_5000_calls wait_replies 5001
rss2=$(rss); fds2=$(nfds)
echo "# after 500 calls: VmRSS ${rss1} kB, ${fds1} fds; after 5000: VmRSS ${rss2} kB, ${fds2} fds"

expect_eq open_descriptors_stay_flat_over_5000_calls "$fds2" "$fds1"
# Allow 256 KiB for the allocator's page-level slack.
check resident_memory_stays_flat_over_5000_calls \
    test "$((rss2 - rss1))" -le 256
check broker_seccomp_filter_is_on \
    grep -q '^Seccomp:[[:space:]]*2$' "/proc/$pid/status"

n=$(grep -c 'text":"{\\"content' "$T/out")
check read_file_calls_all_answered test "$n" -ge 2500
n=$(grep -c 'exitCode\\":0' "$T/out")
check run_checks_all_ran test "$n" -eq 200
n=$(grep -c '"code":-32700' "$T/out")
check bad_frames_get_parse_errors test "$n" -ge 200

exec 3>&-
wait "$pid"
check broker_exits_cleanly_at_eof test "$?" -eq 0
finish
