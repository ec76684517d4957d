#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Egress, wired end to end: a tool granted one host reaches it through
# airlock's proxy and nothing else; a direct connect that bypasses the
# proxy fails; an agent under "airlock run" reaches its (fake) model API
# the same way; every connection is an audit record.  The whole test runs
# in a private network and mount namespace: a loopback server stands in
# for the internet, and nothing can leave this machine.
if [ -z "${AIRLOCK_EGRESS_TEST_NS:-}" ]; then
	AIRLOCK_EGRESS_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
command -v bash >/dev/null || { echo "not ok - bash (for /dev/tcp) is missing"; exit 1; }

"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
origin_start 60
ws=$(make_workspace)

# fetch URL: a plain HTTP request through the proxy, with bash's /dev/tcp.
cat >"$T/m.yaml" <<YAML
tools:
  - name: fetch_allowed
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://127.0.0.1:$SP/hello HTTP/1.1\\\\r\\\\nHost: 127.0.0.1\\\\r\\\\nConnection: close\\\\r\\\\n\\\\r\\\\n' >&3 && cat <&3"]
    allowAddresses: ["127.0.0.1:$SP"]
  - name: fetch_other
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://10.0.0.5:80/ HTTP/1.1\\\\r\\\\nHost: 10.0.0.5\\\\r\\\\nConnection: close\\\\r\\\\n\\\\r\\\\n' >&3 && cat <&3"]
    allowAddresses: ["127.0.0.1:$SP"]
  - name: bypass
    input: {}
    output: { exitCode: integer, stderr: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/$SP && echo CONNECTED"]
    allowAddresses: ["127.0.0.1:$SP"]
  - name: no_network
    input: {}
    output: { exitCode: integer, stderr: string }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && echo CONNECTED"]
  - name: fetch_name
    input: {}
    output: { exitCode: integer }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT example.org:443 HTTP/1.1\\r\\nHost: example.org:443\\r\\n\\r\\n' >&3 && head -n 1 <&3 && exit 7"]
    network: ["api.example.com:443"]
agent:
  allowAddresses: ["127.0.0.1:$SP"]
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }

# A loopback address written as an ordinary host entry is refused at load:
# local addresses are reachable only through an explicit address rule.
sed 's/allowAddresses:/network:/' "$T/m.yaml" >"$T/bad.yaml"
out=$("$AIRLOCK" check "$T/bad.yaml" 2>&1)
expect_contains "a loopback host entry is refused, naming allowAddresses" \
    "$out" "tools[0].network[0]: 127.0.0.1:$SP is a loopback (127.0.0.0/8) address, reachable only through an explicit rule: use tools[0].allowAddresses"
# An IP literal with a trailing dot is refused at load, in either list:
# it loaded, and every run of the tool then failed (its IP rule did not
# parse in the proxy).
for key in allowAddresses network; do
	sed "0,/allowAddresses: \[\"127.0.0.1:$SP\"\]/s//$key: [\"1.1.1.1.:$SP\"]/" \
	    "$T/m.yaml" >"$T/dot.yaml"
	out=$("$AIRLOCK" check "$T/dot.yaml" 2>&1)
	expect_eq "$key: an IP literal with a trailing dot fails the check (exit 78)" "$?" 78
	expect_contains "... naming the entry" "$out" \
	    "tools[0].$key[0]: 1.1.1.1.:$SP: an IP address with a trailing dot (write 1.1.1.1)"
done

call() {
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":{}}}" |
	    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" | grep '"id":2'
}
out=$(call fetch_allowed)
expect_contains "a granted host is reached through the proxy" "$out" "HTTP/1.1 200 OK"
expect_contains "the origin's body comes back" "$out" "hello from airlock test server"
out=$(call fetch_other)
expect_contains "a host outside the grant is refused with 403" "$out" "403"
expect_contains "the refusal names its reason" "$out" "X-Airlock-Reason"
hint=$(printf '%s' "$out" | jq -r .result.structuredContent.hint)
expect_eq "the result's hint names the host and the manifest key that allows it" "$hint" \
    'the egress proxy refused 10.0.0.5:80 (not allowed); to allow it add "10.0.0.5:80" to tools[1].allowAddresses (tool fetch_other) in the manifest'
