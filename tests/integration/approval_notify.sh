#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Notify hooks that are safe to run (issue 16 item 4).  The hook runs in
# its own runner sandbox: a clean environment plus the variables named in
# approvals.notify.env, none of airlock's state, no network unless its
# entry allows it; it fires on created, granted, denied, expired and
# withdrawn (the agent cancelled the call) with a versioned JSON payload.  The contrib hooks (generic JSON webhook,
# Slack-compatible webhook, sendmail) are run by a real session against a
# local receiver (python3 http.server on loopback) and a fake sendmail.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"
for tool in curl jq python3; do
	command -v $tool >/dev/null || { echo "not ok - $tool is needed by the contrib hooks and this test"; exit 1; }
done

# The receiver: each POST body saved as $T/recv/N-PATH.
mkdir -p "$T/recv" "$T/hooks"
cat >"$T/recv.py" <<'EOF'
import http.server, os, sys
out = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    n = 0
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        H.n += 1
        name = "%s/%03d-%s" % (out, H.n, self.path.strip("/") or "root")
        with open(name + ".tmp", "wb") as f:
            f.write(body)
        os.rename(name + ".tmp", name)
        self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
EOF
python3 "$T/recv.py" "$T/recv" "$T/port" &
RECV_PID=$!
at_exit 'kill "$RECV_PID" 2>/dev/null'
for i in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
check "the local receiver listens" test -n "$PORT"

# ===== The sandbox: environment, state, network ==========================================
cat >"$T/hooks/probe.sh" <<'EOF'
#!/bin/sh
cat
echo "ENV-BEGIN"; env | sort; echo "ENV-END"
for p in "$@"; do
	if [ -e "$p" ]; then echo "STATE-VISIBLE $p"; else echo "STATE-ABSENT $p"; fi
done
if curl -s -m 3 -o /dev/null "http://127.0.0.1:$PORT_FOR_PROBE/probe"; then echo NET-OK; else echo NET-FAIL; fi
echo "UID $(id -u)"
# A NUL byte (binary output) on stderr: before, the log held it as
# \u0000, which audit verify cannot parse: the honest log was TAMPERED.
printf 'bin\000ary\n' >&2
EOF
{ deploy_tool_yaml; cat <<EOF
sandbox:
  readOnly: ["$T/hooks"]
approvals:
  ttlSeconds: 60
  notify:
    command: ["sh", "$T/hooks/probe.sh", "$AIRLOCK_HOME", "$AIRLOCK_RUNTIME_DIR"]
    env: [NAMED_VAR, PORT_FOR_PROBE]
EOF
} >"$T/probe.yaml"
export NAMED_VAR=passed-through UNNAMED_VAR=must-not-pass PORT_FOR_PROBE=$PORT
cat >"$ws/calls" <<'EOF'
{"name":"deploy","arguments":{"target":"alpha"}}
{"name":"deploy","arguments":{"target":"beta"}}
EOF
appr_agent_start "$T/probe.yaml" calls
id1=$(appr_pending_id alpha)
sess=$(newest_session)
# hook_out EVENT ID: the output of the hook run for that event.
hook_out() {
	local i o
	for i in $(seq 150); do
		o=$(jq -r --arg e "$1" --arg id "$2" 'select(.event == "approval_notify" and .fields.event == $e and .fields.approval == $id) | .fields.output' "$sess/audit.jsonl" 2>/dev/null)
		[ -n "$o" ] && { printf '%s\n' "$o"; return 0; }
		sleep 0.1
	done
	return 1
}
O=$(hook_out created "$id1")
check "the hook ran on created (audited with its output)" test -n "$O"
R=$(printf '%s\n' "$O" | head -n 1)
expect_eq "the payload: version 1, event, session, the approval" \
    "$(jr -c '[.version, .event, .session == (.approval.session), .approval.id, .approval.tool, (.approval.digest | length), .approval.execution.argv]')" \
    "[1,\"created\",true,\"$id1\",\"deploy\",64,[\"echo\",\"deployed\",\"alpha\"]]"
