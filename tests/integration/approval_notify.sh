#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The approvals notify hook runs when an approval is requested, with the
# request on its stdin; an approval nobody decides expires, fail closed.
. "$top_srcdir/tests/lib.sh"

export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$(make_workspace)
cat >"$T/m.yaml" <<YAML
tools:
  - name: publish
    input: { version: string }
    output: { exitCode: integer }
    sideEffect: external
    authorization: approval
    timeoutMs: 60000
    command: ["true"]
approvals:
  ttlSeconds: 1
  notify: ["sh", "-c", "cat > $T/notified.json"]
YAML
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"publish","arguments":{"version":"1.2.3"}}}' |
    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws")
expect_contains "an undecided approval expires and nothing runs" "$out" "approval_expired"
i=0; while [ ! -s "$T/notified.json" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
hook=$(cat "$T/notified.json" 2>/dev/null)
expect_contains "the hook got the tool" "$hook" '"tool":"publish"'
expect_contains "the hook got the exact arguments" "$hook" '"version":"1.2.3"'
expect_contains "the hook got the action's digest" "$hook" '"digest":"'
expect_contains "the hook got the expiry" "$hook" '"expiresAt":"'
check "the contrib hook accepts a request" sh -c \
    "printf '%s' '$hook' | sh '$top_srcdir/contrib/notify/approval-notify.sh'"
finish
