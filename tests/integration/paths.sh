#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# paths (issue 15, item 5): the state, runtime and config directories come
# from ./configure (--localstatedir, --runstatedir, --sysconfdir: what
# `airlock paths` reports as compiled in), can be overridden from the
# environment (AIRLOCK_STATE_DIR or the older AIRLOCK_HOME,
# AIRLOCK_RUNTIME_DIR, AIRLOCK_CONFIG_DIR), and are the XDG directories
# for an ordinary user.  No C file hard-codes /var/lib/airlock or the
# host's /run/airlock.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
unset AIRLOCK_HOME AIRLOCK_STATE_DIR AIRLOCK_RUNTIME_DIR AIRLOCK_CONFIG_DIR

mkvar() { sed -n "s|^$1 = ||p" "$top_builddir/Makefile" | head -n 1; }
lsd=$(mkvar localstatedir) rsd=$(mkvar runstatedir) scd=$(mkvar sysconfdir)
j=$("$AIRLOCK" paths --json)
expect_eq "compiled-in state dir is --localstatedir/lib/airlock" \
    "$(jq -r .defaults.state <<<"$j")" "$lsd/lib/airlock"
expect_eq "compiled-in runtime dir is --runstatedir/airlock" \
    "$(jq -r .defaults.runtime <<<"$j")" "$rsd/airlock"
expect_eq "compiled-in config dir is --sysconfdir/airlock" \
    "$(jq -r .defaults.config <<<"$j")" "$scd/airlock"
if [ "$(id -u)" = 0 ]; then
	expect_eq "root uses the configured state dir" \
	    "$(jq -r '"\(.state.path) \(.state.source)"' <<<"$j")" \
	    "$lsd/lib/airlock configured"
	expect_eq "root uses the configured config dir" \
	    "$(jq -r .config.path <<<"$j")" "$scd/airlock"
fi
out=$("$AIRLOCK" paths)
expect_contains "airlock paths: readable form" "$out" "state    "

# The environment overrides each, and everything follows it.
export AIRLOCK_STATE_DIR="$T/state" AIRLOCK_RUNTIME_DIR="$T/run" \
    AIRLOCK_CONFIG_DIR="$T/etc"
mkdir -p "$T/run" "$T/etc"
chmod 700 "$T/run"
chmod 755 "$T"
j=$("$AIRLOCK" paths --json)
expect_eq "AIRLOCK_STATE_DIR" "$(jq -r '"\(.state.path) \(.state.source)"' <<<"$j")" \
    "$T/state environment (AIRLOCK_STATE_DIR)"
expect_eq "AIRLOCK_RUNTIME_DIR" "$(jq -r .runtime.path <<<"$j")" "$T/run"
expect_eq "AIRLOCK_CONFIG_DIR" "$(jq -r .config.path <<<"$j")" "$T/etc"
ws=$(make_workspace)
"$AIRLOCK" serve --workspace "$ws" </dev/null >/dev/null 2>&1
check "a session lands in AIRLOCK_STATE_DIR" \
    sh -c "ls '$T'/state/sessions/*/audit.jsonl"
check "the host key too" test -f "$T/state/keys/audit.key"
echo "bogus-output" >"$T/etc/audit.conf"
out=$("$AIRLOCK" serve --workspace "$ws" </dev/null 2>&1)
expect_contains "audit.conf is read from AIRLOCK_CONFIG_DIR" "$out" \
    "$T/etc/audit.conf:1: unknown output"
rm "$T/etc/audit.conf"
AIRLOCK_STATE_DIR= AIRLOCK_HOME="$T/older" "$AIRLOCK" paths >"$T/o"
expect_contains "AIRLOCK_HOME still works" "$(cat "$T/o")" \
    "state    $T/older  (environment (AIRLOCK_HOME))"
AIRLOCK_STATE_DIR=relative "$AIRLOCK" paths >"$T/o"
expect_not_contains "a relative AIRLOCK_STATE_DIR is ignored" "$(cat "$T/o")" \
    "state    relative"
# A workspace holding the overridden state directory is refused.
out=$("$AIRLOCK" exec --workspace "$T" -- true 2>&1); rc=$?
expect_eq "a workspace containing the state dir is refused" "$rc" 64
expect_contains "it says why" "$out" "airlock's state (sessions, audit logs) directory"

# An ordinary user: the XDG directories.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	NOGROUP=$(id -gn nobody)
	as_nobody() {
		setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups \
		    env -i PATH=/usr/bin:/bin "$@" "$AIRLOCK" paths --json
	}
	j=$(as_nobody HOME=/home/u)
	expect_eq "user: ~/.local/state/airlock" "$(jq -r '"\(.state.path) \(.state.source)"' <<<"$j")" \
	    "/home/u/.local/state/airlock XDG"
	expect_eq "user: ~/.config/airlock" "$(jq -r .config.path <<<"$j")" \
	    "/home/u/.config/airlock"
	j=$(as_nobody HOME=/home/u XDG_STATE_HOME=/x/state \
	    XDG_CONFIG_HOME=/x/config XDG_RUNTIME_DIR=/x/run)
	expect_eq "user: XDG_STATE_HOME, XDG_CONFIG_HOME, XDG_RUNTIME_DIR" \
	    "$(jq -r '"\(.state.path) \(.config.path) \(.runtime.path)"' <<<"$j")" \
	    "/x/state/airlock /x/config/airlock /x/run/airlock"
else
	echo "# SKIP the ordinary-user rules: need root and setpriv to become nobody"
fi

# No hard-coded host paths in the C sources (the agent's in-sandbox
# /run/airlock, SANDBOX_BROKER_DIR, is not the host's).
hits=$(grep -rnE '"/var/lib/airlock|"/run/airlock|"/etc/airlock' \
    --include='*.c' --include='*.h' "$top_srcdir"/common "$top_srcdir"/broker \
    "$top_srcdir"/supervisor "$top_srcdir"/runner "$top_srcdir"/policy \
    "$top_srcdir"/proxy | grep -v 'SANDBOX_BROKER_DIR')
expect_eq "no hard-coded host state, runtime or config paths in C" "$hits" ""
finish
