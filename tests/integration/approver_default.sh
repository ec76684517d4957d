#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# With no approvers listed in the manifest, only the user who started
# airlock may decide: another local user who reaches the session's
# control socket (opened up on purpose here) is refused by the broker
# (SO_PEERCRED), audited, and the call stays pending until the owner
# approves it.  Kills the mutant that lets anyone approve in that case
# (tools/mutants/mutants.txt, approval-default-approver-anyone).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
UC="$top_builddir/tests/unixclient"
ws=$(make_workspace)

{ deploy_tool_yaml; cat <<'EOF'
approvals:
  ttlSeconds: 120
EOF
} >"$T/m.yaml"
check "the manifest names no approvers" test -z "$(grep approvers "$T/m.yaml")"

cat >"$ws/agent.sh" <<'EOF'
#!/bin/sh
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' >&3
IFS= read -r line <&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"prod"}}}' >&3
IFS= read -r line <&3
printf 'R1 %s\n' "$line"
EOF
chmod 755 "$ws/agent.sh"
"$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$ws/agent.sh" \
    >"$T/out" 2>"$T/err" &
RUN_PID=$!

id=
for i in $(seq 300); do
	id=$("$AIRLOCK" pending 2>/dev/null | awk '$3 == "deploy" { print $1; exit }')
	[ -n "$id" ] && break
	sleep 0.1
done
check "the deploy is pending" test -n "$id"
digest=$("$AIRLOCK" pending -v | awk -v id="$id" '$1 == id { on = 1; next } on && $1 == "digest:" { print $2; exit }')
check "its digest is shown" test -n "$digest"
sess=$(ls -1dt "$AIRLOCK_HOME"/sessions/* | head -n 1)
sock="$AIRLOCK_RUNTIME_DIR/$(basename "$sess").sock"
check "the control socket exists" test -S "$sock"

# Another user reaches the socket: the broker itself must refuse.
chmod 755 "$AIRLOCK_RUNTIME_DIR"
chmod 666 "$sock"
r=$(printf '{"op":"approve","id":"%s","digest":"%s"}\n' "$id" "$digest" |
    setpriv --reuid=4242 --regid=4242 --clear-groups "$UC" "$sock" 2>&1)
expect_contains "uid 4242 is refused as not an approver" "$r" "not an approver"
chmod 700 "$AIRLOCK_RUNTIME_DIR"
chmod 600 "$sock"
check "the refusal is audited" grep -q '"approval_refused_peer".*uid 4242' "$sess/audit.jsonl"
check "no approval was recorded" test -z "$(grep '"approval_granted"' "$sess/audit.jsonl")"
check "the deploy is still pending" \
    test "$("$AIRLOCK" pending | awk '$3 == "deploy" { print $1; exit }')" = "$id"
check "the agent has no answer yet" test -z "$(sed -n 's/^R1 //p' "$T/out")"

# The owner (root, who started airlock) may decide.
"$AIRLOCK" approve "$id" --yes >"$T/approve.out" 2>&1
expect_eq "the owner approves" "$?" 0
for i in $(seq 300); do
	grep -q '^R1 ' "$T/out" && break
	sleep 0.1
done
expect_contains "the call ran after the owner's approval" "$(cat "$T/out")" "deployed prod"
wait "$RUN_PID"
finish
