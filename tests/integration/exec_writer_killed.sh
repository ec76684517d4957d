#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec exits once its end records are written; the audit writer
# syncs them after its answer (docs/AUDIT.md).  A spare writer killed
# after that answer (SIGKILL: the OOM killer, a kill of every process of
# the user) never made its sync: the end records stayed in the page
# cache, for the kernel's writeback, 30 s later, and a power loss within
# them left a log that verifies as a session that did not end, after an
# exec that had exited with its command's status.  Now the writer has the
# kernel start the sync before it answers (AIO), and the kernel finishes
# it whatever becomes of the writer.  Attacked on a journal-less ext4 in
# a file (a loop device): the spare serving the exec is held after its
# answer (strace) and SIGKILLed there; the file system as it is on its
# device (debugfs on the image, the page cache's dirty pages not in it)
# must hold exec_end and session_end.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a loop device needs root"
for c in strace mkfs.ext4 debugfs; do
	command -v "$c" >/dev/null ||
	    { echo "Bail out! $c is needed (Debian packages strace, e2fsprogs)"; exit 99; }
done
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ "${1:-}" != inner ]; then
	unshare -m --propagation private bash "$(realpath "$0")" inner
	st=$?
	TESTS_FINISHED=1
	exit "$st"
fi
img="$T/img"
truncate -s 64M "$img"
mkfs.ext4 -q -F -O ^has_journal "$img" >"$T/merr" 2>&1 ||
    skip "mkfs.ext4: $(cat "$T/merr")"
mkdir "$T/fs"
mount -o loop "$img" "$T/fs" 2>"$T/merr" ||
    skip "no loop device can be mounted here: $(cat "$T/merr")"
tracer=""
at_exit 'kill $tracer 2>/dev/null; end_writers_in_T; umount "$T/fs"'
export AIRLOCK_HOME="$T/fs/state" AIRLOCK_EXEC_SPARE=10
ST=$AIRLOCK_HOME
ws=$(make_workspace)
cd "$ws" || exit 1
has_spare() { spare_pid >/dev/null; }

"$AIRLOCK" exec -- true
check "a spare writer waits for the next exec" wait_for has_spare
sp=$(spare_pid)
sync -f "$T/fs"
# Held after its answer: its sync (exec_start's is the first fdatasync),
# or its wait for the one it had the kernel start.
strace -qq -p "$sp" -o "$T/trace" -e trace=fdatasync,io_getevents \
    -e inject=fdatasync:delay_enter=1000000:when=2 \
    -e inject=io_getevents:delay_enter=1000000:when=1 &
tracer=$!
wait_for sh -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$sp/status"
"$AIRLOCK" exec -- sh -c 'exit 5'
expect_eq "the exec served by the spare returns its command's status" "$?" 5
kill -KILL "$sp"
gone() { [ ! -d "/proc/$sp" ] || grep -q '^State:.*Z' "/proc/$sp/status"; }
check "...and its writer is killed after its answer" wait_for gone
# (Not waited for: a tracee killed in a delay can leave strace stuck.)
kill -KILL "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
tracer=""
log=$(newest_session_log "$ST")
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "the log verifies" "$?" 0
ino=$(stat -c %i "$log")
on_disk=$(debugfs -R "cat <$ino>" "$img" 2>/dev/null | jq -r .event 2>/dev/null | tr '\n' ' ')
expect_eq "...and its end records are on the disk, not only in the page cache" \
    "$on_disk" "session_start exec_start exec_end session_end "
finish
