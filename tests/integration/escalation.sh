#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# One-call escalation after a human's yes (issue 18 item 2), end to end
# under "airlock run": a scripted agent in its real sandbox calls a tool
# whose run the egress proxy refuses; the result lists what was denied
# (callId, denied) and each denial is a sandbox_denial record.  The agent
# asks escalate to re-run it with exactly that allowed, and the test
# plays the human: deny, approve (the re-run reaches the local server),
# expiry; refusals without asking for an unknown call, an id the call
# was not refused, a tool without escalation: ask, a forged widening, a
# forbidden class, and a second use; nothing persists, and an approved
# re-run gets exactly what was asked, not what else its first run was
# refused.  The whole test runs in a private network namespace: a
# loopback server stands in for the internet.
if [ -z "${AIRLOCK_ESC_TEST_NS:-}" ]; then
	AIRLOCK_ESC_TEST_NS=1 exec unshare --net --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
H="$top_builddir/tests/proxy_helper"
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
# 10.0.0.5 is this machine's (an address of its own, private); 10.0.0.6
# is another host's on its network.
ip addr add 10.0.0.5/32 dev lo || { echo "not ok - cannot add 10.0.0.5 to lo"; exit 1; }
origin_start 60
ws=$(make_workspace)
. "$top_srcdir/tests/integration/approval_lib.sh"

# get HOSTPORT: a plain HTTP GET through the proxy (bash's /dev/tcp).
get() {
	printf 'exec 3<>/dev/tcp/127.0.0.1/3128 && printf "GET http://%s/hello HTTP/1.1\\\\r\\\\nHost: x\\\\r\\\\nConnection: close\\\\r\\\\n\\\\r\\\\n" >&3 && cat <&3' "$1"
}
manifest() {	# FILE EXTRA-TOP-LEVEL
	cat >"$1" <<YAML
tools:
  - name: fetch
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", '$(get "127.0.0.1:$SP")']
    network: ["api.example.com:443"]
    escalation: ask
  - name: fetch_plain
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", '$(get "127.0.0.1:$SP")']
    network: ["api.example.com:443"]
  - name: fetch_two
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", '$(get 10.0.0.5:80); echo; echo SECOND; $(get "127.0.0.1:$SP")']
    network: ["api.example.com:443"]
    escalation: ask
  - name: fetch_meta
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", '$(get 169.254.169.254:80); $(get "[fd00:ec2::254]:80")']
    network: ["api.example.com:443"]
    escalation: ask
  - name: fetch_priv
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", '$(get 10.0.0.5:80); $(get 10.0.0.6:80)']
    network: ["api.example.com:443"]
    escalation: ask
approvals:
  approvers: [root]
  ttlSeconds: 60
  notify: { command: [cat], events: [created] }
$2
YAML
	"$AIRLOCK" check "$1" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$1"; exit 1; }
}
manifest "$T/m.yaml" ""
manifest "$T/forbid.yaml" "escalation: { forbid: [network] }"
manifest "$T/expire.yaml" "escalation: { expiresSeconds: 1 }"

# The manifest keys: check -v prints them (and what it prints loads
# again); every bad value is an error naming its key.
cat >"$T/keys.yaml" <<'YAML'
tools:
  - name: build
    input: {}
    output: { exitCode: integer }
    command: [make]
    sideEffect: sandbox_process
    timeoutMs: 1000
    escalation: ask
escalation: { forbid: [write, syscall], expiresSeconds: 90 }
sandbox: { allowSyscalls: [unshare, setns] }
YAML
out=$("$AIRLOCK" check -v "$T/keys.yaml" 2>&1)
expect_contains "check -v prints a tool's escalation: ask" "$out" "    escalation: ask"
expect_contains "check -v prints escalation.forbid and expiresSeconds" "$out" "escalation:
  forbid: [write, syscall]
  expiresSeconds: 90"
expect_contains "check -v prints sandbox.allowSyscalls" "$out" "  allowSyscalls: [\"unshare\", \"setns\"]"
printf '%s\n' "$out" | sed -n '/^---$/,$p' >"$T/printed.yaml"
check "what check -v prints loads again" "$AIRLOCK" check "$T/printed.yaml"
bad() {	# NAME SED-EXPR EXPECTED
	sed "$2" "$T/keys.yaml" >"$T/bad.yaml"
	expect_contains "$1" "$("$AIRLOCK" check "$T/bad.yaml" 2>&1)" "$3"
}
bad "escalation takes ask or off" 's/escalation: ask/escalation: always/' \
    "tools[0].escalation: expected ask or off"
