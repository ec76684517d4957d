#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Issue 18: each sandbox layer's refusal is known exactly and `airlock
# exec` prints it ("airlock: denied: ...") while the command sees the
# same error as before and the exit status is unchanged.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"
cp "$top_builddir/tests/escape/probe" "$ws/probe"
chown -R 65534:65534 "$ws"
cd "$ws" || exit 1

run() {
	out=$("$AIRLOCK" exec "$@" 2>&1)
	status=$?
}

# Seccomp: the refused call is named, the command still got EPERM.
run -- ./probe syscall keyctl native
expect_contains "keyctl_still_sees_eperm" "$out" "keyctl: errno=EPERM"
expect_contains "keyctl_is_reported_by_name" "$out" \
    "airlock: denied: syscall keyctl (seccomp)"
AIRLOCK_SECCOMP_NOTIFY=off "$AIRLOCK" exec -- ./probe syscall keyctl native \
    >/dev/null 2>&1
expect_eq "keyctl_exit_status_unchanged" "$status" "$?"

# Conditional rules too (unshare -U through a child of the command).
run -- sh -c './probe syscall unshare native; ./probe syscall socket native'
expect_contains "unshare_sees_eperm" "$out" "unshare: errno=EPERM"
expect_contains "unshare_reported" "$out" "denied: syscall unshare (seccomp)"
expect_contains "netlink_socket_sees_eperm" "$out" "socket: errno=EPERM"
expect_contains "netlink_socket_reported" "$out" \
    "denied: syscall socket (seccomp)"

# The listener never reaches the sandbox: nothing inside can answer (or
# let through) its own refused calls.
run -- sh -c 'for p in /proc/[0-9]*; do ls -l "$p/fd/" 2>&1; done'
expect_contains "fd_listing_ran" "$out" " 2 -> "
expect_not_contains "no_listener_in_the_sandbox" "$out" "seccomp"

# The listener is made before RLIMIT_NOFILE applies: a caller holding
# more descriptors than the limit (as the broker does with many runs in
# flight) still gets the refusal recorded, and the run is not refused.
run_fds() {
	exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null \
	    8</dev/null 9</dev/null
	"$AIRLOCK" exec --limit nofile=6 -- ./probe syscall keyctl native
}
out=$(run_fds 2>&1)
expect_contains "low_nofile_still_eperm" "$out" "keyctl: errno=EPERM"
expect_contains "low_nofile_still_recorded" "$out" \
    "denied: syscall keyctl (seccomp)"

# Many refusals of one call: one line, and no slowdown to speak of.
run -- sh -c 'for i in $(seq 200); do :; done; python3 -c "
import ctypes
l = ctypes.CDLL(None, use_errno=True)
for i in range(2000):
    l.syscall(250, 0, 0, 0, 0, 0)