expect_contains "... in the text the model reads too" "$(printf '%s' "$out" | jq -r '.result.content[-1].text')" \
    '[airlock: hint: the egress proxy refused 10.0.0.5:80 (not allowed); to allow it add "10.0.0.5:80" to tools[1].allowAddresses'
expect_eq "the result lists the refusal, machine-readable (callId, denied)" \
    "$(printf '%s' "$out" | jq -c '.result.structuredContent | [.callId, (.denied[] | [.denial, .layer, .source, .host, .port, .allowWith])]')" \
    '[2,["d1","network","proxy","10.0.0.5",80,"tools[1].allowAddresses (tool fetch_other)"]]'
expect_eq "... and as one sandbox_denial record in the contract's form" \
    "$(jq -c 'select(.event == "sandbox_denial" and .fields.tool == "fetch_other") | .fields | [.id, .denial, .layer, .source, .host, .port, .allowWith, (.hint | test("refused 10.0.0.5:80"))]' "$AIRLOCK_HOME"/sessions/*/audit.jsonl)" \
    '[2,"d1","network","proxy","10.0.0.5",80,"tools[1].allowAddresses (tool fetch_other)",true]'
out=$(call fetch_name)
expect_contains "a refused host name points at network, in text and structuredContent" \
    "$(printf '%s' "$out" | jq -r '[.result.structuredContent.hint, .result.content[-1].text] | join("|")')" \
    'to allow it add "example.org:443" to tools[4].network (tool fetch_name) in the manifest|'
expect_contains "... and the text block carries it too" "$(printf '%s' "$out" | jq -r '.result.content[-1].text')" \
    'to tools[4].network (tool fetch_name)'
grep -h '"event":"egress"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl | grep '10.0.0.5' | grep -q '"allowWith":"tools\[1\].allowAddresses (tool fetch_other)"' &&
    pass "the refusal's audit record names the key that allows it" || fail "the refusal's audit record names the key that allows it"
out=$(call bypass)
expect_not_contains "a direct connect that bypasses the proxy fails" "$out" "CONNECTED"
expect_contains "the bypass fails in the sandbox, not the command" "$out" '"exitCode":1'
out=$(call no_network)
expect_not_contains "a tool without a grant has no proxy at all" "$out" "CONNECTED"
if grep -qh '"event":"egress"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl; then
	pass "every proxied connection is an audit record"
else
	fail "every proxied connection is an audit record"
fi
grep -h '"event":"egress"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl | grep -q '10.0.0.5' &&
    pass "the refused connection is recorded too" || fail "the refused connection is recorded too"

# The agent: its model API through the proxy, nothing else.
cat >"$T/agent.sh" <<AGENT
#!/bin/bash
echo "proxy=\$HTTP_PROXY"
exec 4<>/dev/tcp/127.0.0.1/3128 || exit 10
printf 'GET http://127.0.0.1:$SP/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&4
cat <&4
exec 5<>/dev/tcp/127.0.0.1/$SP 2>/dev/null && echo "DIRECT-CONNECTED"
exec 6<>/dev/tcp/127.0.0.1/3128
printf 'CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: x\r\n\r\n' >&6
head -n 1 <&6
exec 7<>/dev/tcp/127.0.0.1/3128
printf 'GET http://127.0.0.2:$SP/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&7
echo "other-loopback: \$(head -n 1 <&7)"
exit 0
AGENT
chmod +x "$T/agent.sh"
out=$("$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" 2>&1)
expect_contains "the agent's environment names the proxy" "$out" "proxy=http://127.0.0.1:3128"
expect_contains "the agent reaches its model API through the proxy" "$out" "hello from airlock test server"
expect_not_contains "the agent cannot connect around the proxy" "$out" "DIRECT-CONNECTED"
expect_contains "the agent cannot reach the metadata address" "$out" "403"
expect_contains "a loopback address not listed in allowAddresses is refused" \
    "$out" "other-loopback: HTTP/1.1 403"