expect_contains "a named variable reaches the hook" "$O" "NAMED_VAR=passed-through"
expect_not_contains "an unnamed one does not" "$O" "UNNAMED_VAR"
expect_not_contains "nor airlock's own (AIRLOCK_HOME)" "$O" "AIRLOCK_HOME="
expect_contains "the hook's HOME is its private /tmp" "$O" "HOME=/tmp"
expect_contains "the hook is told its event" "$O" "AIRLOCK_NOTIFY_EVENT=created"
expect_contains "airlock's state directory is absent in the hook's sandbox" "$O" "STATE-ABSENT $AIRLOCK_HOME"
expect_contains "the runtime directory (control sockets) is absent too" "$O" "STATE-ABSENT $AIRLOCK_RUNTIME_DIR"
expect_contains "without a network entry the hook cannot reach the receiver" "$O" "NET-FAIL"
expect_contains "the hook runs as the sandbox's uid, not root" "$O" "UID 65534"
check "the receiver got nothing from the probe" test -z "$(ls "$T/recv")"
"$AIRLOCK" approve "$id1" --yes --note "ship it" >/dev/null 2>&1
appr_reply 1
O=$(hook_out granted "$id1")
R=$(printf '%s\n' "$O" | head -n 1)
expect_eq "the hook ran on granted, with the decision" \
    "$(jr -c '[.event, .approval.id, (.decision.by | test("uid 0")), .decision.text]')" "[\"granted\",\"$id1\",true,\"ship it\"]"
id2=$(appr_pending_id beta)
"$AIRLOCK" deny "$id2" --reason "no beta" >/dev/null 2>&1
appr_reply 2
O=$(hook_out denied "$id2")
R=$(printf '%s\n' "$O" | head -n 1)
expect_eq "the hook ran on denied, with the reason" "$(jr -c '[.event, .decision.text]')" '["denied","no beta"]'
appr_agent_stop

# ===== withdrawn: the agent cancelled the call that waited ====================================
# Approvers' channels are told the approval is gone, as for expired:
# nobody is asked any more.
mcp_start "$T/probe.yaml" "$ws"
sess=$(newest_session)
mcp_send '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"deploy","arguments":{"target":"delta"}}}'
id3=$(appr_pending_id delta)
check "deploy delta waits for a human" test -n "$id3"
mcp_send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"<b>agent text</b>"}}'
mcp_wait_id c1 20
expect_error_class "the cancelled call is answered cancelled" cancelled
O=$(hook_out withdrawn "$id3")
check "the hook ran on withdrawn (audited with its output)" test -n "$O"
R=$(printf '%s\n' "$O" | head -n 1)
expect_eq "the payload: event withdrawn, the approval, airlock's reason, no decision" \
    "$(jr -c '[.version, .event, .approval.id, .withdrawal.reason, has("decision")]')" \
    "[1,\"withdrawn\",\"$id3\",\"the agent cancelled the call (notifications/cancelled)\",false]"
expect_not_contains "the agent's own cancel reason is not in it" "$O" "agent text"
expect_contains "the hook is told its event" "$O" "AIRLOCK_NOTIFY_EVENT=withdrawn"
# The Slack hook says it in airlock's words.
printf '%s\n' "$R" | AIRLOCK_SLACK_WEBHOOK_URL="http://127.0.0.1:$PORT/slack-withdrawn" \
    sh "$top_srcdir/contrib/notify/slack-webhook.sh" >/dev/null
expect_eq "slack-webhook: withdrawn is said" "$(jq -r .text "$T"/recv/*slack-withdrawn)" \
    ":heavy_multiplication_x: approval \`$id3\` of \`deploy\` withdrawn (the agent cancelled the call (notifications/cancelled)); nothing ran"
