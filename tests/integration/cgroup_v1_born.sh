#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# cgroup v1 placement (runner/cgroup.c): the runner's child is born in its
# memory, pids and cpu cgroups.  The supervisor's thread moves itself into
# them ("0" to each tasks file, which takes no cgroup_threadgroup_rwsem and
# so waits for no RCU grace period), clones, and moves back: no
# cgroup.procs write.  While the command runs, the supervisor is back in
# its own cgroups and the command in the runner's, under its limits from
# its first instruction.  When the supervisor cannot move in (a tasks file
# it cannot open, injected with strace), the child is attached by a
# cgroup.procs write instead; when it cannot move back, the child is
# killed and the run fails before the command starts.
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

# 2. How: "0" to the runner cgroups' tasks files, clone, "0" back to ours;
#    no cgroup.procs is opened.
# One file per thread (-ff): airlock's other threads (the audit writer,
# the network namespace's maker) would split the supervisor's lines.
strace -ff -qq -e trace=openat,write,clone,clone3 -o "$T/st2" \
    "$AIRLOCK" exec -- true 2>"$T/err2"
expect_eq "traced: the run succeeds" "$?" 0
sup=$(grep -l 'clone(.*CLONE_NEWPID' "$T"/st2.* | head -n 1)
check "the supervisor opens its runner memory cgroup's tasks file" \
    grep -qE "openat\(AT_FDCWD, \"$base/airlock-[0-9]+-[0-9]+/tasks\", O_WRONLY" "$sup"
check "and writes itself (\"0\") into it" grep -qE '^write\([0-9]+, "0", 1\) += 1$' "$sup"
check "no cgroup.procs is opened (no attach)" bash -c "! cat '$T'/st2.* | grep -q 'cgroup.procs'"
order=$(awk '/write\([0-9]+, "0", 1\)/ { fd = $1; sub(/^write\(/, "", fd); sub(/,.*/, "", fd); seq = seq (fd in inf ? "i" : (fd in backf ? "b" : "?")) }
	/clone\(.*CLONE_NEWPID/ { seq = seq "C" }
	/= [0-9]+$/ && /\/tasks", O_WRONLY/ { fd = $NF; if ($0 ~ /airlock-/) inf[fd] = 1; else backf[fd] = 1 }
	END { print seq }' "$sup")
expect_eq "moves in to each cgroup, clones, moves back from each (i=in, C=clone, b=back)" "$order" "iiiCbbb"

# 3. Limits hold from birth: a memory limit kills the command, counted by
#    the runner's cgroup.
"$AIRLOCK" exec --limit memory=32 -- python3 -c 'x = bytearray(256 << 20)' 2>"$T/err3"
expect_eq "over a 32 MB memory limit: killed (137)" "$?" 137
expect_contains "by the cgroup" "$(cat "$T/err3")" "memory limit of 32 MB reached (cgroup)"

# 4. Moving in refused (our own tasks file cannot be opened, so no way
#    back): the child is attached by a cgroup.procs write instead.
strace -f -qq -P "$base/tasks" -e trace=openat -e inject=openat:error=EACCES \
    -o "$T/st4" "$AIRLOCK" exec --rw "$io" -- sh -c "echo ran >'$io/ran4'" 2>"$T/err4"
expect_eq "no way back: the run still succeeds" "$?" 0
check "the command ran" grep -qx ran "$io/ran4"
check "the refusal was injected" grep -q 'EACCES (Permission denied) (INJECTED)' "$T/st4"
strace -f -qq -P "$base/tasks" -e trace=openat -e inject=openat:error=EACCES \
    -o "$T/st4b" "$AIRLOCK" exec --limit memory=32 -- python3 -c 'x = bytearray(256 << 20)' 2>"$T/err4b"
expect_eq "attached instead: a memory limit still kills (137)" "$?" 137
expect_contains "counted by the runner's cgroup" "$(cat "$T/err4b")" "memory limit of 32 MB reached (cgroup)"

# 5. Moving back refused: the child is killed before the command starts,
#    the run fails and says why.
rm -f "$io/ran5"
strace -f -qq -P "$base/tasks" -e trace=write -e inject=write:error=EIO \
    -o "$T/st5" "$AIRLOCK" exec --rw "$io" -- sh -c "echo ran >'$io/ran5'" 2>"$T/err5"
rc=$?
check "cannot move back: the run fails" test "$rc" -ne 0
expect_contains "saying so" "$(cat "$T/err5")" "cannot leave a runner's cgroup"
check "the command never ran" test ! -e "$io/ran5"
check "nothing of it is left" bash -c "! pgrep -f '^sh -c echo ran' >/dev/null"
# The supervisor that could not move back has exited: its cgroups are
# empty and a later run removes them (its own: airlock-PID-N, PID the
# supervisor's, the first process in its trace; other tests' runs may be
# live beside this one).
sup5=$(head -n 1 "$T/st5" | cut -d' ' -f1)
"$AIRLOCK" exec -- true
check "a later run removes the cgroups it left (airlock-$sup5-*)" \
    bash -c "[ -n '$sup5' ] && ! ls -d '$base'/airlock-$sup5-* 2>/dev/null | grep -q ."
finish