bad "escalation: ask only for a tool that runs a command" \
    's/command: \[make\]/action: read_file/' \
    "tools[0].escalation: only for a tool that runs a command (command, exec or run_check), not read_file"
bad "an unknown class in escalation.forbid" 's/forbid: \[write, syscall\]/forbid: [write, everything]/' \
    "escalation.forbid[1]: expected read, write, network, syscall, limit or protected"
bad "expiresSeconds must be a positive integer" 's/expiresSeconds: 90/expiresSeconds: 0/' \
    "escalation.expiresSeconds: expected an integer from 1 to 604800"
bad "an unknown key under escalation" 's/expiresSeconds: 90/forever: true/' \
    'escalation: unknown key "forever"'
bad "allowSyscalls: an unknown name is an error" 's/unshare, setns/unshare, frobnicate/' \
    'sandbox.allowSyscalls[1]: "frobnicate" is not a syscall the default seccomp filter refuses outright'
bad "allowSyscalls: a syscall that is allowed anyway is an error" 's/unshare, setns/read/' \
    'sandbox.allowSyscalls[0]: "read" is not a syscall the default seccomp filter refuses outright'
bad "allowSyscalls: one refused only for some arguments is an error" 's/unshare, setns/ioctl/' \
    'sandbox.allowSyscalls[0]: "ioctl" is not a syscall'

sed -n '/^  - name: build/,/escalation: ask/p' "$T/keys.yaml" | sed 's/name: build/name: escalate/; /escalation: ask/d' >"$T/tool.yaml"
awk -v tool="$T/tool.yaml" '{ print } /^tools:/ { while ((getline l < tool) > 0) print l }' "$T/keys.yaml" >"$T/bad.yaml"
expect_contains "a manifest tool may not be named escalate when escalation is on" \
    "$("$AIRLOCK" check "$T/bad.yaml" 2>&1)" "tools[0].name: \"escalate\" is airlock's built-in tool when a tool has escalation: ask"

# escalate is offered only where some tool has escalation: ask.
tools_list() {
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
	    "$AIRLOCK" serve --manifest "$1" --workspace "$ws" 2>/dev/null |
	    jq -r 'select(.id == 2) | [.result.tools[].name] | join(",")'
}
expect_eq "tools/list offers escalate when a tool has escalation: ask" "$(tools_list "$T/keys.yaml")" "build,escalate"
sed '/escalation: ask/d' "$T/keys.yaml" >"$T/noesc.yaml"
expect_eq "... and not otherwise" "$(tools_list "$T/noesc.yaml")" "build"

esc() {	# CALLID DENIED-JSON
	printf '{"name":"escalate","arguments":{"callId":%s,"denied":%s,"reason":"the build needs the mirror"}}\n' "$1" "$2"
}
audit() { cat "$(newest_session)/audit.jsonl"; }
# event NAME JQ-SELECT: the records of event NAME that match, compact.
event() { audit | jq -c --arg e "$1" "select(.event == \$e) | .fields${2:+ | select($2)}"; }

# Session 1.  Call ids are the agent's request ids: 1, 2, ...
{
	echo '{"name":"fetch","arguments":{}}'				# 1
	esc 999 '["d1"]'						# 2
	esc 1 '["d9"]'							# 3
	echo '{"name":"fetch_plain","arguments":{}}'			# 4
	esc 4 '["d1"]'							# 5
	esc 1 '[{"layer":"network","host":"10.0.0.5","port":80}]'	# 6
	esc 1 '["d1"]'							# 7 denied by the human
	esc 1 '["d1"]'							# 8 used
	echo '{"name":"fetch","arguments":{}}'				# 9
	esc 9 '["d1"]'							# 10 denied before
	esc 9 '["d1"]'							# 11 used
	echo '{"name":"fetch","arguments":{}}'				# 12
	echo '{"name":"fetch_two","arguments":{}}'			# 13
	esc 13 '["d2"]'							# 14 approved
	esc 13 '["d2"]'							# 15 used
	echo '{"name":"fetch_meta","arguments":{}}'			# 16
	esc 16 '["d1"]'							# 17 protected
	esc 16 '["d2"]'							# 18 protected
	echo '{"name":"fetch_priv","arguments":{}}'			# 19
	esc 19 '["d1","d2"]'						# 20 denied by the human
} >"$ws/calls"
# The agent, from inside its real sandbox, first tries to reach the
# approvals' control socket to approve for itself, then runs its calls.
cat >"$ws/attack.sh" <<'AGENT'
#!/bin/sh
ls "$1" >/dev/null 2>&1; echo "ATTACK-LS rc=$?"
python3 - "$1" <<'PY'
import glob, socket, sys
found = glob.glob(sys.argv[1] + "/*") + glob.glob(sys.argv[1] + "/*/*")
print("ATTACK-SOCKETS", len(found))
for p in found:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(p)
        s.sendall(b'{"op":"pending"}\n')
        print("ATTACK-CONNECTED", p, s.recv(4096)[:200])
    except OSError as e:
        print("ATTACK-REFUSED", p, e.strerror)
