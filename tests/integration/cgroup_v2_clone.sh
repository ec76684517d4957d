#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# cgroup v2 placement (runner/cgroup.c): on a private cgroup2 hierarchy
# (AIRLOCK_CGROUP2_ROOT), the runner's child is born in its cgroup with
# clone3(CLONE_INTO_CGROUP): no cgroup.procs write.  When clone3 is refused
# (ENOSYS or EPERM, as an outer seccomp filter answers; injected with
# strace), the child is attached with a cgroup.procs write instead and the
# run still happens in its cgroup.  A timeout kills the whole cgroup
# through cgroup.kill.  /sys/fs/cgroup is never written: the hierarchy is
# mounted on a temporary directory in a private mount namespace.  (v1:
# cgroup_v1_born.sh.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

skip() { echo "SKIP: $*"; TESTS_FINISHED=1; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting a cgroup2 hierarchy needs root"
command -v strace >/dev/null || skip "strace is not installed"
# LeakSanitizer cannot run under ptrace (a sanitizer build's airlock would
# exit 1): leaks are checked by the other tests of that build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mnt="$T/cg2"
mkdir -p "$mnt"
# Re-run inside a private mount namespace with the hierarchy mounted.
if [ -z "${CG2_INNER:-}" ]; then
	unshare -m --propagation private true 2>/dev/null ||
	    skip "no mount namespaces (unshare -m)"
	TESTS_FINISHED=1
	exec unshare -m --propagation private env CG2_INNER="$T" \
	    bash "$0" "$@"
fi
rm -rf "$T"; T=$CG2_INNER; mnt="$T/cg2"
mount -t cgroup2 none "$mnt" 2>"$T/merr" ||
    skip "no cgroup2 hierarchy can be mounted here: $(cat "$T/merr")"
root="$mnt/airlock-test-$$"
mkdir "$root"
at_exit 'rmdir "$root"/airlock-* "$root" 2>/dev/null; umount "$mnt"'
export AIRLOCK_CGROUP2_ROOT="$root"
ws=$(make_workspace)
io="$T/io"; mkdir "$io"; mkfifo "$io/go"
cd "$ws" || exit 1
procs_nonempty() {
	local f
	for f in "$root"/airlock-*/cgroup.procs; do
		grep -q . "$f" 2>/dev/null && return 0	# size 0 on cgroupfs
	done
	return 1
}

# 1. Born in its cgroup: the command runs there (seen from outside), and
#    the supervisor neither opened a cgroup.procs nor wrote one.
strace -f -qq -e trace=clone3,openat -o "$T/st1" \
    "$AIRLOCK" exec --rw "$io" -- sh -c "read x <'$io/go'; echo done" \
    >"$T/out1" 2>"$T/err1" &
run=$!
command_in_cgroup() {	# the command, once it runs, is in that cgroup
	local cgdir p
	cgdir=$(dirname "$(grep -l . "$root"/airlock-*/cgroup.procs | head -1)")
	for p in $(cat "$cgdir/cgroup.procs" 2>/dev/null); do
		grep -q "$io/go" "/proc/$p/cmdline" 2>/dev/null && return 0
	done
	return 1
}
if wait_for procs_nonempty; then
	pass "the command runs in a cgroup beneath AIRLOCK_CGROUP2_ROOT"
	check "the command itself is in it" wait_for command_in_cgroup
else
	fail "the command runs in a cgroup beneath AIRLOCK_CGROUP2_ROOT"
fi
echo go >"$io/go"
wait "$run"
rc=$?
expect_eq "the run succeeds" "$rc" 0
expect_contains "and its output is there" "$(cat "$T/out1")" "done"
st=$(cat "$T/st1")
expect_contains "the child is made by clone3 with CLONE_INTO_CGROUP" \
    "$st" "CLONE_INTO_CGROUP"
# (strace -f may split the line: the result can be on a "resumed" line)
check "which did not fail" bash -c "! grep -E 'clone3\\(.*= -1 E|clone3 resumed>.*= -1 E' '$T/st1'"
check "no cgroup.procs is opened (no attach)" \
    bash -c "! grep -q 'cgroup.procs' '$T/st1'"
check "the runner's cgroup is removed afterwards" \
    bash -c "! ls -d '$root'/airlock-* 2>/dev/null"

# 2. clone3 refused as an outer seccomp filter would: ENOSYS, then EPERM.
for e in ENOSYS EPERM; do
	strace -f -qq -e trace=clone,clone3,openat,write -e inject=clone3:error=$e \
	    -o "$T/st2" "$AIRLOCK" exec -- sh -c 'echo ran' >"$T/out2" 2>"$T/err2"
	rc=$?
	expect_eq "clone3 refused with $e: the run still succeeds" "$rc" 0
	expect_contains "clone3 refused with $e: the command ran" "$(cat "$T/out2")" ran
	check "clone3 refused with $e: it was tried" \
	    grep -qE "(clone3\(|clone3 resumed>).*= -1 $e .*INJECTED" "$T/st2"
	check "clone3 refused with $e: the child is attached by a cgroup.procs write" \
	    grep -qE "openat\(.*$root/airlock-[0-9]+-[0-9]+/cgroup.procs\", O_WRONLY" "$T/st2"
	check "clone3 refused with $e: and the open did not fail" \
	    bash -c "! grep -E 'cgroup.procs.*= -1 E' '$T/st2'"
done

# 3. A timeout kills the whole cgroup through cgroup.kill.
strace -f -qq -e trace=openat -o "$T/st3" "$AIRLOCK" exec --timeout 300 -- \
    sh -c 'sleep 1000 & sleep 1000 & wait' >/dev/null 2>"$T/err3"
rc=$?
expect_eq "the timeout ends the run (exit 124)" "$rc" 124
# (strace -f may split the line: "<unfinished ...>" then "resumed")
check "cgroup.kill is opened for writing" \
    grep -qE "openat\(.*$root/airlock-[0-9]+-[0-9]+/cgroup.kill\", O_WRONLY" "$T/st3"
check "and the open did not fail" \
    bash -c "! grep -E 'cgroup.kill.*= -1 E' '$T/st3'"
check "nothing of the tree is left" bash -c "! pgrep -f '^sleep 1000$' >/dev/null"
check "and its cgroup is removed" bash -c "! ls -d '$root'/airlock-* 2>/dev/null"

# 4. A value that is not a cgroup2 directory: no cgroup, said so; a limit
#    asked for is refused (limits.enforce: required).
AIRLOCK_CGROUP2_ROOT="$T" "$AIRLOCK" exec --limit memory=64 -- true 2>"$T/err4"
rc=$?
check "a bad AIRLOCK_CGROUP2_ROOT: a memory limit asked for is refused" test "$rc" -ne 0
expect_contains "naming the variable" "$(cat "$T/err4")" "AIRLOCK_CGROUP2_ROOT=$T is not a writable cgroup2 directory"

finish
