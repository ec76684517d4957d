#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An exec's audit writer stays on as a spare (exec_spare.h) unless it is
# traced: strace -f waits for every process it follows, so a traced
# exec would take the spare's seconds to return.  The writer read its
# TracerPid, which names the tracer as the writer's /proc sees it: 0 for
# a tracer outside the writer's pid namespace.  Attacked: a pid namespace
# that outlives the exec (a container's init), and from outside it
# "strace -f nsenter -p -m ... airlock exec": the strace waited the whole
# AIRLOCK_EXEC_SPARE time.  Now it returns at once, and an exec there
# untraced still leaves its spare.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "nsenter into a pid namespace needs root"
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces (unshare -pf)"
# LeakSanitizer cannot run under ptrace.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export AIRLOCK_EXEC_SPARE=10
ws=$(make_workspace)

# The namespace's init, a sleep that outlives each exec; its /proc is
# the namespace's own.
unshare -pf -m --propagation private --mount-proc --kill-child \
    sleep 60 </dev/null >/dev/null 2>&1 &
holder=$!
disown "$holder"
ns=""
# (unshare ignores SIGTERM, and the namespace's init every signal but
# SIGKILL.)
at_exit 'kill -KILL $ns $holder 2>/dev/null'
init_pid() { pgrep -P "$holder" >/dev/null; }
check "the pid namespace is up" wait_for init_pid
ns=$(pgrep -P "$holder")
inside() { nsenter -t "$ns" -p -m "$@"; }
writers() { inside ps -e -o comm= | grep -c '^airlock-writer$'; }

start=$(date +%s%N)
timeout 20 strace -f -qq -o /dev/null nsenter -t "$ns" -p -m \
    sh -c 'cd "$1" && "$2" exec -- true' sh "$ws" "$AIRLOCK"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "the traced exec in the namespace ran" "$rc" 0
check "...and strace returned at once, not after the spare's 10 s ($ms ms)" \
    [ "$ms" -lt 5000 ]
expect_eq "...no writer stays behind in the namespace" "$(writers)" 0

inside sh -c 'cd "$1" && "$2" exec -- true' sh "$ws" "$AIRLOCK"
expect_eq "an untraced exec there ran" "$?" 0
expect_eq "...and its writer stays on as a spare" "$(writers)" 1
finish
