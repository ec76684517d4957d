#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_ship (issue 15, item 3): copies of every audit record go to the
# outputs of CONFIG/audit.conf.  syslog: a local datagram socket made
# here receives RFC 5424 messages whose structured data names the
# session, event, seq, tool and decision and whose MSG is the signed line
# itself, so the copies, put back together, verify centrally with the
# host's public key.  journald: a private systemd-journald started by
# hand in its own mount namespace, read back with journalctl.  An output
# that fails never blocks the session nor costs the file a record; a
# configuration that does not parse stops the session.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
export AIRLOCK_CONFIG_DIR="$T/etc"
mkdir -p "$AIRLOCK_CONFIG_DIR"
ws=$(make_workspace)
ln -s /etc/passwd "$ws/out"

M="$T/m.yaml"
cat >"$M" <<'YAML'
types:
  word: { type: string, maxLength: 64 }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256, size: integer }
    sideEffect: none
    timeoutMs: 2000
  - name: deploy
    input: { target: word }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "deploying", "{target}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
YAML

session() {
	mcp_start "$M" "$ws"
	mcp_call deploy '{"target":"production"}'
	mcp_call read_file '{"path":"../escape"}'
	# Allowed by the manifest, refused as it runs: path_refused.
	mcp_call read_file '{"path":"out"}'
	mcp_stop
	L=$(newest_session)/audit.jsonl
}

# A syslog receiver: writes each datagram as one line (newline-free:
# the messages are one line each) until it sees session_end or 60 s pass.
receiver() {	# SOCKET OUT
	python3 - "$1" "$2" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(1)
end = time.time() + 60
with open(sys.argv[2], "wb") as f:
    while time.time() < end:
        try:
            d = s.recv(1 << 21)
        except socket.timeout:
            continue
        f.write(d + b"\n")
        f.flush()
        if b" session_end [" in d:
            break
PY
	RECV=$!
	local i
	for i in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.1; done
	return 1
}

# --- syslog -----------------------------------------------------------
check "the syslog receiver listens" receiver "$T/log.sock" "$T/syslog.out"
echo "syslog $T/log.sock local3" >"$AIRLOCK_CONFIG_DIR/audit.conf"
session
wait "$RECV"
n_file=$(wc -l <"$L")
expect_eq "syslog: one message per record" "$(wc -l <"$T/syslog.out")" "$n_file"
first=$(head -n 1 "$T/syslog.out")
expect_contains "syslog: RFC 5424 header, local3.info" "$first" "<158>1 "
expect_contains "syslog: structured data names the session" "$first" \
    "[airlock@32473 session=\"$(basename "$(dirname "$L")")\" event=\"session_start\" seq=\"1\"]"
expect_contains "syslog: a refusal is a warning with its decision" \
    "$(grep 'event="decision"' "$T/syslog.out" | grep invalid)" "<156>1 "
# Every refusal airlock audit --decision deny lists is a warning (local3
# = 19: <156>): a call refused as it ran (path_refused) went out as info,
# as did change_refused, secret_refused and escalation_refused.
deny=$("$AIRLOCK" audit show --json --decision deny "$L" | jq -r .seq | sort -n | tr '\n' ' ')
expect_contains "syslog: --decision deny lists the call refused as it ran" \
    "$("$AIRLOCK" audit show --json --decision deny "$L" | jq -r '.fields.errorClass // empty')" path_refused
warned=$(sed -n 's/^<156>1 .* seq="\([0-9]*\)".*/\1/p' "$T/syslog.out" | sort -n | tr '\n' ' ')
expect_eq "syslog: every refusal --decision deny lists is a warning" \
    "$(comm -23 <(tr ' ' '\n' <<<"$deny" | sed '/^$/d' | sort) <(tr ' ' '\n' <<<"$warned" | sed '/^$/d' | sort) | wc -l)" 0
expect_contains "syslog: tool and decision in the structured data" \
    "$(grep 'event="decision"' "$T/syslog.out" | head -n 1)" \
    'tool="deploy" decision="allow"]'
# The central side: the MSG parts, in order, are the log; verify them
# with the host's public key.
sed 's/^[^]]*\] \xef\xbb\xbf//' "$T/syslog.out" >"$T/central.jsonl"
check "syslog: the messages carry the signed lines unchanged" \
    cmp -s "$T/central.jsonl" "$L"
out=$("$AIRLOCK" audit verify --key "$AIRLOCK_HOME/keys/audit.pub" \
    "$T/central.jsonl"); rc=$?
