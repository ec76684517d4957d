#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runBudget.maxPatchAttemptsPerGate counts the changes of the workspace
# made while a required gate fails.  An agent that writes the workspace
# itself (agent.workspace: rw, or its copy-on-write view) edits it with
# its own tools, no call of the broker's: such edits were never counted,
# so the budget was escaped by editing directly between failing checks.
# Now a workspace digest other than the last check's, when something
# other than the broker wrote the workspace since and no broker write
# was counted meanwhile, is an attempt; the check that would go past the
# budget does not run and the session stops.  Played from inside the
# agent's sandbox, for both modes: the check's own output (out.log) and
# a touch (the digest holds no time) are no attempt; an edit, its revert
# and a rename each are one.  With no broker write between two checks,
# a change of the digest is the agent's whatever the watch saw: an edit
# through a shared mapping (rw), which no watch sees, is one too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
check_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit"}}}' "$1"
}

for mode in rw cow; do
	ws="$T/ws-$mode"
	mkdir -p "$ws"
	echo broken >"$ws/flag"
	chmod -R a+rwX "$ws"
	cat >"$T/$mode.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, output: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
checks:
  unit: ["sh", "-c", "echo ran >out.log; grep -qx fixed flag"]
gates:
  required: [unit]
runBudget:
  maxPatchAttemptsPerGate: 2
agent:
  workspace: $mode
EOF
	{
		echo '#!/bin/sh'
		connect_calls "$(check_call 2)"
		connect_calls "$(check_call 3)"
		echo 'touch flag'
		connect_calls "$(check_call 4)"
		echo 'echo try >flag'
		connect_calls "$(check_call 5)"
		echo 'echo broken >flag'
		connect_calls "$(check_call 6)"
		echo 'mv flag flag.x'
		connect_calls "$(check_call 7)"
	} >"$T/agent-$mode.sh"
	chmod 755 "$T/agent-$mode.sh"
	(cd "$ws" && timeout 90 "$A" run --manifest "$T/$mode.yaml" \
	    --workspace "$ws" -- "$T/agent-$mode.sh" >"$T/out-$mode" 2>"$T/err-$mode")
	sess=$(newest_session)
	for id in 2 3 4 5 6; do
		R=$(grep "\"id\":$id," "$T/out-$mode")
		expect_eq "$mode: check $id runs and fails" \
		    "$(jr .result.structuredContent.exitCode)" 1
	done
	R=$(grep '"id":7,' "$T/out-$mode")
	expect_eq "$mode: the rename after touch, edit and revert is attempt 3: the session stops" \
	    "$(jr '.result.content[0].text | fromjson | .errorClass')" budget_exhausted
	expect_contains "$mode: ... for maxPatchAttemptsPerGate" \
	    "$(jr '.result.content[0].text | fromjson | .message')" maxPatchAttemptsPerGate
	expect_eq "$mode: the check did not run" \
	    "$(grep -c '"runner_start"' "$sess/audit.jsonl")" 5
	check "$mode: the stop is audited" \
	    grep -q '"budget_stop".*maxPatchAttemptsPerGate' "$sess/audit.jsonl"
done

# The agent maps "flag" before its first check and writes it through
# the mapping between checks: no watch sees such a write.
ws="$T/ws-mmap"
mkdir -p "$ws"
echo broken >"$ws/flag"
chmod -R a+rwX "$ws"
sed -e 's/echo ran >out.log; //' -e 's/maxPatchAttemptsPerGate: 2/maxPatchAttemptsPerGate: 1/' \
    -e 's/workspace: cow/workspace: rw/' "$T/cow.yaml" >"$T/mmap.yaml"
cat >"$T/agent-mmap.sh" <<EOF
#!/bin/sh
python3 -c '
import mmap, os, time
def wait(p):
    while not os.path.exists(p):
        time.sleep(0.02)
fd = os.open("flag", os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
os.close(fd)
m[0:7] = m[0:7]
open("/tmp/ready", "w").close()
for i, text in enumerate([b"tryone\\n", b"trytwo\\n"]):
    wait("/tmp/w%d" % i)
    m[0:7] = text
    open("/tmp/a%d" % i, "w").close()
' &
while [ ! -e /tmp/ready ]; do sleep 0.02; done
$(connect_calls "$(check_call 2)")
touch /tmp/w0; while [ ! -e /tmp/a0 ]; do sleep 0.02; done
$(connect_calls "$(check_call 3)")
touch /tmp/w1; while [ ! -e /tmp/a1 ]; do sleep 0.02; done
$(connect_calls "$(check_call 4)")
wait
EOF
chmod 755 "$T/agent-mmap.sh"
(cd "$ws" && timeout 90 "$A" run --manifest "$T/mmap.yaml" \
    --workspace "$ws" -- "$T/agent-mmap.sh" >"$T/out-mmap" 2>"$T/err-mmap")
for id in 2 3; do
	R=$(grep "\"id\":$id," "$T/out-mmap")
	expect_eq "mmap: check $id runs and fails" \
	    "$(jr .result.structuredContent.exitCode)" 1
done
R=$(grep '"id":4,' "$T/out-mmap")
expect_eq "mmap: the second write through the mapping is attempt 2: the session stops" \
    "$(jr '.result.content[0].text | fromjson | .errorClass')" budget_exhausted
expect_eq "mmap: the flag holds what the mapping wrote (sanity)" "$(cat "$ws/flag")" trytwo
finish
