#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approval binds the workspace the approver was shown: the grant
# digests it again, and a write made while that digest is taken is seen
# by the watch of the agent's writes and voids it (approval_workspace.sh).
# What the watch does not see, the grant misses.  The attacks, by an agent
# that writes its workspace (agent.workspace: rw), from inside its
# sandbox: "deploy" (approved) sources vendor/lib.sh and reads the config
# of a nested repository, sub; the agent rewrites one of them the moment
# the grant's digest has read it (inotify; a large file keeps the digest,
# and the run, a while behind).
#  - sub/.git/config: the watch skipped .git at any depth (the digest
#    holds a nested one); now only the root's, and the yes is void.
#  - vendor/lib.sh through a shared mapping, which inotify never sees;
#    now, with such an agent, the grant digests the workspace twice and
#    compares the seals (broker/wsindex.h), and the yes is void.
#  - vendor/lib.sh, with vendor made again past the watch's 8192
#    directories while the request waited (the workspace left as shown).
# Before, the grant's digest was the request's, and the human's yes ran
# the rewrite ("EVIL").  Now a nested .git is watched, and an approval
# whose workspace the watch does not cover whole fails closed
# (workspace_unwatchable): at the grant nothing runs, and later requests
# are refused before anybody is asked.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
[ -x /usr/bin/python3 ] || { echo "# skip: no /usr/bin/python3"; exit 77; }
# Fewer watches than the workspace's directories: none is fully watched.
[ "$(cat /proc/sys/fs/inotify/max_user_watches)" -ge 16384 ] ||
    { echo "# skip: fs.inotify.max_user_watches below 16384"; exit 77; }

cat >"$T/m.yaml" <<EOF2
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["sh", "deploy.sh", "{target}"]
    sideEffect: external
    authorization: approval
    timeoutMs: 20000
approvals:
  approvers: [$(id -un)]
  ttlSeconds: 30
agent:
  workspace: rw
EOF2
chmod 644 "$T/m.yaml"

# The workspace: deploy.sh, vendor/lib.sh, a nested repository sub, a
# large file (zbig: the digest takes a while) and pad/ with as many
# directories as make 8192 in all: the watch holds every one, no more.
ws="$T/ws"
mkdir -p "$ws/pad" "$ws/vendor"
printf '#!/bin/sh\n. ./vendor/lib.sh\ngreet "$1" "$(git -C sub config deploy.note)"\n' >"$ws/deploy.sh"
printf 'greet() { echo "deploying $1 $2"; }\n' >"$ws/vendor/lib.sh"
# A nested repository (a vendored checkout): deploy.sh reads its config.
git init -q "$ws/sub"
git -C "$ws/sub" config deploy.note ok
(cd "$ws/pad" && seq 1 $((8192 - $(find "$ws" -type d | wc -l))) | xargs mkdir)
head -c 64M /dev/zero >"$ws/zbig"

# The agent asks for three deploys, each with a progressToken; a reply is
# printed as "AGENT reply N ...", and "AGENT READY N" once its request is
# pending (its first progress notification) and the agent is set.  Each
# attack touches a file the deploy reads and zbig (both hashed again by
# the grant's digest) and rewrites that file the moment the grant's
# digest has read it (inotify, IN_CLOSE_NOWRITE):
#  2 "git": sub/.git/config (the watch skipped .git at any depth).
#  3 "mmap": vendor/lib.sh, through a shared mapping (no inotify event).
#  4 "prod": vendor/lib.sh, with vendor made again out of the watch while
#    the request waits (a new directory, the same lib.sh moved in: the
#    workspace is as the approver was shown it).
#  5 "again": vendor is still out of the watch.
{ cat "$top_srcdir/tests/integration/mcp_agent.py"; cat <<'EOF2'
def reply(n, m):
    say("reply %d %s" % (n, json.dumps(m, separators=(",", ":"))))
def deploy(n, target, attack):
    send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
          "params": {"name": "deploy", "arguments": {"target": target},
                     "_meta": {"progressToken": n}}})
    while True:
        m = line()
        if m is None or m.get("id") == n:
            return reply(n, m)
        if m.get("method") == "notifications/progress":
            break
    ifd = -1
    if attack == "pad":
        os.rename("vendor", "vendor.old")
        os.mkdir("vendor")
        os.rename("vendor.old/lib.sh", "vendor/lib.sh")
        os.rmdir("vendor.old")
    if attack:
        target = "sub/.git/config" if attack == "git" else "vendor/lib.sh"
        if attack == "mmap":
            mfd = os.open(target, os.O_RDWR)
            mm = mmap.mmap(mfd, 0, mmap.MAP_SHARED,
                           mmap.PROT_READ | mmap.PROT_WRITE)
        libc = ctypes.CDLL(None, use_errno=True)
        ifd = libc.inotify_init1(0)
        os.utime("zbig")
        os.utime(target)
        libc.inotify_add_watch(ifd, target.encode(), 0x10)
    say("READY %d" % n)
    while True:
        r, _, _ = select.select(([ifd] if ifd >= 0 else []) +
                                ([] if buf else [rd]), [], [])
        if ifd in r:
            os.read(ifd, 4096)
            if attack == "mmap":
                at = mm.find(b"deploying")
                mm[at:at + 9] = b"EVILEVIL!"
            elif attack == "pad":
                with open("vendor/lib.sh", "w") as f:
                    f.write('greet() { echo "deploying $1 EVIL"; }\n')
            else:
                with open("sub/.git/config") as f:
                    c = f.read().replace("note = ok", "note = EVIL")
                with open("sub/.git/config", "w") as f:
                    f.write(c)
            say("rewrote " + attack)
            ifd = -1
            continue
        m = line()
        if m is None or m.get("id") == n:
            return reply(n, m)
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18"}})
line()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
deploy(2, "git", "git")
deploy(3, "mmap", "mmap")
deploy(4, "prod", "pad")
deploy(5, "again", None)
EOF2
} >"$ws/agent.py"
chmod -R a+rwX "$ws"

