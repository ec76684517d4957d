#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock suggest, end to end.  Real sessions through "airlock serve"
# whose tools the egress proxy refuses (the network layer), and signed
# logs written through broker/audit.h with the shared denial contract's
# records (filesystem, syscall, limit: docs/DENIALS.md); each compared
# with a golden diff in tests/suggest/.  Then --apply: written when the
# loader accepts it, refused for a WEAKENS change, a result airlock check
# rejects, a manifest changed since the session, a log that does not
# verify.  Runs in a private network namespace: nothing leaves the host.
if [ -z "${AIRLOCK_SUGGEST_TEST_NS:-}" ]; then
	AIRLOCK_SUGGEST_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
W="$top_builddir/tests/unit/audit_writer"
G="$top_srcdir/tests/suggest"
command -v bash >/dev/null || { echo "not ok - bash (for /dev/tcp) is missing"; exit 1; }
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$(make_workspace)
# The plan id line (its digest covers the paths) is checked on its own.
norm() { sed -e "s|$T|@T@|g" -e '/^# plan: [0-9a-f]\{64\} /d'; }
# plan_of ARGS...: the plan id a review with ARGS prints.
plan_of() { "$AIRLOCK" suggest "$@" 2>/dev/null | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p'; }
# golden NAME FILE TEXT: TEXT must be tests/suggest/FILE; with
# AIRLOCK_REGEN_GOLDEN=1 the file is written instead (review the diff!).
golden() {
	if [ "${AIRLOCK_REGEN_GOLDEN:-}" = 1 ]; then
		printf '%s\n' "$3" >"$G/$2" && pass "$1 (regenerated)"
	else
		expect_eq "$1" "$3" "$(cat "$G/$2")"
	fi
}

# --- The network layer, from a real session. ---
cat >"$T/m.yaml" <<'YAML'
# A manifest for airlock suggest's golden test: both tools are refused
# by the egress proxy.
tools:
  - name: fetch_ip
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://10.0.0.5:80/ HTTP/1.1\\r\\nHost: 10.0.0.5\\r\\nConnection: close\\r\\n\\r\\n' >&3 && cat <&3"]
    allowAddresses: ["127.0.0.1:9"]   # the only address it may reach
  - name: fetch_name
    input: {}
    output: { exitCode: integer }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT example.org:443 HTTP/1.1\\r\\nHost: example.org:443\\r\\n\\r\\n' >&3 && head -n 1 <&3"]
    network:
      - api.example.com:443
  - name: ok
    input: {}
    output: { exitCode: integer }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
    command: ["true"]
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }
cp "$T/m.yaml" "$T/m.orig"
session() {	# session TOOL...: one call of each (ids 2, 3, ...); prints the id
	before=$(ls "$AIRLOCK_HOME/sessions" 2>/dev/null)
	{
		echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
		i=2
		for t in "$@"; do
			echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"$t\",\"arguments\":{}}}"
			i=$((i + 1))
		done
	} | "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" >"$T/serve.out"
	for s in $(ls "$AIRLOCK_HOME/sessions"); do
		case " $(echo $before) " in *" $s "*) ;; *) echo "$s" ;; esac
	done
}
S=$(session fetch_ip fetch_name fetch_ip ok)
[ -n "$S" ] || { echo "not ok - no session recorded"; exit 1; }
out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
expect_eq "network: exit 0" "$rc" 0
golden "network: the diff of the recorded manifest is the golden one" \
    network.diff "$(printf '%s\n' "$out" | norm)"
# The tool reached a private address only to be refused: allowing it
# opens the local network (a metadata or loopback address, the cloud's
# credentials or the host's services), which was proposed plain and
# applied without --allow-weakening.
expect_eq "network: a private address WEAKENS, said on stderr" "$(cat "$T/err")" \
    "WEAKENS: tools[0].allowAddresses: 10.0.0.5 is a private (RFC 1918) address, which only allowAddresses opens"
j=$("$AIRLOCK" suggest --json "$S")
# Changes come in the order of their first denial, and the session's
# calls run side by side: compared by key.
expect_eq "--json: one change per key, the exact host:port, never a wildcard" \
    "$(printf '%s' "$j" | jq -c '[.changes[] | [.key, .tool, .values]] | sort_by(.[0])')" \
    '[["tools[0].allowAddresses","fetch_ip",["10.0.0.5:80"]],["tools[1].network","fetch_name",["example.org:443"]]]'
