#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Signed decisions (issue 16 item 2): approver keys (airlock approver
# keygen), a manifest that pins keys and revokes one, "airlock approve
# --sign" turning pending --json output into a token, and the broker
# taking tokens through "airlock approve --token" (from a uid that is not
# an approver: the signature decides) and through its inbox directory.
# Wrong digest, another session, replay, expiry, unknown key, revoked key
# and tampering are each refused, said and audited.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "# not root: the carrier runs as another uid (setpriv); skipped"
	exit 77
fi
chmod 711 "$T"
CARRIER=(setpriv --reuid=4243 --regid=4243 --clear-groups)

# ===== Keys ==========================================================================
K="$T/keys"
mkdir -p "$K"
for who in alice bob carol; do
	"$AIRLOCK" approver keygen "$K/$who" >"$K/$who.out" 2>"$K/$who.err"
	check "keygen makes $who's key pair" test $? -eq 0 -a -s "$K/$who" -a -s "$K/$who.pub"
done
check "the secret key is 0600" test "$(stat -c %a "$K/alice")" = 600
expect_eq "keygen prints the public key, as in FILE.pub" "$(cat "$K/alice.out")" "$(cat "$K/alice.pub")"
expect_contains "the public key's form" "$(cat "$K/alice.pub")" "airlock-ed25519:"
"$AIRLOCK" approver keygen "$K/alice" >/dev/null 2>&1
check "keygen never overwrites a key" test $? -ne 0
check "the old key is intact" test "$(cat "$K/alice.out")" = "$(cat "$K/alice.pub")"

INBOX="$T/inbox"
{ deploy_tool_yaml; cat <<EOF
approvals:
  ttlSeconds: 60
  keys:
    - { name: alice, key: "$(cat "$K/alice.pub")" }
    - "$(cat "$K/carol.pub")"
  revokedKeys: ["$(cat "$K/carol.pub")"]
  inbox: $INBOX
EOF
} >"$T/m.yaml"
out=$("$AIRLOCK" check -v "$T/m.yaml" 2>&1)
expect_contains "airlock check -v shows the pinned key" "$out" "- {name: \"alice\", key: \"$(cat "$K/alice.pub")\"}"
printf 'tools: []\napprovals:\n  keys: ["airlock-ed25519:AAAA"]\n' >"$T/bad.yaml"
out=$("$AIRLOCK" check "$T/bad.yaml" 2>&1)
expect_contains "a malformed key is a manifest error" "$out" "approvals.keys[0]: not an approver public key"
printf 'tools: []\napprovals:\n  inbox: /tmp/x\n' >"$T/bad2.yaml"
out=$("$AIRLOCK" check "$T/bad2.yaml" 2>&1)
expect_contains "an inbox without keys is a manifest error" "$out" "an inbox needs approvals.keys"
# An inbox the agent writes: it would read the tokens, and fill the inbox
# with other sessions' tokens that each scan leaves, so that the answer
# is never read.  The session does not start.
sed "s|inbox: $INBOX|inbox: $ws/.inbox|" "$T/m.yaml" >"$T/m-ws.yaml"
"$AIRLOCK" serve --manifest "$T/m-ws.yaml" --workspace "$ws" </dev/null \
    >/dev/null 2>"$T/err"
expect_eq "an inbox in the workspace refuses the session (78)" "$?" 78
expect_contains "... saying why" "$(cat "$T/err")" \
    "approvals.inbox $ws/.inbox lies in $ws, which the agent writes"
# An inbox another local user may write without the sticky bit, or that
# belongs to another user: they could remove or rename a token in it (a
# denial the approver sent, never read) or fill it.  Refused at start;
# before, the session ran and read tokens from it.
SHARED="$T/shared-inbox"
sed "s|inbox: $INBOX|inbox: $SHARED|" "$T/m.yaml" >"$T/m-shared.yaml"
serve_shared() {
	"$AIRLOCK" serve --manifest "$T/m-shared.yaml" --workspace "$ws" </dev/null \
	    >/dev/null 2>"$T/err"
}
mkdir -p "$SHARED"
chmod 0777 "$SHARED"
serve_shared
expect_eq "an inbox others may write (0777) refuses the session (78)" "$?" 78
expect_contains "... saying why" "$(cat "$T/err")" \
    "approvals.inbox $SHARED is writable by others (mode 0777) without the sticky bit"
