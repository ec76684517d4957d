#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approver without XDG_RUNTIME_DIR (uid 4257) searches
# /tmp/airlock-run-4257 for sessions, a name any local user may take
# first.  Another user (uid 4258) makes that directory and plants a
# session's control socket in it, answering with a forged pending action
# and taking whatever is sent to it.  "airlock pending" must not show
# the forged action and "airlock approve --token" must not hand the
# planted socket a token: the directory is not the approver's (or
# root's), or others may write to it, and it is said so.  Before, the
# forged action was listed as pending and the token went to the planted
# socket, which said it was taken.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "# not root: needs two other uids (setpriv); skipped"
	exit 77
fi
chmod 711 "$T"
APPROVER=(setpriv --reuid=4257 --regid=4257 --clear-groups
    env -u AIRLOCK_RUNTIME_DIR -u XDG_RUNTIME_DIR -u AIRLOCK_HOME
    -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$T/h4257")
MALLORY=(setpriv --reuid=4258 --regid=4258 --clear-groups)
DIR=/tmp/airlock-run-4257
rm -rf "$DIR"
mkdir -p "$T/h4257"
chown 4257:4257 "$T/h4257"
expect_eq "the approver's runtime directory is the /tmp fallback" \
    "$("${APPROVER[@]}" "$AIRLOCK" paths 2>/dev/null | awk '$1 == "runtime" { print $2 }')" "$DIR"

cat >"$T/fake.py" <<'PY'
import json, os, socket, sys
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o666)
s.listen(8)
while True:
    c, _ = s.accept()
    data = b""
    while not data.endswith(b"\n"):
        d = c.recv(65536)
        if not d:
            break
        data += d
    with open(log, "a") as f:
        f.write(data.decode())
    req = json.loads(data)
    if req.get("op") == "pending":
        r = {"session": "evil", "withdrawn": [], "pending": [{
            "id": "deadbeef", "session": "evil", "tool": "deploy",
            "arguments": {"target": "FORGED"}, "digest": "0" * 64,
            "evidence": None, "requestedAt": "2026-01-01T00:00:00Z",
            "expiresAt": "2099-01-01T00:00:00Z"}]}
    else:
        r = {"ok": True}
    c.sendall((json.dumps(r) + "\n").encode())
    c.close()
PY
chmod 644 "$T/fake.py"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
"${MALLORY[@]}" mkdir -m 755 "$DIR"
"${MALLORY[@]}" "$py" "$T/fake.py" "$DIR/evil.sock" "$DIR/log" &
FAKE=$!
at_exit 'kill $FAKE 2>/dev/null; rm -rf "$DIR"'
wait_for test -S "$DIR/evil.sock"
check "uid 4258 planted a session socket in $DIR" test -S "$DIR/evil.sock"

out=$("${APPROVER[@]}" "$AIRLOCK" pending 2>&1)
expect_not_contains "pending does not show the planted session's action" "$out" FORGED
expect_contains "... and says why it did not search the directory" "$out" \
    "$DIR: not searched for sessions: it must be a directory owned by you (uid 4257) or root that no one else can write to, and it is a directory owned by uid 4258, mode 0755"
out=$("${APPROVER[@]}" "$AIRLOCK" pending --json 2>/dev/null)
expect_eq "pending --json reaches no session" "$(printf '%s' "$out" | jq -c '[.sessionsReached, (.pending | length)]')" "[0,0]"

printf '{"type":"airlock-decision","session":"evil","approval":"deadbeef","decision":"deny","text":"no"}\n' >"$T/deny.tok"
chmod 644 "$T/deny.tok"
out=$("${APPROVER[@]}" "$AIRLOCK" approve --token "$T/deny.tok" 2>&1)
check "approve --token fails: no session took it" test $? -ne 0
expect_contains "... saying the session is not running here" "$out" "session evil is not running here"
check "the planted socket got no token" test -z "$(grep '"op": *"token"' "$DIR/log" 2>/dev/null)"
check "the planted socket was not even asked what is pending" test ! -s "$DIR/log"

# A directory of the approver's, but others may write to it: the same.
kill $FAKE
wait $FAKE 2>/dev/null
rm -rf "$DIR"
"${APPROVER[@]}" mkdir -m 700 "$DIR"
chmod 777 "$DIR"
"${MALLORY[@]}" "$py" "$T/fake.py" "$DIR/evil.sock" "$DIR/log" &
FAKE=$!
wait_for test -S "$DIR/evil.sock"
out=$("${APPROVER[@]}" "$AIRLOCK" pending 2>&1)
expect_not_contains "a directory others may write to is not searched either" "$out" FORGED
expect_contains "... and said" "$out" "owned by uid 4257, mode 0777"

# The approver's own directory, 0700: searched (and nothing is pending).
kill $FAKE
wait $FAKE 2>/dev/null
rm -rf "$DIR"
"${APPROVER[@]}" mkdir -m 700 "$DIR"
out=$("${APPROVER[@]}" "$AIRLOCK" pending 2>&1)
expect_not_contains "the approver's own directory is searched without a word" "$out" "not searched"
rm -rf "$DIR"
finish
