#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A session's first records are synced with the names that lead to them:
# the log's entry in its session directory and the session directory's
# own in STATE/sessions (made there by airlock serve and a forked exec
# writer, moved there from STATE/spare by an adopted spare).  On a file
# system that does not journal metadata (ext4 without a journal, as on
# the machines this is tested on), a power loss could otherwise leave a
# synced log where no name leads, or under STATE/spare where no command
# looks (broker/audit.c, sync_parent()).  Checked with strace: after the
# log's first fdatasync, each of the two directories is opened and
# fsync'd, by every kind of session.  The host key's files are named as
# durably when they are made or rotated (supervisor/hostkey.c): a
# session certified by a key that a power loss took back would no
# longer verify.
. "$top_srcdir/tests/lib.sh"
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
ws=$(make_workspace)
cd "$ws" || exit 1
ST=$AIRLOCK_HOME

# The traces are taken with strace -y, which prints each descriptor's
# path: "fsync(5</state/sessions>)", whole on the line that starts the
# call even when another process's line cuts it ("<unfinished ...>").
TRACE="-f -qq -y -e trace=fsync,fdatasync"

# synced TRACE DIR: DIR was fsync'd after a fdatasync, by the same process
# (strace -f lines: "PID call").
synced() {
	awk -v dir="<$2>" '
	$2 ~ /^fdatasync\(/ { data[$1] = 1 }
	$2 ~ /^fsync\(/ && data[$1] && index($2, dir) { found = 1 }
	END { exit !found }' "$1"
}

# dir_synced TRACE DIR: DIR was fsync'd.
dir_synced() {
	awk -v dir="<$2>" '$2 ~ /^fsync\(/ && index($2, dir) { found = 1 }
	END { exit !found }' "$1"
}

# 1. An exec whose writer is forked (no spare), the first command of
# this state directory: it makes the host key too.
check "no host key yet" [ ! -e "$ST/keys/audit.key" ]
# shellcheck disable=SC2086
AIRLOCK_EXEC_SPARE=0 strace $TRACE -o "$T/fork.trace" "$AIRLOCK" exec -- /bin/true
expect_eq "an exec with a forked writer runs" "$?" 0
check "...the host key it made is named durably (keys/ synced)" \
    dir_synced "$T/fork.trace" "$ST/keys"
check "...and keys/ itself (STATE synced)" dir_synced "$T/fork.trace" "$ST"
log=$(newest_session_log "$ST")
check "...its session's directory is synced" synced "$T/fork.trace" "$(dirname "$log")"
check "...and STATE/sessions, which names it" synced "$T/fork.trace" "$ST/sessions"

# 2. An exec served by a spare writer (traced while it waits).
"$AIRLOCK" exec -- /bin/true
has_spare() { spare_pid >/dev/null; }
wait_for has_spare
sp=$(spare_pid)
check "a spare writer waits" [ -n "$sp" ]
# shellcheck disable=SC2086
strace $TRACE -p "$sp" -o "$T/spare.trace" &
tracer=$!
wait_for sh -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$sp/status"
"$AIRLOCK" exec -- /bin/true
expect_eq "an exec served by the spare runs" "$?" 0
kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null
log=$(newest_session_log "$ST")
check "...its session's directory (moved from STATE/spare) is synced" \
    synced "$T/spare.trace" "$(dirname "$log")"
check "...and STATE/sessions, where it was moved" synced "$T/spare.trace" "$ST/sessions"

# 3. A broker session (airlock serve).
# shellcheck disable=SC2086
strace $TRACE -o "$T/serve.trace" "$AIRLOCK" serve --workspace "$ws" </dev/null >/dev/null 2>"$T/serve.err"
expect_eq "airlock serve starts and ends" "$?" 0
log=$(newest_session_log "$ST")
check "...its session's directory is synced" synced "$T/serve.trace" "$(dirname "$log")"
check "...and STATE/sessions" synced "$T/serve.trace" "$ST/sessions"

# 4. A rotated host key: renamed into place, the new one listed.
# shellcheck disable=SC2086
strace $TRACE -o "$T/rotate.trace" "$AIRLOCK" audit key --rotate >/dev/null 2>"$T/rotate.err"
expect_eq "airlock audit key --rotate" "$?" 0
check "...keys/ is synced after the rename" dir_synced "$T/rotate.trace" "$ST/keys"

finish