chmod 0770 "$SHARED"
serve_shared
expect_eq "an inbox its group may write (0770) refuses the session (78)" "$?" 78
expect_contains "... saying why" "$(cat "$T/err")" "is writable by its group (mode 0770)"
chmod 0700 "$SHARED"
chown 65534 "$SHARED"
serve_shared
expect_eq "an inbox of another user refuses the session (78)" "$?" 78
expect_contains "... saying why" "$(cat "$T/err")" \
    "approvals.inbox $SHARED belongs to uid 65534, not to root or to the user running airlock"
chown 0 "$SHARED"
chmod 01777 "$SHARED"
serve_shared
expect_eq "a sticky inbox others may write (1777) is accepted" "$?" 0
rmdir "$SHARED"

cat >"$ws/calls" <<'EOF'
{"name":"deploy","arguments":{"target":"alpha"}}
{"name":"deploy","arguments":{"target":"beta"}}
{"name":"deploy","arguments":{"target":"gamma"}}
EOF
appr_agent_start "$T/m.yaml" calls
id=$(appr_pending_id alpha)
check "alpha is pending" test -n "$id"
sess=$(newest_session)
sess_id=$(basename "$sess")
"$AIRLOCK" pending --json >"$T/req.json"

# The session host's audit key: what an approver elsewhere trusts.
HK=$("$AIRLOCK" audit key 2>/dev/null)
check "audit key prints the host key" test ${#HK} = 64
# sign TOKEN_FILE KEY [ARGS...]: sign the request in $T/req.json.
sign() {
	local outf=$1 key=$2
	shift 2
	"$AIRLOCK" approve --sign --key "$K/$key" --host-key "$HK" --yes --id "$id" "$@" "$T/req.json" --out "$outf" >/dev/null 2>"$T/sign.err"
}
# deliver TOKEN_FILE: hand it over as the carrier (not an approver).
deliver() { "${CARRIER[@]}" "$AIRLOCK" approve --token - <"$1" 2>&1; }
refusals() { grep -c "\"approval_token_refused\".*\"refused\":\"$1\"" "$sess/audit.jsonl"; }

sign "$T/alice.tok" alice
check "approve --sign writes a token" test $? -eq 0 -a -s "$T/alice.tok"
R=$(cat "$T/alice.tok")
expect_eq "the token binds session, approval id and digest" \
    "$(jr -c '[.session, .approval, .digest, .decision]')" \
    "$(jq -c --arg id "$id" '.pending[] | select(.id == $id) | [.session, .id, .digest, "approve"]' "$T/req.json")"
check "approve --sign refuses a key readable by others" bash -c \
    'cp "$1" "$1.lax"; chmod 644 "$1.lax"; ! "$2" approve --sign --key "$1.lax" --host-key "$4" --yes "$3" 2>/dev/null' _ "$K/alice" "$AIRLOCK" "$T/req.json" "$HK"

# The request is signed by the session (its audit key, certified by the
# host key): what the digest does not bind, the agent's reason and the
# rest of the evidence, cannot be edited on the way either.  Before, an
# edited reason or gate result was signed as shown.
att() { jq -r --arg id "$id" ".pending[] | select(.id == \$id) | .attestation.$1" "$T/req.json"; }
expect_eq "the request carries the host key" "$(att hostKey)" "$HK"
expect_eq "... and the key that signs the session's audit log" "$(att sessionKey)" \
    "$(jq -r 'select(.event == "session_start") | .fields.pubkey' "$sess/audit.jsonl")"
out=$("$AIRLOCK" approve --sign --key "$K/alice" --yes --id "$id" "$T/req.json" 2>&1 >"$T/none.tok")
check "approve --sign without --host-key or --unverified is a usage error" test $? -eq 64 -a ! -s "$T/none.tok"
expect_contains "... naming both" "$out" "needs either --host-key KEY"
check "--host-key and --unverified together are a usage error" bash -c \
    '"$1" approve --sign --key "$2" --host-key "$3" --unverified --yes --id "$4" "$5" >/dev/null 2>&1; test $? -eq 64' \
    _ "$AIRLOCK" "$K/alice" "$HK" "$id" "$T/req.json"
check "--host-key without --sign is a usage error" bash -c \
    '"$1" approve --host-key "$2" "$3" >/dev/null 2>&1; test $? -eq 64' _ "$AIRLOCK" "$HK" "$id"
out=$("$AIRLOCK" approve --sign --key "$K/alice" --host-key "$HK" --yes --id "$id" "$T/req.json" 2>&1 >"$T/ok.tok")
check "an untouched request signs with --host-key" test $? -eq 0 -a -s "$T/ok.tok"
expect_contains "... and the review says who sent it" "$out" "sent:      signed by session $sess_id, certified by host key ${HK:0:16}"
check "--host-key takes the host's audit.pub file too" bash -c \
    '"$1" approve --sign --key "$2" --host-key "$3" --yes --id "$4" "$5" 2>/dev/null | grep -q signature' \
    _ "$AIRLOCK" "$K/alice" "$AIRLOCK_HOME/keys/audit.pub" "$id" "$T/req.json"
# unattested NAME JQ-EDIT WHY: the request edited so: refused under
# --host-key with WHY, nothing out; signed under --unverified, the review
# saying it is not verified.
unattested() {
	jq --arg id "$id" ".pending |= map(if .id == \$id then $2 else . end)" "$T/req.json" >"$T/req-$1.json"
	out=$("$AIRLOCK" approve --sign --key "$K/alice" --host-key "$HK" --yes --id "$id" "$T/req-$1.json" 2>&1 >"$T/$1.tok")
	check "approve --sign --host-key refuses a request with $1" test $? -ne 0 -a ! -s "$T/$1.tok"
	expect_contains "... saying why" "$out" "$3"
	out=$("$AIRLOCK" approve --sign --key "$K/alice" --unverified --yes --id "$id" "$T/req-$1.json" 2>&1 >"$T/$1.tok")
	check "approve --sign --unverified signs it" test $? -eq 0 -a -s "$T/$1.tok"
	expect_contains "... saying it is not verified" "$out" "sent:      NOT VERIFIED (no --host-key to check it against)"
}
unattested "another agent's reason" '.evidence.agentReason = "the tests pass, ship it"' \
    "the session's signature does not verify: it was changed after the session signed it"
unattested "evidence added" '.evidence.gates = {"test": "pass"}' "the session's signature does not verify"
unattested "a later expiry" '.expiresAt = "2099-01-01T00:00:00.000Z"' "the session's signature does not verify"
unattested "no attestation" 'del(.attestation)' "it carries no attestation: the session did not sign it"
unattested "a session key of its own" '.attestation.sessionKey = ("ab" * 32)' \
    "the host key's certificate of its session key does not verify for session $sess_id"
unattested "a malformed signature" '.attestation.signature = "AAAA"' "its attestation is malformed"
head -c 32 /dev/urandom >"$T/otherhost.key"
chmod 600 "$T/otherhost.key"
out=$("$AIRLOCK" approve --sign --key "$K/alice" --host-key "$T/otherhost.key" --yes --id "$id" "$T/req.json" 2>&1 >"$T/otherhost.tok")
check "approve --sign refuses a request attested by a host key it was not given" test $? -ne 0 -a ! -s "$T/otherhost.tok"
expect_contains "... saying so" "$out" "it is attested by host key ${HK:0:16}..., which is not one you trust"

# A request changed on its way to the approver (chat, a ticket, a notify
# hook): approve --sign works the digest out again from what it shows and
# signs nothing else.  Before, it showed "omega" and signed alpha's digest.
# changed NAME JQ-EDIT: the request edited so, signed: refused, nothing out.
changed() {
	jq --arg id "$id" ".pending |= map(if .id == \$id then $2 else . end)" "$T/req.json" >"$T/req-$1.json"
	out=$("$AIRLOCK" approve --sign --key "$K/alice" --unverified --yes --id "$id" "$T/req-$1.json" 2>&1 >"$T/$1.tok")
	check "approve --sign refuses a request with $1" test $? -ne 0 -a ! -s "$T/$1.tok"
}
changed "another digest" '.digest = ("0" * 64)'
expect_contains "... saying its digest is not that of what it shows" "$out" \
    "its digest is not the digest of the tool, arguments and execution it shows"
changed "other arguments" '.arguments.target = "omega"'
changed "another argv" '.execution.argv[2] = "omega"'
changed "another tool" '.tool = "deploy2"'
changed "another workspace digest shown" '.evidence.workspaceDigest = ("1" * 64)'
expect_contains "... saying which" "$out" "the workspace digest it shows is not the one its digest binds"
changed "a diff that is none of its arguments" '.evidence.diff = "+ok"'
# Wrong digest: a token signed by a pinned key for another action (the
# request rewritten whole, its digest that of the arguments it shows, as
# the broker works it out: the tool, NUL, the canonical arguments, NUL,
# the canonical execution).
jq --arg id "$id" '.pending |= map(if .id == $id then .arguments.target = "omega" | .execution.argv[2] = "omega" else . end)' \
    "$T/req.json" >"$T/req0.json"
d0=$( { printf 'deploy\0'; jq -cjS --arg id "$id" '.pending[] | select(.id == $id) | .arguments' "$T/req0.json"
	printf '\0'; jq -cjS --arg id "$id" '.pending[] | select(.id == $id) | .execution' "$T/req0.json"; } |
    sha256sum | cut -c1-64)
d=$(jq -r --arg id "$id" '.pending[] | select(.id == $id) | .digest' "$T/req.json")
d1=$( { printf 'deploy\0'; jq -cjS --arg id "$id" '.pending[] | select(.id == $id) | .arguments' "$T/req.json"
	printf '\0'; jq -cjS --arg id "$id" '.pending[] | select(.id == $id) | .execution' "$T/req.json"; } |
    sha256sum | cut -c1-64)
expect_eq "the digest is worked out from what the request shows" "$d1" "$d"
jq --arg id "$id" --arg d "$d0" '.pending |= map(if .id == $id then .digest = $d else . end)' "$T/req0.json" >"$T/req0d.json"
"$AIRLOCK" approve --sign --key "$K/alice" --unverified --yes "$T/req0d.json" --id "$id" >"$T/wrongdigest.tok" 2>/dev/null
check "approve --sign signs a request whose digest is that of what it shows" test -s "$T/wrongdigest.tok"
out=$(deliver "$T/wrongdigest.tok")
expect_contains "a token for another digest is refused" "$out" "digest does not match"
check "... and audited as wrong_digest" test "$(refusals wrong_digest)" = 1
# Unknown key.
sign "$T/bob.tok" bob
out=$(deliver "$T/bob.tok")
expect_contains "a token signed by an unpinned key is refused" "$out" "not pinned"
check "... and audited as unknown_key" test "$(refusals unknown_key)" = 1
# Revoked key (pinned, and revoked too).
sign "$T/carol.tok" carol
out=$(deliver "$T/carol.tok")
expect_contains "a token signed by a revoked key is refused" "$out" "revoked"
check "... and audited as revoked_key" test "$(refusals revoked_key)" = 1
# Tampered: the decision changed after signing.
jq -c '.decision = "deny" | .text = "x"' "$T/alice.tok" >"$T/tampered.tok"
out=$(deliver "$T/tampered.tok")
expect_contains "a token changed after signing is refused" "$out" "bad signature"
check "... and audited as bad_signature" test "$(refusals bad_signature)" = 1
# Expired.
sign "$T/short.tok" alice --expires-in 1
exp=$(jq .expires "$T/short.tok")
while [ "$(date +%s)" -le "$exp" ]; do sleep 0.2; done
out=$(deliver "$T/short.tok")
expect_contains "an expired token is refused" "$out" "expired"
check "... and audited as expired" test "$(refusals expired)" = 1
check "after five refusals alpha still waits" test -z "$(sed -n 's/^R1 //p' "$OUT")"
check "the carrier uid cannot list the session (not an approver)" \
    bash -c '"$@" 2>&1 | grep -q "not an approver"' _ "${CARRIER[@]}" "$AIRLOCK" pending

# The good token, carried by a uid that is no approver.
out=$(deliver "$T/alice.tok")
expect_contains "the pinned key's token approves" "$out" "approved $id (signed token)"
appr_reply 1
expect_eq "approved by token: the call ran" "$(jr .result.structuredContent.stdout)" "deployed alpha"
check "the grant names the key and the channel" grep -q '"approval_granted".*"by":"alice, key airlock-ed25519:[^"]* (signed token via control socket, uid 4243)' "$sess/audit.jsonl"
out=$(deliver "$T/alice.tok")
expect_contains "the same token again is a replay" "$out" "replay"
check "... and audited as replay" test "$(refusals replay)" = 1
# A member named with accented letters (any local user may hand the
# socket a token): the refusal quotes the name cut at 64 bytes, inside a
# character; JSON could not hold the reason, the carrier got no answer
# and approval_token_refused was recorded with no fields at all.
accented=$(printf '\342\202\254%.0s' $(seq 30))
jq -c --arg k "$accented" '. + {($k): 1}' "$T/alice.tok" >"$T/member.tok"
out=$(deliver "$T/member.tok")
expect_contains "a token with an unknown member of accented letters is refused, cut between characters" \
    "$out" "unknown member \"$(printf '\342\202\254%.0s' $(seq 21))\""
expect_eq "... and audited as malformed, naming the reason and the channel" \
    "$(grep '"approval_token_refused"' "$sess/audit.jsonl" | grep 'unknown member' |
	grep '"refused":"malformed"' | grep -c '"via":"control socket, uid')" 1