expect_eq "--json: three denials read, no notes" \
    "$(printf '%s' "$j" | jq -c '[.denials, (.notes | length)]')" '[3,0]'
expect_eq "--json: the diff is the same text" \
    "$(printf '%s' "$j" | jq -r .diff | norm)" "$(cat "$G/network.diff")"
expect_eq "--json: the plan id is the one the text prints" \
    "$(printf '%s' "$j" | jq -r .plan)" "$(plan_of "$S")"
# The same by session directory and by log path.
expect_eq "SESSION may be the session's directory" \
    "$("$AIRLOCK" suggest "$AIRLOCK_HOME/sessions/$S" | norm)" "$(cat "$G/network.diff")"

# A manifest named by a relative path is found from the session's cwd.
before=$(ls "$AIRLOCK_HOME/sessions")
(cd "$T" && printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_name","arguments":{}}}' |
    "$AIRLOCK" serve --manifest m.yaml --workspace "$ws" >/dev/null)
SR=$(ls "$AIRLOCK_HOME/sessions" | grep -vxF "$before")
expect_contains "a relative manifest path is resolved from the session's cwd" \
    "$(cd / && "$AIRLOCK" suggest "$SR" | norm)" "+++ @T@/m.yaml"

# A session without denials.
S0=$(session ok)
out=$("$AIRLOCK" suggest "$S0"); rc=$?
expect_eq "no denials: exit 0" "$rc" 0
expect_contains "no denials: says so" "$out" "no sandbox denials"

# A log that does not verify is refused, with the reason.
cp "$AIRLOCK_HOME/sessions/$S/audit.jsonl" "$T/bad.jsonl"
sed -i 's/"host":"10.0.0.5"/"host":"10.0.0.6"/' "$T/bad.jsonl"
out=$("$AIRLOCK" suggest "$T/bad.jsonl" 2>&1); rc=$?
expect_eq "a tampered log: exit 1" "$rc" 1
expect_contains "a tampered log: refused, naming the line and why" "$out" "does not verify (line "
expect_not_contains "a tampered log: no diff" "$out" "+++"
out=$("$AIRLOCK" suggest no-such-session 2>&1); rc=$?
expect_eq "an unknown session: exit 66" "$rc" 66

# --apply refuses a manifest that changed since the session started...
P=$(plan_of "$S")
printf '# edited after the session\n' >>"$T/m.yaml"
out=$("$AIRLOCK" suggest --apply --plan "$P" "$S" 2>&1); rc=$?
expect_eq "--apply, manifest edited since the review: exit 1" "$rc" 1
expect_contains "... not the change reviewed" "$out" "not the one reviewed"
out=$("$AIRLOCK" suggest --apply --plan "$(plan_of "$S")" "$S" 2>&1); rc=$?
expect_eq "--apply, manifest changed since the session: exit 1" "$rc" 1
expect_contains "... says why" "$out" "changed since the session started"
expect_eq "... and leaves the file alone" "$(tail -n 1 "$T/m.yaml")" "# edited after the session"
# ... and writes the recorded one, keeping its mode, once check accepts it.
cp "$T/m.orig" "$T/m.yaml"
chmod 0640 "$T/m.yaml"
out=$("$AIRLOCK" suggest --apply --plan "$(plan_of "$S")" "$S" 2>&1); rc=$?
expect_eq "--apply: the private address needs --allow-weakening (exit 1)" "$rc" 1
expect_contains "... saying why" "$out" "not applied: 1 change(s) weaken a protected class"
check "... and the manifest is unchanged" cmp -s "$T/m.yaml" "$T/m.orig"
out=$("$AIRLOCK" suggest --apply --allow-weakening --plan "$(plan_of "$S")" "$S" 2>&1); rc=$?
expect_eq "--apply: exit 0" "$rc" 0
expect_contains "--apply: says where" "$out" "applied to $T/m.yaml"
golden "--apply: the file is the golden result" network.applied.yaml "$(norm <"$T/m.yaml")"
expect_eq "--apply: the mode is kept" "$(stat -c %a "$T/m.yaml")" 640
"$AIRLOCK" check "$T/m.yaml" >/dev/null
expect_eq "--apply: airlock check accepts the result" "$?" 0
ls "$T" | grep -q 'suggest\.' && fail "--apply left a temporary file" || pass "--apply left no temporary file"
# The policy now allows what was refused: the same calls reach the proxy's
# next stage (no refusal of 10.0.0.5:80 by policy, no egress deny record).
S2=$(session fetch_ip)
d=$(jq -r 'select(.event == "egress" and .fields.host == "10.0.0.5") | .fields.decision' "$AIRLOCK_HOME/sessions/$S2/audit.jsonl")
expect_not_contains "after --apply, the proxy no longer refuses 10.0.0.5:80 by policy" "$d" deny
expect_contains "... it tried the connection (nothing listens in this namespace)" "$d" e
out=$("$AIRLOCK" suggest --manifest "$T/m.yaml" "$S")
expect_contains "a second run against the applied manifest: nothing left to add" "$out" "already allows"