PY
exec sh "$(dirname "$0")/agent.sh" "$2"
AGENT
chmod 755 "$ws/attack.sh"
: >"$OUT"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/attack.sh" \
    "$AIRLOCK_RUNTIME_DIR" "$ws/calls" >"$OUT" 2>"$T/run.err" &
RUN_PID=$!

appr_reply 1 || { echo "not ok - no reply to the first call"; cat "$T/run.err"; exit 1; }
expect_eq "the refused call's result carries its callId" "$(jr .result.structuredContent.callId)" 1
expect_eq "... and what was denied, machine-readable" \
    "$(jr -c '.result.structuredContent.denied[0] | [.denial, .layer, .source, .host, .port, .allowWith]')" \
    "[\"d1\",\"network\",\"proxy\",\"127.0.0.1\",$SP,\"tools[0].allowAddresses (tool fetch)\"]"
expect_contains "the denial's hint names the key that would allow it" "$(jr '.result.structuredContent.denied[0].hint')" \
    "to allow it add \"127.0.0.1:$SP\" to tools[0].allowAddresses (tool fetch) in the manifest"
expect_contains "the text tells the model how to ask for a re-run" "$(jr ".result.content[1].text")" \
    "the sandbox refused network 127.0.0.1:$SP (d1); to ask a human to re-run this call once with exactly that allowed, call escalate with {\"callId\":1,\"denied\":[\"d1\"]"

appr_reply 2
expect_eq "an unknown callId is refused without asking: unknownCall" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","unknownCall"]'
appr_reply 3
expect_eq "an id the call was not refused: notDenied" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","notDenied"]'
expect_contains "... naming the id" "$(jr .result.structuredContent.message)" "d9 is not in that call's denied list"
appr_reply 4
expect_eq "a tool without escalation: ask gets denied but no escalate hint" \
    "$(jr ".result.content[1].text")" "[airlock: the sandbox refused network 127.0.0.1:$SP (d1); see denied in the result]"
appr_reply 5
expect_eq "escalating a call of a tool without escalation: ask: notEnabled" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","notEnabled"]'
appr_reply 6
expect_eq "a widening spelled out by the agent instead of a denial id is invalid" "$(r_class)" invalid_arguments

id=$(pending_tool fetch) || fail "escalate opens an approval"
"$AIRLOCK" pending -v >"$T/pv.out" 2>&1
PV=$(cat "$T/pv.out")
expect_contains "pending -v shows the original call" "$PV" "action:    fetch {}"
expect_contains "... the agent's reason" "$PV" "reason:    the build needs the mirror"
expect_contains "... what was denied and the precise widening" "$PV" '"widening": ['
expect_contains "... naming host and port" "$PV" "\"port\": $SP"
expect_contains "pending names the escalation and exactly what the run gets" \
    "$("$AIRLOCK" pending 2>&1)" "ESCALATION: re-runs call 1 once with, for that run only:
    d1  network 127.0.0.1 port $SP"
echo n | "$AIRLOCK" approve "$id" >"$T/prompt.out" 2>&1
expect_contains "the approve prompt shows the widening too" "$(cat "$T/prompt.out")" \
    "    d1  network 127.0.0.1 port $SP"
# A widening to this machine's own services (a Docker API on loopback)
# is not one more "network HOST port" line among others.
expect_contains "... with a warning that it reaches this machine's services" "$(cat "$T/prompt.out")" \
    "    d1  network 127.0.0.1 port $SP
        WARNING: WIDENS TO THIS MACHINE'S SERVICES: it is loopback (127.0.0.0/8), not the internet"
expect_contains "... again the last thing before the prompt" "$(tail -n 2 "$T/prompt.out")" \
    "  WARNING:   escalation d1 WIDENS TO THIS MACHINE'S SERVICES: 127.0.0.1 port $SP is loopback (127.0.0.0/8)
