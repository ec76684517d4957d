#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# make demo, as a newcomer runs it: the scripted agent fixes the bug, the
# gate passes on the current digest, the escape is refused with its
# reason, and the session's audit log verifies.
. "$top_srcdir/tests/lib.sh"
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
out=$(AIRLOCK="$AIRLOCK" timeout 120 sh "$top_srcdir/contrib/demo/run.sh" 2>&1)
expect_eq "the demo exits 0" "$?" 0
demo_cleanup "$out"
expect_contains "the first gate fails on the tenant bug" "$out" "FAIL WB-TODO-002"
expect_contains "the escape is refused, with the broker's reason" "$out" \
    "read ../../etc/passwd: invalid_arguments: arguments do not fit the contract"
expect_contains "acceptance is met on the patched workspace" "$out" \
    "acceptance met (derived by the broker): true"
expect_contains "the audit log verifies" "$out" "valid and closed"
finish
