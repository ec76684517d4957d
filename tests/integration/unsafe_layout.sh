#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Layouts that would hand airlock's own state to the sandbox are refused
# at start, naming both paths: a workspace that contains, or lies inside,
# the state directory (sessions, audit logs), the runtime directory
# (approvals) or the credential store.  And the sandbox's init shows a
# neutral command line, not the supervisor's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

refused() {	# NAME WORKSPACE NEEDLE: run and exec both refuse it
	local out rc
	out=$(timeout 30 "$AIRLOCK" run --workspace "$2" -- /bin/true 2>&1)
	rc=$?
	expect_eq "run: $1 is refused (usage error)" "$rc" 64
	expect_contains "run: $1: the message names the workspace" "$out" "refusing workspace $(realpath "$2")"
	expect_contains "run: $1: and airlock's directory" "$out" "$3"
	out=$(timeout 30 "$AIRLOCK" exec --workspace "$2" -- /bin/true 2>&1)
	rc=$?
	expect_eq "exec: $1 is refused (usage error)" "$rc" 64
	expect_contains "exec: $1: the message names airlock's directory" "$out" "$3"
}

# $T holds $T/home (AIRLOCK_HOME: state and credentials) and $T/run.
refused "a workspace containing the state directory" "$T" "$T/home"
mkdir -p "$AIRLOCK_HOME/sessions/x"
refused "a workspace inside the state directory" "$AIRLOCK_HOME/sessions/x" "$T/home"
mkdir -p "$AIRLOCK_RUNTIME_DIR/sub"
refused "a workspace inside the runtime directory" "$AIRLOCK_RUNTIME_DIR/sub" "$T/run"
# The credential store elsewhere than the state directory (a non-root
# user's default is under ~/.local/state; here AIRLOCK_HOME moves both):
# a workspace that is an ancestor of a store that does not exist yet.
mkdir -p "$T/deep"
AIRLOCK_HOME="$T/deep/not/yet" refused "a workspace above a state directory not yet made" "$T/deep" "$T/deep/not/yet"

out=$(timeout 30 "$AIRLOCK" run --workspace "$ws" -- /bin/true 2>&1)
expect_eq "a workspace apart from airlock's directories runs" "$?" 0

# The init's command line, seen from inside the agent's sandbox.
cmdline=$(timeout 30 "$AIRLOCK" run --workspace "$ws" -- /bin/sh -c 'tr "\0" " " </proc/1/cmdline' 2>/dev/null)
expect_eq "the sandbox's init shows a neutral argv" "$(printf '%s' "$cmdline" | sed 's/ *$//')" "airlock-init"
cmdline=$(timeout 30 "$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c 'tr "\0" " " </proc/1/cmdline' 2>/dev/null)
expect_not_contains "a runner's init shows nothing of the supervisor's argv" "$cmdline" "--workspace"
finish
