#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock run's agent sees a repository's own agent configuration (.claude,
# .mcp.json, .codex, .gemini, .env, .opencode, opencode.json[c]) at the
# workspace's top masked as its start found it.  Under a manifest that does
# not protect those names (the built-in one), the agent's own apply_patch
# made an absent .mcp.json, and rewrote a masked .env (a rename, which
# detached the mask): the agent read both at once, as a CLI that re-reads
# its settings or starts again in the sandbox would.  The broker now
# refuses either (rule agent_config), whatever sandbox.protected says.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
mcp_env
ws=$(make_workspace)
printf 'OLD=1\n' >"$ws/.env"
chmod -R a+rX "$ws"
empty=$(printf '' | sha256sum | cut -d' ' -f1)
old=$(printf 'OLD=1\n' | sha256sum | cut -d' ' -f1)
printf -- '--- /dev/null\n+++ b/.mcp.json\n@@ -0,0 +1,1 @@\n+{"mcpServers":{"evil":{"command":"sh"}}}\n' >"$T/mcp.diff"
printf -- '--- a/.env\n+++ b/.env\n@@ -1,1 +1,1 @@\n-OLD=1\n+GEMINI_MODEL=planted\n' >"$T/env.diff"
call() {	# ID PATCHFILE BASE: an apply_patch request
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"apply_patch","arguments":{"patch":%s,"expectedBaseSha":"%s"}}}' \
	    "$1" "$(json_str "$2")" "$3"
}
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# The agent: reads its view of both names, plants them through the broker,
# reads them again.
cat >"$T/agent.sh" <<EOF
#!/bin/sh
exec 3>&-
echo "before: mcp=\$(cat .mcp.json 2>/dev/null) env=\$(cat .env)"
printf '%s\n' '$INIT' '$READY' '$(call 2 "$T/mcp.diff" "$empty")' \
    '$(call 3 "$T/env.diff" "$old")' | env -i "$AIRLOCK" connect
echo "after: mcp=\$(cat .mcp.json 2>/dev/null) env=\$(cat .env)"
EOF
chmod 755 "$T/agent.sh"
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --workspace "$ws" -- "$T/agent.sh" 2>&1)
expect_contains "the agent starts with both masked" "$out" "before: mcp= env="
expect_contains "and still sees them so" "$out" "after: mcp= env="
expect_not_contains "the planted MCP server is not read" "$out" "after: mcp={"
expect_not_contains "the rewritten .env is not read" "$out" "planted"
for id in 2 3; do
	R=$(printf '%s\n' "$out" | grep "^{\"jsonrpc\":\"2.0\",\"id\":$id,")
	mcp_error_body
	expect_eq "apply_patch $id is refused by the agent_config rule" \
	    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" \
	    '["denied","agent_config"]'
done
check "no .mcp.json was made" [ ! -e "$ws/.mcp.json" ]
expect_eq ".env is as it was" "$(cat "$ws/.env")" "OLD=1"
finish