Approve this exact action?"
expect_contains "pending warns too" "$("$AIRLOCK" pending 2>&1)" \
    "WARNING: WIDENS TO THIS MACHINE'S SERVICES: it is loopback"
"$AIRLOCK" deny "$id" --reason "not that mirror" >/dev/null 2>&1
appr_reply 7
expect_eq "a denied escalation is a tool error saying so" "$(r_class)" approval_denied
expect_contains "... with the human's reason" "$(jr .result.structuredContent.message)" "not that mirror"
appr_reply 8
expect_eq "a denial escalated once cannot be asked for again: used" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","used"]'

appr_reply 9
expect_eq "a new call is refused the same way" "$(jr -c '.result.structuredContent.denied | length')" 1
# The same widening of the same call, asked for again after the human's
# no: refused at once, nobody asked (approval fatigue, approvals.sh).
appr_reply 10
expect_eq "the escalation a human denied, asked again for a new call, is refused at once" \
    "$(jr -c '.result.structuredContent | [.errorClass, .retryable]')" '["approval_denied",false]'
expect_contains "... saying it is not asked again" "$(jr .result.structuredContent.message)" "does not ask again"
appr_reply 11
expect_eq "an escalation is single-use, asked or not: used" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","used"]'
appr_reply 12
expect_eq "nothing persists: the next ordinary call is refused as before" \
    "$(jr -c '.result.structuredContent.denied[0] | [.host, .port]')" "[\"127.0.0.1\",$SP]"
expect_contains "... and does not reach the host" "$(jr .result.structuredContent.stdout)" "403"

appr_reply 13
expect_eq "two refusals in one run: d1 and d2, in order" \
    "$(jr -c '[.result.structuredContent.denied[] | .denial + "=" + .host]')" '["d1=10.0.0.5","d2=127.0.0.1"]'
id=$(pending_tool fetch_two) || fail "escalating one of two denials opens an approval"
"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
appr_reply 14
out=$(jr .result.structuredContent.stdout)
expect_contains "the re-run gets what was asked for" "${out#*SECOND}" "hello from airlock test server"
expect_contains "... and not what else its first run was refused" "${out%%SECOND*}" "403"
expect_eq "... which it is refused again, in its own denied list" \
    "$(jr -c '[.result.structuredContent.denied[] | .host]')" '["10.0.0.5"]'
appr_reply 15
expect_eq "an approved escalation is single-use: used" "$(jr -c '.result.structuredContent | [.errorClass, .reason]')" '["escalation_refused","used"]'
appr_reply 16
expect_eq "a refused fetch of the cloud's metadata service, IPv4 and IPv6" \
    "$(jr -c '[.result.structuredContent.denied[] | .denial + "=" + .host]')" '["d1=169.254.169.254","d2=fd00:ec2::254"]'
appr_reply 17
expect_eq "the metadata address (the instance's credentials) is never widened: protected" \
    "$(jr -c '.result.structuredContent | [.errorClass, .reason, .class]')" '["escalation_refused","forbidden","protected"]'
expect_contains "... saying why" "$(jr .result.structuredContent.message)" \
    "d1 is the cloud's metadata service, which hands out this machine's cloud credentials"
appr_reply 18
expect_eq "... nor its IPv6 address" \
    "$(jr -c '.result.structuredContent | [.errorClass, .reason, .class]')" '["escalation_refused","forbidden","protected"]'
id=$(pending_tool fetch_priv) || fail "escalating two private addresses opens an approval"
PV=$("$AIRLOCK" pending 2>&1)
expect_contains "an address of this machine's own is marked so" "$PV" \
    "    d1  network 10.0.0.5 port 80
        WARNING: WIDENS TO THIS MACHINE'S SERVICES: it is an address of this machine, not the internet"
expect_contains "... another host's private address as the local network's" "$PV" \
    "    d2  network 10.0.0.6 port 80
        WARNING: WIDENS TO THE LOCAL NETWORK'S SERVICES: it is private (RFC 1918), not the internet"
# The warnings are the approval's, as the broker's machine sees them
# (its own 10.0.0.5): recorded, signed and handed to a notify hook (a
# chat bot, a web page) that never sees approve's display.
PRIV_ID=$id
PRIV_WARN='["d1 WIDENS TO THIS MACHINE'"'"'S SERVICES: 10.0.0.5 port 80 is an address of this machine","d2 WIDENS TO THE LOCAL NETWORK'"'"'S SERVICES: 10.0.0.6 port 80 is private (RFC 1918)"]'
expect_eq "the approval_created record carries the widening's warnings" \
    "$(audit | jq -c --arg id "$id" 'select(.event == "approval_created" and .fields.id == $id) | .fields.evidence.escalation.warnings')" "$PRIV_WARN"
