#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A manifest's read-only or read-write entry, reviewed as a plain path
# beneath a directory the agent can write (its agent.home, say), later
# leads through a link the agent swapped in to a credential store, a
# denyRead path or airlock's state: each run's bind followed the link and
# the tool read what it led to.  Such a run is refused now, naming where
# the path leads; an entry whose link leads somewhere allowed is bound as
# before.  Both where binds come early (/var/tmp) and late (/tmp).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
V=$(mktemp -d /var/tmp/airlock-bindlink.XXXXXX)
at_exit 'rm -rf "$V"'

for base in "$V" "$T/b"; do
	where=${base%%/airlock*}
	mkdir -p "$base/u/.ssh" "$base/home/cache" "$base/home/rw" \
	    "$base/home/priv" "$base/home/pub" "$base/private" "$base/pub"
	echo SECRET-KEY-42 >"$base/u/.ssh/key"
	echo PRIVATE-DATA >"$base/private/data"
	echo PUBLIC-DATA >"$base/pub/data"
	for d in cache priv pub; do echo harmless >"$base/home/$d/data"; done
	chmod -R a+rX "$base"
	# The runner's uid walks down to $T/b ($V itself is made a+rX just
	# above; its parent is /var/tmp, which is not ours to change).
	chmod 755 "$T"
	cat >"$T/m.yaml" <<YAML
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
sandbox:
  readOnly: ["$base/home/cache/data", "$base/home/priv/data", "$base/home/pub/data"]
  denyRead: ["$base/private"]
YAML
	mcp_start "$T/m.yaml" "$ws"
	mcp_call sh "{\"command\":\"cat $base/home/cache/data\"}"
	expect_eq "$where: the entry as reviewed is bound" \
	    "$(jr .result.structuredContent.stdout)" harmless
	# The agent swaps a component for a link.
	rm -rf "$base/home/cache" "$base/home/priv" "$base/home/pub"
	mkdir -p "$base/u/.ssh"
	ln -s ../u/.ssh "$base/home/cache"
	cp "$base/u/.ssh/key" "$base/u/.ssh/data"
	ln -s ../private "$base/home/priv"
	ln -s ../pub "$base/home/pub"
	mcp_call sh "{\"command\":\"cat $base/home/cache/data\"}"
	check "$where: a run whose entry leads to a credential store prints nothing of it" \
	    test "${R#*SECRET-KEY-42}" = "$R"
	expect_contains "$where: ... it is refused, saying where the path leads" \
	    "$R" "read-only path $base/home/cache/data leads to $base/u/.ssh/data, a credential store"
	# Only the store: the others alone.
	sed -i "s|\"$base/home/cache/data\", ||" "$T/m.yaml"
	mcp_stop >/dev/null
	mcp_start "$T/m.yaml" "$ws"
	mcp_call sh "{\"command\":\"cat $base/home/priv/data\"}"
	check "$where: one leading into a denyRead path prints nothing of it" \
	    test "${R#*PRIVATE-DATA}" = "$R"
	expect_contains "$where: ... refused as such" "$R" \
	    "leads to $base/private/data, a denyRead path"
	sed -i "s|\"$base/home/priv/data\", ||" "$T/m.yaml"
	mcp_stop >/dev/null
	mcp_start "$T/m.yaml" "$ws"
	mcp_call sh "{\"command\":\"cat $base/home/pub/data\"}"
	expect_eq "$where: one leading somewhere allowed is bound as before" \
	    "$(jr .result.structuredContent.stdout)" PUBLIC-DATA
	mcp_stop >/dev/null
done

# Through a link in agent.home (the agent's to rewrite), where the entry
# leads now is walked as an escalation's widening is: a link to a
# directory whose ci holds a credential store, though no name on the way
# is a store, showed the key.
H="$V/ah"
mkdir -p "$H" "$V/bad/ci/deploy/.ssh" "$V/ok/ci"
echo SECRET-DEPLOY-KEY >"$V/bad/ci/deploy/.ssh/id"
echo fine >"$V/ok/ci/x"
chmod -R a+rX "$V"
cat >"$T/m.yaml" <<YAML
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 30000
sandbox:
  readOnly: ["$H/t/ci"]
agent:
  home: $H
YAML
ln -s "$V/ok" "$H/t"
mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":\"cat $H/t/ci/x\"}"
expect_eq "through a link in agent.home, a plain directory is bound" \
    "$(jr .result.structuredContent.stdout)" fine
rm "$H/t"
ln -s "$V/bad" "$H/t"
mcp_call sh "{\"command\":\"cat $H/t/ci/deploy/.ssh/id\"}"
check "one the agent pointed where ci holds a credential store shows nothing of it" \
    test "${R#*SECRET-DEPLOY-KEY}" = "$R"
expect_contains "... it is refused, naming the link and why" "$R" \
    "read-only path $H/t/ci leads through the link $H/t, which a sandbox may rewrite, to $V/bad/ci, which is or holds"
mcp_stop >/dev/null
finish
