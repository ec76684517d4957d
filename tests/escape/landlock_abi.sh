#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A kernel without landlock: airlock exec ran every command without the
# layer and said nothing (only -v's layer list lacked "landlock").  The
# run still goes ahead (the other layers stand) but airlock warns on
# standard error.  The test plays that kernel: the probe runs airlock
# with landlock_create_ruleset answering ENOSYS.  On this kernel (ABI 6
# or more: the scopes) there is no warning, and the layer is applied.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"
cp "$top_builddir/tests/escape/probe" "$ws/probe"
chown -R 65534:65534 "$ws"
cd "$ws" || exit 1

out=$("$ws/probe" enosys landlock_create_ruleset "$AIRLOCK" exec -v -- \
    sh -c 'echo ran' 2>&1)
expect_contains "without_landlock_the_command_runs" "$out" "ran"
expect_contains "without_landlock_airlock_warns" "$out" \
    "airlock: warning: the kernel has no landlock: the runner runs without it"
expect_not_contains "without_landlock_no_landlock_layer" "$out" ",landlock,"

out=$("$AIRLOCK" exec -v -- sh -c 'echo ran' 2>&1)
expect_contains "with_landlock_the_layer_is_applied" "$out" ",landlock,"
expect_not_contains "with_landlock_no_warning" "$out" "warning"
finish
