#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Fail closed: when the audit log cannot be written (a full disk), the
# broker refuses every request, says why, and serves again once it can.
. "$top_srcdir/tests/lib.sh"

ws=$(make_workspace)
mkdir "$T/home"
cat >"$T/inner.sh" <<INNER
set -u
mount -t tmpfs -o size=256k tmpfs "$T/home" || exit 99
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
mkfifo "$T/in"
"$AIRLOCK" serve --workspace "$ws" <"$T/in" >"$T/out" 2>"$T/err" &
exec 3>"$T/in"
# wait_id N: polls (up to 20 s) until the reply to request N is out.
wait_id() {
	i=0
	while ! grep -q "\"id\":\$1," "$T/out" 2>/dev/null && [ \$i -lt 400 ]; do
		sleep 0.05
		i=\$((i + 1))
	done
}
send() { printf '%s\n' "\$2" >&3; wait_id "\$1"; }
send 1 '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
send 2 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}'
dd if=/dev/zero of="$T/home/fill" bs=1k 2>/dev/null
# The log's last page may still have room: keep asking until it is full.
for i in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}\n' \$i >&3
done
wait_id 20
rm -f "$T/home/fill"
send 40 '{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}'
exec 3>&-
wait
cp -r "$T/home/sessions" "$T/sessions"
INNER
unshare -m sh "$T/inner.sh"
rc=$?
check "the test's private tmpfs was mounted" [ "$rc" -ne 99 ]
expect_contains "a call succeeds while the log can be written" \
    "$(grep '"id":2' "$T/out")" '"isError":false'
refused=$(grep '"code":-32001' "$T/out" | head -n 1)
expect_contains "a call is refused while the log cannot be written" \
    "$refused" '"code":-32001'
expect_contains "the refusal says why" "$refused" "audit log cannot be written"
# Fail closed: every tools/call that was answered (id 1 is initialize)
# has its result record in the log, and every call whose record could not
# be written was refused.  (A refused batch is cut back out of the file,
# which can free room for a later call's records: that call is answered,
# and logged.)
log=$(ls "$T"/sessions/*/audit.jsonl)
answered=$(jq -r 'select(.result and .id != 1) | .id' "$T/out" | sort -n | tr '\n' ' ')
logged=$(jq -r 'select(.event == "result") | .fields.id' "$log" | sort -n | tr '\n' ' ')
expect_eq "every answered call's result is in the log" "$logged" "$answered"
n=$(grep -c '"code":-32001' "$T/out")
check "several calls were refused while the disk was full ($n)" test "$n" -ge 2
expect_contains "serving resumes once the log can be written" \
    "$(grep '"id":40' "$T/out")" '"isError":false'
check "the log still verifies after the outage" "$AIRLOCK" audit verify "$log"
finish