# The inbox: a deny token renamed in; then a bad file; then a grant.
id=$(appr_pending_id beta)
"$AIRLOCK" pending --json >"$T/req.json"
"$AIRLOCK" deny --sign --key "$K/alice" --reason "not beta" --id "$id" "$T/req.json" >"$INBOX/.beta.tmp" 2>/dev/null
mv "$INBOX/.beta.tmp" "$INBOX/beta.tok"
appr_reply 2
expect_error_class "a deny token dropped in the inbox denies" approval_denied
expect_contains "the denial carries the signed reason" "$(jr .result.structuredContent.message)" "not beta"
check "the inbox file is consumed" test ! -e "$INBOX/beta.tok"
id=$(appr_pending_id gamma)
"$AIRLOCK" pending --json >"$T/req.json"
printf 'garbage\n' >"$INBOX/junk"
sign "$T/bob2.tok" bob
cp "$T/bob2.tok" "$INBOX/bob.tok"
for i in $(seq 100); do [ "$(refusals unknown_key)" = 2 ] && break; sleep 0.1; done
check "an inbox token with an unknown key is refused and audited" test "$(refusals unknown_key)" = 2
check "an inbox file that is not a token is audited as malformed" grep -q '"approval_token_refused".*"refused":"malformed".*inbox:junk' "$sess/audit.jsonl"
# Another session: a token by a pinned key for this approval id and
# digest, but naming another session, dropped in this session's inbox:
# sessions started from one manifest share it, so it stays there for the
# session it names (approval_inbox_shared.sh), and nothing is decided.
# Handed to this session's control socket, it is refused as wrong_session.
jq '.pending |= map(.session = "other-session")' "$T/req.json" >"$T/reqother.json"
"$AIRLOCK" approve --sign --key "$K/alice" --unverified --yes --id "$id" "$T/reqother.json" >"$T/other.tok" 2>/dev/null
expect_eq "the token names the other session" "$(jq -r .session "$T/other.tok")" other-session
cp "$T/other.tok" "$INBOX/other.tok"
printf 'garbage\n' >"$INBOX/junk2"
for i in $(seq 100); do [ -e "$INBOX/junk2" ] || break; sleep 0.1; done
sleep 0.3
check "a token for another session is left in the inbox" test -e "$INBOX/other.tok"
rm -f "$INBOX/other.tok"
out=$(jq -c '{op: "token", token: .}' "$T/other.tok" |
    "${CARRIER[@]}" "$top_builddir/tests/unixclient" "$AIRLOCK_RUNTIME_DIR/$sess_id.sock" 2>&1)
