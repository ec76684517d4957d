#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Terminal-safe output (issue 11, item 3).  An agent proposes an
# approval-gated apply_patch whose diff hides its backdoor line: the line
# after it starts with ESC[1A ESC[2K (cursor up, erase line), and a
# comment carries a Trojan Source bidi override (U+202E).  Its JSON-RPC id
# carries the same bytes.  Nothing airlock shows a person may pass those
# bytes raw: airlock pending -v, approve (answered no), deny, trace and
# audit show print them escaped (\e[1A, \u{202E}), so the hidden line
# stays on the screen.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

cat >"$T/m.yaml" <<EOF
tools:
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    authorization: approval
    timeoutMs: 60000
approvals:
  approvers: [root]
  ttlSeconds: 60
  notify: { command: ["cat"] }
EOF

# The agent sends each line of its script as one frame and prints each
# reply as "R<n> <reply>".  The script is ASCII: the payload is in JSON
# \u escapes, so only the broker's decoding produces the raw bytes.
cat >"$ws/agent.sh" <<'EOF'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
n=0
while IFS= read -r frame; do
	n=$((n + 1))
	printf '%s\n' "$frame" >&3
	while IFS= read -r line <&3; do
		case $line in
		*'"method":'*) continue ;;
		esac
		break
	done
	printf 'R%d %s\n' $n "$line"
done <"$1"
echo DONE
EOF
chmod 755 "$ws/agent.sh"

sha=$(printf '%064d' 0)
patch='--- a/src/auth.py\n+++ b/src/auth.py\n@@ -1,2 +1,3 @@\n def check(user, pw):\n+    if pw == '"'letmein'"': return True\n+\u001b[1A\u001b[2K    return verify(user, pw)  # \u202e } \u2066 admin only \u2069\n'
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":\"t\\u001b[1A\\u001b[2K\\u202e1\",\"method\":\"tools/call\",\"params\":{\"name\":\"apply_patch\",\"arguments\":{\"patch\":\"$patch\",\"expectedBaseSha\":\"$sha\"},\"_meta\":{\"reason\":\"typo\\u201d decision=allow\"}}}" >"$ws/calls"

OUT="$T/agent.out"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/agent.sh" "$ws/calls" \
    >"$OUT" 2>"$T/run.err" &
RUN_PID=$!

ESC=$'\033'
RLO=$'\342\200\256'	# U+202E RIGHT-TO-LEFT OVERRIDE in UTF-8
# safe NAME FILE: FILE has neither a raw ESC nor a raw U+202E.
safe() {
	if grep -q "$ESC" "$2" || LC_ALL=C grep -q "$RLO" "$2"; then
		fail "$1"
		echo "  raw terminal controls in:"
		od -c "$2" | head -n 40 | sed 's/^/  /'
	else
		pass "$1"
	fi
}
# shows NAME FILE TEXT: FILE contains TEXT (fixed string).
shows() {
	if grep -qF -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1"
		echo "  expected to contain: $3; got:"
		od -c "$2" | head -n 40 | sed 's/^/  /'
	fi
}

id=
for i in $(seq 200); do
	id=$("$AIRLOCK" pending 2>/dev/null | awk '$3 == "apply_patch" { print $1; exit }')
	[ -n "$id" ] && break
	sleep 0.1
done
check "the apply_patch waits for approval" test -n "$id"