# --- Filesystem, syscall and limit layers from real runs (the runner's
# denials, recorded by the broker as sandbox_denial). ---
chmod 755 "$T"
cp "$top_builddir/tests/escape/probe" "$ws/probe"
H=$(mktemp -d /var/tmp/airlock-suggest.XXXXXX)	# a host dir no sandbox sees
at_exit 'rm -rf "$H"'
# Searchable by the runner's user: a path it could not find on the host
# is no denial, so no suggestion either (denial_existence.sh).
chmod 755 "$H"
echo data >"$H/data.csv"
cat >"$T/m.yaml" <<YAML
# Each tool hits one sandbox layer.
tools:
  - name: readhost
    input: {}
    output: { exitCode: integer, stderr: string }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
    command: ["cat", "$H/data.csv"]
  - name: writehost
    input: {}
    output: { exitCode: integer, stderr: string }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
    command: ["touch", "/usr/airlock-suggest-test"]
  - name: nsprobe      # unshare(CLONE_NEWUSER), x86_64 syscall 272
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
    command: ["python3", "-c", "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(272, 0x10000000), ctypes.get_errno())"]
  - name: bomb
    input: {}
    output: { exitCode: integer }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 20000
    command: ["./probe", "memory-bomb"]
sandbox:
  limits: { memoryMb: 64 }   # small on purpose
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the runner manifest does not load"; exit 1; }
normh() { sed -e "s|$T|@T@|g" -e "s|$H|@H@|g" -e '/^# plan: [0-9a-f]\{64\} /d'; }
SL=$(session readhost writehost nsprobe bomb readhost)
out=$("$AIRLOCK" suggest "$SL" 2>"$T/err"); rc=$?
expect_eq "runner layers: exit 0" "$rc" 0
if [ "$(uname -m)" = x86_64 ]; then
	golden "runner layers: the golden diff from a real session (read, write, syscall, limit)" \
	    runner.diff "$(printf '%s\n' "$out" | normh)"
	expect_eq "runner layers: unshare is flagged WEAKENS on stderr" "$(cat "$T/err")" \
	    "WEAKENS: sandbox.allowSyscalls: unshare is a dangerous system call"
else
	echo "# skip: the syscall probe is x86_64's unshare (272), this is $(uname -m)"
	expect_contains "runner layers: the host file read is suggested" "$out" "$H/data.csv"
fi
out=$("$AIRLOCK" suggest --apply --plan "$(plan_of "$SL")" "$SL" 2>&1); rc=$?
expect_eq "runner layers: --apply refuses the WEAKENS change" "$rc" 1

# --- Filesystem, syscall and limit layers: signed logs in the contract's form. ---
# Signed with this host's key (the sessions above made it), as the broker's
# own logs are certified by it: a log under any other key is refused.
K="$AIRLOCK_HOME/keys/audit.key"
"$W" -n 0 -S stranger -E "$(printf 'sandbox_denial={"id":1,"layer":"syscall","syscall":"keyctl"}')" "$T/stranger.jsonl" >/dev/null
out=$("$AIRLOCK" suggest --manifest "$T/m.yaml" "$T/stranger.jsonl" 2>&1); rc=$?
expect_eq "a log signed by a key this host does not trust: exit 1" "$rc" 1
expect_contains "... refused, saying so" "$out" "not signed by a key this host trusts"
cp "$G/layers.yaml" "$T/layers.yaml"
"$AIRLOCK" check "$T/layers.yaml" >/dev/null || { echo "not ok - layers.yaml does not load"; exit 1; }
fs() { echo "sandbox_denial={\"id\":$1,\"tool\":\"build\",\"denial\":\"$2\",\"layer\":\"filesystem\",\"source\":\"landlock\",\"path\":\"$3\",\"access\":\"$4\",\"hint\":\"h\"}"; }
sc() { echo "sandbox_denial={\"id\":$1,\"tool\":\"build\",\"denial\":\"$2\",\"layer\":\"syscall\",\"source\":\"seccomp\",\"syscall\":\"$3\",\"nr\":$4,\"hint\":\"h\"}"; }
lim() { echo "sandbox_denial={\"id\":$1,\"tool\":\"$2\",\"denial\":\"$3\",\"layer\":\"limit\",\"source\":\"cgroup\",\"limit\":\"$4\",\"value\":$5,\"hint\":\"h\"}"; }
"$W" -k "$K" -n 0 -S layers-session \
    -E "$(fs 2 d1 /srv/data/input.csv read)" -E "$(fs 2 d2 /srv/data/input.csv read)" \
    -E "$(fs 3 d1 /srv/data/input.csv read)" -E "$(fs 3 d2 /etc/motd write)" \
    -E "$(sc 3 d3 sched_setattr 314)" -E "$(lim 4 build d1 memory 512)" \
    -E "$(lim 4 build d2 wallClock 60000)" \
    "$T/layers.jsonl" >/dev/null || { echo "not ok - audit_writer failed"; exit 1; }
