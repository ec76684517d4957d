#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An escalated path swapped for a symlink while the human decides: the
# agent, from inside its real sandbox under "airlock run", keeps a plain
# file in its persistent home (agent.home: on the host, seen by no
# runner), has a tool's run name it in an error line (a filesystem read
# denial), and escalates it: the path is checked then (a plain file, not
# protected) and the human is shown "read-only HOME/cache".  While the
# approval waits, the agent replaces the file with a symlink to a
# credential store.  The approved re-run must not get the store: the bind
# follows no symlink, so the run fails closed and nothing is read.
# Then an escalation padded past a screen: its first widening (another
# user's file) must not scroll away unsaid (see the second part).
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# A tmpfs on /srv (this test's own mount namespace): the agent's home and
# a credential store no sandbox sees.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/u/.ssh
echo SECRET-KEY-42 >/srv/u/.ssh/key
chmod 755 /srv /srv/u /srv/u/.ssh
chmod 644 /srv/u/.ssh/key

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
    escalation: ask
escalation: { forbid: [] }
approvals:
  approvers: [root]
  ttlSeconds: 60
agent:
  home: /srv/agenthome
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

# The workspace's build script (the agent's to write) reads the cache.
printf 'cat /srv/agenthome/cache/key\n' >"$ws/build.sh"
# The agent: a plain file in its home, the build, the escalation; while
# the escalation waits for the human, the swap.
cat >"$ws/swap.sh" <<'AGENT'
#!/bin/sh
mkdir -p "$HOME/cache"
echo harmless >"$HOME/cache/key"
exec 4<&3
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{}}}'
} >&3
n=0
while IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	*'"id":0,'*) continue ;;
	*'"id":1,'*)
		printf 'R1 %s\n' "$line"
		printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"escalate","arguments":{"callId":1,"denied":["d1"],"reason":"the build reads its cache"}}}' >&3
		# The human is being asked: now the file becomes a link.
		sleep 1
		rm -rf "$HOME/cache"
		ln -s ../u/.ssh "$HOME/cache"
		: >"$HOME/swapped"
		;;
	*'"id":2,'*)
		printf 'R2 %s\n' "$line"
		break
		;;
	esac
done
echo DONE
AGENT
chmod 755 "$ws/swap.sh"

: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/swap.sh" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
appr_reply 1 || { echo "not ok - no reply to the build"; cat "$T/run.err"; exit 1; }
expect_eq "the run names the agent's home file it could not read: a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.denial, .layer, .path, .access]')" \
    '["d1","filesystem","/srv/agenthome/cache/key","read"]'
id=
for i in $(seq 200); do
	id=$("$AIRLOCK" pending --json 2>/dev/null | jq -r '.pending[] | select(.tool == "build") | .id' | head -n 1)
	[ -n "$id" ] && break
	sleep 0.1
done
[ -n "$id" ] || { echo "not ok - the escalation opened no approval"; cat "$OUT" "$T/run.err"; exit 1; }
expect_contains "the human is shown a read of the agent's own file" \
    "$("$AIRLOCK" pending 2>&1)" "read-only /srv/agenthome/cache/key"
wait_for test -e /srv/agenthome/swapped || fail "the agent swapped the file for a link while the human decides"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
appr_reply 2 || { echo "not ok - no reply to the escalation"; cat "$OUT" "$T/run.err"; exit 1; }
appr_agent_stop
expect_not_contains "the re-run did not read the credential store through the swapped link" \
    "$R" "SECRET-KEY-42"
expect_eq "... it was not run at all: the path is refused as it is now" "$(r_class)" escalation_refused
expect_eq "... and says why" "$(jr -r .result.structuredContent.reason)" forbidden
# --- The widening scrolled out of sight ------------------------------------
# The agent escalates a read of another user's file (d1, shown first)
# together with 15 reads of files it made in its own home under paths of
# 3,000 bytes: the widening lines, and the evidence's denied list and
# hints that name them again, take hundreds of KB, and the person saw
# next to the prompt only harmless paths of the agent's own home.  Its
# arguments ({}) and reason were short, so the review had no note that
# its start was out of sight.
mkdir -p /srv/u/private
echo PAYROLL-7 >/srv/u/private/payroll.csv
chmod 755 /srv/u/private
chmod 644 /srv/u/private/payroll.csv
sed -e 's/name: build/name: report/' -e 's/build\.sh/report.sh/' "$T/m.yaml" >"$T/m2.yaml"
cat >"$ws/report.sh" <<'EOF'
cat /srv/u/private/payroll.csv
seg=$(printf '%0250d' 0)
for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do
	cat "/srv/agenthome/pad/$i/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg/cache.txt"
done
EOF
cat >"$ws/scroll.sh" <<'AGENT'
#!/bin/sh
seg=$(printf '%0250d' 0)
for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do
	d="$HOME/pad/$i/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg"
	mkdir -p "$d" && echo cache >"$d/cache.txt"
done
exec 4<&3
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","arguments":{}}}'
} >&3
while IFS= read -r line <&4; do
	case $line in
	*'"method":'*) continue ;;
	*'"id":0,'*) continue ;;
	*'"id":1,'*)
		printf 'R1 %s\n' "$line"
		printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"escalate","arguments":{"callId":1,"denied":["d1","d2","d3","d4","d5","d6","d7","d8","d9","d10","d11","d12","d13","d14","d15","d16"],"reason":"the report reads its caches"}}}' >&3
		;;
	*'"id":2,'*)
		printf 'R2 %s\n' "$line"
		break
		;;
	esac
done
echo DONE
AGENT
chmod 755 "$ws/scroll.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/m2.yaml" --workspace "$ws" -- "$ws/scroll.sh" \
    >"$OUT" 2>"$T/run2.err" &
RUN_PID=$!
appr_reply 1 || { echo "not ok - no reply to the report"; cat "$T/run2.err"; exit 1; }
expect_eq "the report was refused the private file first and 15 padded files of the agent's home" \
    "$(jr -c '[.result.structuredContent.denied[0].path, (.result.structuredContent.denied | length)]')" \
    '["/srv/u/private/payroll.csv",16]'
id=
for i in $(seq 200); do
	id=$("$AIRLOCK" pending --json 2>/dev/null | jq -r '.pending[] | select(.tool == "report") | .id' | head -n 1)
	[ -n "$id" ] && break
	sleep 0.1
done
[ -n "$id" ] || { echo "not ok - the padded escalation opened no approval"; cat "$OUT" "$T/run2.err"; exit 1; }
echo n | "$AIRLOCK" approve "$id" >"$T/scroll.out" 2>&1
expect_contains "the review shows the private file, at its top" \
    "$(head -n 3 "$T/scroll.out")" "read-only /srv/u/private/payroll.csv"
expect_not_contains "... which is out of sight next to the prompt" \
    "$(tail -c 4096 "$T/scroll.out")" "payroll"
expect_contains "... so the review says its start is out of sight, next to the prompt" \
    "$(tail -n 3 "$T/scroll.out")" "NOTE:      its arguments, the agent's reason and its escalation take"
"$AIRLOCK" deny --reason "padded" "$id" >/dev/null 2>&1
appr_reply 2 || { echo "not ok - no reply to the padded escalation"; cat "$OUT" "$T/run2.err"; exit 1; }
appr_agent_stop
expect_error_class "the padded escalation was denied: nothing ran" approval_denied
finish
