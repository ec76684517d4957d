#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The MCP surface of the broker ("airlock serve"): the handshake and its
# version negotiation, tools/list derived from the manifest's types, and
# every kind of bad frame answered with its JSON-RPC error while the
# broker goes on serving the next request.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

M="$T/proto.yaml"
cat >"$M" <<'EOF'
types:
  level: { type: string, enum: [low, high] }
  count: { type: integer, min: 1, max: 9 }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256 }
    sideEffect: none
    timeoutMs: 2000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 5000
  - name: fetch
    input: { level: level, n: "count?" }
    output: { exitCode: integer }
    command: ["true", "{level}"]
    sideEffect: network
    authorization: allow
    timeoutMs: 1000
  - name: deploy
    action: request_approval
    input: { action: string, reason: string, evidenceUris: string_list }
    output: { decision: approved_or_rejected, approver: string }
    sideEffect: external
    timeoutMs: 60000
  - name: hidden
    action: exec
    input: { command: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    authorization: deny
    timeoutMs: 1000
checks:
  ok: ["true"]
limits:
  maxFrameBytes: 1024
EOF

# --- Version negotiation: each session asks for one version. ---------------
negotiate() {	# REQUESTED -> prints the agreed version
	printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n' "$1" |
	    timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err" |
	    jq -r '.result.protocolVersion'
}
expect_eq "initialize agrees on 2025-06-18 when asked for it" "$(negotiate 2025-06-18)" 2025-06-18
expect_eq "initialize agrees on an older known version 2025-03-26" "$(negotiate 2025-03-26)" 2025-03-26
expect_eq "initialize agrees on an older known version 2024-11-05" "$(negotiate 2024-11-05)" 2024-11-05
expect_eq "initialize answers an unknown version with the latest" "$(negotiate 1999-01-01)" 2025-06-18

# --- One session, a table of frames -----------------------------------------
# frame NAME EXPECT PRINTF-FORMAT: appends the frame, then a ping with id
# "p-NAME".  EXPECT is a JSON-RPC error code the frame must get (with the
# id it must carry, CODE:ID, ID as JSON), "result:ID" for a success, or
# "none" for no answer at all.  The ping after it proves the broker still
# serves.
IN="$T/frames.in"
: >"$IN"
NAMES=()
EXPECTS=()
frame() {
	printf "$3" >>"$IN"
	printf '\n' >>"$IN"
	printf '{"jsonrpc":"2.0","id":"p-%s","method":"ping"}\n' "$1" >>"$IN"
	NAMES+=("$1")
	EXPECTS+=("$2")
}
HS='{"jsonrpc":"2.0","id":%s,"method":"%s"}'

# Before initialize: ping works, everything else is -32002.
frame ping-before-init result:100 '{"jsonrpc":"2.0","id":100,"method":"ping"}'
frame tools-list-before-init -32002:101 '{"jsonrpc":"2.0","id":101,"method":"tools/list"}'
frame tools-call-before-init -32002:102 '{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}'
frame status-before-init -32002:103 '{"jsonrpc":"2.0","id":103,"method":"airlock/session/status"}'
frame initialized-notification-before-init none '{"jsonrpc":"2.0","method":"notifications/initialized"}'
frame initialize result:104 '{"jsonrpc":"2.0","id":104,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
frame initialize-twice -32600:105 '{"jsonrpc":"2.0","id":105,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
frame initialized none '{"jsonrpc":"2.0","method":"notifications/initialized"}'
frame tools-list result:106 '{"jsonrpc":"2.0","id":106,"method":"tools/list"}'

# Bad frames.
frame invalid-json -32700:null '{"jsonrpc":"2.0","id":200,"method":'
frame not-json-at-all -32700:null 'hello broker'
frame invalid-utf8 -32700:null '{"jsonrpc":"2.0","id":201,"method":"ping","params":{"x":"\xff\xfe"}}'
frame overlong-utf8 -32700:null '{"jsonrpc":"2.0","id":202,"method":"ping","params":{"x":"\xc0\xaf"}}'
frame nul-byte -32700:null '{"jsonrpc":"2.0","id":203,"method":"ping","params":{"x":"a\0b"}}'
deep=$(printf '%.0s[' $(seq 100))$(printf '%.0s]' $(seq 100))
frame nesting-100 -32700:null "{\"jsonrpc\":\"2.0\",\"id\":204,\"method\":\"ping\",\"params\":{\"x\":$deep}}"
deep2=$(printf '%.0s{"a":' $(seq 100))1$(printf '%.0s}' $(seq 100))
frame nesting-100-objects -32700:null "{\"jsonrpc\":\"2.0\",\"id\":205,\"method\":\"ping\",\"params\":$deep2}"
ok_deep=$(printf '%.0s[' $(seq 40))$(printf '%.0s]' $(seq 40))
frame nesting-40-is-fine result:206 "{\"jsonrpc\":\"2.0\",\"id\":206,\"method\":\"ping\",\"params\":{\"x\":$ok_deep}}"
frame batch-array -32600:null '[{"jsonrpc":"2.0","id":207,"method":"ping"}]'
frame empty-batch -32600:null '[]'
frame scalar-message -32600:null '42'
frame wrong-jsonrpc-version -32600:208 '{"jsonrpc":"1.0","id":208,"method":"ping"}'
frame missing-jsonrpc -32600:209 '{"id":209,"method":"ping"}'
frame null-id -32600:null '{"jsonrpc":"2.0","id":null,"method":"ping"}'
frame float-id -32600:null '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'
frame object-id -32600:null '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'
# An integer id beyond 2^53-1: jq and JavaScript, where a reviewer reads
# the audit log, round it, and 2^53 and 2^53+1 read as one call.
frame unsafe-id -32600:null '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'
frame unsafe-negative-id -32600:null '{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}'
frame largest-safe-id result:9007199254740991 '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}'
frame method-not-string -32600:210 '{"jsonrpc":"2.0","id":210,"method":7}'
frame empty-method -32600:211 '{"jsonrpc":"2.0","id":211,"method":""}'
frame params-scalar -32600:212 '{"jsonrpc":"2.0","id":212,"method":"ping","params":"x"}'
frame duplicate-key -32700:null '{"jsonrpc":"2.0","id":213,"method":"ping","method":"tools/list"}'
over=$(head -c 2000 /dev/zero | tr '\0' a)
frame oversized-frame -32600:null "{\"jsonrpc\":\"2.0\",\"id\":214,\"method\":\"ping\",\"params\":{\"x\":\"$over\"}}"
over2=$(head -c 5000 /dev/zero | tr '\0' b)
frame oversized-frame-5000 -32600:null "{\"jsonrpc\":\"2.0\",\"id\":215,\"method\":\"ping\",\"params\":{\"x\":\"$over2\"}}"
frame just-under-limit result:216 "{\"jsonrpc\":\"2.0\",\"id\":216,\"method\":\"ping\",\"params\":{\"x\":\"$(head -c 900 /dev/zero | tr '\0' c)\"}}"

# Ids.
frame first-use-of-id result:300 '{"jsonrpc":"2.0","id":300,"method":"ping"}'
frame duplicate-id -32600:300 '{"jsonrpc":"2.0","id":300,"method":"ping"}'
frame duplicate-id-other-method -32600:300 '{"jsonrpc":"2.0","id":300,"method":"tools/list"}'
frame string-id result:"\"300\"" '{"jsonrpc":"2.0","id":"300","method":"ping"}'
frame duplicate-string-id -32600:"\"300\"" '{"jsonrpc":"2.0","id":"300","method":"ping"}'
frame duplicate-of-a-ping-id -32600:"\"p-first-use-of-id\"" '{"jsonrpc":"2.0","id":"p-first-use-of-id","method":"ping"}'

# Methods and tools.
frame unknown-method -32601:400 '{"jsonrpc":"2.0","id":400,"method":"prompts/list"}'
frame unknown-vendor-method -32601:401 '{"jsonrpc":"2.0","id":401,"method":"airlock/nope"}'
frame unknown-tool -32602:402 '{"jsonrpc":"2.0","id":402,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}'
frame denied-tool-is-refused result:403 '{"jsonrpc":"2.0","id":403,"method":"tools/call","params":{"name":"hidden","arguments":{"command":"true"}}}'
frame tools-call-without-name -32602:404 '{"jsonrpc":"2.0","id":404,"method":"tools/call","params":{}}'
frame tools-call-arguments-array -32602:405 '{"jsonrpc":"2.0","id":405,"method":"tools/call","params":{"name":"read_file","arguments":[1]}}'
frame initialized-as-request -32601:406 '{"jsonrpc":"2.0","id":406,"method":"notifications/initialized"}'

# Stray responses and notifications: never answered.
frame stray-result none '{"jsonrpc":"2.0","id":500,"result":{}}'
frame stray-error none '{"jsonrpc":"2.0","id":501,"error":{"code":-1,"message":"x"}}'
frame stray-result-reused-id none '{"jsonrpc":"2.0","id":300,"result":{"x":1}}'
frame notification-unknown none '{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}'
frame notification-cancelled none '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
frame notification-ping none '{"jsonrpc":"2.0","method":"ping"}'
frame notification-tools-list none '{"jsonrpc":"2.0","method":"tools/list"}'
frame notification-tools-call none '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"notified.txt","content":"x"}}}'
frame empty-line none ''
frame last-ping result:600 '{"jsonrpc":"2.0","id":600,"method":"ping"}'

timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" <"$IN" >"$T/frames.out" 2>>"$T/serve.err"
expect_eq "serve exits 0 at end of input after bad frames" "$?" 0
OUT="$T/frames.out"
check "every reply is one valid JSON object per line" jq -e . "$OUT" >/dev/null

# One jq pass: per reply line, its id (as JSON), error code and whether it
# is a result.  (jq per line would be slow on a loaded machine.)
mapfile -t IDS < <(jq -c '.id' "$OUT")
mapfile -t SUMMARY < <(jq -c '[.id, (if has("error") then .error.code else null end), has("result"), (.error.message | type)]' "$OUT")
# The (1-based) line number of the first reply to id JSON-ID, or empty.
line_of() {
	local k
	for k in "${!IDS[@]}"; do
		[ "${IDS[$k]}" = "$1" ] && { echo $((k + 1)); return; }
	done
}

prev_ping=
for i in "${!NAMES[@]}"; do
	name=${NAMES[$i]} exp=${EXPECTS[$i]}
	pl=$(line_of "\"p-$name\"")
	if [ -z "$pl" ]; then
		fail "$name: the broker still serves the next request"
		prev_ping=
		continue
	fi
	pass "$name: the broker still serves the next request"
	before=${SUMMARY[$((pl - 2))]}
	case $exp in
	none)
		# Nothing between the previous ping's reply and this one.
		if [ -n "$prev_ping" ] && [ "$pl" -eq $((prev_ping + 1)) ]; then
			pass "$name: not answered"
		else
			fail "$name: not answered"
			printf '  got: %.300s\n' "$before"
		fi
		;;
	result:*)
		id=${exp#result:}
		expect_eq "$name: answered with a result" "$before" "[$id,null,true,\"null\"]"
		;;
	*)
		code=${exp%%:*} id=${exp#*:}
		expect_eq "$name: error $code" "$before" "[$id,$code,false,\"string\"]"
		;;
	esac
	prev_ping=$pl
done

# No reply at all for what must not be answered, anywhere in the output.
for id in 500 501 '"notified"'; do
	n=$(jq -c 'select(.id == '"$id"')' "$OUT" | wc -l)
	expect_eq "no reply carries id $id of a stray response" "$n" 0
done
check "a notification tools/call did not run" test ! -e "$ws/notified.txt"
n=$(jq -c 'select(.id == 300)' "$OUT" | wc -l)
expect_eq "id 300: one result, two duplicate errors, nothing for the stray" "$n" 3

# The unknown-tool and tools/call errors name the problem.
msg=$(jq -r 'select(.id == 402) | .error.message' "$OUT")
expect_contains "unknown tool error names the tool" "$msg" "rm_rf"
msg=$(jq -r 'select(.id == 214 or .id == null) | .error.message' "$OUT" | grep -m1 exceeds)
expect_contains "oversized frame error names the limit" "$msg" "1024"
# A tool the manifest denies is a tool result (denied), not a protocol error.
# (an error body is the result's text: structuredContent must fit the
# tool's outputSchema, so an error has none)
r=$(jq -c 'select(.id == 403) | .result | select(has("structuredContent") | not) | .content[0].text | fromjson | .errorClass' "$OUT")
expect_eq "a denied tool is refused as a result with errorClass denied" "$r" '"denied"'

# --- tools/list: schemas from types, annotations from sideEffect -------------
TL=$(jq -c 'select(.id == 106) | .result.tools' "$OUT")
tool() { printf '%s' "$TL" | jq -c --arg n "$1" ".[] | select(.name == \$n) | $2"; }
expect_eq "tools/list lists the allowed tools in manifest order" \
    "$(printf '%s' "$TL" | jq -c '[.[].name]')" '["read_file","write_file","run_check","fetch","deploy"]'
expect_eq "read_file inputSchema: path is a required string" \
    "$(tool read_file '[.inputSchema.type, .inputSchema.properties.path.type, .inputSchema.required, .inputSchema.additionalProperties]')" \
    '["object","string",["path"],false]'
# No outputSchema (the broker checks results itself; TypeScript-SDK
# clients would hold refusals against it): the description names the
# output fields.
expect_eq "no tool advertises an outputSchema" \
    "$(printf '%s' "$TL" | jq -c '[.[] | select(has("outputSchema"))] | length')" 0
expect_contains "read_file's description names its output fields" \
    "$(tool read_file .description)" '[returns: content, sha256;'
expect_eq "fetch inputSchema: enum from a user type, optional field not required" \
    "$(tool fetch '[.inputSchema.properties.level.enum, .inputSchema.required]')" '[["low","high"],["level"]]'
expect_eq "fetch inputSchema: integer range from a user type" \
    "$(tool fetch '[.inputSchema.properties.n.type, .inputSchema.properties.n.minimum, .inputSchema.properties.n.maximum]')" \
    '["integer",1,9]'
expect_contains "deploy's description names its output fields" \
    "$(tool deploy .description)" 'returns: decision'
ann() { tool "$1" '.annotations | [.readOnlyHint, .destructiveHint, .idempotentHint, .openWorldHint]'; }
expect_eq "annotations: sideEffect none is read-only and idempotent" "$(ann read_file)" '[true,false,true,false]'
expect_eq "annotations: workspace_write is destructive" "$(ann write_file)" '[false,true,false,false]'
expect_eq "annotations: sandbox_process is not read-only, not open-world" "$(ann run_check)" '[false,false,true,false]'
expect_eq "annotations: network is open-world" "$(ann fetch)" '[false,false,false,true]'
expect_eq "annotations: external is destructive and open-world" "$(ann deploy)" '[false,true,false,true]'
expect_contains "description states the authorization" "$(tool deploy .description)" "authorization: approval"

# --- The same over an interactive session: the broker answers as it goes. ---
mcp_start_raw "$M" "$ws"
mcp_rpc ping '{}'
expect_eq "interactive: ping before initialize" "$(jr '.result | tostring')" '{}'
mcp_send '{"jsonrpc":"2.0","id":"bad","method":"tools/list"'
mcp_recv 10
expect_eq "interactive: parse error answered at once" "$(jr '.error.code')" -32700
mcp_send "$(printf '{"jsonrpc":"2.0","id":"u","method":"ping","params":{"s":"\xff"}}')"
mcp_recv 10
expect_eq "interactive: invalid UTF-8 answered at once" "$(jr '.error.code')" -32700
mcp_rpc tools/list '{}'
expect_eq "interactive: tools/list before initialize" "$(jr '.error.code')" -32002
mcp_rpc initialize '{"protocolVersion":"2099-12-31","capabilities":{}}'
expect_eq "interactive: unknown version gets the latest" "$(jr '.result.protocolVersion')" 2025-06-18
expect_eq "interactive: serverInfo names airlock" "$(jr '.result.serverInfo.name')" airlock
expect_eq "interactive: tools capability" "$(jr '.result.capabilities.tools | type')" object
mcp_send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
mcp_rpc tools/call '{"name":"read_file","arguments":{"path":"README.md"}}'
expect_eq "interactive: tools/call after initialized" "$(jr '.result.isError')" false
mcp_stop
expect_eq "interactive: serve exits 0 on EOF" "$?" 0

# A frame split across writes is put together; frames in one write are
# each answered.
mcp_start_raw "$M" "$ws"
printf '{"jsonrpc":"2.0","id":"sp' >&"$MCP_IN"
sleep 0.3
printf 'lit","method":"ping"}\n{"jsonrpc":"2.0","id":"two","method":"ping"}\n{"jsonrpc":"2.0","id":"three","method":"ping"}\r\n' >&"$MCP_IN"
mcp_wait_id split 10
expect_eq "a frame split across two writes is answered" "$(jr '.result | tostring')" '{}'
mcp_wait_id two 10
expect_eq "the 2nd frame of one write is answered" "$(jr '.result | tostring')" '{}'
mcp_wait_id three 10
expect_eq "a frame ending in CRLF is answered" "$(jr '.result | tostring')" '{}'
mcp_stop

# 3000 pipelined frames, bad ones among them: every one answered, in order.
for i in $(seq 1 3000); do
	if [ $((i % 100)) = 0 ]; then
		printf '{"jsonrpc":"2.0","id":%d,"method":\n' "$i"
	else
		printf '{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' "$i"
	fi
done >"$T/many.in"
timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" <"$T/many.in" >"$T/many.out" 2>>"$T/serve.err"
expect_eq "3000 pipelined frames get 3000 answers" "$(wc -l <"$T/many.out")" 3000
expect_eq "the 30 bad ones among them are parse errors, the rest results" \
    "$(jq -r 'if .error then "e" else "r" end' "$T/many.out" | sort | uniq -c | awk '{ printf "%s%s ", $1, $2 }')" '30e 2970r '
expect_eq "answers come in request order" "$(jq -r '.id // "x"' "$T/many.out" | grep -v x | sort -n -c && echo sorted)" sorted

# The last frame may lack its newline.
R=$(printf '{"jsonrpc":"2.0","id":7,"method":"ping"}' |
    timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err")
expect_eq "a last frame without newline at EOF is answered" "$(jr -c '[.id, .result]')" '[7,{}]'

# Nesting: 64 levels are accepted, 65 are not (the frame's own object counts).
nest() {	# DEPTH: a ping whose frame nests DEPTH levels deep
	local inner=$(( $1 - 2 ))
	printf '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":%s1%s}}\n' "$1" \
	    "$(printf '%.0s[' $(seq $inner))" "$(printf '%.0s]' $(seq $inner))"
}
R=$( { nest 64; nest 65; } | timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err" | jq -sc '[.[0].id, (.[0].result|type), .[1].error.code]')
expect_eq "nesting depth 64 accepted, 65 refused with -32700" "$R" '[64,"object",-32700]'

# maxFrameBytes: a frame of exactly the limit (without its newline) fits.
fit() {	# LEN: a ping frame of exactly LEN bytes
	local base pad
	base=$(printf '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":""}}' "$1" | wc -c)
	pad=$(( $1 - base ))
	printf '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":"%s"}}' "$1" "$(head -c $pad /dev/zero | tr '\0' p)"
}
check "fit makes frames of the size asked" test "$(fit 1024 | wc -c)" = 1024
R=$( { fit 1024; echo; fit 1025; echo; } | timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err" | jq -sc '[.[0].id, .[1].error.code]')
expect_eq "a frame of exactly maxFrameBytes is served, one byte more is -32600" "$R" '[1024,-32600]'

# initialize without protocolVersion: invalid params, and serving goes on.
R=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \
    '{"jsonrpc":"2.0","id":2,"method":"ping"}' |
    timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err" | jq -sc '[.[0].error.code, .[1].result]')
expect_eq "initialize without protocolVersion is -32602; ping still served" "$R" '[-32602,{}]'

finish
