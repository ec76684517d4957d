#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec runs a command in a sandbox and passes its status through.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws/sub/.git" "$ws/.git"
chown -R 65534:65534 "$ws"
chmod 777 "$ws"

out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo hello; pwd' 2>&1)
expect_contains "exec_prints_stdout" "$out" "hello"
expect_contains "exec_starts_in_workspace" "$out" "$ws"
(cd "$ws/sub" && "$AIRLOCK" exec --workspace "$ws" -- pwd) > "$T/pwd.out" 2>&1
expect_eq "exec_keeps_relative_cwd" "$(cat "$T/pwd.out")" "$ws/sub"

"$AIRLOCK" exec --workspace "$ws" -- sh -c 'exit 7'
expect_eq "exit_status_passes_through" "$?" 7
"$AIRLOCK" exec --workspace "$ws" -- sh -c 'kill -TERM $$'
expect_eq "signal_becomes_128_plus_signal" "$?" 143
"$AIRLOCK" exec --workspace "$ws" -- no-such-command-xyz 2>/dev/null
expect_eq "missing_command_is_127" "$?" 127
out=$("$AIRLOCK" exec --workspace "$ws" --timeout 200 -- sleep 5 2>&1)
expect_eq "timeout_is_124" "$?" 124
expect_contains "timeout_is_explained" "$out" "timed out after 200 ms"
out=$("$AIRLOCK" exec --workspace "$ws" --read-only relative/path -- true 2>&1)
expect_eq "bad_policy_is_a_sandbox_error" "$?" 71
expect_contains "bad_policy_is_explained" "$out" "not absolute"
out=$(echo piped | "$AIRLOCK" exec --workspace "$ws" -- cat)
expect_eq "stdin_passes_through" "$out" "piped"
out=$("$AIRLOCK" exec -v --workspace "$ws" -- true 2>&1)
expect_contains "all_layers_reported" "$out" \
    "userns,mountns,pidns,netns,ipcns,utsns,cgroupns,seccomp,landlock,nocaps,nnp,rlimits,cgroup"
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'hostname; ls /proc | grep -c "^[0-9]"' 2>&1)
expect_contains "own_uts_namespace" "$out" "airlock"
out=$("$AIRLOCK" exec --workspace "$ws" --strict -- sh -c 'echo strict ok' 2>&1)
expect_contains "strict_seccomp_profile_runs_a_shell" "$out" "strict ok"
"$AIRLOCK" exec --workspace "$ws" --limit bogus=1 -- true 2>/dev/null
expect_eq "bad_limit_is_usage_error" "$?" 64

# Copy-on-write workspace: the command writes, the workspace stays as it was.
echo original > "$ws/cow.txt"
chmod 666 "$ws/cow.txt"
# A root-owned file, as in a checkout airlock (root) works on: the runner
# (uid 65534) changes it in the copy-on-write layer only.
rootws="$T/root-ws"
mkdir -p "$rootws"
chmod 755 "$T" "$rootws"
echo root-owned > "$rootws/cow-root.txt"
chown 0:0 "$rootws" "$rootws/cow-root.txt"
chmod 644 "$rootws/cow-root.txt"
out=$("$AIRLOCK" exec --cow --workspace "$rootws" -- sh -c \
    'echo edited >> cow-root.txt && cat cow-root.txt && echo new > made.txt && cat made.txt' 2>&1)
expect_contains "cow_runner_edits_a_root_owned_file" "$out" "edited"
expect_contains "cow_runner_creates_in_a_root_owned_workspace" "$out" "new"
expect_eq "cow_root_owned_file_unchanged_on_host" "$(cat "$rootws/cow-root.txt")" "root-owned"
check "cow_created_nothing_on_host" test ! -e "$rootws/made.txt"
out=$("$AIRLOCK" exec --cow --workspace "$ws" -- sh -c \
    'echo changed > cow.txt; echo fresh > cow-new.txt; cat cow.txt cow-new.txt; touch .git/x' 2>&1)
expect_contains "cow_command_sees_its_writes" "$out" "changed"
expect_contains "cow_command_creates_files" "$out" "fresh"
expect_contains "cow_keeps_git_read_only" "$out" "Read-only file system"
expect_eq "cow_leaves_workspace_file_unchanged" "$(cat "$ws/cow.txt")" "original"
check "cow_leaves_no_new_file" test ! -e "$ws/cow-new.txt"
# An ordinary user has a home of its own: each exec keeps an audit log in
# its state directory (airlock-exec(1), AUDIT).
mkdir -p "$T/u12345" && chown 12345:12345 "$T/u12345" && chmod 755 "$T"
out=$(setpriv --reuid 12345 --regid 12345 --clear-groups env -u AIRLOCK_HOME HOME="$T/u12345" "$AIRLOCK" exec --cow \
    --workspace "$ws" -- sh -c 'echo u > cow-user.txt && cat cow-user.txt' 2>&1)
expect_contains "cow_works_for_an_ordinary_user" "$out" "u"
check "cow_for_an_ordinary_user_leaves_no_file" test ! -e "$ws/cow-user.txt"

# As an ordinary user: that user is mapped, nothing else.
out=$(setpriv --reuid 12345 --regid 12345 --clear-groups env -u AIRLOCK_HOME HOME="$T/u12345" "$AIRLOCK" exec -v \
    --workspace "$ws" -- sh -c 'id -u; cat /proc/self/uid_map /proc/self/setgroups' 2>&1)
expect_contains "unprivileged_caller_runs_as_itself" "$out" "12345"
expect_contains "unprivileged_caller_maps_only_its_uid" "$out" "12345      12345          1"
expect_contains "unprivileged_caller_setgroups_denied" "$out" "deny"
expect_contains "unprivileged_caller_still_gets_seccomp_and_landlock" "$out" "seccomp,landlock,nocaps,nnp"
# Owner of its user namespace, the child has every capability in it until
# it drops them: neither the command nor the sandbox's init (pid 1, which
# never execs, so nothing else clears its sets) may keep one.
out=$(setpriv --reuid 12345 --regid 12345 --clear-groups env -u AIRLOCK_HOME HOME="$T/u12345" "$AIRLOCK" exec \
    --workspace "$ws" -- sh -c 'for p in self 1; do sed -n "s/^\(Cap[A-Za-z]*\):[[:space:]]*/$p \1 /p" /proc/$p/status; done' 2>&1)
for p in self 1; do
	for set in Inh Prm Eff Bnd Amb; do
		expect_contains "unprivileged_caller_${p}_has_no_Cap$set" "$out" "$p Cap$set 0000000000000000"
	done
done

prof=$("$AIRLOCK" profile --seatbelt --workspace "$ws")
expect_contains "profile_prints_seatbelt" "$prof" "(deny default)"
wsre=$(printf '%s' "/private$ws" | sed 's/[.]/\\./g')	# as a regex
expect_contains "profile_protects_git" "$prof" "(deny file-write* (regex #\"^$wsre(/.*)?/\\.[Gg][Ii][Tt](/.*)?\$\"))"

finish