expect_eq "syslog: the shipped copy verifies with the host key" "$rc" 0
expect_contains "syslog: certified by the host key" "$out" \
    "certified by a trusted host key"

# --- airlock exec's session: the same copies ---------------------------
# Its log is made by a process of its own (exec_audit.c), which must
# take the sink before its first record.
check "the syslog receiver listens again" receiver "$T/log2.sock" "$T/exec.out"
echo "syslog $T/log2.sock local3" >"$AIRLOCK_CONFIG_DIR/audit.conf"
"$AIRLOCK" exec --workspace "$ws" -- /bin/true 2>"$T/exec.err"
expect_eq "exec under audit.conf runs" "$?" 0
wait "$RECV"
L=$(newest_session)/audit.jsonl
expect_eq "exec: one message per record, session_start to session_end" \
    "$(sed 's/^[^]]*\] \xef\xbb\xbf//' "$T/exec.out" | jq -r .event | tr '\n' ' ')" \
    "session_start exec_start exec_end session_end "
sed 's/^[^]]*\] \xef\xbb\xbf//' "$T/exec.out" >"$T/central2.jsonl"
check "exec: the messages carry the signed lines unchanged" \
    cmp -s "$T/central2.jsonl" "$L"

# --- the agent's tool names in the copies' metadata ------------------------
# A call to a tool the manifest does not have is recorded with the name
# the agent sent, which then went raw into the syslog structured data
# (and journald's MESSAGE, below): a newline, ESC[1A ESC[2K or a bidi
# override reached the collector's file and the terminal that reads it.
# Now escaped as airlock audit show escapes it; the signed line (MSG)
# is unchanged.
PAD=$(printf '%600s' '')
FORGED_TOOL="read_file decision allow$PAD"
EVIL_TOOL=$(printf 'x\n\033[1A\033[2Kread_file\342\200\256')
check "the syslog receiver listens (agent's names)" receiver "$T/log3.sock" "$T/names.out"
echo "syslog $T/log3.sock" >"$AIRLOCK_CONFIG_DIR/audit.conf"
mcp_start "$M" "$ws"
mcp_rpc tools/call "{\"name\":$(js "$FORGED_TOOL"),\"arguments\":{}}"
expect_contains "a padded unknown tool is refused" "$R" "unknown tool"
mcp_rpc tools/call "{\"name\":$(js "$EVIL_TOOL"),\"arguments\":{}}"
expect_contains "an unknown tool with controls is refused" "$R" "unknown tool"
mcp_stop
wait "$RECV"
L=$(newest_session)/audit.jsonl
expect_eq "syslog: one message per record, none split by the agent's newline" \
    "$(wc -l <"$T/names.out")" "$(wc -l <"$L")"
expect_eq "syslog: no raw ESC from the agent's tool name" \
    "$(grep -c $'\033' "$T/names.out")" 0
expect_contains "syslog: the agent's tool name escaped in the structured data" \
    "$(grep 'event="decision"' "$T/names.out" | grep 'decision="invalid"')" \
    'tool="x\\n\\e[1A\\e[2Kread_file\\u{202E}"'
sed 's/^[^]]*\] \xef\xbb\xbf//' "$T/names.out" >"$T/central3.jsonl"
check "syslog: the signed lines are unchanged" cmp -s "$T/central3.jsonl" "$L"

# --- an output that fails ----------------------------------------------
printf 'syslog %s\n# comment\n' "$T/nobody-listens.sock" \
    >"$AIRLOCK_CONFIG_DIR/audit.conf"
: >"$T/serve.err"
start=$(date +%s)
session
expect_contains "a failing output: the deploy still ran" "$(cat "$L")" \
    '"event":"runner_end"'
check "a failing output: the session did not wait on it" \
    test $(($(date +%s) - start)) -lt 30
"$AIRLOCK" audit verify -q "$L" >/dev/null
expect_eq "a failing output: the file is complete and verifies" "$?" 0
expect_contains "a failing output: the file has the deploy" "$(cat "$L")" \
    '"tool":"deploy"'
expect_contains "a failing output: it says copies were not sent" \
    "$(cat "$T/serve.err")" "not sent"

