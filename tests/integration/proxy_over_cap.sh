#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A sandbox opens 200 connections to the egress proxy at once and holds
# them: 64 count against its cap, 64 more are answered 429, and the rest
# are closed with no reply.  Those used to leave no trace at all (docs/
# PROXY.md says every connection ends in a record): exec_end counted
# about 128 connections of 300, a session's audit log as many.  Now the
# proxy reports them as counts, at most one record a second per sandbox,
# and every connection is accounted for, through "airlock exec
# --allow-host" (exec_end's egress) and a tool under "airlock serve"
# (the session's egress records).
. "$top_srcdir/tests/lib.sh"
N=200
chmod 755 "$T"
ws=$(make_workspace)
# flood.sh N: N connections at once, held 2 s (the proxy has answered or
# closed them all by then), then closed together.
cat > "$ws/flood.sh" <<'SH'
#!/bin/bash
n=0
for i in $(seq "$1"); do
	exec {fd}<>/dev/tcp/127.0.0.1/3128 && n=$((n + 1))
done 2>/dev/null
echo "opened $n"
sleep 2
SH
chmod 755 "$ws/flood.sh"

out=$(timeout 120 "$AIRLOCK" exec --workspace "$ws" --allow-host example.com:443 \
    -- bash flood.sh $N 2>"$T/err")
expect_eq "the sandbox opened $N connections (sanity)" "$out" "opened $N"
rec=$(jq -c 'select(.event == "exec_end") | .fields.egress' "$(newest_session_log)")
expect_eq "exec_end counts every connection" \
    "$(printf '%s' "$rec" | jq -c .connections)" "$N"
check "... saying how many were closed over the cap ($(printf '%s' "$rec" | jq -c .overCap))" \
    test "$(printf '%s' "$rec" | jq '.overCap // 0')" -gt 0
check "... counted as refused" test "$(printf '%s' "$rec" | jq '.refused - .overCap')" -ge 64
expect_contains "stderr says so" "$(cat "$T/err")" \
    "connections over the proxy's cap closed without a reply"
# The 429s name no destination: they were printed as "network :0".
expect_contains "a 429 is printed without a destination" "$(cat "$T/err")" \
    "airlock: denied: network (proxy): connection limit reached: 64 concurrent connections for sandbox exec"
expect_not_contains "... not as network :0" "$(cat "$T/err")" "network :0"

# The same flood from a tool, into the session's audit log.
cat > "$T/m.yaml" <<YAML
tools:
  - name: flood
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 60000
    command: ["bash", "flood.sh", "$N"]
    network: ["example.com:443"]
YAML
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{}}}' |
    timeout 120 "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" | grep '"id":2')
expect_contains "the tool opened $N connections (sanity)" "$out" "opened $N"
log=$(newest_session_log)
expect_eq "the session's egress records account for every connection" \
    "$(jq -s '[.[] | select(.event == "egress") | .fields |
        if .event == "proxy.over_cap" then .connections else 1 end] | add' "$log")" "$N"
nrec=$(jq -s '[.[] | select(.event == "egress" and .fields.event == "proxy.over_cap")] | length' "$log")
check "... those over the cap in a few records, not one each ($nrec)" \
    test "$nrec" -ge 1 -a "$nrec" -le 4
expect_eq "... each naming the sandbox and the cap" \
    "$(jq -c 'select(.event == "egress" and .fields.event == "proxy.over_cap") | .fields | [.decision, .reason]' "$log" | sort -u)" \
    '["deny","connection limit reached: 64 concurrent connections and 64 refusals in flight: closed without a reply"]'
check "the log verifies" "$AIRLOCK" audit verify "$log" >/dev/null
# The 429s name no destination: nothing in the manifest would allow
# them.  Their records said "allowWith", and the result's hint told the
# model to add ":0" to tools[0].network.
expect_eq "the result does not ask for \":0\" in the manifest" \
    "$(printf '%s' "$out" | jq -c '.result.structuredContent | [.hint, ([.denied[]? | select(.host == "")] | length)]')" \
    '[null,0]'
expect_eq "... nor does any egress record" \
    "$(jq -c 'select(.event == "egress" and .fields.allowWith != null) | .fields.allowWith' "$log" | sort -u)" ""
finish
