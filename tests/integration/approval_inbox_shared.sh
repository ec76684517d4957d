#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Two sessions started from one manifest watch the same approvals.inbox.
# A signed token is meant for the session it names: another session that
# scans the inbox first must leave it where it is, so that the session it
# names still gets it.  Before, whichever session scanned first refused a
# token for the other as wrong_session and removed it: a denial dropped
# in the inbox was lost, and the action it denied stayed pending (anyone
# could still approve it) while the approver believed it denied.
# Tokens for sessions that are gone (still signed and unexpired) must not
# keep a session from its own: more of them than one scan used to read
# lie in the inbox when a session's token arrives.  A token that is
# expired is of no use to anyone and is removed by whichever session
# sees it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

K="$T/keys"
mkdir -p "$K"
"$AIRLOCK" approver keygen "$K/alice" >/dev/null 2>&1
check "alice has a key" test -s "$K/alice.pub"
INBOX="$T/inbox"
{ deploy_tool_yaml; cat <<EOF
approvals:
  ttlSeconds: 120
  keys:
    - { name: alice, key: "$(cat "$K/alice.pub")" }
  inbox: $INBOX
EOF
} >"$T/m.yaml"

ws2="$T/ws2"
cp -a "$ws" "$ws2"
echo '{"name":"deploy","arguments":{"target":"alpha"}}' >"$ws/calls"
echo '{"name":"deploy","arguments":{"target":"beta"}}' >"$ws2/calls"

# start_session WS OUT: "airlock run" of the scripted agent in WS.
start_session() {
	"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$1" -- "$1/agent.sh" "$1/calls" \
	    >"$2" 2>"$2.err" &
}
# broker_of SOCKET: the pid of the process listening on SOCKET.
broker_of() {
	ss -xlpn | awk -v s="$1" '$5 == s' | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | head -n 1
}
# reply_of OUT N: reply N of the agent writing OUT, waiting up to 20 s.
reply_of() {
	local i r
	for i in $(seq 200); do
		r=$(sed -n "s/^R$2 //p" "$1")
		[ -n "$r" ] && { printf '%s' "$r"; return 0; }
		sleep 0.1
	done
	return 1
}
# token SESSION_REQ ID OUT ARGS...: alice's decision on ID in SESSION_REQ.
token() {
	local req=$1 id=$2 outf=$3
	shift 3
	"$AIRLOCK" "$@" --sign --key "$K/alice" --unverified --yes --id "$id" "$req" >"$outf" 2>/dev/null
}

start_session "$ws" "$T/a.out"
PID_A=$!
ida=$(appr_pending_id alpha)
check "session A's alpha is pending" test -n "$ida"
sessA=$(newest_session)
start_session "$ws2" "$T/b.out"
PID_B=$!
idb=$(appr_pending_id beta)
check "session B's beta is pending" test -n "$idb"
sessB=$(newest_session)
check "two sessions" test "$sessA" != "$sessB"
"$AIRLOCK" pending --json >"$T/req.json"

# B's broker is stopped: A is sure to scan the inbox first.
brokerB=$(broker_of "$AIRLOCK_RUNTIME_DIR/$(basename "$sessB").sock")
check "B's broker is found" test -n "$brokerB"
token "$T/req.json" "$idb" "$T/denyb.tok" deny --reason "not beta"
check "alice signs a denial of beta" test -s "$T/denyb.tok"
kill -STOP "$brokerB"
cp "$T/denyb.tok" "$INBOX/.denyb"
mv "$INBOX/.denyb" "$INBOX/denyb.tok"
# A has scanned the inbox once it has removed a malformed file dropped after.
echo '{}' >"$INBOX/zz-marker"
for i in $(seq 100); do [ -e "$INBOX/zz-marker" ] || break; sleep 0.1; done
check "A has scanned the inbox" test ! -e "$INBOX/zz-marker"
sleep 0.3
check "A leaves B's token in the inbox" test -e "$INBOX/denyb.tok"
check "A does not refuse B's token as wrong_session" \
    test -z "$(grep '"approval_token_refused".*"wrong_session"' "$sessA/audit.jsonl")"
kill -CONT "$brokerB"
R=$(reply_of "$T/b.out" 1)
mcp_error_body
expect_error_class "B takes the denial meant for it" approval_denied
expect_contains "... with alice's reason" "$(jr .result.structuredContent.message)" "not beta"
check "B removes the token it took" test ! -e "$INBOX/denyb.tok"
check "B's audit log records the denial by alice's key via the inbox" \
    grep -q '"approval_denied".*"by":"alice, key [^"]* (signed token via inbox:denyb.tok)' "$sessB/audit.jsonl"
kill "$PID_B" 2>/dev/null
wait "$PID_B"

# An expired token is of no use to anyone: removed, not kept.
jq '.pending |= map(.session = "gone-session")' "$T/req.json" >"$T/reqgone.json"
token "$T/reqgone.json" "$ida" "$T/goneold.tok" approve --expires-in 1
exp=$(jq .expires "$T/goneold.tok")
while [ "$(date +%s)" -le "$exp" ]; do sleep 0.2; done
cp "$T/goneold.tok" "$INBOX/.o"
mv "$INBOX/.o" "$INBOX/goneold.tok"
for i in $(seq 100); do [ -e "$INBOX/goneold.tok" ] || break; sleep 0.1; done
check "an expired token for another session is removed" test ! -e "$INBOX/goneold.tok"
# Stale tokens of a session that is gone, signed and unexpired, more than
# one scan used to read: A's own token still gets through.
token "$T/reqgone.json" "$ida" "$T/gone.tok" approve
check "a token for a session that is gone" test "$(jq -r .session "$T/gone.tok")" = gone-session
for i in $(seq 100); do cp "$T/gone.tok" "$INBOX/.g$i"; mv "$INBOX/.g$i" "$INBOX/gone$i.tok"; done
# The grant's name: one that the directory lists after at least 64 of
# them (ext4 lists by a hash of the name, the same in every directory of
# one file system; a probe directory beside the inbox says where).
mkdir "$T/probe"
(cd "$INBOX" && for f in gone*.tok; do : >"$T/probe/$f"; done)
for i in $(seq 50); do : >"$T/probe/grant$i.tok"; done
gname=$(ls -U "$T/probe" | awk '/^gone/ { n++ } /^grant/ && n >= 64 { print; exit }')
[ -n "$gname" ] || gname=grant1.tok
echo "# the grant is named $gname"
token "$T/req.json" "$ida" "$T/granta.tok" approve
cp "$T/granta.tok" "$INBOX/.a"
mv "$INBOX/.a" "$INBOX/$gname"
R=$(reply_of "$T/a.out" 1)
mcp_error_body
expect_eq "A takes its grant past 100 stale tokens of another session" \
    "$(jr .result.structuredContent.stdout)" "deployed alpha"
expect_eq "the stale tokens stay for the session they name" \
    "$(ls "$INBOX" | grep -c '^gone')" 100

kill "$PID_A" 2>/dev/null
wait "$PID_A"
finish