# --- a configuration that does not parse --------------------------------
echo "splunk https://siem.example" >"$AIRLOCK_CONFIG_DIR/audit.conf"
out=$(timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" \
    </dev/null 2>&1); rc=$?
expect_eq "an unknown output stops the session: exit 78" "$rc" 78
expect_contains "it names the line and the valid outputs" "$out" \
    "audit.conf:1: unknown output \"splunk\" (journald, syslog)"
echo "syslog relative.sock" >"$AIRLOCK_CONFIG_DIR/audit.conf"
out=$(timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" \
    </dev/null 2>&1)
expect_contains "a relative socket is refused" "$out" "must be an absolute path"
echo "syslog /dev/log local9" >"$AIRLOCK_CONFIG_DIR/audit.conf"
out=$(timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" \
    </dev/null 2>&1)
expect_contains "an unknown facility is refused" "$out" "unknown facility"

# --- journald ------------------------------------------------------------
JD=/lib/systemd/systemd-journald
if [ ! -x "$JD" ] || ! command -v journalctl >/dev/null ||
    ! unshare -m --propagation private true 2>/dev/null; then
	echo "# SKIP journald round trip: needs $JD, journalctl and unshare -m (root)"
else
	echo "journald" >"$AIRLOCK_CONFIG_DIR/audit.conf"
	cat >"$T/jd.sh" <<'JDS'
set -u
for d in /run/systemd /run/log /var/log/journal; do
	mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || exit 90
done
mkdir -p /run/systemd/journal
/lib/systemd/systemd-journald &
jd=$!
for i in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
[ -S /run/systemd/journal/socket ] || { kill $jd; exit 91; }
"$@"
rc=$?
# Poll journald until it has written the session's last record.
for i in $(seq 100); do
	journalctl --sync 2>/dev/null
	journalctl -o json AIRLOCK_EVENT=session_end 2>/dev/null | grep -q . && break
	sleep 0.1
done
journalctl -o json SYSLOG_IDENTIFIER=airlock >"$JOUT" 2>/dev/null
kill $jd
exit $rc
JDS
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"target":"staging"}}}' \
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":$(js "$FORGED_TOOL"),\"arguments\":{}}}" \
	    >"$T/jd.in"
	JOUT="$T/journal.json" timeout 120 unshare -m --propagation private \
	    sh "$T/jd.sh" sh -c "\"\$0\" serve --manifest \"\$1\" --workspace \"\$2\" <\"\$3\" >\"\$4\" 2>&1" \
	    "$AIRLOCK" "$M" "$ws" "$T/jd.in" "$T/jd.out"
	rc=$?
	expect_eq "journald: the session ran under a private journald" "$rc" 0
	L=$(newest_session)/audit.jsonl
	sid=$(basename "$(dirname "$L")")
	jq -c "select(.AIRLOCK_SESSION == \"$sid\")" "$T/journal.json" >"$T/mine.json"
	expect_eq "journald: one entry per record" "$(wc -l <"$T/mine.json")" "$(wc -l <"$L")"
	expect_eq "journald: structured fields" \
	    "$(jq -r 'select(.AIRLOCK_EVENT == "decision" and .AIRLOCK_TOOL == "deploy") | "\(.AIRLOCK_TOOL) \(.AIRLOCK_DECISION) \(.PRIORITY)"' "$T/mine.json")" \
	    "deploy allow 6"
	# The agent's "read_file decision allow" and 600 spaces: MESSAGE
	# read "... tool read_file decision allow", the real decision cut
	# off at 512 bytes.  Now the decision comes first and the name is
	# quoted, escaped and cut.
	msg=$(jq -r 'select(.AIRLOCK_EVENT == "decision" and .AIRLOCK_DECISION == "invalid") | .MESSAGE' "$T/mine.json")
	expect_contains "journald: a refused call's MESSAGE says invalid" "$msg" \
	    "decision invalid tool \"read_file decision allow\\s{"
	expect_not_contains "journald: the agent's name cannot read as allowed" \
	    "$msg" "tool read_file decision allow"
	jq -r 'select(.AIRLOCK_SEQ) | "\(.AIRLOCK_SEQ)\t\(.AIRLOCK_RECORD)"' "$T/mine.json" |
	    sort -n | cut -f2- >"$T/jcentral.jsonl"
	check "journald: AIRLOCK_RECORD carries the signed lines" \
	    cmp -s "$T/jcentral.jsonl" "$L"
	"$AIRLOCK" audit verify -q --key "$AIRLOCK_HOME/keys/audit.pub" \
	    "$T/jcentral.jsonl" >/dev/null
	expect_eq "journald: the shipped copy verifies with the host key" "$?" 0
fi
rm -f "$AIRLOCK_CONFIG_DIR/audit.conf"
finish