expect_contains "approve shows the broker's warnings before the prompt" \
    "$(echo n | "$AIRLOCK" approve "$id" 2>&1 | tail -n 3)" \
    "  WARNING:   escalation d1 WIDENS TO THIS MACHINE'S SERVICES: 10.0.0.5 port 80 is an address of this machine
  WARNING:   escalation d2 WIDENS TO THE LOCAL NETWORK'S SERVICES: 10.0.0.6 port 80 is private (RFC 1918)
Approve this exact action?"
"$AIRLOCK" deny "$id" --reason "not the host" >/dev/null 2>&1
appr_reply 20
expect_eq "... and denied, nothing runs" "$(r_class)" approval_denied
appr_agent_stop

expect_contains "the agent cannot see the approvals' runtime directory" "$(grep ATTACK-LS "$OUT")" "rc=2"
expect_eq "... nor reach a control socket to approve for itself" \
    "$(grep -c ATTACK-CONNECTED "$OUT"):$(grep -c ATTACK-SOCKETS "$OUT")" 0:1

# The audit trail, end to end.
expect_eq "one sandbox_denial record per denial, in the contract's form" \
    "$(event sandbox_denial '.id == 1' | jq -c '[.tool, .denial, .layer, .source, .host, .port, .allowWith, (.hint | length > 0)]')" \
    "[\"fetch\",\"d1\",\"network\",\"proxy\",\"127.0.0.1\",$SP,\"tools[0].allowAddresses (tool fetch)\",true]"
expect_eq "refusals are audited with their reasons" \
    "$(event escalation_refused | jq -r '"\(.id):\(.reason)"' | tr '\n' ' ')" "2:unknownCall 3:notDenied 5:notEnabled 8:used 11:used 15:used 17:forbidden 18:forbidden "
expect_eq "escalation_request names the call, the widening and the approval" \
    "$(event escalation_request '.id == 14' | jq -c '[.callId, .tool, .widening[0].host, .widening[0].port, .reason, (.approval | length > 0)]')" \
    "[13,\"fetch_two\",\"127.0.0.1\",$SP,\"the build needs the mirror\",true]"
expect_eq "escalation_decision records each outcome" \
    "$(event escalation_decision | jq -r '"\(.id):\(.callId):\(.outcome)"' | tr '\n' ' ')" "7:1:denied 14:13:approved 20:19:denied "
appr=$(event escalation_request '.id == 14' | jq -r .approval)
expect_eq "the re-run's runner_start carries the approval id" \
    "$(event runner_start '.id == 14' | jq -r .escalation)" "$appr"
expect_eq "an ordinary run's runner_start carries none" \
    "$(event runner_start '.id == 12' | jq -r '.escalation // "none"')" none
check "the session's log verifies" "$AIRLOCK" audit verify "$(newest_session)/audit.jsonl"
expect_eq "the notify hook's created payload carries the warnings" \
    "$(event approval_notify ".approval == \"$PRIV_ID\"" | jq -r .output | jq -c .approval.evidence.escalation.warnings)" "$PRIV_WARN"

# A forbidden class is refused without asking.
{
	echo '{"name":"fetch","arguments":{}}'
	esc 1 '["d1"]'
} >"$ws/calls"
appr_agent_start "$T/forbid.yaml" calls
appr_reply 2
expect_eq "escalation.forbid: [network] refuses a network widening: forbidden" \
    "$(jr -c '.result.structuredContent | [.errorClass, .reason, .class]')" '["escalation_refused","forbidden","network"]'
appr_agent_stop
expect_eq "... audited with the class" "$(event escalation_refused | jq -c '[.callId, .reason, .class]')" '[1,"forbidden","network"]'
expect_eq "... and no human was asked" "$(event escalation_request | wc -l)" 0

# Nobody decides: the escalation expires (expiresSeconds: 1).
{
	echo '{"name":"fetch","arguments":{}}'
	esc 1 '["d1"]'
} >"$ws/calls"
appr_agent_start "$T/expire.yaml" calls
appr_reply 2
expect_eq "an escalation nobody decides on expires" "$(r_class)" approval_expired
appr_agent_stop
expect_eq "... audited as expired" "$(event escalation_decision | jq -r .outcome)" expired
expect_eq "... and nothing ran again" "$(event runner_start | wc -l)" 1

