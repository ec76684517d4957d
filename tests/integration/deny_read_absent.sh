#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A denyRead path absent when a sandbox starts: a mask is a mount, which
# needs a place, so nothing was masked there, and a file the user made
# there once the sandbox was up (a .env, a key in secrets/) was read by a
# runner that was still running (a job, a slow check) and by a
# copy-on-write agent.  Each overlay now whites such a path out in a
# layer above the workspace (before, only a negative dentry left by the
# sandbox's own lookup at its start hid it, until the kernel dropped it).
# The broker's read_file refuses it by name in a copy-on-write session
# too (it said "no such file"), and a later runner masks what is there
# at its start.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws/conf" "$T/cfg"
echo TOK-OLD > "$T/cfg/tok"
echo public > "$ws/README"
echo 0 > "$ws/go"
chmod 666 "$ws/go"
mk="mask-$$"
cat > "$T/m.yaml" <<EOF
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, artifactUri: string, durationMs: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  slow: { argv: ["sh", "-c", "while [ \"\$(cat go)\" != 1 ]; do sleep 0.05; done; cat README .env secrets/key conf/db/pw $T/cfg/tok $T/cfg/gh/hosts", "$mk-check"], timeoutMs: 15000 }
  later: { argv: ["sh", "-c", "cat .env secrets/key conf/db/pw"], timeoutMs: 15000 }
  plant: { argv: ["sh", "-c", "mkdir -p secrets conf/db; echo PLANTED > secrets/key; echo PLANTED > conf/db/pw; echo PLANTED > .env; echo planted"], timeoutMs: 15000 }
agent:
  workspace: cow
sandbox:
  readOnly: [ "$T/cfg" ]
  denyRead: [ "$ws/.env", "$ws//secrets/", "$ws/./conf/db/pw", "$T/cfg/gh", "$T/cfg/tok" ]
EOF
chown -R 65534:65534 "$ws"

# make_secrets MARKER: once a process whose argv holds MARKER is up, the
# user writes the denied files, then says go.
make_secrets() {
	i=0
	while ! pgrep -f "$1" >/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	echo "ENV-SECRET-$2" > "$ws/.env"
	mkdir -p "$ws/secrets" "$ws/conf/db"
	echo "DIR-SECRET-$2" > "$ws/secrets/key"
	echo "DEEP-SECRET-$2" > "$ws/conf/db/pw"
	# A token in a readOnly entry: one made, one replaced as most
	# tools write a file (a new one renamed over it).
	mkdir -p "$T/cfg/gh"
	echo "GH-SECRET-$2" > "$T/cfg/gh/hosts"
	echo "TOK-SECRET-$2" > "$T/cfg/tok.new"
	mv "$T/cfg/tok.new" "$T/cfg/tok"
	chown -R 65534:65534 "$ws"
	# The sandbox's own lookup of the absent path at its start left a
	# negative dentry that hid the file only until memory was short:
	# drop it, as the kernel may at any time.
	echo 2 > /proc/sys/vm/drop_caches 2>/dev/null
	echo "$3" > "$ws/go"
}

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'
call() {
	printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":%s}' "$1"
}

# A runner up before the files are made (a check that waits, as a job
# or a slow test would), then one started after, through the agent's
# MCP socket; the copy-on-write agent itself reads once they are made.
cat > "$T/agent.sh" <<EOF
#!/bin/sh
exec 3>&-
cd "$ws"
printf '%s\n' '$INIT' '$READY' '$(call '{"name":"run_check","arguments":{"checkId":"slow","idempotencyKey":"k1"}}')' |
    env -i $AIRLOCK connect | grep '"id":2'
echo "AGENT: \$(cat .env secrets/key conf/db/pw $T/cfg/tok $T/cfg/gh/hosts 2>&1)"
printf '%s\n' '$INIT' '$READY' '$(call '{"name":"run_check","arguments":{"checkId":"later","idempotencyKey":"k2"}}')' |
    env -i $AIRLOCK connect | grep '"id":2'
for p in .env secrets/key conf/db/pw; do
	printf '%s\n' '$INIT' '$READY' "\$(printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"%s"}}}' \$p)" |
	    env -i $AIRLOCK connect | grep '"id":2'
done
EOF
chmod 755 "$T/agent.sh"
make_secrets "$mk-check" 1 1 &
out=$(AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run" timeout 60 \
    "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- \
    "$T/agent.sh" 2>&1)
