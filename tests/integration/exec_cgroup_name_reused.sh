#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec hands its empty cgroups to its audit writer, which removes
# them after the exec has exited (exec_audit_rmdir(): the parent
# directory and the name).  By then the exec's pid may be another
# airlock's (pids wrap; another pid namespace), whose collect_stale()
# removes a cgroup named airlock-PID-* with its own pid and whose
# make_dir() takes the same name again for its own run (runner/cgroup.c).
# The writer used to remove that new cgroup by its name: while empty
# (before the new run's command is placed in it) it went, and the new run
# failed ("joining the runner's cgroup").  Now the exec hands the
# directory's inode with its name and the writer removes only that
# directory.  Attacked on a cgroup2 hierarchy mounted privately
# (AIRLOCK_CGROUP2_ROOT): the writer is kept waiting for the exec to let
# go (a copy of the exec's end of its socket, taken with pidfd_getfd()),
# the exec exits, and the name is taken again as a new airlock with its
# pid would (rmdir, mkdir); then the writer is let go.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a cgroup2 hierarchy and pidfd_getfd() need root"
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
holder=""
trap 'kill $holder 2>/dev/null; rmdir "$root"/airlock-* "$root" 2>/dev/null; umount "$T/cg2"; rm -rf "$T"; [ "$TESTS_FINISHED" = 1 ] || { echo "not ok - the test script ended before finish"; exit 1; }' EXIT
export AIRLOCK_CGROUP2_ROOT="$root" AIRLOCK_EXEC_SPARE=5
ws=$(make_workspace)
io="$T/io"; mkdir "$io"; chmod 777 "$io"
cd "$ws" || exit 1

# The exec, its command waiting on $io/go.
mkfifo "$io/go"
"$AIRLOCK" exec --rw "$io" -- sh -c "read x <'$io/go'" >/dev/null 2>"$T/err" &
xpid=$!
cgroup="$root/airlock-$xpid-0"
busy() { grep -q . "$cgroup/cgroup.procs" 2>/dev/null; }
check "the command runs in the exec's cgroup" wait_for busy

# Copies of the exec's sockets (its end of the writer's among them),
# held until killed.
python3 - "$xpid" "$T/held" <<'PY' &
import ctypes, os, signal, sys
pid = int(sys.argv[1])
pfd = os.pidfd_open(pid)
libc = ctypes.CDLL(None, use_errno=True)
held = []
for fd in os.listdir("/proc/%d/fd" % pid):
    try:
        target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
    except OSError:
        continue
    if target.startswith("socket:"):
        r = libc.syscall(438, pfd, int(fd), 0)  # pidfd_getfd
        if r >= 0:
            held.append(r)
with open(sys.argv[2], "w") as f:
    f.write("%d\n" % len(held))
signal.pause()
PY
holder=$!
check "a copy of the exec's sockets is held" wait_for test -s "$T/held"

echo go >"$io/go"
wait "$xpid"
expect_eq "the exec ends with its command's status" "$?" 0
check "...its cgroup empty, not yet removed (the writer waits)" test -d "$cgroup"

# A new airlock with the exec's pid: collect_stale() removes the empty
# cgroup of that name, make_dir() makes it again for its own run.
rmdir "$cgroup" && mkdir "$cgroup"
check "the name is another run's now" test -d "$cgroup"
ino=$(stat -c %i "$cgroup")

# The writer is let go: it removes what the exec handed it, and makes
# the next session ahead (then it is done with that exec).
kill "$holder"
wait "$holder" 2>/dev/null
holder=""
spare_ready() { ls "$AIRLOCK_HOME"/spare/*/spare.jsonl >/dev/null 2>&1; }
check "the writer has let the exec go" wait_for spare_ready
check "...and left the other run's cgroup of the same name alone" \
    test "$(stat -c %i "$cgroup" 2>/dev/null)" = "$ino"
rmdir "$cgroup" 2>/dev/null

# Without a name taken again, the exec's cgroups are still removed.
"$AIRLOCK" exec -- true
check "the next exec's empty cgroup is removed by its writer" \
    wait_for sh -c "! ls -d '$root'/airlock-* >/dev/null 2>&1"
finish