# The runner's denials (filesystem, syscall, limit) take the same road.
# A tmpfs on /srv (this test's own mount namespace) holds host files no
# sandbox sees: data to read, a credential store, a log to write.
mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/esc /srv/u/.ssh /srv/repo/.git
echo DATA-7 >/srv/esc/data.txt
echo KEY >/srv/u/.ssh/id_test
ln -s /srv/u/.ssh /srv/alias	# the store under another name
# A host socket (a read-only bind of one still connects) and a directory
# holding one, each under an innocent name.
mkdir -p /srv/tools/run
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/srv/tools/run/api.sock")'
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/srv/esc/engine")'
echo '[core]' >/srv/repo/.git/config
: >/srv/esc/log.txt
chmod 666 /srv/esc/log.txt	# the run writes as its sandbox user
tool() {	# NAME COMMAND-JSON
	printf '  - name: %s\n    input: {}\n    output: { exitCode: integer, stdout: string }\n    command: %s\n    sideEffect: sandbox_process\n    timeoutMs: 10000\n    escalation: ask\n' "$1" "$2"
}
# unshare(CLONE_NEWUSER): on the runners' deny list, not on the broker's.
UNSHARE='import ctypes; l = ctypes.CDLL(None, use_errno=True); r = l.syscall(272, 0x10000000); print("unshare", r, ctypes.get_errno())'
KEYCTL='import ctypes; l = ctypes.CDLL(None, use_errno=True); r = l.syscall(250, 0, -3, 0, 0, 0); print("keyctl", r, ctypes.get_errno())'
pyjson() { printf '["python3", "-c", "%s"]' "$(printf '%s' "$1" | sed 's/"/\\"/g')"; }
{
	echo "tools:"
	tool readit '["sh", "-c", "cat /srv/esc/data.txt | tee -a copied.txt"]'
	tool readkey '["cat", "/srv/u/.ssh/id_test"]'
	tool readalias '["cat", "/srv/alias/id_test"]'
	tool readsock '["cat", "/srv/esc/engine"]'
	tool readtools '["ls", "/srv/tools"]'
	tool readgit '["cat", "/srv/repo/.git/config"]'
	tool stamp '["sh", "-c", "touch /srv/esc/log.txt && echo STAMPED >/srv/esc/log.txt"]'
	tool nsprobe "$(pyjson "$UNSHARE")"
	tool bigfile '["sh", "-c", "head -c 1500000 /dev/zero >/tmp/big && echo WROTE"]'
	printf 'sandbox:\n  limits: { fileSizeMb: 1 }\nescalation: { forbid: [] }\n'
	printf 'approvals:\n  approvers: [root]\n  ttlSeconds: 60\n'
} >"$T/runner.yaml"
"$AIRLOCK" check "$T/runner.yaml" >/dev/null || { echo "not ok - the runner manifest does not load"; "$AIRLOCK" check "$T/runner.yaml"; exit 1; }
{
	echo '{"name":"readit","arguments":{}}'		# 1
	esc 1 '["d1"]'					# 2 approved
	echo '{"name":"readit","arguments":{}}'		# 3
	echo '{"name":"readkey","arguments":{}}'	# 4
	esc 4 '["d1"]'					# 5 protected
	echo '{"name":"readgit","arguments":{}}'	# 6
	esc 6 '["d1"]'					# 7 protected
	echo '{"name":"stamp","arguments":{}}'		# 8
	esc 8 '["d1"]'					# 9 approved
	echo '{"name":"nsprobe","arguments":{}}'	# 10
	esc 10 '["d1"]'					# 11 approved
	echo '{"name":"bigfile","arguments":{}}'	# 12
	esc 12 '["d1"]'					# 13 approved
	echo '{"name":"nsprobe","arguments":{}}'	# 14
	echo '{"name":"readalias","arguments":{}}'	# 15
	esc 15 '["d1"]'					# 16 protected
	echo '{"name":"readsock","arguments":{}}'	# 17
	esc 17 '["d1"]'					# 18 protected
	echo '{"name":"readtools","arguments":{}}'	# 19
	esc 19 '["d1"]'					# 20 protected
} >"$ws/calls"
appr_agent_start "$T/runner.yaml" calls
approve_next() {	# TOOL
	local id
	id=$(pending_tool "$1") || { fail "an escalation of $1 opens an approval"; return; }
	"$AIRLOCK" approve "$id" --yes >/dev/null 2>&1
}
appr_reply 1
expect_eq "a read of a host path the sandbox does not show: a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.denial, .layer, .source, .path, .access]')" \
    '["d1","filesystem","mount","/srv/esc/data.txt","read"]'
