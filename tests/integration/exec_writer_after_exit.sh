#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec exits once its end records are written; its audit writer
# syncs them and removes the exec's empty cgroups after it has exited
# (exec_audit_rmdir(): the parent directory and the name; docs/AUDIT.md).
# On a cgroup2 hierarchy mounted privately (AIRLOCK_CGROUP2_ROOT):
#
# 1. By then the exec's pid may be another airlock's (pids wrap; another
#    pid namespace), whose collect_stale() removes a cgroup named
#    airlock-PID-* with its own pid and whose make_dir() takes the same
#    name again for its own run (runner/cgroup.c).  The writer used to
#    remove that new cgroup by its name: while empty (before the new
#    run's command is placed in it) it went, and the new run failed
#    ("joining the runner's cgroup").  Now the exec hands the directory's
#    inode with its name and the writer removes only that directory.
#    Attacked with the writer kept waiting for the exec to let go (a copy
#    of the exec's end of its socket, taken with pidfd_getfd()): the exec
#    exits, the name is taken again as a new airlock with its pid would
#    (rmdir, mkdir), then the writer is let go.
# 2. In a pid namespace whose init ends with airlock exec (a container
#    whose entrypoint runs it, "unshare -pf sh -c 'airlock exec ...'"),
#    the kernel kills the writer as the init exits: the sync never came
#    and the cgroups were left behind, one set each run (named with a pid
#    of that namespace, which an airlock outside it sees alive and never
#    collects).  Now, outside the initial pid namespace, airlock exec
#    syncs the records and removes its cgroups itself before it exits.
#    Attacked with the writer's deferred sync held 1 s (strace); the
#    trace shows the exec itself removing its cgroups (a traced writer
#    makes no spare, so the exec waits for it and a cgroup left to it
#    would be removed in time here, but not in a real container).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a cgroup2 hierarchy and pidfd_getfd() need root"
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
# LeakSanitizer cannot run under ptrace (a sanitizer build's airlock would
# exit 1): leaks are checked by the other tests of that build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
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
holder=""
at_exit 'kill $holder 2>/dev/null; rmdir "$root"/airlock-* "$root" 2>/dev/null; umount "$T/cg2"'
export AIRLOCK_CGROUP2_ROOT="$root" AIRLOCK_EXEC_SPARE=5
ws=$(make_workspace)
io="$T/io"; mkdir "$io"; chmod 777 "$io"
cd "$ws" || exit 1

# 1. The exec, its command waiting on $io/go.
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

# 2. airlock exec in a new pid namespace, whose init (sh) exits after it.
# Each process's second fdatasync is held 1 s: the writer's deferred one
# (its first is exec_start's).
strace -f -qq -o "$T/trace" -e trace=fdatasync,mkdir,unlinkat,exit_group \
    -e inject=fdatasync:delay_enter=1000000:when=2 \
    unshare -pf --mount-proc sh -c '"$0" exec -- sh -c "exit 7"; echo "rc=$?"' \
    "$AIRLOCK" >"$T/out" 2>"$T/err"
expect_eq "in a pid namespace that ends with it: the command's status passes through" "$(cat "$T/out")" "rc=7"
log=$(newest_session_log "$AIRLOCK_HOME")
expect_eq "...the end records are written" "$(jq -r .event "$log" | tr '\n' ' ')" \
    "session_start exec_start exec_end session_end "
synced=$(grep -cE 'fdatasync(\(| resumed>).*= 0$' "$T/trace")
check "...and synced before the namespace ended ($synced syncs done, exec_start's and one more)" \
    [ "$synced" -ge 2 ]
check "...and no cgroup of the exec's is left behind" \
    sh -c "! ls -d '$root'/airlock-* 2>/dev/null"
# (The process that made the cgroups is the exec.  A call another
# process interrupts is printed in two lines: its start is matched.)
xpid=$(grep -E '^[0-9]+ +mkdir\(".*/airlock-[0-9]+-[0-9]+"' "$T/trace" | head -n 1 | awk '{ print $1 }')
check "...removed by the exec itself, not left to its writer" \
    grep -qE "^${xpid:-none} +unlinkat\(.*airlock-[0-9]+-[0-9]+\", AT_REMOVEDIR" "$T/trace"
finish
