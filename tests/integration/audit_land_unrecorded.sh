#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run's change set lands only once the records of its end are on the
# disk: landing is the run's effect outside the broker, and no effect of
# a record may leave before its batch is written (docs/AUDIT.md).  Before,
# a check that ended while the log could not be written (its state
# directory full) had its runner_end dropped, and its change set landed
# all the same: the workspace changed, and the log, still valid, held no
# end of that run.  Here the state directory is a 256 KiB tmpfs filled
# while the check sleeps; the workspace is elsewhere and has room.
. "$top_srcdir/tests/lib.sh"

ws=$(make_workspace)
mkdir "$T/home"
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  first: ["sh", "-c", "echo first >first.txt"]
  slow: ["sh", "-c", "sleep 3; echo landed >landed.txt"]
YAML
# The check's request id is long, so that its runner_end outweighs the
# probes' records: once a probe cannot be written, neither can it.
long=$(printf 'r%0200d' 0)
cat >"$T/inner.sh" <<INNER
set -u
mount -t tmpfs -o size=256k tmpfs "$T/home" || exit 99
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
mkfifo "$T/in"
"$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" <"$T/in" >"$T/out" 2>"$T/err" &
exec 3>"$T/in"
# wait_id ID: polls (up to 30 s) until the reply to request ID is out.
wait_id() {
	i=0
	while ! grep -q "\"id\":\$1," "$T/out" 2>/dev/null && [ \$i -lt 600 ]; do
		sleep 0.05
		i=\$((i + 1))
	done
}
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
wait_id 1
# A first set lands while there is room (it makes the apply journal's key).
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"first"}}}' >&3
wait_id 2
printf '%s\n' '{"jsonrpc":"2.0","id":"$long","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"slow"}}}' >&3
# The check sleeps: fill the disk, then probe (a refused call, logged)
# until the log's last page has no room for another.
sleep 0.5
dd if=/dev/zero of="$T/home/fill" bs=1k 2>/dev/null
n=10
while [ \$n -lt 60 ]; do
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{}}}\n' \$n >&3
	wait_id \$n
	grep -q "\"id\":\$n,.*-32001" "$T/out" && break
	n=\$((n + 1))
done
echo "\$n" >"$T/probes"
wait_id '"$long"'
rm -f "$T/home/fill"
printf '%s\n' '{"jsonrpc":"2.0","id":90,"method":"ping"}' >&3
wait_id 90
exec 3>&-
wait
cp -r "$T/home/sessions" "$T/sessions"
INNER
unshare -m sh "$T/inner.sh"
rc=$?
check "the test's private tmpfs was mounted" [ "$rc" -ne 99 ]
check "a first set landed while the log had room" test -s "$ws/first.txt"
check "a probe was refused once the log was full (after $(cat "$T/probes") probes)" \
    grep -q '"code":-32001' "$T/out"
reply=$(grep "\"id\":\"$long\"" "$T/out")
expect_not_contains "the check's reply is no success" "$reply" '"isError":false'
check "the check's change set did not land" test ! -e "$ws/landed.txt"
log=$(ls "$T"/sessions/*/audit.jsonl)
expect_eq "the log holds no change_applied of the check" \
    "$(jq -r --arg id "$long" 'select(.event == "change_applied" and .fields.id == $id) | .seq' "$log")" ""
check "the log still verifies" "$AIRLOCK" audit verify "$log"
finish
