#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_keys (issue 15, item 1): the host key certifies every session's
# key; `airlock audit verify --key HOST.pub` proves real sessions, one by
# one or a whole directory, and reports a log re-signed under any other
# key (the key-substitution forgery) as UNTRUSTED or TAMPERED, never
# valid.  Rotation keeps old sessions verifiable through trusted.pub.
# The host key is invisible inside the agent's sandbox and a runner's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
FORGE="$top_builddir/tests/audit_forge"
K="$AIRLOCK_HOME/keys"

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

# A session with a deploy in it, signed under the host key made here.
pub=$("$AIRLOCK" audit key 2>"$T/key.err")
expect_eq "audit key: exit 0" "$?" 0
expect_eq "audit key prints the public key in audit.pub" "$pub" "$(cat "$K/audit.pub")"
expect_eq "the host key is 0600" "$(stat -c %a "$K/audit.key")" 600
expect_eq "its directory is 0700" "$(stat -c %a "$K")" 700
expect_contains "audit key names the file" "$(cat "$T/key.err")" "$K/audit.key"
expect_eq "audit key is stable" "$("$AIRLOCK" audit key 2>/dev/null)" "$pub"
expect_contains "trusted.pub lists it" "$(cat "$K/trusted.pub")" "$pub"
# Every session start makes sure audit.pub names the key: rewritten (and
# synced) only when it does not, never when it already does.
before=$(stat -c '%i %Y.%y' "$K/audit.pub")
sleep 1.1
"$AIRLOCK" audit key >/dev/null 2>&1
expect_eq "an audit.pub that names the key is left as it is" \
    "$(stat -c '%i %Y.%y' "$K/audit.pub")" "$before"
echo 0000 >"$K/audit.pub"
"$AIRLOCK" audit key >/dev/null 2>&1
expect_eq "one that does not is written again" "$(cat "$K/audit.pub")" "$pub"

session() {	# a session: read_file, deploy, read_file
	mcp_start "$M" "$ws"
	mcp_call read_file '{"path":"README.md"}'
	mcp_call deploy '{"target":"production"}'
	expect_contains "$1: the deploy ran" "$R" "deploying production"
	mcp_call read_file '{"path":"README.md"}'
	mcp_stop
	S=$(newest_session)/audit.jsonl
}
session first
s1=$S
expect_contains "the log records the deploy" "$(cat "$s1")" '"tool":"deploy"'

out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$s1"); rc=$?
expect_eq "a real session verifies with the host key: exit 0" "$rc" 0
expect_contains "it is valid and closed" "$out" "valid and closed"
expect_contains "its session key is certified by the host key" "$out" \
    "certified by a trusted host key"
expect_contains "the host key is named" "$out" "host key $pub"
check "--key takes the hex too" "$AIRLOCK" audit verify -q --key "$pub" "$s1"

# The forgery: every deploy record removed, the rest re-signed and
# re-chained under an attacker's key.  Kept host certificate: it does not
# certify the attacker's key.
"$FORGE" -m keep deploy "$s1" "$T/forged-keep.jsonl"
expect_not_contains "the forged log has no deploy call left" \
    "$(cat "$T/forged-keep.jsonl")" '"tool":"deploy"'
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$T/forged-keep.jsonl"); rc=$?
expect_eq "forgery keeping the certificate: exit 1" "$rc" 1
expect_contains "forgery keeping the certificate: the certificate fails" \
    "$out" "certificate does not verify for this session key"
expect_not_contains "forgery keeping the certificate: never valid" "$out" valid
# No certificate at all: internally consistent, untrusted by the host key.
"$FORGE" -m strip deploy "$s1" "$T/forged-strip.jsonl"
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$T/forged-strip.jsonl"); rc=$?
expect_eq "forgery without a certificate: exit 3" "$rc" 3
expect_contains "forgery without a certificate: UNTRUSTED" "$out" \
    "UNTRUSTED: signed with key"
expect_not_contains "forgery without a certificate: never valid" "$out" valid
out=$("$AIRLOCK" audit verify "$T/forged-strip.jsonl"); rc=$?
expect_contains "without --key the same log is only consistent" "$out" \
    "NOT pinned: proves internal consistency only"
# The forgery read with audit show, on the host whose trusted.pub does not
# list its key (as airlock sessions reads it: untrusted).  Before, show
# verified it against no key at all: consistent, so no warning, and the
# reviewer read a session with its deploy gone.
out=$("$AIRLOCK" audit show "$T/forged-strip.jsonl" 2>&1 >/dev/null)
expect_contains "audit show warns of a forgery this host's keys do not certify" \
    "$out" "not signed nor certified by a key of this host's trusted.pub"
out=$("$AIRLOCK" audit show "$s1" 2>&1 >/dev/null)
expect_eq "  and not of the real log" "$out" ""
out=$(AIRLOCK_HOME="$T/nokeys" "$AIRLOCK" audit show "$T/forged-strip.jsonl" 2>&1 >/dev/null)
expect_eq "  nor, on a host without trusted.pub, of a consistent log" "$out" ""
# Certified by the attacker's own "host" key.
"$AIRLOCK" audit key "$T/attacker.key" >/dev/null
"$FORGE" -m self -h "$T/attacker.key" deploy "$s1" "$T/forged-self.jsonl"
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$T/forged-self.jsonl"); rc=$?
expect_eq "forgery certified by another host key: exit 3" "$rc" 3
expect_contains "forgery certified by another host key: UNTRUSTED" "$out" \
    "UNTRUSTED"
