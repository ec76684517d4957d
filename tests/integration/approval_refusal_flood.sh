#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A local user who is not an approver floods a session's control socket
# (open to every local user: the manifest names another approver) by
# reconnecting in a loop.  Each connection was refused and recorded: a
# signed, synced approval_refused_peer, about 300 a second (140 KB/s)
# from uid 4242, until the state directory was full and the session
# refused every call of the agent (the log cannot be written).  Refusals
# are now recorded 20 at once and then one a second, each carrying how
# many were not ("suppressed"); the approvers are served as before.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
if [ "$(id -u)" != 0 ]; then
	echo "# not root: the flooder runs as another uid (setpriv); skipped"
	exit 77
fi
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "# no $PY; skipped"; exit 77; }
chmod 755 "$AIRLOCK_RUNTIME_DIR"
{ deploy_tool_yaml; printf 'approvals:\n  approvers: [root, daemon]\n  ttlSeconds: 60\n'; } >"$T/m.yaml"

cat >"$T/flood.py" <<'PYEOF'
import glob, socket, sys, time
path = glob.glob(sys.argv[1] + "/*.sock")[0]
n = 0
end = time.time() + float(sys.argv[2])
most = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 30
while time.time() < end and n < most:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        n += 1  # connected: the session refuses it, answered or not
        s.sendall(b'{"op":"pending"}\n')
        s.recv(65536)
    except OSError:
        pass
    finally:
        s.close()
print(n)
PYEOF
chmod 644 "$T/flood.py"

mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
check "the control socket is open to every local user" \
    test "$(stat -c %a "$AIRLOCK_RUNTIME_DIR"/*.sock)" = 666
n=$(setpriv --reuid=4242 --regid=4242 --clear-groups "$PY" "$T/flood.py" "$AIRLOCK_RUNTIME_DIR" 4)
check "uid 4242 was refused many times ($n)" test "${n:-0}" -gt 200
# One more refusal a second later carries the count of the flood's end.
sleep 1.5
n1=$(setpriv --reuid=4242 --regid=4242 --clear-groups "$PY" "$T/flood.py" "$AIRLOCK_RUNTIME_DIR" 5 1)
n=$((n + n1))
out=$("$AIRLOCK" pending --json 2>&1)
check "the owner, an approver, is served after the flood" \
    bash -c 'jq -e ".sessionsReached == 1" >/dev/null <<<"$1"' _ "$out"
# Each refused connection before, one record; now 20, then one a second.
recs=$(grep -c '"approval_refused_peer"' "$sess/audit.jsonl")
check "refusals recorded: 20 at once, then about one a second ($recs for $n)" \
    test "$recs" -ge 20 -a "$recs" -le 30
sup=$(jq -s '[.[] | select(.event == "approval_refused_peer") | .fields.suppressed // 0] | add' "$sess/audit.jsonl")
check "the records count those not recorded ($sup)" test "$sup" -gt 0
check "... all of them ($recs + $sup of $n)" \
    test $((recs + sup)) -le "$n" -a $((recs + sup)) -ge $((n * 9 / 10))
expect_contains "a refusal still names the peer" \
    "$(grep -m1 '"approval_refused_peer"' "$sess/audit.jsonl")" 'uid 4242'
# The agent's calls are served, and the log verifies.
mcp_rpc ping '{}'
expect_eq "the agent is served after the flood" "$(jr -c .result)" '{}'
mcp_stop
check "the log verifies" "$AIRLOCK" audit verify -q "$sess/audit.jsonl"
finish
