#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The idempotency keys a session remembers (the newest 4096) are kept as
# their SHA-256, not whole.  A key is whatever the tool's contract lets
# through, 256 KiB for a plain "string" (contrib's run_check takes
# idempotencyKey: string), and the broker kept each one whole and
# compared every call's key with all of them: an agent that sent 4200
# calls, each with a new key of 256 KiB, held 1.1 GB of the privileged
# broker's memory for the rest of the session, and each later keyed call
# stalled its event loop for 200 ms (a ping behind one took 183-223 ms).
# The agent floods from inside its sandbox, through "airlock connect":
# 600 write_file calls with 256 KiB keys; the broker's resident memory
# grows by less than 48 MiB (150 MiB before), and a retry with a key
# still gets the first answer, a key with other arguments a conflict.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
command -v python3 >/dev/null || { echo "# skip: no python3"; exit 77; }

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: save
    action: write_file
    input: { path: workspace_relative_path, content: string, idempotencyKey: string }
    output: { sha256: string }
    sideEffect: workspace_write
    timeoutMs: 2000
YAML

# The agent: READY once initialized, then the flood, FILLED, and (once
# the test has measured the broker, "$ws/measured") the retries.
{
	agent_py_head
	cat <<EOF
def save(i, key, content):
    call(i, "save", {"path": "f.txt", "content": content,
        "idempotencyKey": key})
key = lambda i: "k" * 262000 + "%06d" % i
n, sent, done, errors = 600, 0, 0, 0
while done < n:
    while sent < n and sent - done < 32:
        sent += 1
        save(sent, key(sent), "x")
    r = recv()
    if r is None:
        break
    done += 1
    if "error" in r or r.get("result", {}).get("isError"):
        errors += 1
print("FILLED %d errors %d" % (done, errors), flush=True)
while not os.path.exists("$ws/measured"):
    time.sleep(0.05)
save(9001, key(1), "x")
print("REPLAY " + json.dumps(recv()), flush=True)
save(9002, key(2), "y")
print("CONFLICT " + json.dumps(recv()), flush=True)
p.stdin.close()
p.wait()
EOF
} >"$T/agent.py"
chmod 755 "$T/agent.py"

agent_run_start "$T/m.yaml" "$ws" "$T/agent.py"

up_to READY 20
check "the agent is connected" grep -q READY "$T/out"
before=$(rss)
touch "$ws/started"
up_to FILLED 300
expect_eq "600 calls with a new key of 256 KiB each were answered" \
    "$(sed -n 's/^FILLED \([0-9]*\) errors \([0-9]*\)$/\1 \2/p' "$T/out")" "600 0"
after=$(rss)
grown=$(((after - before) / 1024))
echo "# the broker's resident memory: $((before / 1024)) MiB, then $((after / 1024)) MiB"
check "the broker holds less than $((48 * mem_slack)) MiB more for 150 MiB of keys (grew $grown MiB)" \
    test "$grown" -lt $((48 * mem_slack))
touch "$ws/measured"
wait "$pid"
expect_eq "the session ends" "$?" 0

R=$(sed -n 's/^REPLAY //p' "$T/out")
expect_eq "a retry with a remembered key gets the first answer" \
    "$(jr '.result.isError // false')" false
R=$(sed -n 's/^CONFLICT //p' "$T/out")
expect_contains "a remembered key with other arguments is a conflict" \
    "$(jr '.result.structuredContent.errorClass // .result.content[0].text')" \
    "idempotency_conflict"
log=$(newest_session_log)
expect_eq "the retry was replayed, not run again" \
    "$(jq -r 'select(.event == "idempotent_replay") | .fields.id' "$log" | sort -u)" 9001
rm -f "$ws/started" "$ws/measured"
finish
