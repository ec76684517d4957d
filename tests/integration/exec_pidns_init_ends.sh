#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec exits once its end records are written; its audit writer
# syncs them and removes the exec's empty cgroups after (docs/AUDIT.md).
# In a pid namespace whose init ends with airlock exec (a container whose
# entrypoint runs it, "unshare -pf sh -c 'airlock exec ...'"), the kernel
# kills the writer as the init exits: the sync never came and the
# cgroups were left behind, one set each run (named with the pid in that
# namespace, which a later airlock outside it sees alive and never
# collects).  Now, outside the initial pid namespace, airlock exec syncs
# the records and removes its cgroups itself before it exits, as before.
# Attacked with the writer's deferred sync held 1 s (strace) and a
# cgroup2 hierarchy mounted privately (AIRLOCK_CGROUP2_ROOT).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a cgroup2 hierarchy needs root"
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces (unshare -pf)"
if [ "${1:-}" != inner ]; then
	unshare -m --propagation private bash "$(realpath "$0")" inner
	st=$?
	TESTS_FINISHED=1
	exit "$st"
fi
mkdir "$T/cg2"
mount -t cgroup2 none "$T/cg2" 2>"$T/merr" ||
    skip "no cgroup2 hierarchy can be mounted here: $(cat "$T/merr")"
root="$T/cg2/airlock-test-$$"
mkdir "$root"
trap 'rmdir "$root"/airlock-* "$root" 2>/dev/null; umount "$T/cg2"; rm -rf "$T"; [ "$TESTS_FINISHED" = 1 ] || { echo "not ok - the test script ended before finish"; exit 1; }' EXIT
export AIRLOCK_CGROUP2_ROOT="$root"
ws=$(make_workspace)
cd "$ws" || exit 1

# airlock exec in a new pid namespace, whose init (sh) exits after it.
# Each process's second fdatasync is held 1 s: the writer's deferred one
# (its first is exec_start's).
strace -f -qq -o "$T/trace" -e trace=fdatasync,exit_group \
    -e inject=fdatasync:delay_enter=1000000:when=2 \
    unshare -pf --mount-proc sh -c '"$0" exec -- sh -c "exit 7"; echo "rc=$?"' \
    "$AIRLOCK" >"$T/out" 2>"$T/err"
expect_eq "the command's status passes through" "$(cat "$T/out")" "rc=7"
log=$(newest_session_log "$AIRLOCK_HOME")
expect_eq "the end records are written" "$(jq -r .event "$log" | tr '\n' ' ')" \
    "session_start exec_start exec_end session_end "
synced=$(grep -cE 'fdatasync(\(| resumed>).*= 0$' "$T/trace")
check "the end records were synced before the namespace ended ($synced syncs done, exec_start's and one more)" \
    [ "$synced" -ge 2 ]
check "...and no cgroup of the exec's is left behind" \
    sh -c "! ls -d '$root'/airlock-* 2>/dev/null"
finish