print(\"done\", ctypes.get_errno())
"'
expect_contains "many_refusals_all_eperm" "$out" "done 1"
lines=$(printf '%s\n' "$out" | grep -c "denied: syscall keyctl")
expect_eq "many_refusals_one_line" "$lines" 1

# clone3 keeps its ENOSYS (libc falls back to clone) and is no denial.
run -- ./probe syscall clone3 native
expect_contains "clone3_still_enosys" "$out" "clone3: errno=ENOSYS"
expect_not_contains "clone3_is_not_a_denial" "$out" "denied:"

# A plain command: no denial line at all.
run -- sh -c 'echo fine; ls / >/dev/null'
expect_eq "clean_run_status" "$status" 0
expect_not_contains "clean_run_has_no_denials" "$out" "denied:"

# With notifications off, the refusal stays (EPERM), only the record goes.
out=$(AIRLOCK_SECCOMP_NOTIFY=off "$AIRLOCK" exec -- ./probe syscall keyctl \
    native 2>&1)
expect_contains "notify_off_still_eperm" "$out" "keyctl: errno=EPERM"
expect_not_contains "notify_off_records_nothing" "$out" "denied:"

# A foreign ABI is killed (SIGSYS), not notified.  Which call it was
# comes from the kernel log when audit prints it (unit-tested in
# test_runner_denials: kernel audit is off on some hosts).  A kernel
# without the 32-bit entry (IA-32 emulation off: some VMs) faults on
# int 0x80 (SIGSEGV) before any filter sees it, on the host as here.
./probe syscall getpid i386 >/dev/null 2>&1
if [ "$?" -eq 139 ]; then
	want_i386=139
	echo "# int 0x80 faults on this host (no IA-32 emulation): expecting SIGSEGV"
else
	want_i386=159
fi
run -- ./probe syscall getpid i386
expect_eq "i386_call_killed" "$status" "$want_i386"
expect_not_contains "i386_call_never_returns" "$out" "returned"
expect_not_contains "i386_call_not_a_notification" "$out" \
    "denied: syscall getpid"

# Filesystem: the command's own report, checked against the policy.
# (Not beneath /tmp: the sandbox's /tmp is its own.)
hostdir=$(mktemp -d /var/tmp/airlock-denials.XXXXXX)
# Searchable by the runner's user: a path it could not find on the host
# is no denial (denial_existence.sh).
chmod 755 "$hostdir"
secret="$hostdir/host-only-secret"
echo s > "$secret"
run -- cat "$secret"
expect_contains "host_file_not_bound_still_enoent" "$out" \
    "No such file or directory"
expect_contains "host_file_read_reported" "$out" \
    "airlock: denied: filesystem read $secret (mount)"
expect_eq "host_file_status_unchanged" "$status" 1
run -- touch /usr/airlock-denial-test
expect_contains "usr_write_still_erofs" "$out" "Read-only file system"
expect_contains "usr_write_reported" "$out" \
    "denied: filesystem write /usr/airlock-denial-test (mount)"
run -- python3 -c 'open("/usr/lib/airlock-denial-py", "w")'
expect_contains "python_write_reported" "$out" \
    "denied: filesystem write /usr/lib/airlock-denial-py (mount)"
run --deny-read /etc/passwd -- cat /etc/passwd
expect_contains "deny_read_reported" "$out" \
    "denied: filesystem read /etc/passwd (mount)"
# Negatives: a missing file in the workspace; a path printed that the
# policy allows; a forged report is only as wide as the path it names.
run -- cat "$ws/not-there"
expect_not_contains "missing_workspace_file_no_denial" "$out" "denied:"
run -- sh -c 'echo "cat: /etc/passwd: Permission denied" >&2; cat /etc/passwd >/dev/null'
expect_not_contains "allowed_path_no_denial" "$out" "denied:"
run -- sh -c 'echo "cat: /etc/shadow: Permission denied" >&2; exit 1'
expect_contains "forged_report_names_only_the_path" "$out" \
    "denied: filesystem read /etc/shadow (mount)"
lines=$(printf '%s\n' "$out" | grep -c "denied:")
expect_eq "forged_report_one_entry" "$lines" 1
# Escaped: a path with a terminal escape is shown, not obeyed.
touch "$hostdir/$(printf 'x\033[2Jy')"
run -- sh -c "printf 'cat: $hostdir/x\\033[2Jy: No such file or directory\\n' >&2"
line=$(printf '%s\n' "$out" | grep "denied:")
expect_contains "escaped_path_reported" "$line" \
    "denied: filesystem read $hostdir/x\\e[2Jy (mount)"
expect_not_contains "escape_not_printed_raw" "$line" "$(printf '\033')"

rm -rf "$hostdir"

# Limits, each with the value in force.
run --limit memory=64 -- ./probe memory-bomb
expect_eq "memory_limit_killed" "$status" 137
expect_contains "memory_limit_reported" "$out" \
    "airlock: denied: limit memory 64 (cgroup)"

marker="airlock-denial-bomb-$$"
run --timeout 3000 --limit nproc=32 -- ./probe fork-bomb "$marker"
expect_contains "pids_limit_reported" "$out" \
    "denied: limit processes 32 (cgroup)"

run --timeout 300 -- sleep 10
expect_eq "timeout_status_unchanged" "$status" 124
expect_contains "timeout_reported" "$out" \
    "denied: limit wallClock 300 (timeout)"

run --limit cpu=1 -- sh -c 'while :; do :; done'
expect_eq "cpu_limit_status_unchanged" "$status" 152
expect_contains "cpu_limit_reported" "$out" "denied: limit cpu 1 (rlimit)"

run --limit fsize=1 -- sh -c 'head -c 3000000 /dev/zero > big'
expect_eq "fsize_status_unchanged" "$status" 153
expect_contains "fsize_limit_reported_via_shell" "$out" \
    "denied: limit fileSize 1 (rlimit)"
rm -f big
run --limit fsize=1 -- dd if=/dev/zero of=big bs=1M count=3
expect_eq "fsize_signal_status_unchanged" "$status" 153
expect_contains "fsize_limit_reported" "$out" \
    "denied: limit fileSize 1 (rlimit)"
rm -f big

finish
