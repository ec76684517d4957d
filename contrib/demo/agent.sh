#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A scripted demo agent: no model, just the moves a coding agent makes,
# spoken as MCP (JSON-RPC, one object per line) to the broker on fd 3.
# It reads the code, runs the gate, patches the bug, runs the gate again,
# then tries to escape the workspace and is refused.
set -u
[ "${AIRLOCK_FD:-}" = 3 ] || { echo "demo agent: run me under airlock run" >&2; exit 2; }

n=0
# rpc METHOD PARAMS: sends a request and leaves the reply in $reply.
rpc() {
	n=$((n + 1))
	printf '{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' \
	    "$n" "$1" "$2" >&3
	IFS= read -r reply <&3 || { echo "demo agent: broker closed" >&2; exit 1; }
}
# field NAME: the first "NAME":value in $reply (strings unquoted).
# field NAME: the value of NAME in the reply, from structuredContent or,
# for a tool's error (its body is the text), from the JSON in the text.
field() {
	printf '%s' "$reply" | sed 's/\\"/"/g' |
	    sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -n 1
}
say() { printf 'agent: %s\n' "$*" >&2; }
tool() {	# NAME ARGS-JSON
	rpc tools/call "{\"name\":\"$1\",\"arguments\":$2}"
}

rpc initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo-agent","version":"1"}}'
say "connected to $(field name) $(field version), protocol $(field protocolVersion)"
printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' >&3

rpc tools/list '{}'
say "tools: $(printf '%s' "$reply" | grep -o '"name":"[^"]*"' | cut -d'"' -f4 | tr '\n' ' ')"

tool read_file '{"path":"src/todo.sh"}'
sha=$(field sha256)
say "read src/todo.sh: sha256 $(printf '%.12s' "$sha")..."

tool run_check '{"checkId":"unit.todo-transition","idempotencyKey":"demo-gate-1"}'
say "gate unit.todo-transition: exit $(field exitCode) ($(printf '%s' "$reply" | grep -o 'FAIL[^\\]*' | head -n 1))"

# json_string: stdin as the body of a JSON string (no quotes around it).
json_string() {
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' |
	    awk '{ printf "%s\\n", $0 }'
}
# The fix: complete only the caller's tenant's todo.
patch=$(json_string <<'PATCH'
--- a/src/todo.sh
+++ b/src/todo.sh
@@ -15,4 +15,4 @@
 todo_complete() {
 	tenant=$1 id=$2
-	sed -i "s/^\([^|]*\)|$id|open|/\1|$id|done|/" "$TODO_DB"
+	sed -i "s/^$tenant|$id|open|/$tenant|$id|done|/" "$TODO_DB"
 }
PATCH
)
tool apply_patch "{\"patch\":\"$patch\",\"expectedBaseSha\":\"$sha\"}"
if [ "$(field isError)" = false ]; then
	say "patched $(printf '%s' "$reply" | grep -o '"changedFiles":\[[^]]*\]' | head -n 1 | cut -d'[' -f2 | tr -d ']"'), newSha $(printf '%.12s' "$(field newSha)")..."
else
	say "patch refused: $(field message)"
fi

tool run_check '{"checkId":"unit.todo-transition","idempotencyKey":"demo-gate-2"}'
say "gate unit.todo-transition: exit $(field exitCode)"

tool read_file '{"path":"../../etc/passwd"}'
say "read ../../etc/passwd: $(field errorClass): $(field message)"

rpc airlock/session/status '{}'
if [ -n "$(field acceptanceMet)" ]; then
	say "acceptance met (derived by the broker): $(field acceptanceMet)"
fi
exit 0
