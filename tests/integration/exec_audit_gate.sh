#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec writes its exec_start record in a process of its own while
# the sandbox is built, and the command starts only once the record is on
# the disk.  Attacked here by failing the record: early (no session
# directory can be made) and late (the disk refuses exec_start's
# fdatasync, injected with strace, after the sandbox's first process
# exists).  Either way the command must not run, airlock exits 71 naming
# the audit log, and a record that was written is followed by an
# exec_end saying the setup failed.
. "$top_srcdir/tests/lib.sh"
ws=$(make_workspace)
command -v strace >/dev/null || { echo "Bail out! strace is needed (Debian package strace)"; exit 99; }
# LeakSanitizer cannot run under ptrace (a sanitizer build's airlock would
# exit 1): leaks are checked by the other tests of that build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# Healthy: the command runs and the log has start, end, session_end.
export AIRLOCK_HOME="$T/state"
"$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c "echo ran > $ws/ran" 2>"$T/err"
expect_eq "a healthy exec runs the command" "$?" 0
check "...which wrote its file" [ -f "$ws/ran" ]
rm -f "$ws/ran"
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
expect_eq "...and its log holds start, exec_start, exec_end, end" \
    "$(jq -r .event "$log" | tr '\n' ' ')" \
    "session_start exec_start exec_end session_end "
# The session is certified by the host key and says who ran what, as an
# airlock run session does.
ss=$(jq -c 'select(.event == "session_start") | .fields' "$log")
expect_eq "session_start names the command" "$(printf '%s' "$ss" | jq -r .command)" exec
expect_eq "...the user" "$(printf '%s' "$ss" | jq -r .user)" "$(id -un)"
expect_eq "...the policy (no manifest: no digest)" \
    "$(printf '%s' "$ss" | jq -c '[.manifest, has("manifestDigest")]')" '["(built-in defaults)",false]'
expect_eq "...and the canonical workspace" "$(printf '%s' "$ss" | jq -r .workspace)" "$(realpath "$ws")"
expect_eq "...and carries the host key's certificate" \
    "$(printf '%s' "$ss" | jq -r .hostKey)" "$(cut -d' ' -f1 "$AIRLOCK_HOME/keys/trusted.pub" 2>/dev/null | head -n 1)"
"$AIRLOCK" sessions >"$T/sessions" 2>&1
expect_contains "airlock sessions shows it verified by the host key" "$(cat "$T/sessions")" " root "
expect_contains "...as exec, verified by the host key" "$(cat "$T/sessions")" "host-key"
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "...and the log verifies (exec_end and session_end in one batch)" "$?" 0

# exec_end is written as soon as the command ends, while the sandbox is
# torn down: the same record either way.
end_of() { jq -c 'select(.event == "exec_end") | .fields' "$(newest_session_log)"; }
"$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c 'exit 3' 2>/dev/null
expect_eq "an exit status passes through" "$?" 3
expect_eq "...and exec_end records it" "$(end_of)" '{"exitCode":3}'
"$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c 'kill -9 $$' 2>/dev/null
expect_eq "a killing signal passes through as 128+N" "$?" 137
expect_eq "...and exec_end records the signal" "$(end_of)" '{"signal":9}'
"$AIRLOCK" exec --workspace "$ws" --timeout 300 -- /bin/sleep 5 2>/dev/null
expect_eq "a timeout exits 124" "$?" 124
expect_eq "...and exec_end records it" "$(end_of)" '{"setupFailed":false,"timedOut":true}'
"$AIRLOCK" exec --workspace "$ws" --timeout 5000 -- /bin/sh -c '(sleep 9 &); exit 4' 2>/dev/null
expect_eq "a command that leaves a process behind ends when it exits" "$?" 4
expect_eq "...recorded as its own exit" "$(end_of)" '{"exitCode":4}'

# No fork() while a thread runs (the child would keep a copy of a lock
# the thread held, glibc's time zone lock say, for ever: an exec with
# --allow-host hung so when the audit writer was a thread): the egress
# proxy and the audit writer are forked before the runner's first thread.
# (A writer of its own, not a spare's: exec_spare.sh.)
AIRLOCK_EXEC_SPARE=0 strace -f -qq -e trace=clone,clone3 -o "$T/st3" "$AIRLOCK" exec --workspace "$ws" \
    --allow-host example.com:443 -- /bin/true 2>/dev/null