grep -h '"event":"egress"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl | grep '169.254.169.254' |
    grep -q '"allowWith":"agent.allowAddresses (or airlock run --allow-host 169.254.169.254:80)"' &&
    pass "the agent's refused connection is audited with the key that allows it" ||
    fail "the agent's refused connection is audited with the key that allows it"

# --allow-host with an IP literal is an explicit address rule for one run:
# the same agent, under a manifest that grants it nothing.
printf 'tools: []\n' >"$T/none.yaml"
out=$("$AIRLOCK" run --manifest "$T/none.yaml" --workspace "$ws" -- "$T/agent.sh" 2>&1)
expect_not_contains "without a grant the agent has no way out" "$out" "hello from airlock test server"
out=$("$AIRLOCK" run --manifest "$T/none.yaml" --workspace "$ws" \
    --allow-host "127.0.0.1:$SP" -- "$T/agent.sh" 2>&1)
expect_contains "--allow-host 127.0.0.1:PORT reaches the local server" "$out" "hello from airlock test server"
expect_contains "--allow-host opens that address and port only" "$out" "other-loopback: HTTP/1.1 403"
# A gateway named localhost (docs/WRAPPING.md, "A local LLM gateway"):
# --allow-host localhost:PORT alone is refused, since localhost resolves
# to loopback, and the refusal's record said to allow it with
# "--allow-host HOST:PORT", what had been given.  It names the address
# now, and that flag beside it lets the request through.
cat >"$T/agent-lh.sh" <<AGENT
#!/bin/bash
exec 4<>/dev/tcp/127.0.0.1/3128 || exit 10
printf 'GET http://localhost:$SP/hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&4
cat <&4
AGENT
chmod +x "$T/agent-lh.sh"
rm -rf "$AIRLOCK_HOME/sessions"
out=$("$AIRLOCK" run --manifest "$T/none.yaml" --workspace "$ws" \
    --allow-host "localhost:$SP" -- "$T/agent-lh.sh" 2>&1)
expect_contains "--allow-host localhost:PORT alone: refused (loopback)" "$out" "403"
expect_eq "... its record says which --allow-host would allow it" \
    "$(jq -r 'select(.event == "egress") | .fields.allowWith' "$AIRLOCK_HOME"/sessions/*/audit.jsonl)" \
    "agent.allowAddresses (or airlock run --allow-host 127.0.0.1:$SP)"
out=$("$AIRLOCK" run --manifest "$T/none.yaml" --workspace "$ws" \
    --allow-host "localhost:$SP" --allow-host "127.0.0.1:$SP" \
    -- "$T/agent-lh.sh" 2>&1)
expect_contains "... and with it the request reaches the gateway" "$out" \
    "hello from airlock test server"

# airlock exec --allow-host: one command, the same proxy.
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$T/agent.sh" -- "$T/agent.sh" 2>&1)
expect_not_contains "exec without --allow-host has no way out" "$out" "hello from airlock test server"
out=$("$AIRLOCK" exec --workspace "$ws" --ro "$T/agent.sh" --allow-host "127.0.0.1:$SP" \
    -- "$T/agent.sh" 2>&1)
expect_contains "exec --allow-host names the proxy" "$out" "proxy=http://127.0.0.1:3128"
expect_contains "exec --allow-host 127.0.0.1:PORT reaches the local server" "$out" "hello from airlock test server"
expect_not_contains "exec: no connect around the proxy" "$out" "DIRECT-CONNECTED"
expect_contains "exec --allow-host opens that address and port only" "$out" "other-loopback: HTTP/1.1 403"
finish
