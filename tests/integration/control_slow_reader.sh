#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The approval control socket never blocks the broker on a client that
# stops reading.  With approver keys pinned the socket is open to every
# local user; uid 4243, no approver, connects, sends thousands of
# requests in one go and never reads the refusals.  Before, the broker
# blocked in write(2) on that client: the owner's "airlock pending" hung,
# and so did the agent's session, until the flooder went away.  Now the
# replies wait in a bounded queue, the flooder's requests are read only
# as it reads their answers, it is dropped at its deadline, and the
# session goes on.  An approver that stops reading a large pending list
# is treated the same way.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "# not root: the flooder runs as another uid (setpriv); skipped"
	exit 77
fi
chmod 711 "$T"
OTHER=(setpriv --reuid=4243 --regid=4243 --clear-groups)

"$AIRLOCK" approver keygen "$T/alice" >/dev/null 2>&1
{ deploy_tool_yaml; cat <<EOF2
approvals:
  ttlSeconds: 60
  keys: ["$(cat "$T/alice.pub")"]
EOF2
} >"$T/m.yaml"
cat >"$ws/calls" <<'EOF2'
{"name":"deploy","arguments":{"target":"alpha"}}
{"name":"deploy","arguments":{"target":"beta"}}
{"name":"deploy","arguments":{"target":"gamma"}}
EOF2
appr_agent_start "$T/m.yaml" calls
id=$(appr_pending_id alpha)
check "alpha is pending" test -n "$id"
sid=$(basename "$(newest_session)")
sock="$AIRLOCK_RUNTIME_DIR/$sid.sock"
check "the keyed session's socket is open to others (0666)" test "$(stat -c %a "$sock")" = 666

# flood SECONDS [AS...]: connects, sends 40,000 requests, reads nothing
# for SECONDS or until the session drops it, then reports how many bytes
# of answers were waiting for it.
flood() {
	local secs=$1
	shift
	"$@" /usr/bin/python3 - "$sock" "$secs" <<'PYEOF' 2>&1
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
msg = b'{"op":"pending"}\n' * 40000
s.setblocking(False)
sent = 0
end = time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        if sent < len(msg):
            sent += s.send(msg[sent:])
    except BlockingIOError:
        pass
    except OSError:
        break
    time.sleep(0.01)
got = 0
s.setblocking(True)
s.settimeout(2)
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += len(b)
except OSError:
    pass
print("sent %d got %d" % (sent, got))
PYEOF
}

flood 30 "${OTHER[@]}" >"$T/flood.out" &
FLOOD=$!
sleep 1.5
t0=$(date +%s%N)
out=$(timeout 2 "$AIRLOCK" pending --json 2>&1)
rc=$?
t1=$(date +%s%N)
check "the owner's pending answers while a non-approver floods unread (rc $rc, $(( (t1 - t0) / 1000000 )) ms)" \
    test "$rc" -eq 0
expect_contains "and lists alpha" "$out" '"target": "alpha"'
# The decision goes through at once, and the agent's call runs.
out=$(timeout 2 "$AIRLOCK" approve "$id" --yes 2>&1)
expect_contains "the owner approves during the flood" "$out" "approved $id"
appr_reply 1
expect_eq "the approved call ran" "$(jr .result.structuredContent.stdout)" "deployed alpha"
# The flooder ends when the session drops it (its sends fail).
wait "$FLOOD"
f=$(cat "$T/flood.out")
got=${f##* got }
check "the flooder was dropped at its deadline with a bounded backlog ($f)" \
    test -n "$got" -a "$got" -lt 1000000
n=$(grep -c '"approval_refused_peer"' "$(newest_session)/audit.jsonl")
check "its requests were answered only as it read the answers ($n refusals)" \
    test "$n" -ge 1 -a "$n" -lt 3000

# An approver (the owner) that asks for the list again and again and
# stops reading: its own client waits, nobody else does.
id2=$(appr_pending_id beta)
check "beta is pending" test -n "$id2"
flood 30 >"$T/flood2.out" &
FLOOD=$!
sleep 1.5
out=$(timeout 2 "$AIRLOCK" deny "$id2" --reason "not beta" 2>&1)
check "a deny goes through while an approver's client reads nothing" test $? -eq 0
# (gamma keeps the session up meanwhile: with beta's the agent's last
# call, the session ended as the deny's answer came, and with it the
# flooder's connection, before an airlock built with ASan had exited.)
check "... while that client is still connected" kill -0 "$FLOOD"
appr_reply 2
expect_error_class "beta was denied" approval_denied
kill "$FLOOD" 2>/dev/null
wait "$FLOOD" 2>/dev/null
id3=$(appr_pending_id gamma)
out=$(timeout 10 "$AIRLOCK" deny "$id3" --reason "not gamma" 2>&1)
check "gamma is denied once the flooder is gone ($out)" test $? -eq 0
appr_agent_stop
finish
