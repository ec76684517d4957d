#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Every manifest shipped in contrib/ loads, and the agent profiles give a
# persistent home owned by the runner's uid, a read-only workspace and
# the proxy.
. "$top_srcdir/tests/lib.sh"

for m in "$top_srcdir"/contrib/manifests/*.yaml "$top_srcdir"/contrib/agents/*.yaml \
    "$top_srcdir"/bench/bench.yaml; do
	check "$(basename "$m") loads" "$AIRLOCK" check "$m"
done

# A read-only agent with a persistent home.
export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$(make_workspace)
sed -e "s|/var/lib/airlock-agents/claude-code|$T/agents/home|" \
    -e '/^  network:/d' "$top_srcdir/contrib/agents/claude-code.yaml" >"$T/m.yaml"
cat >"$T/agent.sh" <<'AGENT'
#!/bin/sh
echo "home=$HOME"
echo kept >"$HOME/state.txt" && echo "home-writable"
touch "$PWD/new-file" 2>/dev/null && echo "WORKSPACE-WRITABLE" || echo "workspace-readonly"
cat "$HOME/state.txt"
AGENT
chmod +x "$T/agent.sh"
out=$("$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" 2>&1)
expect_contains "the agent's HOME is its persistent home" "$out" "home=$T/agents/home"
expect_contains "the agent can write its home" "$out" "home-writable"
expect_contains "the agent's workspace is read-only" "$out" "workspace-readonly"
expect_not_contains "the agent cannot write the workspace" "$out" "WORKSPACE-WRITABLE"
check "the home persists on the host" [ "$(cat "$T/agents/home/state.txt" 2>/dev/null)" = kept ]
check "the home belongs to the runner's uid" [ "$(stat -c %u "$T/agents/home")" = 65534 ]
finish
