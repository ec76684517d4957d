#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Runner cgroups are named airlock-PID-SEQ (runner/cgroup.c).  Pids wrap
# (pid_max is 32768 on a small machine), so a new airlock can have the pid
# of an earlier one that was killed and left its cgroups behind: empty (no
# one removed them yet) or still in use (a process of that run lives on).
# Neither may stop or weaken the new run.  A taken name used to leave the
# run without that cgroup: with a limit asked for, a refusal (exit 71,
# "no cgroup controller is delegated"); without, no cgroup at all.  Now an
# empty one is removed and an in-use one is stepped over, and the command
# runs in a cgroup of its own: on the host's cgroup v1 hierarchies
# (memory, pids) and on a cgroup2 hierarchy (AIRLOCK_CGROUP2_ROOT, mounted
# privately).  The pid is made known with a pid namespace of our own whose
# next pid is set (ns_last_pid): airlock is its pid P, the pid of this
# script in ours (so that another airlock, which sees pid P alive, leaves
# these cgroups alone).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "writing cgroups and ns_last_pid needs root"
unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces (unshare -pf)"
unset AIRLOCK_CGROUP2_ROOT AIRLOCK_CGROUP_ATTACH AIRLOCK_CGROUP2_ATTACH
self=$(realpath "$0")
ws=$(make_workspace)
io="$T/io"; mkdir "$io"
chmod 777 "$io"	# the command's uid reads there
cd "$ws" || exit 1
P=$$

# The names the earlier pid P left: every name a run of three
# cgroups (memory, pids, cpu) could take first.
STALE="0 1 2 3"

# Processes that hold the stale cgroups in use: holder K is in
# airlock-$P-K of each hierarchy.
holders=""
at_exit 'kill $holders 2>/dev/null'

# run_as_p ARGS...: airlock exec ARGS -- (a command that waits on
# $io/go) as pid P of a new pid namespace, in the background (its
# status in $T/rc, what it said in $T/err).
run_as_p() {
	rm -f "$io/go" "$T/rc"
	mkfifo "$io/go"
	# shellcheck disable=SC2016 # expanded by that shell
	unshare -pf --mount-proc env AIRLOCK_EXEC_SPARE=0 "${envs[@]}" sh -c \
	    'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid && shift && "$@"; echo $? >"$0"' \
	    "$T/rc" "$P" "$AIRLOCK" exec --rw "$io" "$@" -- \
	    sh -c "read x <'$io/go'" >/dev/null 2>"$T/err" &
	runner=$!
}

# in_own_cgroup DIR [SKIP]: a cgroup of pid P with a process in it (the
# command's, while it waits) is in DIR, other than airlock-$P-K for the
# K in SKIP (the in-use old ones).
in_own_cgroup() {
	local c n
	for c in "$1/airlock-$P-"*; do
		n=${c##*-}
		case " ${2:-} " in *" $n "*) continue ;; esac
		grep -q . "$c/cgroup.procs" 2>/dev/null && return 0
	done
	return 1
}

# go: lets the command end, once it reads (in the background: a run that
# was refused has no reader; run_checked stops it once the run is over).
go() {
	# shellcheck disable=SC2016 # expanded by that shell
	timeout 60 sh -c 'echo go >"$1"' sh "$io/go" &
	gopid=$!
}

# run_checked WHAT DIRS LIMITS SKIP: a run as pid P with LIMITS has a
# cgroup of its own in each of DIRS (not one of the SKIP names), and
# succeeds without a word.
run_checked() {
	local d
	# shellcheck disable=SC2086 # options, one a word
	run_as_p $3
	for d in $2; do
		check "$1: the command runs in a cgroup of its own in $d" \
		    wait_for in_own_cgroup "$d" "$4"
	done
	go
	wait "$runner"
	kill "$gopid" 2>/dev/null
	wait "$gopid" 2>/dev/null
	expect_eq "$1: ...and the run succeeds" "$(cat "$T/rc")" 0
	expect_eq "$1: ...saying nothing" "$(cat "$T/err")" ""
}

# stale_cases NAME DIRS LIMITS: both cases in the hierarchies' DIRS (one
# string), with airlock exec's LIMITS (one string of options).
stale_cases() {
	local hier=$1 dirs=$2 limits=$3 d k h
	# (What a killed run of this test left, unless still in use.)
	for d in $dirs; do rmdir "$d"/airlock-$P-* 2>/dev/null; done

	# Empty cgroups of an earlier pid P.
	for d in $dirs; do for k in $STALE; do mkdir "$d/airlock-$P-$k"; done; done
	run_checked "$hier: beside empty old cgroups" "$dirs" "$limits" ""
	for d in $dirs; do
		check "$hier: the old empty cgroups in $d are gone, and the run's own" \
		    bash -c "! ls -d '$d'/airlock-$P-* 2>/dev/null"
	done

	# Old cgroups still in use: they stay, and the run takes other names.
	for k in $STALE; do
		sleep 600 >/dev/null 2>&1 &
		h=$!
		disown "$h"
		holders="$holders $h"
		for d in $dirs; do
			mkdir "$d/airlock-$P-$k"
			echo "$h" >"$d/airlock-$P-$k/cgroup.procs"
		done
	done
	run_checked "$hier: beside in-use old cgroups" "$dirs" "$limits" "$STALE"
	for d in $dirs; do
		check "$hier: the in-use cgroups in $d are left alone, the run's own removed" \
		    test "$(find "$d" -maxdepth 1 -name "airlock-$P-*" | wc -l)" -eq 4
	done
	# shellcheck disable=SC2086 # one pid a word
	kill $holders
	for d in $dirs; do
		for k in $STALE; do
			wait_for rmdir "$d/airlock-$P-$k" 2>/dev/null
		done
	done
	holders=""
}

# 2. (In a private mount namespace: the script again, with "v2".)  A
#    cgroup2 hierarchy mounted here, a directory of ours in it as
#    AIRLOCK_CGROUP2_ROOT.  (Without limits: where v1 holds the memory
#    and pids controllers, as here, the hierarchy has neither.)
if [ "${1:-}" = v2 ]; then
	mkdir "$T/cg2"
	mount -t cgroup2 none "$T/cg2" 2>"$T/merr" ||
	    skip "no cgroup2 hierarchy can be mounted here: $(cat "$T/merr")"
	root="$T/cg2/airlock-test-$$"
	mkdir "$root"
	at_exit 'kill $holders 2>/dev/null; rmdir "$root"; end_writers_in_T; umount "$T/cg2"'
	envs=(AIRLOCK_CGROUP2_ROOT="$root")
	stale_cases "v2" "$root" ""
	finish
	exit
fi

# 1. The host's cgroup v1 memory and pids hierarchies, both limits asked.
v1_dir() {
	local own
	own=$(awk -F: -v c="$1" '$2 ~ "(^|,)" c "(,|$)" {print $3}' /proc/self/cgroup)
	[ -n "$own" ] && [ -w "/sys/fs/cgroup/$1${own%/}/tasks" ] &&
	    echo "/sys/fs/cgroup/$1${own%/}"
}
mem=$(v1_dir memory) pids=$(v1_dir pids)
envs=()
if [ -n "$mem" ] && [ -n "$pids" ]; then
	stale_cases "v1" "$mem $pids" "--limit memory=256 --limit nproc=64"
else
	echo "# no writable cgroup v1 memory and pids hierarchies (a cgroup v2 host): v1 not tried"
fi

unshare -m --propagation private bash "$self" v2 >"$T/v2.out" 2>&1
st=$?
cat "$T/v2.out"
expect_eq "the cgroup2 cases (above) ran and passed" "$st" 0
finish