expect_contains "it names the other host key" "$out" \
    "certified by $("$AIRLOCK" audit key "$T/attacker.key")"

# A directory: one line per session and a summary; the worst verdict
# decides the exit status (tampered 1, untrusted 3, open 2).
D="$T/central"
mkdir -p "$D"
# (a shipped copy is named by its session: ID.jsonl)
sid1=$(head -n 1 "$s1" | jq -r .session)
cp "$s1" "$D/$sid1.jsonl"
cp "$T/forged-strip.jsonl" "$D/b-strip.jsonl"
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$D"); rc=$?
expect_eq "directory with an untrusted log: exit 3" "$rc" 3
expect_contains "directory: the real one is valid" "$out" \
    "$D/$sid1.jsonl: valid and closed: session"
expect_contains "directory: the forged one is untrusted" "$out" \
    "$D/b-strip.jsonl: UNTRUSTED"
expect_contains "directory: summary" "$out" \
    "2 session(s): 1 valid and closed, 0 open, 0 tampered, 1 untrusted"
cp "$T/forged-keep.jsonl" "$D/c-keep.jsonl"
"$AIRLOCK" audit verify --key "$K/audit.pub" "$D" >/dev/null; rc=$?
expect_eq "directory with a tampered log: exit 1" "$rc" 1
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$AIRLOCK_HOME"); rc=$?
expect_eq "the state directory's sessions all verify: exit 0" "$rc" 0
expect_contains "the state directory: one session" "$out" \
    "1 session(s): 1 valid and closed"
# One session's directory: its audit.jsonl matches two of the patterns
# (audit.jsonl, *.jsonl) and is still one session, verified once.
out=$("$AIRLOCK" audit verify --key "$K/audit.pub" "$(dirname "$s1")"); rc=$?
expect_eq "a session directory verifies: exit 0" "$rc" 0
expect_contains "a session directory: one session" "$out" \
    "1 session(s): 1 valid and closed"
expect_eq "a session directory: its log is verified once" \
    "$(echo "$out" | grep -c ': valid and closed: session')" 1

# Rotation: a new key signs new sessions; the old public key stays in
# trusted.pub and still proves the old ones.
new=$("$AIRLOCK" audit key --rotate 2>/dev/null); rc=$?
expect_eq "rotate: exit 0" "$rc" 0
check "rotate: a different key" test "$new" != "$pub"
expect_eq "rotate: audit.pub is the new key" "$(cat "$K/audit.pub")" "$new"
expect_eq "rotate: trusted.pub lists both" \
    "$(cut -d' ' -f1 "$K/trusted.pub" | tr '\n' ' ')" "$pub $new "
expect_eq "rotate: the key file holds the new key" \
    "$("$AIRLOCK" audit key "$K/audit.key")" "$new"
session second
s2=$S
check "the new session verifies with the new key" \
    "$AIRLOCK" audit verify -q --key "$new" "$s2"
check "the old session still verifies with the old key" \
    "$AIRLOCK" audit verify -q --key "$pub" "$s1"
"$AIRLOCK" audit verify -q --key "$new" "$s1" >/dev/null; rc=$?
expect_eq "the old session is untrusted under the new key alone" "$rc" 3
out=$("$AIRLOCK" audit verify --key-file "$K/trusted.pub" "$AIRLOCK_HOME"); rc=$?
expect_eq "both sessions verify with trusted.pub: exit 0" "$rc" 0
expect_contains "both sessions verify with trusted.pub" "$out" \
    "2 session(s): 2 valid and closed"

# Fail closed on a host key that is not private.
chmod 640 "$K/audit.key"
out=$("$AIRLOCK" audit key 2>&1); rc=$?
expect_eq "a group-readable host key is refused: exit 1" "$rc" 1
expect_contains "it says why" "$out" "mode 0600"
out=$(timeout 30 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" </dev/null 2>&1); rc=$?
check "no session starts with a group-readable host key" test "$rc" -ne 0
expect_contains "the session says why" "$out" "mode 0600"
chmod 600 "$K/audit.key"

# From inside the sandboxes: the host key is not there to read.
out=$(timeout 60 "$AIRLOCK" exec --workspace "$ws" -- sh -c \
    "cat '$K/audit.key' || ls -d '$K' '$AIRLOCK_HOME'" 2>&1)
expect_contains "runner: the host key does not exist in it" "$out" \
    "$K/audit.key: No such file or directory"
expect_contains "runner: nor the state directory" "$out" \
    "cannot access '$AIRLOCK_HOME': No such file or directory"
out=$(timeout 60 "$AIRLOCK" run --manifest "$M" --workspace "$ws" -- sh -c \
    "cat '$K/audit.key' || ls -d '$K' '$AIRLOCK_HOME'" 2>&1)
expect_contains "agent: the host key does not exist in it" "$out" \
    "$K/audit.key: No such file or directory"
expect_contains "agent: nor the state directory" "$out" \
    "cannot access '$AIRLOCK_HOME': No such file or directory"
finish