rm -f "$T"/recv/*slack-withdrawn
# An escalation's warnings (the session's, escalation.sh) are said too:
# the channel is all such an approver sees of the request.
printf '%s\n' "$R" | jq -c '.event = "created" | .approval.evidence = {escalation: {warnings: ["d1 WIDENS TO THIS MACHINE'"'"'S SERVICES: 127.0.0.1 port 2375 is loopback (127.0.0.0/8)"]}}' |
    AIRLOCK_SLACK_WEBHOOK_URL="http://127.0.0.1:$PORT/slack-created" \
    sh "$top_srcdir/contrib/notify/slack-webhook.sh" >/dev/null
expect_contains "slack-webhook: an escalation's warnings are said" "$(jq -r .text "$T"/recv/*slack-created)" \
    "airlock approve --sign --host-key\`.
:warning: escalation d1 WIDENS TO THIS MACHINE'S SERVICES: 127.0.0.1 port 2375 is loopback (127.0.0.0/8)"
rm -f "$T"/recv/*slack-created
# The session is stopped (SIGTERM) with an approval pending: nobody
# will run it either.
mcp_send '{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"deploy","arguments":{"target":"epsilon"}}}'
id5=$(appr_pending_id epsilon)
check "deploy epsilon waits for a human" test -n "$id5"
kill -TERM "$MCP_PID"
mcp_stop
O=$(hook_out withdrawn "$id5")
R=$(printf '%s\n' "$O" | head -n 1)
expect_eq "at the session's end the hook ran on withdrawn, saying so" \
    "$(jr -c '[.event, .approval.id, .withdrawal.reason]')" "[\"withdrawn\",\"$id5\",\"the session ended\"]"
expect_eq "... and the withdrawal is in the log" \
    "$(jq -r --arg a "$id5" 'select(.event == "approval_withdrawn" and .fields.approval == $a) | .fields.reason' "$sess/audit.jsonl")" \
    "the session ended"
check "the log verifies" "$AIRLOCK" audit verify -q "$sess/audit.jsonl"

# ===== The contrib hooks, with network to the receiver only ===============================
for h in webhook-json slack-webhook sendmail approval-notify; do
	cp "$top_srcdir/contrib/notify/$h.sh" "$T/hooks/"
done
printf '#!/bin/sh\necho "FAKE-SENDMAIL $*"\ncat\n' >"$T/hooks/fake-sendmail"
chmod 755 "$T/hooks/"*
cat >"$T/hooks/all.sh" <<EOF
#!/bin/sh
p=\$(cat)
for h in webhook-json slack-webhook sendmail approval-notify; do
	printf '%s' "\$p" | sh "$T/hooks/\$h.sh" || echo "HOOK-FAILED \$h"
done
EOF
{ deploy_tool_yaml; cat <<EOF
sandbox:
  readOnly: ["$T/hooks"]
approvals:
  ttlSeconds: 1
  notify:
    command: ["sh", "$T/hooks/all.sh"]
    allowAddresses: ["127.0.0.1:$PORT"]
    env: [AIRLOCK_NOTIFY_URL, AIRLOCK_SLACK_WEBHOOK_URL, AIRLOCK_NOTIFY_MAIL_TO, AIRLOCK_SENDMAIL]
    events: [created, expired]
EOF
} >"$T/contrib.yaml"
export AIRLOCK_NOTIFY_URL="http://127.0.0.1:$PORT/json" AIRLOCK_SLACK_WEBHOOK_URL="http://127.0.0.1:$PORT/slack"
export AIRLOCK_NOTIFY_MAIL_TO="ops@example.com" AIRLOCK_SENDMAIL="$T/hooks/fake-sendmail"
cat >"$ws/calls2" <<'EOF'
{"name":"deploy","arguments":{"target":"gamma"}}
EOF
appr_agent_start "$T/contrib.yaml" calls2
appr_reply 1
expect_error_class "undecided, the approval expires" approval_expired
appr_agent_stop
sess=$(newest_session)
id=$(jq -r 'select(.event == "approval_created") | .fields.id' "$sess/audit.jsonl")
for i in $(seq 100); do [ "$(ls "$T/recv" | grep -c -- '-json$')" -ge 2 ] && [ "$(ls "$T/recv" | grep -c -- '-slack$')" -ge 2 ] && break; sleep 0.1; done
J=$(cat "$T"/recv/*-json | jq -s -c 'map([.version, .event, .approval.id])')
expect_eq "webhook-json: the receiver got created and expired, versioned" "$J" "[[1,\"created\",\"$id\"],[1,\"expired\",\"$id\"]]"
R=$(cat "$(ls "$T"/recv/*-json | head -n 1)")
expect_eq "webhook-json: the whole request, which approve --sign takes" "$(jr -c '[(.approval.digest | length), .approval.session]')" "[64,\"$(basename "$sess")\"]"
# ... signed by the session: an approver elsewhere checks it against the
# host key.
created=$(grep -l '"event": *"created"' "$T"/recv/*-json | head -n 1)
"$AIRLOCK" approver keygen "$T/approver.key" >/dev/null 2>&1
out=$("$AIRLOCK" approve --sign --key "$T/approver.key" --host-key "$("$AIRLOCK" audit key 2>/dev/null)" --yes "$created" 2>&1 >"$T/notify.tok")
check "webhook-json: the created payload signs under --host-key" test $? -eq 0 -a -s "$T/notify.tok"
expect_contains "... as the session's" "$out" "sent:      signed by session $(basename "$sess"), certified by host key"
S=$(cat "$T"/recv/*-slack | jq -s -c 'map(keys)')
expect_eq "slack-webhook: each body is exactly {text}" "$S" '[["text"],["text"]]'
S=$(cat "$T"/recv/*-slack | jq -r .text)
expect_contains "slack-webhook: created names the tool and the id" "$S" "\`deploy\` waits for approval \`$id\`"
expect_contains "slack-webhook: expired is said" "$S" "approval \`$id\` of \`deploy\` expired"
M=$(jq -r --arg id "$id" 'select(.event == "approval_notify" and .fields.event == "created") | .fields.output' "$sess/audit.jsonl")
expect_contains "sendmail: the fake sendmail got -t -i" "$M" "FAKE-SENDMAIL -t -i"
expect_contains "sendmail: the recipient" "$M" "To: ops@example.com"
expect_contains "sendmail: the subject" "$M" "Subject: airlock: approval $id of deploy created"
R=$(printf '%s\n' "$M" | sed -n '/^MIME-Version/,/^}/p' | sed 1,2d)
expect_eq "sendmail: the body is the payload as JSON" "$(jr -c '[.version, .approval.id]')" "[1,\"$id\"]"
expect_contains "approval-notify: its log line" "$M" "airlock: deploy waits for approval $id"
expect_not_contains "no contrib hook failed" "$M" "HOOK-FAILED"
n=$(jq -r 'select(.event == "approval_notify") | .fields.event' "$sess/audit.jsonl" | sort | tr '\n' ' ')
expect_eq "events: created and expired only (events: [created, expired])" "$n" "created expired "
check "the proxy audited the hook's egress to the receiver" grep -q "\"event\":\"egress\".*127.0.0.1:$PORT" "$sess/audit.jsonl"

# The JSON webhook sends the payload as airlock wrote it: re-encoded by
# jq, an argument 1.0 became 1, and approve --sign refused the request
# as changed on its way (its digest, and the session's signature).
{ deploy_tool_yaml; cat <<EOF
  - name: scale
    input: { factor: number }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "scaled"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
sandbox:
  readOnly: ["$T/hooks"]
approvals:
  ttlSeconds: 1
  notify:
    command: ["sh", "$T/hooks/webhook-json.sh"]
    allowAddresses: ["127.0.0.1:$PORT"]
    env: [AIRLOCK_NOTIFY_URL]
    events: [created]
EOF
} >"$T/real.yaml"
rm -f "$T"/recv/*
printf '{"name":"scale","arguments":{"factor":1.0}}\n' >"$ws/calls3"
appr_agent_start "$T/real.yaml" calls3
appr_reply 1
appr_agent_stop
for i in $(seq 100); do [ "$(ls "$T/recv" | grep -c -- '-json$')" -ge 1 ] && break; sleep 0.1; done
created=$(ls "$T"/recv/*-json | head -n 1)
check "webhook-json: the argument 1.0 arrives as written" grep -q '"factor": *1.0' "$created"
out=$("$AIRLOCK" approve --sign --key "$T/approver.key" --host-key "$("$AIRLOCK" audit key 2>/dev/null)" --yes "$created" 2>&1 >"$T/real.tok")
check "... and the request signs under --host-key" test $? -eq 0 -a -s "$T/real.tok"

# A manifest error for an unknown event.
printf 'tools: []\napprovals:\n  notify: { command: [x], events: [created, sometimes] }\n' >"$T/bad.yaml"
expect_contains "an unknown notify event is a manifest error" "$("$AIRLOCK" check "$T/bad.yaml" 2>&1)" "approvals.notify.events[1]: expected created, decided, expired or withdrawn"

finish