expect_contains "... whose hint names sandbox.readOnly" "$(jr '.result.structuredContent.denied[0].hint')" \
    'add "/srv/esc/data.txt" to sandbox.readOnly'
approve_next readit
appr_reply 2
expect_contains "approved: the re-run reads that file (bound read-only)" "$(jr .result.structuredContent.stdout)" DATA-7
expect_eq "... and its workspace write lands through the change set" "$(cat "$ws/copied.txt")" DATA-7
appr_reply 3
expect_eq "nothing persists: the next read is refused as before" \
    "$(jr -c '[.result.structuredContent.denied[0].path, (.result.structuredContent.stdout | test("DATA-7"))]')" \
    '["/srv/esc/data.txt",false]'
appr_reply 5
expect_eq "a credential store (.ssh) cannot be widened even with forbid: []" \
    "$(jr -c '.result.structuredContent | [.errorClass, .reason, .class]')" '["escalation_refused","forbidden","protected"]'
appr_reply 6
expect_eq "a read of another repository's .git is a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" '["filesystem","/srv/repo/.git/config","read"]'
appr_reply 7
expect_eq "... and .git cannot be widened either: protected" \
    "$(jr -c '.result.structuredContent | [.reason, .class]')" '["forbidden","protected"]'
appr_reply 8
expect_eq "a write outside the workspace: a write denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" '["filesystem","/srv/esc/log.txt","write"]'
approve_next stamp
appr_reply 9
expect_eq "approved: the re-run writes that path on the host (bound read-write)" "$(cat /srv/esc/log.txt)" STAMPED
appr_reply 10
expect_eq "a syscall seccomp refused: a syscall denial with its number" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .source, .syscall, .nr]')" '["syscall","seccomp","unshare",272]'
expect_contains "... the command saw EPERM" "$(jr .result.structuredContent.stdout)" "unshare -1 1"
approve_next nsprobe
appr_reply 11
out=$(jr .result.structuredContent.stdout)
expect_contains "approved: the re-run ran" "$out" "unshare "
expect_not_contains "... with unshare off the deny list" "$out" "unshare -1 1"
expect_eq "... and was refused nothing" "$(jr '.result.structuredContent.denied // "none"')" none
appr_reply 12
expect_eq "a limit that was reached: a limit denial with the value in force" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .source, .limit, .value]')" '["limit","rlimit","fileSize",1]'
approve_next bigfile
appr_reply 13
expect_contains "approved: the re-run has the limit doubled" "$(jr .result.structuredContent.stdout)" WROTE
appr_reply 14
expect_contains "nothing persists: unshare is refused again" "$(jr .result.structuredContent.stdout)" "unshare -1 1"
appr_reply 15
expect_eq "a read through a symlink to a credential store: a filesystem denial of the path as named" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" '["filesystem","/srv/alias/id_test","read"]'
appr_reply 16
expect_eq "... which cannot be widened: the bind would follow the link into .ssh (protected)" \
    "$(jr -c '.result.structuredContent | [.errorClass, .reason, .class]')" '["escalation_refused","forbidden","protected"]'
appr_reply 17
expect_eq "a read of a host socket: a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" '["filesystem","/srv/esc/engine","read"]'
appr_reply 18
expect_eq "... which cannot be widened: a read-only socket still connects (protected)" \
    "$(jr -c '.result.structuredContent | [.reason, .class]')" '["forbidden","protected"]'
appr_reply 19
expect_eq "a read of a host directory: a filesystem denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" '["filesystem","/srv/tools","read"]'
appr_reply 20
expect_eq "... which cannot be widened when a socket is inside it (protected)" \
    "$(jr -c '.result.structuredContent | [.reason, .class]')" '["forbidden","protected"]'
appr_agent_stop
expect_eq "the re-runs' runner_start records carry their approvals" \
    "$(event runner_start '.escalation != null' | jq -r .id | tr '\n' ' ')" "2 9 11 13 "
expect_eq "the bound path is in the re-run's recorded sandbox" \
    "$(event runner_start '.id == 2' | jq -c '.sandbox.readOnly | index("/srv/esc/data.txt") != null')" true
expect_eq "the doubled limit is in the re-run's recorded limits" \
    "$(event runner_start '.id == 13' | jq -r .limits.fileSizeMb)" 2

