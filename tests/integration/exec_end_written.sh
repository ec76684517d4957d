#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec's exit status leaves once exec_end and session_end are
# written, signed and chained, as a broker's reply does; the audit
# writer syncs them right after (docs/AUDIT.md).  With "sync exec-end"
# in audit.conf it waits for the sync too, and a failed sync is said and
# cut back.  Attacked by slowing and failing the writer's sync with
# strace, attached to the spare writer that serves the exec (its
# fdatasync; by default the wait for the sync it had the kernel start
# before its answer, io_getevents):
# - by default a slow sync does not hold the status, the records are in
#   the file when airlock exec returns, and a failed sync retires the
#   writer (the next exec forks one of its own, whose exec_start must be
#   synced before its command runs);
# - with "sync exec-end", a slow sync holds the status, and a failed one
#   is reported and the log cut back to exec_start.
# The empty cgroups and the upper layer are dropped by the writer after
# the exec: none is left behind.
. "$top_srcdir/tests/lib.sh"
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
ws=$(make_workspace)
cd "$ws" || exit 1
export AIRLOCK_CONFIG_DIR="$T/conf"
mkdir -p "$AIRLOCK_CONFIG_DIR"
ST=$AIRLOCK_HOME

has_spare() { spare_pid >/dev/null; }
ms() { date +%s%3N; }
events() { jq -r .event "$1" | tr '\n' ' '; }

# trace_spare INJECT: makes a spare (an exec of its own), attaches strace
# to it with the fdatasync or io_getevents INJECT, and sets $sp and
# $tracer.
trace_spare() {
	"$AIRLOCK" exec -- /bin/true || return 1
	wait_for has_spare || return 1
	sp=$(spare_pid)
	strace -qq -p "$sp" -o "$T/trace" -e trace=fdatasync,io_getevents -e inject="$1" &
	tracer=$!
	# Attached once the tracer shows in the spare's status.
	wait_for sh -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$sp/status"
}
untrace() { kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null; }

# 1. Default: the wait for exec_end's sync held 3 s.  (exec_start's is
# an fdatasync, before the command may run.)
trace_spare io_getevents:delay_enter=3000000:when=1
check "a spare writer to serve the exec" [ -n "$sp" ]
t0=$(ms)
"$AIRLOCK" exec -- /bin/sh -c 'exit 5' &
xpid=$!
wait "$xpid"
rc=$?
t1=$(ms)
expect_eq "a slow exec_end sync: the status passes through" "$rc" 5
check "...without waiting for the sync ($((t1 - t0)) ms < 2000)" [ $((t1 - t0)) -lt 2000 ]
log=$(newest_session_log "$ST")
expect_eq "...and the records are written when it returns" "$(events "$log")" \
    "session_start exec_start exec_end session_end "
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "...and verify" "$?" 0
check "...the writer synced them after" wait_for grep -q 'io_getevents.*= 1 (DELAYED)' "$T/trace"
untrace
check "...and stays on as a spare" wait_for has_spare
# (Its own, airlock-PID-SEQ: other runs on the machine have theirs.)
left=$(find /sys/fs/cgroup -maxdepth 4 -name "airlock-$xpid-*" -type d 2>/dev/null | wc -l)
expect_eq "...having removed the exec's empty cgroups" "$left" 0

# 2. Default: exec_end's sync fails after the answer.  The status is
# the command's; the writer cannot say so on the exec's stderr (it has
# gone), so it says it to syslog and retires: the next exec forks a
# writer of its own.
trace_spare io_getevents:error=EIO:when=1
old=$sp
"$AIRLOCK" exec -- /bin/sh -c 'exit 3' 2>"$T/err"
expect_eq "a failed exec_end sync after the answer: the command's status" "$?" 3
wait_for grep -q 'io_getevents.*EIO' "$T/trace"
check "...the sync failed" grep -q 'io_getevents.*EIO' "$T/trace"
gone() { [ ! -d "/proc/$old" ] || grep -q '^State:.*Z' "/proc/$old/status"; }
check "...and that writer retires rather than stay a spare" wait_for gone
untrace
"$AIRLOCK" exec -- /bin/sh -c 'exit 4'
expect_eq "...and the next exec runs with a writer of its own" "$?" 4
log=$(newest_session_log "$ST")
expect_eq "...whose log is whole" "$(events "$log")" \
    "session_start exec_start exec_end session_end "

# 3. "sync exec-end": the status waits for the sync.
# (A "#" word begins a comment.)
echo "sync exec-end   # the status waits" >"$AIRLOCK_CONFIG_DIR/audit.conf"
trace_spare fdatasync:delay_enter=2000000:when=2
t0=$(ms)
"$AIRLOCK" exec -- /bin/sh -c 'exit 6'
rc=$?
t1=$(ms)
untrace
expect_eq "sync exec-end: the status passes through" "$rc" 6
check "...once the slow sync is done ($((t1 - t0)) ms >= 2000)" [ $((t1 - t0)) -ge 2000 ]

# ...and a failed sync is said, and the log cut back to exec_start.
trace_spare fdatasync:error=EIO:when=2
"$AIRLOCK" exec -- /bin/sh -c 'exit 3' 2>"$T/err"
expect_eq "sync exec-end, the sync failing: the command's status" "$?" 3
untrace
expect_contains "...and airlock exec says the log was not written" \
    "$(cat "$T/err")" "exec: cannot write the audit log"
log=$(newest_session_log "$ST")
expect_eq "...which was cut back to exec_start" "$(events "$log")" \
    "session_start exec_start "

# A line audit.conf does not know stops the exec, naming it.
echo "sync everything" >"$AIRLOCK_CONFIG_DIR/audit.conf"
"$AIRLOCK" exec -- /bin/sh -c "echo ran > $ws/ran" 2>"$T/err"
check "an unknown sync word: exec fails" [ "$?" -ne 0 ]
check "...and the command did not run" [ ! -e "$ws/ran" ]
expect_contains "...saying why" "$(cat "$T/err")" "sync takes one word: exec-end"
finish