expect_contains "a token for another session is refused on the control socket" "$out" "the token is for session other-session"
for i in $(seq 100); do [ "$(refusals wrong_session)" = 1 ] && break; sleep 0.1; done
check "... and audited as wrong_session" \
    bash -c 'grep "\"approval_token_refused\".*\"refused\":\"wrong_session\"" "$1" | grep -q "the token is for session other-session, not"' _ "$sess/audit.jsonl"
check "gamma still waits" test -z "$(sed -n 's/^R3 //p' "$OUT")"
sign "$T/gamma.tok" alice
cp "$T/gamma.tok" "$INBOX/gamma.tok"
appr_reply 3
expect_eq "a grant dropped in the inbox approves" "$(jr .result.structuredContent.stdout)" "deployed gamma"
check "the grant names the inbox file" grep -q '"approval_granted".*signed token via inbox:gamma.tok' "$sess/audit.jsonl"

appr_agent_stop
check "audit log verifies" "$AIRLOCK" audit verify "$sess/audit.jsonl"

# ===== Slots =========================================================================
# With keys pinned the control socket is open to every local user (the
# carriers of tokens).  Idle connections of such a uid take at most half
# of its 8 slots, each for 5 s: they cannot keep the approvers out.
# A session of its own, its one call waiting for a decision.
echo '{"name":"deploy","arguments":{"target":"delta"}}' >"$ws/calls2"
appr_agent_start "$T/m.yaml" calls2
id=$(appr_pending_id delta)
check "delta is pending" test -n "$id"
sess2=$(newest_session)
cat >"$T/hold.py" <<'PY'
import socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
conns = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    conns.append(s)
time.sleep(0.5)
busy, held = 0, []
for s in conns:
    s.setblocking(False)
    try:
        data = s.recv(4096)
    except BlockingIOError:
        held.append(s)
        continue
    if b"busy" in data:
        busy += 1