# escalation.forbid covers each class: refused without asking.
sed 's/escalation: { forbid: \[\] }/escalation: { forbid: [read, write, syscall, limit] }/' "$T/runner.yaml" >"$T/forbid4.yaml"
{
	echo '{"name":"readit","arguments":{}}'
	esc 1 '["d1"]'
	echo '{"name":"stamp","arguments":{}}'
	esc 3 '["d1"]'
	echo '{"name":"nsprobe","arguments":{}}'
	esc 5 '["d1"]'
	echo '{"name":"bigfile","arguments":{}}'
	esc 7 '["d1"]'
} >"$ws/calls"
appr_agent_start "$T/forbid4.yaml" calls
classes=
for n in 2 4 6 8; do
	appr_reply $n
	classes="$classes $(jr -r '.result.structuredContent | "\(.reason):\(.class)"')"
done
appr_agent_stop
expect_eq "forbid: [read, write, syscall, limit] refuses each class" "$classes" \
    " forbidden:read forbidden:write forbidden:syscall forbidden:limit"
expect_eq "... and no human was asked" "$(event escalation_request | wc -l)" 0

# sandbox.allowSyscalls applies to every run of the session.
allow_run() {	# MANIFEST
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nsprobe","arguments":{}}}' |
	    "$AIRLOCK" serve --manifest "$1" --workspace "$ws" 2>/dev/null | jq -r 'select(.id == 2) | .result.structuredContent.stdout'
}
{ echo "tools:"; tool nsprobe "$(pyjson "$UNSHARE")"; } >"$T/sys.yaml"
expect_contains "without sandbox.allowSyscalls unshare is refused" "$(allow_run "$T/sys.yaml")" "unshare -1 1"
printf 'sandbox:\n  allowSyscalls: [unshare]\n' >>"$T/sys.yaml"
out=$(allow_run "$T/sys.yaml")
expect_contains "with sandbox.allowSyscalls: [unshare] every run may call it" "$out" "unshare "
expect_not_contains "... and it is not refused" "$out" "unshare -1 1"
# A syscall the broker's own filter refuses cannot be allowed in a session
# (every runner inherits that filter): said at start, not ignored.
printf 'tools: []\nsandbox:\n  allowSyscalls: [keyctl]\n' >"$T/key.yaml"
"$AIRLOCK" serve --manifest "$T/key.yaml" --workspace "$ws" </dev/null >/dev/null 2>"$T/key.err"
expect_eq "a session refuses allowSyscalls the broker's filter refuses (EXIT_CONFIG)" "$?" 78
expect_contains "... saying why" "$(cat "$T/key.err")" \
    "sandbox.allowSyscalls[0]: keyctl is refused by the broker's own seccomp filter"
out=$("$AIRLOCK" exec --manifest "$T/key.yaml" --workspace "$ws" -- python3 -c "$KEYCTL" 2>&1)
expect_not_contains "airlock exec applies sandbox.allowSyscalls: keyctl is not refused" "$out" "keyctl -1 1"
expect_contains "... and ran" "$out" "keyctl "
out=$("$AIRLOCK" exec --workspace "$ws" -- python3 -c "$KEYCTL" 2>&1)
expect_contains "... which it is without the key" "$out" "keyctl -1 1"

# docs/AUDIT.md lists these events and their fields, both ways
# (audit_doc_fields, tests/lib.sh): every field written is documented, every field
# documented without "?" is written.
audit_doc_fields "$top_srcdir/docs/AUDIT.md" >"$T/doc"
cat "$AIRLOCK_HOME"/sessions/*/audit.jsonl | jq -r '.event as $e | .fields | keys[] | "\($e) \(.)"' |
    grep -E '^(sandbox_denial|escalation_[a-z]+|runner_start) ' | sort -u >"$T/real"
missing= undocumented=
for ev in sandbox_denial escalation_request escalation_refused escalation_decision; do
	check "docs/AUDIT.md lists $ev" grep -q "^$ev " "$T/doc"
done
while read -r ev name opt; do
	case $ev in sandbox_denial|escalation_*) ;; *) continue ;; esac
	[ "$opt" = 1 ] && continue
	# escalation_held and escalation_applied: escalation_linked.sh's.
	grep -q "^$ev " "$T/real" || continue
	grep -qx "$ev $name" "$T/real" || missing="$missing $ev.$name"
done <"$T/doc"
expect_eq "every documented field of these events is in the real records" "$missing" ""
while read -r ev name; do
	grep -qE "^$ev $name [01]\$" "$T/doc" || undocumented="$undocumented $ev.$name"
done <"$T/real"
expect_eq "every field of these events in the real records is documented" "$undocumented" ""
finish