wait
# The slow check read README once the files were made (it printed
# "public" only then); nothing of theirs came back from any sandbox.
expect_contains "runner_ran_after_the_files" "$out" 'public\\ncat: .env: No such file or directory'
expect_not_contains "running_runner_and_cow_agent_mask_absent_file" "$out" "ENV-SECRET"
expect_not_contains "running_runner_and_cow_agent_mask_absent_dir" "$out" "DIR-SECRET"
expect_not_contains "running_runner_and_cow_agent_mask_absent_deep_path" "$out" "DEEP-SECRET"
expect_not_contains "running_runner_and_cow_agent_mask_absent_in_bind" "$out" "GH-SECRET"
expect_not_contains "running_runner_and_cow_agent_mask_renamed_in_bind" "$out" "TOK-"
expect_contains "cow_agent_sees_nothing_there" "$out" \
    'AGENT: cat: .env: No such file or directory'
expect_not_contains "cow_agent_not_refused" "$out" "cannot start the agent"
expect_contains "later_runner_masks_what_is_there" "$out" \
    'cat: .env: Permission denied'
expect_eq "broker_refuses_each" \
    "$(printf '%s\n' "$out" | grep -c 'sandbox.denyRead hides it')" 3

# The agent's own sandbox with agent.workspace ro (the default) binds the
# workspace live, where an absent path cannot be masked, nor a present
# file once the host renames another over it: such a denied path refuses
# the start now (deny_read_live_bind.sh), where it only warned of the
# absent ones.  A readOnly entry holding a denied path is an overlay in
# the live agent's sandbox: a token made there, or renamed over a masked
# one, stays hidden.  A run creating a denied path its sandbox showed as
# absent landed it in the workspace, which write_file refuses (a
# deploy's config of the agent's making): its change set is refused now,
# rule "denied" (through airlock serve's MCP, which starts no agent).
rm -rf "$ws/secrets" "$ws/conf/db" "$T/cfg/gh"
sed '/^agent:/d; /workspace: cow/d' "$T/m.yaml" > "$T/live.yaml"
out=$(AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run" timeout 60 \
    "$AIRLOCK" run --manifest "$T/live.yaml" --workspace "$ws" -- true 2>&1)
expect_contains "live_agent_refuses_what_it_cannot_hide" "$out" \
    "cannot start the agent: denied path $ws/.env is not a directory, in $ws, bound live"
sed "s|denyRead: .*|denyRead: [ \"$T/cfg/gh\", \"$T/cfg/tok\" ]|" \
    "$T/live.yaml" > "$T/live2.yaml"
cat > "$T/live.sh" <<EOF
#!/bin/sh
exec 3>&-
cd "$ws"
sh -c 'while [ "\$(cat go)" != 2 ]; do sleep 0.05; done' "$mk-live"
echo "LIVE: \$(cat $T/cfg/tok $T/cfg/gh/hosts 2>&1)"
EOF
chmod 755 "$T/live.sh"
make_secrets "$mk-live" 2 2 &
out=$(AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run" timeout 60 \
    "$AIRLOCK" run --manifest "$T/live2.yaml" --workspace "$ws" -- \
    "$T/live.sh" 2>&1)
wait
expect_contains "live_agent_ran_after_the_tokens" "$out" "LIVE: cat: $T/cfg/tok: Permission denied"
expect_not_contains "live_agent_masks_renamed_in_bind" "$out" "TOK-SECRET-2"
expect_not_contains "live_agent_masks_absent_in_bind" "$out" "GH-SECRET-2"
rm -rf "$ws/secrets" "$ws/conf/db"
out=$(printf '%s\n' "$INIT" "$READY" \
    "$(call '{"name":"run_check","arguments":{"checkId":"plant","idempotencyKey":"k3"}}')" |
    AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run" timeout 60 \
    "$AIRLOCK" serve --manifest "$T/live.yaml" --workspace "$ws" 2>&1)
expect_contains "planted_denied_paths_refused" "$out" \
    'sandbox.denyRead hides the path from the agent: a run may neither create nor replace it'
expect_eq "planted_files_not_landed" "$(grep -rl PLANTED "$ws")" ""
expect_eq "present_denied_file_kept" "$(cat "$ws/.env")" "ENV-SECRET-2"
finish
