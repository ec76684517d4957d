#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The changed files a session counts (maxChangedFiles) are kept as the
# SHA-256 of each path, 32 bytes, and named only up to the 256 KiB the
# resume carry holds.  The broker kept every distinct path whole for the
# rest of the session, maxChangedFiles or not (-1, the default, kept
# them too): an agent whose shell command made 20,000 empty files under
# 4 KiB paths (15 directories of 250-character names) grew the
# privileged broker by 78 MiB a run, never freed, and a change set may
# carry 256 MiB of paths.  The agent, from inside its sandbox, makes
# 2000 such files in each of four runs of its shell tool: the broker's
# resident memory grows by less than 8 MiB from the first run to the
# last (22 MiB before).  The count stays exact: every file once, a file
# changed again not twice, and a resumed copy-on-write session goes on
# from the paths its earlier run wrote.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")
command -v python3 >/dev/null || { echo "# skip: no python3"; exit 77; }

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
YAML

# The agent: READY, the first run (RUN1), then once the test has measured
# the broker ("$ws/go") three more, a change to files of the first
# run's tree again, the session's count (USED), and DONE; it ends once
# the test has measured again ("$ws/measured").
cat >"$T/agent.py" <<PY
#!/usr/bin/python3
import json, os, subprocess, time
p = subprocess.Popen(["$A", "connect"], stdin=subprocess.PIPE,
    stdout=subprocess.PIPE, env={}, bufsize=0)
def rpc(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i,
        "method": method, "params": params}) + "\n").encode())
    return json.loads(p.stdout.readline())
def wait(f):
    while not os.path.exists(f):
        time.sleep(0.05)
deep = "p=t\$R; for i in \$(seq 15); do p=\$p/\$(printf %0245d \$i); done; "
def shell(i, cmd):
    r = rpc(i, "tools/call", {"name": "shell",
        "arguments": {"command": cmd}})
    return r.get("result", {}).get("structuredContent", {}).get("exitCode")
rpc(0, "initialize", {"protocolVersion": "2025-06-18",
    "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
print("READY", flush=True)
for r in range(1, 5):
    print("RUN%d %s" % (r, shell(r, "R=%d; " % r + deep +
        "mkdir -p \$p && cd \$p && seq 2000 | xargs touch")), flush=True)
    if r == 1:
        wait("$ws/go")
print("AGAIN %s" % shell(5, "R=1; " + deep +
    "for f in 1 2 3; do echo x >\$p/\$f; done"), flush=True)
st = rpc(6, "airlock/session/status", {})
print("USED %d" % st["result"]["budgets"]["maxChangedFiles"]["used"],
    flush=True)
print("DONE", flush=True)
wait("$ws/measured")
p.stdin.close()
p.wait()
PY
chmod 755 "$T/agent.py"

agent_run_start "$T/m.yaml" "$ws" "$T/agent.py"

up_to RUN1 60
expect_eq "the first run made its 2000 files" "$(sed -n 's/^RUN1 //p' "$T/out")" 0
before=$(rss)
touch "$ws/go"
up_to DONE 120
expect_eq "so did the three after it, and the change again" \
    "$(sed -n 's/^\(RUN[234]\|AGAIN\) //p' "$T/out" | tr '\n' ' ')" "0 0 0 0 "
after=$(rss)
grown=$(((after - before) / 1024))
echo "# the broker's resident memory: $((before / 1024)) MiB after the first run, $((after / 1024)) MiB after the fourth"
check "the broker holds less than $((8 * mem_slack)) MiB more for 6000 paths of 3.7 KiB (grew $grown MiB)" \
    test "$grown" -lt $((8 * mem_slack))
expect_eq "each file counts once, a file changed again not twice" \
    "$(sed -n 's/^USED //p' "$T/out")" 8000
touch "$ws/measured"
wait "$pid"
expect_eq "the session ends" "$?" 0
check "the trees landed" test "$(find "$ws/t4" -type f | wc -l)" -eq 2000
rm -rf "${ws:?}"/t[1-4] "${ws:?}/go" "${ws:?}/measured"

# Carried on through a resume, exactly: 3 files at most; the first run
# writes s1 and s2 (s1 twice), the resumed run s2 again (no new file), s3
# (the third) and s4 (over).
cat >"$T/c.yaml" <<'YAML'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
agent:
  workspace: cow
runBudget:
  maxChangedFiles: 3
YAML
run_agent() {	# BODY [airlock run options...]
	{ echo '#!/bin/sh'; printf '%s\n' "$1"; } >"$T/agent.sh"
	shift
	chmod 755 "$T/agent.sh"
	timeout 60 "$A" run --manifest "$T/c.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	RC=$?
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}
wf() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"src/%s","content":"%s"}}}' "$1" "$2" "$3"; }
run_agent "$(connect_calls "$(wf 2 s1 a)" "$(wf 3 s2 a)" "$(wf 4 s1 b)")"
check "a session id is printed" test -n "$S"
up="$AIRLOCK_HOME/sessions/$S/cow/upper"
expect_eq "the first run wrote s1 twice and s2" "$(cat "$up/src/s1" "$up/src/s2" 2>/dev/null | tr -d '\n')" ba
run_agent "$(connect_calls "$(wf 2 s2 b)" "$(wf 3 s3 a)" "$(wf 4 s4 a)")" --resume "$S"
expect_eq "the resumed run wrote s2 again, no new file" "$(cat "$up/src/s2" 2>/dev/null)" b
expect_eq "and s3, the third" "$(cat "$up/src/s3" 2>/dev/null)" a
check "s4, a fourth, was refused and not written" test ! -e "$up/src/s4"
expect_contains "by maxChangedFiles" "$(cat "$T/out")" maxChangedFiles
"$A" discard "$S" 2>/dev/null
finish
