#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Approver groups (issue 16 item 1), with real uids: a session run by root
# that names only "group:4300" as approvers.  uid 4242 (in group 4300)
# lists and decides it; uid 4243 (not in it) and root itself are refused,
# each told why, each refusal audited; a session that names no approvers
# admits only its owner, and says so.  "airlock pending --json".
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "# not root: approver groups need two other uids (setpriv); skipped"
	exit 77
fi
# The other uids reach the runtime directory beneath $T.
chmod 711 "$T"
IN=(setpriv --reuid=4242 --regid=4242 --groups=4300)	# an approver by group
OUTSIDER=(setpriv --reuid=4243 --regid=4243 --groups=4301)	# not one

manifest() {	# FILE APPROVERS
	{ deploy_tool_yaml; cat <<EOF2
approvals:
  approvers: $2
  ttlSeconds: 60
EOF2
	} >"$1"
}
manifest "$T/group.yaml" '["group:4300"]'
manifest "$T/owner.yaml" '[]'
manifest "$T/at.yaml" '["@4300", 4243]'

out=$("$AIRLOCK" check "$T/at.yaml" -v 2>&1)
expect_contains "@GID is a group approver (airlock check -v)" "$out" 'approvers: [4243, "group:4300"]'
printf 'tools: []\napprovals:\n  approvers: ["group:no-such-group-xyz"]\n' >"$T/bad.yaml"
out=$("$AIRLOCK" check "$T/bad.yaml" 2>&1)
expect_contains "an unknown group is a manifest error" "$out" 'unknown group "no-such-group-xyz"'

cat >"$ws/calls" <<'EOF2'
{"name":"deploy","arguments":{"target":"alpha"}}
{"name":"deploy","arguments":{"target":"beta"}}
EOF2
appr_agent_start "$T/group.yaml" calls
id=$(appr_pending_id alpha "${IN[@]}")
check "a member of the approver group lists the pending call" test -n "$id"
sess=$(newest_session)
sid=$(basename "$sess")
sock="$AIRLOCK_RUNTIME_DIR/$sid.sock"
check "the shared session's socket is 0666 (SO_PEERCRED decides)" test "$(stat -c %a "$sock")" = 666
check "the runtime directory is not writable by others" test "$(stat -c %a "$AIRLOCK_RUNTIME_DIR")" = 755

J=$("${IN[@]}" "$AIRLOCK" pending --json)
R=$J
expect_eq "pending --json: version 1, the session, the tool" \
    "$(jr -c '[.version, .pending[0].session, .pending[0].tool, .pending[0].arguments.target]')" \
    "[1,\"$sid\",\"deploy\",\"alpha\"]"
check "pending --json carries the digest and the execution" \
    test "$(jr '.pending[0].digest | length')" = 64 -a "$(jr -c '.pending[0].execution.argv')" = '["echo","deployed","alpha"]'

# Root is not an approver of this session.
out=$("$AIRLOCK" pending 2>&1)
expect_contains "root is refused and told why" "$out" "not an approver: root (uid 0) is neither listed nor in a listed group"
expect_contains "the refusal names the session's approvers" "$out" "(group:4300)"
expect_not_contains "root does not see the pending call" "$out" '"target":"alpha"'
expect_contains "pending says nothing may be seen, not just nothing pending" "$out" "nothing pending that you may see"
out=$("$AIRLOCK" approve "$id" --yes 2>&1)
check "root cannot approve a session whose approvers exclude it" test $? -ne 0
expect_contains "approve as root says the session refused" "$out" "refused you"

# uid 4243 is not in the group.
out=$("${OUTSIDER[@]}" "$AIRLOCK" pending 2>&1)
expect_contains "an outsider is told why" "$out" "not an approver: uid 4243 is neither listed nor in a listed group of session $sid's approvers (group:4300)"
out=$("${OUTSIDER[@]}" "$AIRLOCK" approve "$id" --yes --session "$sid" 2>&1)
check "an outsider cannot approve" test $? -ne 0
expect_contains "approve as the outsider says why" "$out" "not an approver"
R=$("${OUTSIDER[@]}" "$AIRLOCK" pending --json 2>/dev/null)
expect_eq "pending --json lists the refusal" "$(jr -c '[(.pending | length), .refused[0].session]')" "[0,\"$sid\"]"
# The raw socket refuses a forged decision from the outsider too.
dg=$(printf '%s' "$J" | jq -r .pending[0].digest)
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id" "$dg" |
    "${OUTSIDER[@]}" "$top_builddir/tests/unixclient" "$sock" 2>&1)
expect_contains "the socket itself refuses the outsider's decision" "$r" "not an approver"
n=$(grep -c '"approval_refused_peer"' "$sess/audit.jsonl")
check "each refusal is audited with its reason ($n)" test "$n" -ge 4
check "the audit names the refused peer" grep -q '"approval_refused_peer".*uid 4243' "$sess/audit.jsonl"
check "alpha is still pending" test "$(appr_pending_id alpha "${IN[@]}")" = "$id"

out=$("${IN[@]}" "$AIRLOCK" approve "$id" --yes 2>&1)
expect_contains "the group member approves" "$out" "approved $id"
appr_reply 1
expect_eq "approved by the group member: the call ran" "$(jr .result.structuredContent.stdout)" "deployed alpha"
check "the grant names the group member's uid" grep -q '"approval_granted".*uid 4242' "$sess/audit.jsonl"
id=$(appr_pending_id beta "${IN[@]}")
"${IN[@]}" "$AIRLOCK" deny "$id" --reason "not beta" >/dev/null 2>&1
appr_reply 2
expect_error_class "the group member denies" approval_denied
appr_agent_stop

# No approvers named: only the user who started the session.
chmod 700 "$AIRLOCK_RUNTIME_DIR"
cat >"$ws/calls2" <<'EOF2'
{"name":"deploy","arguments":{"target":"gamma"}}
EOF2
appr_agent_start "$T/owner.yaml" calls2
id=$(appr_pending_id gamma)
check "the owner (root) lists its own session" test -n "$id"
sid=$(basename "$(newest_session)")
check "an owner-only session's socket is 0600" test "$(stat -c %a "$AIRLOCK_RUNTIME_DIR/$sid.sock")" = 600
chmod 755 "$AIRLOCK_RUNTIME_DIR"
out=$("${IN[@]}" "$AIRLOCK" pending 2>&1)
expect_contains "another user is told the session admits only its owner" "$out" "admits only uid 0, who started it"
"${IN[@]}" "$AIRLOCK" approve "$id" --yes --session "$sid" >/dev/null 2>&1
check "and cannot approve it" test $? -ne 0
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
appr_reply 1
expect_eq "the owner approves its own session" "$(jr .result.structuredContent.stdout)" "deployed gamma"
appr_agent_stop

finish
