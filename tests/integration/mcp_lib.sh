# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# MCP helpers for the integration tests (bash; sourced after tests/lib.sh).
#
# mcp_env                 private AIRLOCK_HOME and AIRLOCK_RUNTIME_DIR in $T
# mcp_start M WS          "airlock serve" as a coprocess, initialized
# mcp_send RAW            one raw line to it
# mcp_rpc METHOD PARAMS   a request; the reply (JSON text) is left in $R
# mcp_call TOOL ARGS      tools/call; the reply is left in $R
# mcp_stop                closes its stdin, waits; returns its exit status
# mcp_lander_pid          the pid of its lander; pid_traced PID: strace on it
# jr [OPTS] FILTER        jq -r over $R
#
# Replies are matched by id; notifications met on the way are kept in
# $T/notes.  Every read has a deadline so that a hung broker fails the
# test instead of hanging it.

mcp_env() {
	export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
	mkdir -p "$AIRLOCK_HOME" "$AIRLOCK_RUNTIME_DIR"
	chmod 700 "$AIRLOCK_RUNTIME_DIR"
	# As root, runners and the agent run as nobody: they must be able to
	# reach the workspace beneath $T.
	chmod 755 "$T"
}

MCP_ID=0
R=

jr() { printf '%s' "$R" | jq -r "$@" 2>/dev/null; }

mcp_start_raw() {	# MANIFEST WS: no handshake
	local args=()

	[ -n "$1" ] && args+=(--manifest "$1")
	rm -f "$T/mcp.in" "$T/mcp.out"
	mkfifo "$T/mcp.in" "$T/mcp.out"
	"$AIRLOCK" serve "${args[@]}" --workspace "$2" <"$T/mcp.in" \
	    >"$T/mcp.out" 2>>"$T/serve.err" &
	MCP_PID=$!
	exec {MCP_IN}>"$T/mcp.in" {MCP_OUT}<"$T/mcp.out"
}

mcp_start() {
	mcp_start_raw "$@"
	mcp_rpc initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"itest","version":"1"}}'
	mcp_send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}

mcp_send() { printf '%s\n' "$1" >&"$MCP_IN"; }

# mcp_recv [TIMEOUT]: the next line into $R (empty on timeout or EOF).
mcp_recv() {
	R=
	IFS= read -r -t "${1:-30}" R <&"$MCP_OUT" || R=
}