expect_eq "an exec with --allow-host runs" "$?" 0
sup=$(head -n 1 "$T/st3" | awk '{print $1}')
thread=$(awk -v p="$sup" '$1 == p && /CLONE_THREAD/ { print NR; exit }' "$T/st3")
lastfork=$(awk -v p="$sup" '$1 == p && /clone\(child_stack=NULL, flags=CLONE_CHILD_CLEARTID\|CLONE_CHILD_SETTID\|SIGCHLD/ { n = NR } END { print n }' "$T/st3")
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
check "the proxy is forked (line ${lastfork:-none}) before the first thread (line ${thread:-none})" \
    before "$lastfork" "$thread"

# exec_end and session_end are written before airlock exec exits (its
# status is the record's outside effect) and synced by the writer: their
# fdatasync held 300 ms (exec_end_written.sh times it).
rm -rf "$AIRLOCK_HOME"
strace -f -qq -o /dev/null -e trace=fdatasync \
    -e inject=fdatasync:delay_enter=300000:when=2 \
    "$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c 'exit 5' 2>/dev/null
expect_eq "a slow exec_end: the status still passes through" "$?" 5
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
expect_eq "...only once exec_end and session_end are written" \
    "$(jq -r .event "$log" | tr '\n' ' ')" \
    "session_start exec_start exec_end session_end "

# airlock exec killed while its command runs: the writer, a process of its
# own, still ends the log, saying the supervisor was lost.
rm -rf "$AIRLOCK_HOME"
"$AIRLOCK" exec --workspace "$ws" -- /bin/sleep 30 2>/dev/null &
xpid=$!
# (Polled: a loaded machine starts the exec, and ends its log, late.)
wait_for sh -c 'grep -qs exec_start "$1"/sessions/*/audit.jsonl' _ "$AIRLOCK_HOME"
sleep 0.2
kill -9 "$xpid"
wait "$xpid" 2>/dev/null
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
wait_for grep -qs session_end "$log"
expect_eq "airlock exec killed: exec_end says the supervisor was lost" \
    "$(jq -c 'select(.event == "exec_end") | .fields' "$log")" '{"supervisorLost":true}'
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "...and the log is closed and verifies" "$?" 0

# Early: the state directory cannot be made (a file is in the way).
: > "$T/notadir"
AIRLOCK_HOME="$T/notadir/state" "$AIRLOCK" exec --workspace "$ws" -- \
    /bin/sh -c "echo ran > $ws/ran" 2>"$T/err"
expect_eq "no session directory: exec exits 71" "$?" 71
check "...and the command did not run" [ ! -e "$ws/ran" ]
expect_contains "...saying why" "$(cat "$T/err")" "exec: cannot create"

# Late: the session exists, exec_start's fdatasync fails (the first
# one: session_start goes out with exec_start, in one write and one sync)
# after 300 ms, when the sandbox is surely being prepared.  -f follows
# the writer thread and the sandbox's processes.
rm -rf "$AIRLOCK_HOME"
strace -f -qq -o "$T/trace" -e trace=fdatasync,clone,clone3,execve \
    -e inject=fdatasync:error=EIO:delay_enter=300000:when=1 \
    "$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c "echo ran > $ws/ran" \
    2>"$T/err"
expect_eq "exec_start not on the disk: exec exits 71" "$?" 71
check "...and the command did not run" [ ! -e "$ws/ran" ]
expect_contains "...naming the audit log" "$(cat "$T/err")" "exec: cannot write the audit log"
check_no_sh_exec() { ! grep -q 'execve("/bin/sh"' "$T/trace"; }
check "...not even exec'd in the sandbox" check_no_sh_exec
# The sandbox's first process was cloned (with its namespaces) before
# the record failed: the gate, not the order of the steps, held the
# command back.
first_ns=$(grep -n 'CLONE_NEWPID' "$T/trace" | head -n 1 | cut -d: -f1)
failed=$(grep -n 'fdatasync.*EIO' "$T/trace" | head -n 1 | cut -d: -f1)
check "...though the sandbox was already being built (clone at line ${first_ns:-none}, EIO at ${failed:-none})" \
    before "$first_ns" "$failed"
