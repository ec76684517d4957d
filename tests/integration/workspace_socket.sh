#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A host service's unix socket in the workspace (a project-local Postgres's
# .s.PGSQL.5432, a Rails tmp/sockets/puma.sock) is not reachable from a
# sandbox: connect() needs only write permission on the socket's inode,
# which neither a read-only mount nor landlock takes away.  A runner that
# needs no live view (a sideEffect: none tool) sees the workspace through
# an overlay, whose inodes are not the bound socket's (ECONNREFUSED), also
# for a socket bound after it started; the
# agent's own sandbox keeps its live bind, and each socket found beneath
# the workspace when it starts is masked by an empty file (ECONNREFUSED
# too).  The host service receives nothing either way.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tmp/sockets" "$T/st1000" "$T/svc"
# An ordinary user's project and services (uid 1000): airlock runs as root,
# then as that user.
chown -R 1000:1000 "$ws" "$T/st1000" "$T/svc"
svc_user() { setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }
[ -x /usr/bin/python3 ] || { echo "SKIP: no /usr/bin/python3"; exit 77; }

# The host service: listens on two sockets in the workspace, mode 0777,
# and writes down every connection and every byte it gets.  It ends with
# the test (its parent), also one that stops at a failure.
cat >"$T/service.py" <<'EOF'
import os, select, socket, sys
parent = os.getppid()
log = open(sys.argv[1], "ab", buffering=0)
ls = []
for p in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    os.chmod(p, 0o777)
    s.listen(8)
    ls.append(s)
open(sys.argv[1] + ".ready", "w").close()
while os.getppid() == parent:
    r, _, _ = select.select(ls, [], [], 0.5)
    for s in r:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            data = c.recv(4096)
        except OSError:
            data = b""
        log.write(b"connection " + data + b"\n")
        c.close()
EOF
svc_user /usr/bin/python3 "$T/service.py" "$T/svc/received" \
    "$ws/tmp/sockets/puma.sock" "$ws/.s.PGSQL.5432" &
svc=$!
for _ in $(seq 200); do
	[ -e "$T/svc/received.ready" ] && break
	sleep 0.05
done
check "the host service listens in the workspace" test -S "$ws/.s.PGSQL.5432"

# A socket bound after the sandbox started: the service binds
# tmp/sockets/late.sock once it sees the tool's process (its argument
# DIAL-LATE), and serves it as it serves the others.
cat >"$T/late.py" <<'EOF'
import os, socket, sys, time
parent = os.getppid()
mark = ("DIAL-" + "LATE").encode()
def running():
    for pid in os.listdir("/proc"):
        try:
            if mark in open("/proc/%s/cmdline" % pid, "rb").read():
                return True
        except OSError:
            pass
    return False
while not running():
    if os.getppid() != parent:
        sys.exit(0)
    time.sleep(0.02)
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[2])
os.chmod(sys.argv[2], 0o777)
s.listen(8)
log = open(sys.argv[1], "ab", buffering=0)
s.settimeout(0.5)
while os.getppid() == parent:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(2)
    try:
        data = c.recv(4096)
    except OSError:
        data = b""
    log.write(b"connection " + data + b"\n")
    c.close()
EOF
svc_user /usr/bin/python3 "$T/late.py" "$T/svc/received" "$ws/tmp/sockets/late.sock" &
late=$!

# What the sandbox tries: read the workspace, then dial the sockets.  With
# DIAL-LATE it first waits for late.sock to appear in a listing of its
# directory (a lookup of the name would cache its absence in an overlay).
cat >"$ws/dial.py" <<'EOF'
import errno, os, socket, sys, time
ws = sys.argv[1]
if open(ws + "/src/todo.sh").read():
    print("READ-OK")
names = ["tmp/sockets/puma.sock", ".s.PGSQL.5432"]
if sys.argv[2:] == ["DIAL-LATE"]:
    for _ in range(1000):
        if "late.sock" in os.listdir(ws + "/tmp/sockets"):
            names.append("tmp/sockets/late.sock")
            break
        time.sleep(0.02)
    else:
        print("late.sock never appeared")
for p in names:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(ws + "/" + p)
        s.sendall(b"ATTACK " + p.encode())
        print(p, "connect: OK")
    except OSError as e:
        print(p, "connect:", errno.errorcode.get(e.errno, e.errno))
EOF

cat >"$T/m.yaml" <<EOF
tools:
  - name: dial
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["python3", "$ws/dial.py", "$ws", "DIAL-LATE"]
    sideEffect: none
    timeoutMs: 30000
EOF

# --- A sideEffect: none tool (a runner on a read-only workspace) ------------
mcp_start "$T/m.yaml" "$ws"
mcp_call dial '{}'
tool=$(jr .result.structuredContent.stdout)
mcp_stop
expect_contains "a sideEffect: none tool still reads the workspace" "$tool" \
    "READ-OK"
expect_contains "its connect to puma.sock is refused (ECONNREFUSED)" "$tool" \
    "tmp/sockets/puma.sock connect: ECONNREFUSED"
expect_contains "its connect to .s.PGSQL.5432 is refused (ECONNREFUSED)" \
    "$tool" ".s.PGSQL.5432 connect: ECONNREFUSED"
expect_contains "a socket bound after it started is refused too (its overlay)" \
    "$tool" "tmp/sockets/late.sock connect: ECONNREFUSED"

# The same tool for an ordinary user (the overlay made in a user namespace).
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"dial","arguments":{}}}'
sed 's/DIAL-LATE/NO-LATE/' "$T/m.yaml" >"$T/m-user.yaml"
user=$(printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "$CALL" | as_uid 1000 timeout 60 "$AIRLOCK" serve \
    --manifest "$T/m-user.yaml" --workspace "$ws" 2>"$T/user.err" |
    jq -r 'select(.id == 2) | .result.structuredContent.stdout')
expect_contains "an ordinary user's tool still reads the workspace" "$user" \
    "READ-OK"
expect_contains "and its connect is refused (ECONNREFUSED)" "$user" \
    ".s.PGSQL.5432 connect: ECONNREFUSED"

# --- The agent's own sandbox under airlock run (the live, read-only bind) ---
cat >"$T/agent.sh" <<EOF
#!/bin/sh
exec python3 "$ws/dial.py" "$ws"
EOF
chmod 755 "$T/agent.sh"
agent=$(timeout 60 "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" \
    -- "$T/agent.sh" 2>"$T/run.err")
expect_contains "the agent still reads the workspace" "$agent" "READ-OK"
expect_contains "the agent's connect to puma.sock is refused (ECONNREFUSED)" \
    "$agent" "tmp/sockets/puma.sock connect: ECONNREFUSED"
expect_contains "the agent's connect to .s.PGSQL.5432 is refused (ECONNREFUSED)" \
    "$agent" ".s.PGSQL.5432 connect: ECONNREFUSED"

kill "$svc" "$late"
wait "$svc" "$late" 2>/dev/null
expect_eq "the host service received nothing" "$(cat "$T/svc/received")" ""
check "the sockets are still the service's" test -S "$ws/.s.PGSQL.5432"
finish
