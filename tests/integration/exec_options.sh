#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec's per-run options (one parser with run's): --setenv NAME
# VALUE, --chdir DIR, --env, --ro, and each recorded in the exec's own
# audit log, which verifies.
. "$top_srcdir/tests/lib.sh"
export AIRLOCK_HOME="$T/state"
ws=$(make_workspace)
mkdir -p "$ws/sub/deeper" "$T/extra"
echo hello > "$T/extra/file"

newest_log() { newest_session_log; }

out=$("$AIRLOCK" exec --workspace "$ws" --setenv FOO 'a=b c' -- /bin/sh -c 'printf %s "$FOO"' 2>&1)
expect_eq "--setenv sets the variable (VALUE may hold = and spaces)" "$out" "a=b c"
out=$(BAR=fromcaller "$AIRLOCK" exec --workspace "$ws" --env BAR -- /bin/sh -c 'printf %s "$BAR"' 2>&1)
expect_eq "--env NAME passes the caller's value" "$out" "fromcaller"
out=$(FOO=bar "$AIRLOCK" exec --workspace "$ws" -- /bin/sh -c 'printf %s "${FOO-unset}"' 2>&1)
expect_eq "without --env nothing else passes" "$out" "unset"

out=$("$AIRLOCK" exec --workspace "$ws" --chdir sub/deeper -- /bin/pwd 2>&1)
expect_eq "--chdir relative to the workspace" "$out" "$ws/sub/deeper"
out=$("$AIRLOCK" exec --workspace "$ws" --chdir "$ws/sub" -- /bin/pwd 2>&1)
expect_eq "--chdir absolute inside the workspace" "$out" "$ws/sub"
"$AIRLOCK" exec --workspace "$ws" --chdir /etc -- /bin/pwd >/dev/null 2>"$T/err"
expect_eq "--chdir outside the workspace is a usage error" "$?" 64
expect_contains "...naming why" "$(cat "$T/err")" "not inside the workspace"
"$AIRLOCK" exec --workspace "$ws" --chdir ../.. -- /bin/pwd >/dev/null 2>&1
expect_eq "--chdir .. out of the workspace is refused" "$?" 64
"$AIRLOCK" exec --workspace "$ws" --chdir nope -- /bin/pwd >/dev/null 2>&1
expect_eq "--chdir to a missing directory exits 66" "$?" 66
"$AIRLOCK" exec --workspace "$ws" --setenv FOO >/dev/null 2>&1
expect_eq "--setenv without VALUE is a usage error" "$?" 64
"$AIRLOCK" exec --workspace "$ws" --setenv A=B C -- /bin/true >/dev/null 2>&1
expect_eq "--setenv NAME holding = is a usage error" "$?" 64

out=$("$AIRLOCK" exec --workspace "$ws" --ro "$T/extra" -- /bin/cat "$T/extra/file" 2>&1)
expect_eq "--ro binds a host path" "$out" "hello"
"$AIRLOCK" exec --workspace "$ws" --ro "$T/extra" -- /bin/sh -c "echo x > $T/extra/file" 2>/dev/null
check "--ro is read-only" [ "$(cat "$T/extra/file")" = hello ]

# The audit log: one session per exec, every option in exec_start.
SECRET_VALUE=s3cr3t-value-123
"$AIRLOCK" exec --workspace "$ws" --chdir sub --setenv TOKEN "$SECRET_VALUE" \
    --ro "$T/extra" --env LANG=C -- /bin/sh -c 'exit 7' 2>/dev/null
expect_eq "the command's status passes through" "$?" 7
log=$(newest_log)
check "exec writes an audit log" [ -f "$log" ]
"$AIRLOCK" audit verify -q "$log" >/dev/null 2>&1
expect_eq "the exec's audit log verifies" "$?" 0
start=$("$AIRLOCK" audit show --json --event exec_start "$log" | jq -c .fields)
expect_eq "exec_start records --chdir" "$(printf '%s' "$start" | jq -r .chdir)" "sub"
expect_eq "exec_start records the cwd" "$(printf '%s' "$start" | jq -r .cwd)" "sub"
expect_eq "exec_start records --setenv by name" \
    "$(printf '%s' "$start" | jq -r '.overrides.env[] | select(.name=="TOKEN") | .source')" "commandLine"
expect_eq "exec_start records --env" \
    "$(printf '%s' "$start" | jq -r '.overrides.env[] | select(.name=="LANG") | .name')" "LANG"
expect_contains "exec_start records --ro" "$(printf '%s' "$start" | jq -c .overrides.readOnly)" "$T/extra"
expect_eq "exec_start records the argv" "$(printf '%s' "$start" | jq -r '.argv[2]')" "exit 7"
expect_not_contains "no value of --setenv in the log" "$(cat "$log")" "$SECRET_VALUE"
end=$("$AIRLOCK" audit show --json --event exec_end "$log" | jq -c .fields)
expect_eq "exec_end records the exit code" "$(printf '%s' "$end" | jq -r .exitCode)" "7"

# The same parser in run: --setenv reaches the agent.
out=$("$AIRLOCK" run --workspace "$ws" --setenv FOO 'x y' -- /bin/sh -c 'printf %s "$FOO"' 2>/dev/null)
expect_eq "run --setenv sets the agent's variable" "$out" "x y"
finish
