#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An escalated path retargeted while the human decides, to somewhere
# that is not protected: the human approves a bind of what the path
# resolved to when they were asked, not of wherever the agent points it
# afterwards.  The agent, from inside its real sandbox under "airlock
# run", keeps in its persistent home (agent.home: on the host, seen by
# no runner) a link "cache" to a directory of its own, has a tool's run
# name a file through it (a filesystem read denial) and escalates it:
# the human must be shown where the link leads.  While the approval
# waits, the agent points the link at another user's private directory
# (no credential store, nothing protected).  The approved re-run must
# not read it: refused as changed, nothing run.
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# A tmpfs on /srv (this test's own mount namespace): the agent's home and
# another user's private directory no sandbox sees.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/u/private
echo DIARY-SECRET-7 >/srv/u/private/key
chmod -R a+rX /srv

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
mkdir -p "$HOME/real"
echo harmless >"$HOME/real/key"
ln -s real "$HOME/cache"
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
		# The human is being asked: now the link leads elsewhere.
		sleep 1
		ln -sfn ../u/private "$HOME/cache"
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
expect_contains "the human is shown a read of the agent's own file and where it leads" \
    "$("$AIRLOCK" pending 2>&1)" "read-only /srv/agenthome/cache/key (resolves to /srv/agenthome/real/key)"
wait_for test -e /srv/agenthome/swapped || fail "the agent swapped the file for a link while the human decides"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
appr_reply 2 || { echo "not ok - no reply to the escalation"; cat "$OUT" "$T/run.err"; exit 1; }
appr_agent_stop
expect_not_contains "the re-run did not read the private directory through the retargeted link" \
    "$R" "DIARY-SECRET-7"
expect_eq "... it was not run at all" "$(r_class)" escalation_refused
expect_eq "... and says why: the path leads elsewhere than the human was shown" \
    "$(jr -r .result.structuredContent.reason)" changed
finish
