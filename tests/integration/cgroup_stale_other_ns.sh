#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# collect_stale() (runner/cgroup.c) removes the empty airlock-PID-SEQ
# cgroups of airlock processes that are gone.  An airlock in another pid
# namespace sharing the hierarchy (another container, unshare -p) cannot
# tell a gone pid from one it does not see: it removed a live airlock's
# cgroup between its mkdir and its child's join, and that run failed
# with exit 71 (seen in CI: this test's neighbour cgroup_pid_reuse.sh
# runs airlock under unshare -p while cgroup_v1_born.sh runs under
# strace).  Now a pid it cannot see has its empty cgroup removed only
# once that is a minute old.
#
# Attacked: a live process's empty cgroup (as a run's is before its child
# joins) beside airlock exec run in a new pid namespace, on the host's
# cgroup v1 memory hierarchy where it is writable, and on a cgroup2
# hierarchy mounted privately (AIRLOCK_CGROUP2_ROOT); the young one
# stays, one a minute old (its mtime set back) of a gone pid still goes.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "making cgroups and pid namespaces needs root"
unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces (unshare -pf)"
if [ "${1:-}" != inner ]; then
	unshare -m --propagation private bash "$(realpath "$0")" inner
	st=$?
	TESTS_FINISHED=1
	exit "$st"
fi
unset AIRLOCK_CGROUP2_ROOT AIRLOCK_CGROUP_ATTACH AIRLOCK_CGROUP2_ATTACH
ws=$(make_workspace)
cd "$ws" || exit 1
sleep 600 &
live=$!
# A pid no process has: one that just ended.
sh -c 'exit 0' &
gone=$!
wait "$gone"
mkdir "$T/cg2"
at_exit 'kill $live 2>/dev/null; for d in "$T"/cg2/airlock-test-*/airlock-* "$T"/cg2/airlock-test-* $made; do rmdir "$d" 2>/dev/null; done; umount "$T/cg2" 2>/dev/null'
made=""

# attack WHERE DIR [CGROUP2_ROOT]: the cgroups in DIR, then airlock exec
# as pid 1's child in a new pid namespace (where $live and $gone are not
# seen).
attack() {
	local where=$1 young="$2/airlock-$live-0" old="$2/airlock-$gone-0"
	local young_gone="$2/airlock-$gone-1"
	mkdir "$young" "$old" "$young_gone" || { fail "$where: the cgroups are made"; return; }
	made="$made $young $old $young_gone"
	touch -m -d '2 minutes ago' "$old"
	unshare -pf --mount-proc env ${3:+AIRLOCK_CGROUP2_ROOT="$3"} \
	    "$AIRLOCK" exec -- true 2>"$T/err"
	expect_eq "$where: the run in another pid namespace succeeds" "$?" 0
	check "$where: a live airlock's young empty cgroup is left alone" test -d "$young"
	check "$where: so is a young one of a gone pid" test -d "$young_gone"
	check "$where: one a minute old of a gone pid is removed" test ! -e "$old"
	# And from this pid namespace: the live one stays, the gone one
	# still waits for its minute.
	env ${3:+AIRLOCK_CGROUP2_ROOT="$3"} AIRLOCK_EXEC_SPARE=0 \
	    "$AIRLOCK" exec -- true 2>>"$T/err"
	check "$where: here too, the live one's stays" test -d "$young"
	check "$where: and the young one of a gone pid" test -d "$young_gone"
	rmdir "$young" "$young_gone" 2>/dev/null
}

# 1. The host's cgroup v1 memory hierarchy, under our own cgroup.
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
base="/sys/fs/cgroup/memory${own%/}"
if [ -n "$own" ] && [ -w "$base/tasks" ]; then
	attack "cgroup v1" "$base"
else
	echo "# no writable cgroup v1 memory hierarchy here: the cgroup2 case only"
fi

# 2. A cgroup2 hierarchy mounted here, a directory of ours in it.
mount -t cgroup2 none "$T/cg2" 2>"$T/merr" ||
    skip "no cgroup2 hierarchy can be mounted here: $(cat "$T/merr")"
root="$T/cg2/airlock-test-$$"
mkdir "$root"
attack "cgroup2" "$root" "$root"
finish
