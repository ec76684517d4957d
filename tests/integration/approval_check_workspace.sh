#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A check run under an approval runs on the workspace the approver was
# shown.  "run_check" needs a human's yes; its check runs test.sh
# (pinned: its argv names it), which sources lib.sh (not pinned).  The
# grant digests the workspace and compares it with the request's
# (approval_workspace.sh); then run_check digests it once more, for the
# gate, and only then starts the check.  Before, that second digest was
# not compared with anything: lib.sh rewritten right after the grant's
# digest (here: when the digest walk opens the workspace's first
# directory for the second time after the yes) ran under the human's yes,
# code the approver never saw.  Now the digest the check starts on must
# be the one approved, or the approval is void and a human is asked again.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws="$T/ws"
mkdir -p "$ws/aaa" "$ws/many"
chmod 755 "$ws" "$ws/aaa" "$ws/many"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
checks:
  unit: ["sh", "test.sh"]
approvals:
  approvers: [root]
  ttlSeconds: 60
EOF2
printf '. ./lib.sh\ngreet\n' >"$ws/test.sh"
printf 'greet() { echo "the code the human saw"; }\n' >"$ws/lib.sh"
# A walk long enough that a write made as it starts lands before it ends.
(cd "$ws/many" && seq 1 10000 | xargs touch)
chmod 644 "$ws"/*.sh
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

# ===== an unchanged workspace: the yes runs the check at once ===================
mcp_send '{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit"}}}'
id0=$(mcp_pending run_check)
check "the first check waits for a human" test -n "$id0"
"$AIRLOCK" approve "$id0" --yes >/dev/null 2>&1
mcp_wait_id 99
expect_ok_result "approved on an unchanged workspace: it runs"
expect_eq "... the code the human was shown" "$(jr .result.structuredContent.stdout)" "the code the human saw"

# ===== lib.sh rewritten between the grant's digest and the check's ===============
mcp_send '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"unit"}}}'
id=$(mcp_pending run_check "$id0")
check "the check waits for a human" test -n "$id"
shown=$("$AIRLOCK" pending --json | jq -r --arg id "$id" '.pending[] | select(.id == $id) | .evidence.workspaceDigest')
check "its evidence has a workspace digest" test "${#shown}" -eq 64

# The agent's part: each digest opens aaa/ as it starts its walk.  The
# grant's digest is the first open after the yes; the second is run_check's
# own digest: lib.sh is rewritten then, after the grant compared its digest.
# A fanotify permission event holds that open until lib.sh is rewritten,
# so the digest sees the new lib.sh however busy the machine is (an
# inotify watch, which does not hold it, let the write come after the
# check had run when the CPUs were taken: a mutant that compares nothing
# survived that way).
python3 - "$ws" "$T/armed" <<'EOF2' &
import ctypes, os, struct, sys
ws, armed = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                               ctypes.c_int, ctypes.c_char_p]
FAN_CLASS_CONTENT, FAN_OPEN_PERM, FAN_ONDIR = 0x4, 0x10000, 0x40000000
FAN_MARK_ADD, FAN_ALLOW, AT_FDCWD = 0x1, 0x1, -100
fd = libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY)
if fd < 0 or libc.fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR,
                                AT_FDCWD, os.path.join(ws, "aaa").encode()) < 0:
    sys.exit("fanotify: %s" % os.strerror(ctypes.get_errno()))
open(armed, "w").close()
opens = 0
while opens < 2:
    buf = os.read(fd, 4096)
    off = 0
    while off < len(buf):
        ln, _, _, _, mask, efd, pid = struct.unpack_from("IBBHQii", buf, off)
        off += ln
        if mask & FAN_OPEN_PERM:
            opens += 1
            if opens == 2:
                with open(os.path.join(ws, "lib.sh"), "w") as f:
                    f.write('greet() { echo "PWNED: code nobody approved"; }\n')
            os.write(fd, struct.pack("iI", efd, FAN_ALLOW))
        if efd >= 0:
            os.close(efd)
EOF2
agent=$!
wait_for test -e "$T/armed"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
wait "$agent"
check "the agent rewrote lib.sh after the grant's digest" grep -q PWNED "$ws/lib.sh"

# Either a new approval is asked (the workspace changed), or the check
# ran on what the human saw; never the rewritten lib.sh under the old yes.
id2=$(mcp_pending run_check "$id")
if [ -n "$id2" ]; then
	pass "the yes is void: a new approval is pending in its place"
	v=$(grep '"approval_voided"' "$sess/audit.jsonl" | tail -n 1)
	expect_contains "the void is audited at the start" "$v" '"when":"start"'
	expect_contains "... saying the workspace changed, from the digest shown" "$v" "\"approved\":\"$shown\""
	now=$("$AIRLOCK" pending --json | jq -r --arg id "$id2" '.pending[] | select(.id == $id) | .evidence.workspaceDigest')
	check "the new approval shows the workspace as it is now" test "${#now}" -eq 64 -a "$now" != "$shown"
	"$AIRLOCK" deny "$id2" --reason "lib.sh changed" >/dev/null 2>&1
	mcp_wait_id 100
	expect_error_class "denied once the human saw the change" approval_denied
	check "no check started for it" bash -c '[ "$(grep -c "\"runner_start\"" "$1")" -eq 1 ]' _ "$sess/audit.jsonl"
else
	mcp_wait_id 100
	expect_not_contains "the rewritten lib.sh did not run under the old yes" \
	    "$(jr .result.structuredContent.stdout)" PWNED
fi

mcp_stop
check "the session's log verifies" "$AIRLOCK" audit verify "$sess/audit.jsonl"
finish