OUT="$T/out"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- \
    /usr/bin/python3 "$ws/agent.py" >"$OUT" 2>"$T/run.err" &
RUN_PID=$!
# A failure that ends the script early (AIRLOCK_TEST_FAIL_FAST) stops the
# agent first: it would go on writing the workspace being removed.
at_exit 'kill $RUN_PID 2>/dev/null; wait $RUN_PID 2>/dev/null'

# step N: waits for the agent's request N to be pending (approves it with
# "yes", denies it with "no") or answered; its reply into $R.
step() {
	local n=$1 i id

	APPROVED=
	for i in $(seq 300); do
		grep -q "^AGENT \(READY\|reply\) $n" "$OUT" && break
		sleep 0.1
	done
	if grep -q "^AGENT READY $n" "$OUT"; then
		id=$("$AIRLOCK" pending --json 2>/dev/null |
		    jq -r '.pending[] | select(.tool == "deploy") | .id' | head -n 1)
		if [ "$2" = yes ]; then
			"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
			APPROVED=$id
		else
			"$AIRLOCK" deny "$id" --reason no >/dev/null 2>&1
		fi
	fi
	for i in $(seq 300); do
		grep -q "^AGENT reply $n" "$OUT" && break
		# A voided approval is asked again: nobody says yes to it.
		id=$("$AIRLOCK" pending --json 2>/dev/null |
		    jq -r '.pending[] | select(.tool == "deploy") | .id' | head -n 1)
		[ -n "$id" ] && [ "$id" != "$APPROVED" ] &&
		    "$AIRLOCK" deny "$id" --reason stop >/dev/null 2>&1
		sleep 0.1
	done
	R=$(sed -n "s/^AGENT reply $n //p" "$OUT")
	mcp_error_body
}
deploys() { grep -c '"runner_start".*"deploy"' "$(newest_session)/audit.jsonl"; }

# ===== a nested .git rewritten while the grant's digest is taken ==================
step 2 yes
check "a human approved the first deploy" test -n "$APPROVED"
expect_contains "the agent rewrote sub/.git/config while the grant's digest was taken" \
    "$(cat "$OUT")" "AGENT rewrote git"
expect_contains "the watch saw it: the approval was voided" "$R" "was voided at grant"
expect_eq "... and the new one denied" \
    "$(jr .result.structuredContent.errorClass)" approval_denied
expect_not_contains "the rewritten config did not reach a run" "$R" EVIL
expect_eq "no runner started for it" "$(deploys)" 0

# ===== vendor/lib.sh written through a shared mapping =============================
step 3 yes
check "a human approved the second deploy" test -n "$APPROVED"
expect_contains "the agent wrote lib.sh through its mapping while the grant's digest was taken" \
    "$(cat "$OUT")" "AGENT rewrote mmap"
expect_contains "a second digest's seal saw it: the approval was voided" "$R" "was voided at grant"
expect_not_contains "the rewritten lib.sh did not run" "$R" EVIL
expect_eq "no runner started for it" "$(deploys)" 0

# ===== vendor made again out of the watch while the request waits ================
step 4 yes
check "a human approved the third deploy" test -n "$APPROVED"
expect_contains "the agent rewrote lib.sh while the grant's digest was taken" \
    "$(cat "$OUT")" "AGENT rewrote pad"
expect_eq "the yes is refused as unwatchable" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.retryable]')" \
    '["workspace_unwatchable",false]'
expect_contains "... nothing was done" \
    "$(jr .result.structuredContent.message)" "was approved, but"
expect_not_contains "the rewritten lib.sh did not run" "$R" EVIL
expect_eq "no runner started for it either" "$(deploys)" 0

# ===== still out of the watch: refused at the request ============================
step 5 no
expect_eq "the next deploy is refused as unwatchable" \
    "$(jr .result.structuredContent.errorClass)" workspace_unwatchable
expect_contains "... nobody was asked" \
    "$(jr .result.structuredContent.message)" "nobody was asked"
check "... nor waited for" bash -c '! grep -q "^AGENT READY 5" "$1"' _ "$OUT"

for i in $(seq 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
kill "$RUN_PID" 2>/dev/null
wait "$RUN_PID"
finish