out=$("$AIRLOCK" suggest --manifest "$T/layers.yaml" "$T/layers.jsonl" 2>"$T/err"); rc=$?
expect_eq "layers: exit 0" "$rc" 0
golden "layers: the golden diff, with the not-expressible write after it" \
    layers.diff "$(printf '%s\n' "$out" | norm)"
# WEAKENS: a credential store and a dangerous syscall.
"$W" -k "$K" -n 0 -S weak-session \
    -E "$(fs 5 d1 "$HOME/.ssh/id_ed25519" read)" -E "$(sc 5 d2 keyctl 250)" \
    "$T/weak.jsonl" >/dev/null
cp "$G/layers.yaml" "$T/weak.yaml"
out=$("$AIRLOCK" suggest --manifest "$T/weak.yaml" "$T/weak.jsonl" 2>"$T/err"); rc=$?
expect_eq "weakening: still printed, exit 0" "$rc" 0
expect_contains "weakening: WEAKENS on stderr for the credential store" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: $HOME/.ssh/id_ed25519 is in a credential store (~/.ssh)"
expect_contains "weakening: WEAKENS on stderr for keyctl" "$(cat "$T/err")" \
    "WEAKENS: sandbox.allowSyscalls: keyctl is a dangerous system call"
expect_contains "weakening: the reason comment is marked # WEAKENS" "$out" \
    "+    # airlock suggest: allow read $HOME/.ssh/id_ed25519 (call 5: d1) # WEAKENS: "
out=$("$AIRLOCK" suggest --apply --plan "$(plan_of --manifest "$T/weak.yaml" "$T/weak.jsonl")" --manifest "$T/weak.yaml" "$T/weak.jsonl" 2>&1); rc=$?
expect_eq "weakening: --apply refuses, exit 1" "$rc" 1
expect_contains "weakening: --apply says why" "$out" "weaken a protected class"
check "weakening: the file is unchanged" cmp -s "$G/layers.yaml" "$T/weak.yaml"

# A result airlock check rejects is never written: a tool's timeout
# doubled past the 30-day maximum.
"$W" -k "$K" -n 0 -S big-session -E "$(lim 6 slow d1 wallClock 2000000000)" "$T/big.jsonl" >/dev/null
cp "$G/layers.yaml" "$T/big.yaml"
out=$("$AIRLOCK" suggest --apply --plan "$(plan_of --manifest "$T/big.yaml" "$T/big.jsonl")" --manifest "$T/big.yaml" "$T/big.jsonl" 2>&1); rc=$?
expect_eq "a result check rejects: exit 78" "$rc" 78
expect_contains "... the loader's error is shown" "$out" "does not pass airlock check"
expect_contains "... naming the field" "$out" "timeoutMs"
check "... and the file is unchanged" cmp -s "$G/layers.yaml" "$T/big.yaml"

# Usage errors.
"$AIRLOCK" suggest >/dev/null 2>&1; expect_eq "no SESSION: exit 64" "$?" 64
"$AIRLOCK" suggest --allow-weakening "$S" >/dev/null 2>&1
expect_eq "--allow-weakening without --apply: exit 64" "$?" 64
"$AIRLOCK" suggest --plan 00 "$S" >/dev/null 2>&1
expect_eq "--plan without --apply: exit 64" "$?" 64
finish