# reply_id: the id of the reply in $R (the broker writes "jsonrpc" then
# "id" first: no jq needed), or nothing for a notification.
reply_id() {
	[[ $R =~ ^\{\"jsonrpc\":\"2.0\",\"id\":\"?([^,\"]*)\"?, ]] &&
	    echo "${BASH_REMATCH[1]}"
}

# mcp_no_reply ID: says so, with the end of the broker's stderr and
# whether it is still running, so that a failure seen once says why.
mcp_no_reply() {
	echo "# no reply to id $1 (airlock serve $(kill -0 "$MCP_PID" 2>/dev/null &&
	    echo "still running" || echo "has exited"))" >&2
	[ -s "$T/serve.err" ] && tail -n 20 "$T/serve.err" | sed 's/^/# serve: /' >&2
	return 0
}

# mcp_wait_id ID [TIMEOUT]: the reply to ID into $R.  Replies to other ids
# met on the way are kept for their own mcp_wait_id; notifications go to
# $T/notes.
MCP_STASH=()
mcp_wait_id() {
	local want=$1 t=${2:-30} k got

	for k in "${!MCP_STASH[@]}"; do
		R=${MCP_STASH[$k]}
		if [ "$(reply_id)" = "$want" ]; then
			unset "MCP_STASH[$k]"
			mcp_error_body
			return 0
		fi
	done
	while :; do
		mcp_recv "$t"
		[ -n "$R" ] || { mcp_no_reply "$want"; return 1; }
		got=$(reply_id)
		[ "$got" = "$want" ] && { mcp_error_body; return 0; }
		if [ -n "$got" ]; then
			MCP_STASH+=("$R")
		else
			printf '%s\n' "$R" >>"$T/notes"
		fi
	done
}

# An error result carries its body as text only (structuredContent must
# fit the tool's outputSchema): tests read it as .result.structuredContent
# all the same, once the text has been checked to be that JSON object.
mcp_error_body() {
	[[ $R =~ \"isError\":true ]] || return 0
	[[ $R =~ \"structuredContent\": ]] && {
		echo "# an error result carries structuredContent: $R" >&2
		R='{"broken":"structuredContent on an error"}'
		return 0
	}
	R=$(printf '%s' "$R" | jq -c '.result.structuredContent = (.result.content[0].text | fromjson)') ||
	    R='{"broken":"error text is not JSON"}'
}

mcp_rpc() {
	MCP_ID=$((MCP_ID + 1))
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":$MCP_ID,\"method\":\"$1\",\"params\":$2}"
	mcp_wait_id "$MCP_ID" "${3:-30}"
}

mcp_call() {
	mcp_rpc tools/call "{\"name\":\"$1\",\"arguments\":$2}" "${3:-30}"
}

mcp_stop() {
	local rc

	exec {MCP_IN}>&-
	# Drain what is left so that the broker never blocks writing.
	timeout 30 cat <&"$MCP_OUT" >>"$T/notes"
	exec {MCP_OUT}<&-
	wait "$MCP_PID"
	rc=$?
	return $rc
}

# mcp_lander_pid: the pid of the broker's lander (airlock-lander,
# broker/landjob.h), to attach strace to.  pid_traced PID: whether a
# tracer is attached to PID.
mcp_lander_pid() {
	local p
	for p in $(pgrep -P "$MCP_PID"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = airlock-lander ] &&
		    echo "$p"
	done
}
pid_traced() { ! grep -q '^TracerPid:[[:space:]]*0$' "/proc/$1/status"; }

# The session directory of the newest session under $AIRLOCK_HOME.
newest_session() {
	ls -1dt "$AIRLOCK_HOME"/sessions/* 2>/dev/null | head -n 1
}

# json_str FILE: the file's content as a JSON string (with quotes).
json_str() { jq -Rs . <"$1"; }

# r_is_error / r_class: isError and errorClass of the tool result in $R,
# without a jq process (the text copy of the result has its quotes
# escaped, so only structuredContent's fields match).
r_is_error() {
	[[ $R =~ [{,]\"isError\":(true|false) ]] && echo "${BASH_REMATCH[1]}"
}
r_class() {
	[[ $R =~ [{,]\"errorClass\":\"([^\"]*)\" ]] && echo "${BASH_REMATCH[1]}"
}

# expect_error_class NAME EXPECTED: $R is a tool result with that class.
expect_error_class() {
	if [ "$(r_is_error)" = true ] && [ "$(r_class)" = "$2" ]; then
		pass "$1"
	else
		fail "$1"
		printf '  expected errorClass %s, got: %.600s\n' "$2" "$R"
	fi
}

expect_ok_result() {
	if [ "$(r_is_error)" = false ]; then
		pass "$1"
	else
		fail "$1"
		printf '  expected a successful result, got: %.600s\n' "$R"
	fi
}

# deploy_tool_yaml: the head of the approval tests' manifests, a "deploy"
# tool that needs an approval (types and tools; the caller adds the rest).
deploy_tool_yaml() {
	cat <<'EOF'
types:
  target: { type: string, maxLength: 32, pattern: "[a-z]+" }
tools:
  - name: deploy
    input: { target: target }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "deployed", "{target}"]
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
EOF
}

# write_tools_yaml: the head of a manifest whose tools write the
# workspace, write_file and apply_patch (10 s each; the caller adds the
# rest, more tools included).
write_tools_yaml() {
	cat <<'EOF'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 10000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 10000
EOF
}

# The shell tool (action: exec) of the shell-rules tests:
# shell COMMAND           tools/call of "shell"; the reply in $R
# call_async ID JSONSTR   the same, sent with ID, not waited for
# pending_shell [NOT]     mcp_pending shell [NOT]
# js TEXT                 TEXT as a JSON string
# shell_denied CMD RULE   CMD refused by RULE, and nothing ran (below)

# mcp_pending TOOL [NOT]: waits (20 s) for a pending approval of TOOL
# other than NOT; prints its id.
mcp_pending() {
	local i id
	for i in $(seq 200); do
		id=$("$AIRLOCK" pending 2>/dev/null |
		    awk -v tool="$1" -v not="${2:-}" '$3 == tool && $1 != not { print $1; exit }')
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}
pending_shell() { mcp_pending shell "$@"; }

# pending_tool TOOL: waits (20 s) for a pending approval of TOOL, as
# "airlock pending --json" lists it; prints its id.
pending_tool() {
	local i id
	for i in $(seq 200); do
		id=$("$AIRLOCK" pending --json 2>/dev/null |
		    jq -r --arg t "$1" '.pending[] | select(.tool == $t) | .id' 2>/dev/null | head -n 1)
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	return 1
}

# review_denied ID NAME: the approver's view of pending approval ID, its
# prompt answered "n" (in $T/NAME.out) and "airlock pending -v" (in
# $T/NAMEv.out); then ID is denied.
review_denied() {
	echo n | "$AIRLOCK" approve "$1" >"$T/$2.out" 2>&1
	"$AIRLOCK" pending -v >"$T/$2v.out" 2>&1
	"$AIRLOCK" deny --reason no "$1" >/dev/null 2>&1
}
call_async() {	# ID COMMAND(a JSON string)
	mcp_send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"shell\",\"arguments\":{\"command\":$2}}}"
}
js() { printf '%s' "$1" | jq -Rs .; }
shell() { mcp_call shell "{\"command\":$(js "$1")}"; }

# mcp_start_bash_sh MANIFEST WORKSPACE: mcp_start with airlock serve in a
# mount namespace where /bin/sh is bash (as on Fedora or macOS), checked
# with a first shell call; the real binary stays in $REAL_AIRLOCK.
# With LOCALE_DIR set, that directory is also mounted over /usr/lib/locale.
mcp_start_bash_sh() {
	local loc=:

	[ -z "${LOCALE_DIR:-}" ] || loc="mount --bind $LOCALE_DIR /usr/lib/locale"
	cat >"$T/airlock-bash-sh" <<EOF
#!/bin/bash
exec unshare -m --propagation private bash -c \
    'mount --bind /bin/bash /bin/sh && $loc && exec "\$0" "\$@"' "$AIRLOCK" "\$@"
EOF
	chmod 755 "$T/airlock-bash-sh"
	REAL_AIRLOCK=$AIRLOCK
	AIRLOCK="$T/airlock-bash-sh"
	mcp_start "$1" "$2"
	shell 'echo "sh is ${BASH_VERSION:+bash}"'
	expect_ok_result "control: an allowed command runs"
	expect_eq "control: the sandbox's /bin/sh is bash" \
	    "$(jr .result.structuredContent.stdout)" "sh is bash"
}

# shell_asks_denied WHY CMD...: each shell CMD (sent with the next $id,
# 100 onwards) waits for a human, whose "airlock pending -v" shows WHY;
# the human says no and the call ends approval_denied.  $last is the id
# of the last approval (pending_shell skips it).
shell_asks_denied() {
	local why=$1 cmd n pid

	shift
	for cmd in "$@"; do
		id=$((${id:-100} + 1))
		n=${cmd//$'\n'/ \\n }
		call_async "$id" "$(js "$cmd")"
		pid=$(pending_shell "${last:-}")
		check "$n: waits for a human" test -n "$pid"
		expect_contains "$n: the approver sees why" \
		    "$("$AIRLOCK" pending -v)" "$why"
		"$AIRLOCK" deny "$pid" --reason no >/dev/null 2>&1
		mcp_wait_id "$id"
		expect_error_class "$n: refused when the human says no" \
		    approval_denied
		last=$pid
	done
}

# shell_denied CMD RULE: CMD, behind a mark and "false && { ...; }" (so
# that nothing runs even where the rules let it), is refused by RULE,
# named in the message, and the mark was not made.  $n counts the marks.
shell_denied() {
	n=$((${n:-0} + 1))
	shell "touch MARK$n; false && { $1; }"
	expect_error_class "$1: refused" denied
	expect_contains "... by $2" "$(jr .result.structuredContent.message)" "$2"
	check "... and nothing ran (MARK$n)" test ! -e "$ws/MARK$n"
}

# shell_rules_manifest FILE: contrib/manifests/shell-rules.yaml, with the
# caller as its approver, into FILE.
shell_rules_manifest() {
	{
		cat "$top_srcdir/contrib/manifests/shell-rules.yaml"
		# (One approval a case, dozens a minute: past the default
		# 16 asks a minute.)
		printf 'approvals:\n  approvers: [%s]\n  ttlSeconds: 60\n  maxAsksPerMinute: 600\n' \
		    "$(id -un)"
	} >"$1"
}

# connect_calls LINE...: a command line for an agent's script that sends
# the handshake ($MCP_INIT, $MCP_READY) and each JSON-RPC LINE to the
# broker through "airlock connect" ($A: airlock's absolute path); with
# CONNECT_HOLD=N the input is held open N seconds more.
MCP_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
MCP_READY='{"jsonrpc":"2.0","method":"notifications/initialized"}'
connect_calls() {
	local c
	printf "{ printf '%%s\\\\n' '%s' '%s'" "$MCP_INIT" "$MCP_READY"
	for c in "$@"; do printf " '%s'" "$c"; done
	printf "; sleep %s; } | %s connect\n" "${CONNECT_HOLD:-0}" "$A"
}

# agent_py_head: the start of an agent program in Python, run inside the
# agent's sandbox, that talks to the broker through "airlock connect":
# send(o), recv(), call(i, tool, args) (a tools/call), the session
# initialized, then READY printed and a wait for "$ws/started" (the test
# has measured the broker before).  A test appends its own part.
agent_py_head() {
	cat <<EOF
#!/usr/bin/python3
import hashlib, json, os, subprocess, sys, threading, time
p = subprocess.Popen(["$AIRLOCK", "connect"], stdin=subprocess.PIPE,
    stdout=subprocess.PIPE, env={}, bufsize=0)
p_out = os.fdopen(p.stdout.fileno(), "rb", 65536)
send_lock = threading.Lock()
def send(o):
    with send_lock:
        p.stdin.write((json.dumps(o) + "\n").encode())
def recv():
    line = p_out.readline()
    return json.loads(line) if line else None
def call(i, tool, args):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
        "params": {"name": tool, "arguments": args}})
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
print("READY", flush=True)
while not os.path.exists("$ws/started"):
    time.sleep(0.05)
EOF
}

# An agent program under "airlock run", for the tests that measure the
# broker (the run's own process) while the agent talks to it through
# "airlock connect" (idem_keys_memory.sh, changed_paths_memory.sh,
# patch_read_budget.sh).
# agent_run_start MANIFEST WS AGENT: starts it, its output in $T/out;
# sets $pid.
agent_run_start() {
	# AddressSanitizer keeps freed memory in a quarantine and maps
	# shadow memory: in the sanitizer build (distcheck) the memory and
	# page-fault bounds are $mem_slack times looser; the normal build,
	# which the mutants run, keeps them strict.
	mem_slack=1
	if grep -q __asan_init "$AIRLOCK"; then
		mem_slack=8
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
		export ASAN_OPTIONS
	fi
	"$AIRLOCK" run --manifest "$1" --workspace "$2" -- "$3" \
	    >"$T/out" 2>"$T/err" &
	pid=$!
}
# up_to PATTERN SECONDS: waits until the agent printed PATTERN.
up_to() {
	local i=0
	while ! grep -q "$1" "$T/out" && [ "$i" -lt $(($2 * 10)) ] &&
	    kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "$1" "$T/out"
}
# The broker's resident memory, and its peak, in KiB.
# The redaction tests' dumps: a tool prints sections, each headed by
# "== NAME", into $out.
# section NAME: the lines of $out after "== NAME", up to the next "==".
section() { printf '%s\n' "$out" | h="== $1" awk '$0 == ENVIRON["h"] { on = 1; next } /^== / { on = 0 } on'; }
# redacted_sections MIN NAME VALUE SECTION...: each SECTION of $out has
# MIN or more lines with [REDACTED:NAME], and no piece of VALUE that the
# caller's "leak VALUE < TEXT" (its first 6 bytes found, or "") finds.
redacted_sections() {
	local min=$1 tag=$2 value=$3 d s n
	shift 3
	for d; do
		s=$(section "$d")
		n=$(printf '%s' "$s" | grep -c "REDACTED:$tag")
		check "$d: $tag was redacted on $n lines (at least $min)" \
		    test "$n" -ge "$min"
		expect_eq "... no piece of it, decoded or read off" \
		    "$(printf '%s' "$s" | leak "$value")" ""
	done
}

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status"; }
