#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# cgroup v1 placement (runner/cgroup.c): the runner's child joins its
# memory, pids and cpu cgroups itself before anything of the command's
# runs.  The supervisor clones first, makes the cgroups while the child
# builds its root, and hands it their tasks files; the child writes "0"
# to each (a thread moving only itself takes no cgroup_threadgroup_rwsem
# and so waits for no RCU grace period) and takes a cgroup namespace
# rooted there: no cgroup.procs write, and the supervisor never enters
# them.  While the command runs, the supervisor is in its own cgroups and
# the command in the runner's, under its limits from its first
# instruction.  A child the kernel refuses to move (a real-time one,
# under chrt: the cpu cgroup has no real-time budget) fails the run
# before the command starts, and says why.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "writing the host's cgroup v1 hierarchies needs root"
command -v strace >/dev/null || skip "strace is not installed"
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
base="/sys/fs/cgroup/memory${own%/}"
[ -n "$own" ] && [ -w "$base/tasks" ] ||
    skip "no writable cgroup v1 memory hierarchy (cgroup v2 hosts: cgroup_v2_clone.sh)"
case $(uname -r) in
[0-5].*|6.0|6.0.*) skip "Linux $(uname -r): a thread moving itself takes the rwsem before 6.1" ;;
esac
# LeakSanitizer cannot run under ptrace (a sanitizer build's airlock would
# exit 1): leaks are checked by the other tests of that build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
unset AIRLOCK_CGROUP2_ROOT AIRLOCK_CGROUP_ATTACH AIRLOCK_CGROUP2_ATTACH
ws=$(make_workspace)
io="$T/io"; mkdir "$io"; mkfifo "$io/go"
chmod 777 "$io"	# the command's uid writes there
cd "$ws" || exit 1
memcg_of() { awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$1/cgroup" 2>/dev/null; }
command_pid() { pgrep -f "^sh -c cat /proc/self/cgroup" | head -1; }

# 1. While the command runs: it is in a runner cgroup beneath ours, the
#    supervisor in its own; the command's cgroup namespace is rooted at
#    its cgroup.
"$AIRLOCK" exec --rw "$io" -- sh -c "cat /proc/self/cgroup >'$io/seen'; read x <'$io/go'; echo done" \
    >"$T/out1" 2>"$T/err1" &
run=$!
# (Once it has written what it sees: until then its fork for cat matches.)
if wait_for test -s "$io/seen" && wait_for command_pid >/dev/null; then
	cmd=$(command_pid)
	expect_contains "the command is in a runner cgroup beneath the supervisor's" \
	    "$(memcg_of "$cmd")" "${own%/}/airlock-$run-"
	expect_eq "the supervisor is back in its own memory cgroup" "$(memcg_of "$run")" "$own"
	check "and in its own pids cgroup (not a runner's)" \
	    bash -c "! grep -q ':pids:.*airlock-' /proc/$run/cgroup"
	check "inside, its memory cgroup is the root of its cgroup namespace" \
	    grep -qx '[0-9]*:memory:/' "$io/seen"
else
	fail "the command starts"
fi
echo go >"$io/go"
wait "$run"
expect_eq "the run succeeds" "$?" 0
expect_contains "and its output is there" "$(cat "$T/out1")" "done"

# 2. How: the supervisor clones, then makes the cgroups and opens their
#    tasks files, and writes to none of them; the child writes "0" to
#    each and unshares its cgroup namespace; no cgroup.procs is opened.
# One file per process and thread (-ff).  No spare: one lends the
# cgroups it made ahead (exec_reuse.sh), and this is the path without.
AIRLOCK_EXEC_SPARE=0 strace -ff -qq -e trace=openat,write,clone,clone3,mkdir,unshare -o "$T/st2" \
    "$AIRLOCK" exec -- true 2>"$T/err2"
rc=$?
expect_eq "traced: the run succeeds" "$rc" 0
[ "$rc" -eq 0 ] || sed 's/^/# stderr: /' "$T/err2"
sup=$(grep -l 'clone(.*CLONE_NEWPID' "$T"/st2.* | head -n 1)
child=$(grep -l 'unshare(CLONE_NEWCGROUP)' "$T"/st2.* | head -n 1)
order=$(awk '/clone\(.*CLONE_NEWPID/ { seq = seq "C" }
	/^mkdir\(".*\/airlock-[0-9]+-[0-9]+"/ { seq = seq "m" }
	END { print seq }' "$sup")
expect_eq "the supervisor clones, then makes the three cgroups (C=clone, m=mkdir)" "$order" "Cmmm"
check "and opens its runner memory cgroup's tasks file" \
    grep -qE "openat\(AT_FDCWD, \"$base/airlock-[0-9]+-[0-9]+/tasks\", O_WRONLY" "$sup"
check "but never moves itself" bash -c "! grep -qE '^write\([0-9]+, \"0\", 1\)' '$sup'"
check "the child is another process" test -n "$child" -a "$child" != "$sup"
expect_eq "the child writes itself (\"0\") into each" \
    "$(grep -cE '^write\([0-9]+, "0", 1\) += 1$' "$child")" 3
check "then takes a cgroup namespace of its own" grep -qE 'unshare\(CLONE_NEWCGROUP\) += 0' "$child"
check "before the command starts" bash -c "! grep -q 'execve' '$child'"
check "no cgroup.procs is opened (no attach)" bash -c "! cat '$T'/st2.* | grep -q 'cgroup.procs'"

# 3. Limits hold from birth: a memory limit kills the command, counted by
#    the runner's cgroup.
"$AIRLOCK" exec --limit memory=32 -- python3 -c 'x = bytearray(256 << 20)' 2>"$T/err3"
expect_eq "over a 32 MB memory limit: killed (137)" "$?" 137
expect_contains "by the cgroup" "$(cat "$T/err3")" "memory limit of 32 MB reached (cgroup)"

# 4. AIRLOCK_CGROUP_ATTACH=1: the supervisor attaches the child itself
#    (a cgroup.procs write), as where a thread cannot move itself
#    cheaply; limits hold the same.
AIRLOCK_CGROUP_ATTACH=1 strace -f -qq -e trace=openat -o "$T/st4" \
    "$AIRLOCK" exec --limit memory=32 -- python3 -c 'x = bytearray(256 << 20)' 2>"$T/err4"
expect_eq "attached: a memory limit still kills (137)" "$?" 137
expect_contains "counted by the runner's cgroup" "$(cat "$T/err4")" "memory limit of 32 MB reached (cgroup)"
check "through cgroup.procs" grep -q "airlock-[0-9]*-[0-9]*/cgroup.procs" "$T/st4"

# 5. The kernel refuses to move the child (real-time, under chrt: the
#    runner's cpu cgroup has no real-time budget): the run fails before
#    the command starts, and says why.
rm -f "$io/ran5"
chrt -f 1 "$AIRLOCK" exec --rw "$io" -- sh -c "echo ran >'$io/ran5'" 2>"$T/err5" &
sup5=$!
wait "$sup5"
rc=$?
check "cannot join: the run fails" test "$rc" -ne 0
expect_contains "saying so" "$(cat "$T/err5")" "join the runner's cgroup: Invalid argument"
check "the command never ran" test ! -e "$io/ran5"
check "nothing of it is left" bash -c "! pgrep -f '^sh -c echo ran' >/dev/null"
check "and its cgroups are gone (airlock-$sup5-*)" \
    bash -c "! ls -d '$base'/airlock-$sup5-* 2>/dev/null | grep -q ."
# 6. An ordinary user whose cgroups are delegated to it (owned by it, as
#    a systemd unit with Delegate=yes leaves them): its child joins them
#    from inside its own user namespace (the files opened outside, by the
#    supervisor), under the same limits.
U=4242
deleg="airlock-test-$$"
dirs="$base/$deleg"
for c in pids cpu; do
	if [ -w "/sys/fs/cgroup/$c/tasks" ]; then
		dirs="$dirs /sys/fs/cgroup/$c/$deleg"
	fi
done
cleanup_deleg() {
	pkill -9 -u "$U" 2>/dev/null
	sleep 0.2
	for d in $dirs; do
		rmdir "$d"/airlock-* 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
}
if mkdir $dirs && chown -R "$U:$U" $dirs; then
	mkdir -p "$T/ws$U" "$T/st$U"
	chown "$U:$U" "$T/ws$U" "$T/st$U"
	chmod 755 "$T"
	# A shell of its own moved into them, which then becomes the user.
	sh -c 'for d in '"$dirs"'; do echo $$ >"$d/cgroup.procs"; done
		cd "$1" && exec setpriv --reuid="$2" --regid="$2" --clear-groups \
		    env -u AIRLOCK_HOME HOME="$3" XDG_STATE_HOME="$3" XDG_RUNTIME_DIR="$3" \
		    sh -c "\"\$0\" exec --limit memory=32 -- python3 -c \"x = bytearray(256 << 20)\"; echo rc=\$?; \"\$0\" exec -- cat /proc/self/cgroup" "$4"' \
	    _ "$T/ws$U" "$U" "$T/st$U" "$AIRLOCK" >"$T/out6" 2>"$T/err6"
	expect_contains "uid $U, delegated: a memory limit kills (137)" "$(cat "$T/out6")" "rc=137"
	expect_contains "counted by its runner's cgroup" "$(cat "$T/err6")" "memory limit of 32 MB reached (cgroup)"
	check "its command's memory cgroup is the root of its cgroup namespace" \
	    grep -qx '[0-9]*:memory:/' "$T/out6"
else
	fail "delegating cgroups to uid $U"
fi
cleanup_deleg

finish
