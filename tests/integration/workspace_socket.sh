#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A host service's unix socket in the workspace (a project-local Postgres's
# .s.PGSQL.5432, a Rails tmp/sockets/puma.sock) is not reachable from a
# sandbox: connect() needs only write permission on the socket's inode,
# which neither a read-only mount nor landlock takes away.  A runner that
# needs no live view (a sideEffect: none tool) sees the workspace through
# an overlay, whose inodes are not the bound socket's (ECONNREFUSED); the
# agent's own sandbox keeps its live bind, and each socket found beneath
# the workspace when it starts is masked by an empty file (ECONNREFUSED
# too).  The host service receives nothing either way.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tmp/sockets"

# The host service: listens on two sockets in the workspace, mode 0777,
# and writes down every connection and every byte it gets.
cat >"$T/service.py" <<'EOF'
import os, select, socket, sys
log = open(sys.argv[1], "ab", buffering=0)
ls = []
for p in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    os.chmod(p, 0o777)
    s.listen(8)
    ls.append(s)
open(sys.argv[1] + ".ready", "w").close()
while True:
    r, _, _ = select.select(ls, [], [])
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
python3 "$T/service.py" "$T/received" "$ws/tmp/sockets/puma.sock" \
    "$ws/.s.PGSQL.5432" &
svc=$!
for _ in $(seq 200); do
	[ -e "$T/received.ready" ] && break
	sleep 0.05
done
: >>"$T/received"

# What the sandbox tries: read the workspace, then dial both sockets.
cat >"$ws/dial.py" <<'EOF'
import errno, socket, sys
ws = sys.argv[1]
if open(ws + "/src/todo.sh").read():
    print("READ-OK")
for p in ("tmp/sockets/puma.sock", ".s.PGSQL.5432"):
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
    command: ["python3", "$ws/dial.py", "$ws"]
    sideEffect: none
    timeoutMs: 10000
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

kill "$svc"
wait "$svc" 2>/dev/null
expect_eq "the host service received nothing" "$(cat "$T/received")" ""
check "the sockets are still the service's" test -S "$ws/.s.PGSQL.5432"
finish