# The notify hook's payload stays JSON, with everything outside ASCII
# escaped by JSON itself; the contrib hook's message takes nothing from
# the agent (its logger is a stub that records the message).
# The hook runs sandboxed: its output (here, the payload) is audited.
sess=$(ls -1dt "$AIRLOCK_HOME"/sessions/* | head -n 1)
for i in $(seq 100); do
	jq -r 'select(.event == "approval_notify" and .fields.event == "created") | .fields.output' \
	    "$sess/audit.jsonl" >"$T/notified.json" 2>/dev/null
	[ -s "$T/notified.json" ] && break
	sleep 0.1
done
safe "the notify payload: no raw ESC or bidi override" "$T/notified.json"
shows "the notify payload escapes the override in JSON" "$T/notified.json" '\u202E'
check "the notify payload is JSON that still holds the exact diff" \
    bash -c 'jq -r .approval.evidence.diff "$1" | grep -q "$2"' _ "$T/notified.json" "$RLO"
mkdir -p "$T/bin"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\n' "$T/logger.out" >"$T/bin/logger"
chmod 755 "$T/bin/logger"
sed 's/"arguments":{/"arguments":{"id":"x\\u001b[2K\\u202e","tool":"y\\u2066",/' \
    "$T/notified.json" >"$T/crafted.json"
PATH="$T/bin:$PATH" sh "$top_srcdir/contrib/notify/approval-notify.sh" <"$T/crafted.json"
safe "the contrib notify hook's message: no raw ESC or bidi override" "$T/logger.out"
shows "the contrib notify hook names the tool and the real approval id" \
    "$T/logger.out" "airlock: apply_patch waits for approval $id "

"$AIRLOCK" pending >"$T/pending.out" 2>&1
safe "airlock pending: no raw ESC or bidi override" "$T/pending.out"
"$AIRLOCK" pending -v >"$T/pendingv.out" 2>&1
safe "airlock pending -v: no raw ESC or bidi override" "$T/pendingv.out"
shows "airlock pending -v shows the escape sequence as \\e[1A" "$T/pendingv.out" '\e[1A\e[2K'
shows "airlock pending -v shows the bidi override as \\u{202E}" "$T/pendingv.out" '\u{202E}'
shows "airlock pending -v shows the isolate as \\u{2066}" "$T/pendingv.out" '\u{2066}'
shows "airlock pending -v shows the backdoor line" "$T/pendingv.out" "+    if pw == 'letmein': return True"
n=$(grep -c "^+    if pw == 'letmein': return True\$" "$T/pendingv.out")
check "the diff keeps its real line breaks (the backdoor is a line of its own)" test "$n" -ge 1

echo n | "$AIRLOCK" approve "$id" >"$T/approve.out" 2>&1
check "airlock approve answered no does not approve" test $? -ne 0
safe "airlock approve: no raw ESC or bidi override" "$T/approve.out"
shows "airlock approve shows \\e[1A before asking" "$T/approve.out" '\e[1A'
shows "airlock approve shows \\u{202E} before asking" "$T/approve.out" '\u{202E}'
shows "airlock approve asks" "$T/approve.out" 'not approved'

"$AIRLOCK" deny "$id" --reason "backdoor hidden by escapes" >"$T/deny.out" 2>&1
expect_eq "airlock deny succeeds" "$?" 0
safe "airlock deny: no raw ESC or bidi override" "$T/deny.out"
shows "airlock deny shows \\e[1A" "$T/deny.out" '\e[1A'

for i in $(seq 200); do grep -q '^R1 ' "$OUT" && break; sleep 0.1; done
R=$(sed -n 's/^R1 //p' "$OUT"); mcp_error_body
expect_error_class "the agent gets approval_denied" approval_denied
for i in $(seq 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
kill "$RUN_PID" 2>/dev/null
wait "$RUN_PID"
safe "airlock run's own messages: no raw ESC or bidi override" "$T/run.err"
sess=$(newest_session)

"$AIRLOCK" trace "$sess" >"$T/trace.out" 2>&1
expect_eq "airlock trace succeeds" "$?" 0
safe "airlock trace: no raw ESC or bidi override" "$T/trace.out"
shows "airlock trace shows the denied call" "$T/trace.out" approval_denied

"$AIRLOCK" audit show "$sess/audit.jsonl" >"$T/show.out" 2>&1
safe "airlock audit show: no raw ESC or bidi override" "$T/show.out"
shows "airlock audit show shows the request id's \\e[1A" "$T/show.out" '\e[1A'
shows "airlock audit show shows the request id's \\u{202E}" "$T/show.out" '\u{202E}'
# A character drawn as '"' inside a JSON value (the agent's reason in
# the approval's evidence) would seem to close the agent's string.
shows "airlock audit show escapes a quote look-alike in a JSON value" \
    "$T/show.out" 'evidence={"agentReason":"typo\u{201D} decision=allow"'
"$AIRLOCK" audit tail -n 100 "$sess/audit.jsonl" >"$T/tail.out" 2>&1
safe "airlock audit tail: no raw ESC or bidi override" "$T/tail.out"
shows "airlock audit tail shows \\e[1A" "$T/tail.out" '\e[1A'
# --json stays JSON: jansson escapes C0 controls itself.
"$AIRLOCK" audit show --json "$sess/audit.jsonl" >"$T/json.out" 2>&1
check "airlock audit show --json has no raw ESC" bash -c '! grep -q "$1" "$2"' _ "$ESC" "$T/json.out"
check "airlock audit show --json is JSON, one record a line" \
    bash -c 'jq -e . "$1" >/dev/null' _ "$T/json.out"

finish
