#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock suggest and a system call of the default seccomp deny list
# that its own list of dangerous ones lacked.  The agent's tool calls
# mount_setattr (changes the flags of mounts: the read-only binds) from
# inside its real sandbox; seccomp refuses it and the runner records the
# denial.  suggest flagged mount, move_mount, fsmount... but not
# mount_setattr, fspick, fsconfig, io_uring_*, open_by_handle_at and the
# rest of the profile's deny list, so --apply took it off the list
# without --allow-weakening.  Every name the default profile refuses
# outright is there for what it opens: each must be flagged WEAKENS.
# And --apply on a manifest named through a symbolic link writes the file
# the link leads to, not a copy in the link's place.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }
cp "$T/m.yaml" "$T/m.orig"
# mount_setattr(2) is 442 on every architecture (the new syscall table).
printf '%s\n' "python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(442, -1, 0, 0, 0))'" >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
expect_eq "the run's mount_setattr is refused by seccomp, and recorded" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .source, .syscall]')" \
    '["syscall","seccomp","mount_setattr"]'
mcp_stop
S=$(newest_session)

out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_eq "suggest reads the session" "$rc" 0
expect_contains "it proposes the system call" "$out" "+    - mount_setattr"
expect_contains "... flagged" "$(cat "$T/err")" \
    "WEAKENS: sandbox.allowSyscalls: mount_setattr is a dangerous system call"
"$AIRLOCK" suggest --apply --plan "$plan" "$S" >/dev/null 2>"$T/err"; rc=$?
expect_eq "--apply refuses it without --allow-weakening" "$rc" 1
expect_contains "... saying why" "$(cat "$T/err")" "not applied: 1 change(s) weaken a protected class"
check "... and the manifest is unchanged" cmp -s "$T/m.yaml" "$T/m.orig"

# A manifest named through a symbolic link (a project's link to the
# team's policy file): --apply replaced the link with a copy, the file it
# led to unchanged, and the project left the team's policy silently.  The
# link is resolved once: the review names the file that will change, and
# --apply writes that file, beside itself, with its mode.
ln -s m.yaml "$T/link.yaml"
chmod 640 "$T/m.yaml"
out=$("$AIRLOCK" suggest --manifest "$T/link.yaml" "$S" 2>"$T/err")
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_contains "a linked manifest: the diff names the file it leads to" \
    "$out" "+++ $T/m.yaml"
expect_contains "... and says so" "$(cat "$T/err")" \
    "$T/link.yaml is a symbolic link: the change is to $T/m.yaml"
"$AIRLOCK" suggest --manifest "$T/link.yaml" --apply --allow-weakening \
    --plan "$plan" "$S" >/dev/null 2>"$T/err"; rc=$?
expect_eq "--apply writes it" "$rc" 0
check "... the link is still the link" test -L "$T/link.yaml"
check "... the file it leads to has the change" grep -q mount_setattr "$T/m.yaml"
expect_eq "... with its mode" "$(stat -c %a "$T/m.yaml")" 640
expect_eq "... and nothing is left beside either" \
    "$(ls "$T" | grep -c suggest)" 0
finish