print("busy=%d" % busy, flush=True)
time.sleep(6)
closed = 0
for s in held:
    try:
        if s.recv(4096) == b"":
            closed += 1
    except BlockingIOError:
        pass
print("closed=%d of %d" % (closed, len(held)), flush=True)
PY
sock="$AIRLOCK_RUNTIME_DIR/$(basename "$sess2").sock"
# The system's python3: another uid may not reach a per-user one (pyenv).
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
"${CARRIER[@]}" "$py" "$T/hold.py" "$sock" 8 >"$T/hold.out" 2>&1 &
holder=$!
for i in $(seq 50); do grep -q busy= "$T/hold.out" && break; sleep 0.1; done
expect_eq "another uid's idle connections past half the slots are told busy" \
    "$(sed -n 's/^busy=//p' "$T/hold.out")" 4
out=$("$AIRLOCK" pending 2>&1); rc=$?
expect_eq "the approver still gets in while they are held: exit 0" "$rc" 0
check "... and is not told busy" test "${out#*busy}" = "$out"
wait $holder
expect_eq "the broker closes them after 5 s" "$(sed -n 's/^closed=//p' "$T/hold.out")" "4 of 4"
"$AIRLOCK" deny "$id" --reason "the slots are tested" >/dev/null 2>&1
appr_reply 1
expect_error_class "the approver's denial still arrives" approval_denied
appr_agent_stop

finish