# Cut back to nothing, the log is empty: the writer removes it and the
# session, as for a run called off before exec_start.
expect_eq "...and no exec_start is left (the empty log and its session removed)" \
    "$(ls -A "$AIRLOCK_HOME/sessions" | wc -l)" 0

# With "sync exec-end" in audit.conf, exec_end's sync fails (the second
# fdatasync: exec_end and session_end go out in one write and one sync):
# the command has run, and airlock exec says the log could not be
# written, with the command's status.  (By default the sync comes after
# the status: exec_end_written.sh.)
rm -rf "$AIRLOCK_HOME"
mkdir -p "$T/conf"
echo "sync exec-end" >"$T/conf/audit.conf"
AIRLOCK_CONFIG_DIR="$T/conf" strace -f -qq -o "$T/trace" -e trace=fdatasync \
    -e inject=fdatasync:error=EIO:when=2 \
    "$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c "exit 3" 2>"$T/err"
expect_eq "exec_end not on the disk: the command's status" "$?" 3
check "...after the second sync failed" grep -q 'fdatasync.*EIO' "$T/trace"
expect_contains "...and airlock exec says the log was not written" \
    "$(cat "$T/err")" "exec: cannot write the audit log"
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
expect_eq "...which was cut back to exec_start" \
    "$(jq -r .event "$log" | tr '\n' ' ')" "session_start exec_start "

# The session exists and exec_start is written, then the runner fails
# before the command (a limit that cannot be enforced: a cgroup2 root
# that is no cgroup): exec_end says so.
rm -rf "$AIRLOCK_HOME"
AIRLOCK_CGROUP2_ROOT="$T" "$AIRLOCK" exec --workspace "$ws" --limit memory=64 \
    -- /bin/sh -c "echo ran > $ws/ran" 2>"$T/err"
rc=$?
check "a runner refusal after exec_start: exec fails (exit $rc)" [ "$rc" -ne 0 ]
check "...and the command did not run" [ ! -e "$ws/ran" ]
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
expect_eq "...and the log says the setup failed" \
    "$(jq -c 'select(.event == "exec_end") | .fields' "$log")" \
    '{"setupFailed":true,"timedOut":false}'
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "...and verifies" "$?" 0
# The writer is forked before the manifest is loaded and makes the
# session meanwhile: a run called off before exec_start (a manifest that
# does not load, a bad --limit) leaves no session directory behind, and
# no writer either (it is reaped: no zombie under this shell).
rm -rf "$AIRLOCK_HOME"
"$AIRLOCK" exec --workspace "$ws" -- /bin/true 2>/dev/null
before_n=$(ls "$AIRLOCK_HOME/sessions" | wc -l)
printf 'version: 1\ntools: [\n' >"$T/bad.yaml"
"$AIRLOCK" exec -m "$T/bad.yaml" --workspace "$ws" -- /bin/sh -c "echo ran > $ws/ran" 2>"$T/err"
rc=$?
check "a manifest that does not load: exec fails (exit $rc)" [ "$rc" -ne 0 ]
check "...and the command did not run" [ ! -e "$ws/ran" ]
"$AIRLOCK" exec --limit bogus=1 --workspace "$ws" -- /bin/true 2>/dev/null
expect_eq "a bad --limit: exec exits 64" "$?" 64
expect_eq "...and neither left a session behind" \
    "$(ls "$AIRLOCK_HOME/sessions" | wc -l)" "$before_n"
ps -o stat=,comm= --ppid $$ >"$T/kids" 2>/dev/null
check "...nor a writer (no zombie child of this shell)" \
    sh -c "! grep -q '^Z' '$T/kids'"

# exec_start goes to the writer in messages of 64 KiB: an argv of 300 KB
# is recorded whole.
rm -rf "$AIRLOCK_HOME"
big=$(head -c 100000 /dev/zero | tr '\0' x)
"$AIRLOCK" exec --workspace "$ws" -- /bin/true "$big" "$big" "$big" 2>/dev/null
expect_eq "a 300 KB argv: exec runs" "$?" 0
log=$(ls -d "$AIRLOCK_HOME"/sessions/*/audit.jsonl | head -n 1)
expect_eq "...and exec_start records it whole" \
    "$(jq -r 'select(.event == "exec_start") | .fields.argv | map(length) | join(" ")' "$log")" \
    "9 100000 100000 100000"
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "...and the log verifies" "$?" 0
finish
