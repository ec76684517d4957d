#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An escalation may not bind a directory that holds what the protected
# class keeps out: a bind is of the whole tree, so a read-only bind of a
# home directory is a read of its ~/.ssh.  The agent, from inside its
# real sandbox under "airlock run", has a tool's run name the directory
# that holds a credential store (an error line: a filesystem read
# denial) and escalates that denial; the human would be shown only
# "read-only /srv/u".  The escalation must be refused as protected
# without asking anyone, and nothing may read the key.
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# A tmpfs on /srv (this test's own mount namespace): a home no sandbox
# sees, with a credential store in it.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/u/.ssh /srv/u/src
echo SECRET-KEY-42 >/srv/u/.ssh/key
echo notes >/srv/u/src/notes
chmod -R a+rX /srv

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: { dir: string }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh", "{dir}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
    escalation: ask
escalation: { forbid: [] }
approvals:
  approvers: [root]
  ttlSeconds: 60
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

# The workspace's build script (the agent's to write): it names the
# directory, then reads the key.
printf 'ls "$1"\ncat /srv/u/.ssh/key\n' >"$ws/build.sh"
esc() {	# CALLID
	printf '{"name":"escalate","arguments":{"callId":%s,"denied":["d1"],"reason":"the build reads its sources"}}\n' "$1"
}
{
	echo '{"name":"build","arguments":{"dir":"/srv/u"}}'		# 1
	esc 1								# 2
	echo '{"name":"build","arguments":{"dir":"/srv"}}'		# 3
	esc 3								# 4
	echo '{"name":"build","arguments":{"dir":"/srv/u/src"}}'	# 5
	esc 5								# 6
} >"$ws/calls"
appr_agent_start "$T/m.yaml" calls

# approve_if_asked N: approves the pending escalation of call N-1 (the
# old code asked), unless reply N came first.
approve_if_asked() {
	local id i
	for i in $(seq 100); do
		id=$("$AIRLOCK" pending --json 2>/dev/null | jq -r --argjson c $(($1 - 1)) \
		    '.pending[] | select(.evidence.escalation.callId == $c) | .id' | head -n 1)
		[ -n "$id" ] && { "$AIRLOCK" approve "$id" --yes >/dev/null 2>&1; return 0; }
		grep -q "^R$1 " "$OUT" && return 1
		sleep 0.1
	done
	return 1
}

appr_reply 1 || { echo "not ok - no reply to the build"; cat "$T/run.err"; exit 1; }
expect_eq "the run names the home directory it could not list: a filesystem read denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.denial, .layer, .path, .access]')" \
    '["d1","filesystem","/srv/u","read"]'
approve_if_asked 2
appr_reply 2 || { echo "not ok - no reply to the escalation"; cat "$OUT" "$T/run.err"; exit 1; }
expect_not_contains "the escalated run did not read the key through the home's bind" "$R" "SECRET-KEY-42"
expect_eq "a directory holding a credential store is refused without asking" "$(r_class)" escalation_refused
expect_eq "... as forbidden" "$(jr -r .result.structuredContent.reason)" forbidden
expect_eq "... of the protected class" "$(jr -r .result.structuredContent.class)" protected

appr_reply 3 || { echo "not ok - no reply to the second build"; cat "$T/run.err"; exit 1; }
approve_if_asked 4
appr_reply 4 || { echo "not ok - no reply to the second escalation"; cat "$OUT" "$T/run.err"; exit 1; }
expect_not_contains "nor through a bind of its parent" "$R" "SECRET-KEY-42"
expect_eq "... refused as protected too" "$(jr -r .result.structuredContent.class)" protected

# A directory beside the store is asked for as before.
appr_reply 5 || { echo "not ok - no reply to the third build"; cat "$T/run.err"; exit 1; }
check "a directory beside the credential store is asked for" approve_if_asked 6
appr_reply 6 || { echo "not ok - no reply to the third escalation"; cat "$OUT" "$T/run.err"; exit 1; }
expect_contains "... and its approved re-run reads it" "$R" "notes"
appr_agent_stop
finish
