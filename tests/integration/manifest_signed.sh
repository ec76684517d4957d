#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Manifests signed by a team key (issue 16, fleets): with a trusted-keys
# file ($AIRLOCK_MANIFEST_KEYS), airlock run, serve and exec load a
# manifest only with a signature by a listed key over exactly its bytes;
# unsigned, changed after signing, signed by another key, or a garbled
# signature: each refused, saying which.  Without the file nothing
# changes.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
export AIRLOCK_MANIFEST_KEYS="$T/manifest-keys"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: hello
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["echo", "hello"]
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
EOF
run_exec() { "$AIRLOCK" exec --manifest "$1" --workspace "$ws" -- echo ran 2>&1; }
serve_call() {
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{}}}' |
	    "$AIRLOCK" serve --manifest "$1" --workspace "$ws" 2>&1
}
test -e /etc/airlock/manifest-keys &&
    fail "this host has /etc/airlock/manifest-keys: the test needs it absent"
expect_eq "without a trusted-keys file an unsigned manifest is used" "$(env -u AIRLOCK_MANIFEST_KEYS "$AIRLOCK" exec --manifest "$T/m.yaml" --workspace "$ws" -- echo ran 2>&1)" ran
# A trusted-keys file that is a link to nothing (a configuration mount
# not there yet, a target renamed) was "no file" to access(2), and every
# manifest loaded unsigned; so was one beneath a directory link to
# nothing.  Both fail closed now, saying why.
ln -s "$T/keys-not-there" "$T/dangling-keys"
out=$(AIRLOCK_MANIFEST_KEYS="$T/dangling-keys" run_exec "$T/m.yaml")
expect_contains "a trusted-keys file that is a link to nothing fails closed" "$out" "the trusted-keys file $T/dangling-keys leads through a symbolic link to nothing"
check "... and runs nothing" test "$(printf '%s\n' "$out" | grep -cx ran)" = 0
ln -s "$T/conf-not-there" "$T/conf"
out=$(AIRLOCK_MANIFEST_KEYS="$T/conf/manifest-keys" run_exec "$T/m.yaml")
expect_contains "... as does one beneath a directory link to nothing" "$out" "$T/conf/manifest-keys leads through a symbolic link to nothing"
# A file the variable names must be there: a typo in it used to turn the
# signatures off, as did a relative value (the default was used).
out=$(AIRLOCK_MANIFEST_KEYS="$T/no-dir/manifest-keys" run_exec "$T/m.yaml")
expect_contains "a trusted-keys file the variable names and that is not there fails closed" "$out" "AIRLOCK_MANIFEST_KEYS names $T/no-dir/manifest-keys, which is not there"
check "... and runs nothing" test "$(printf '%s\n' "$out" | grep -cx ran)" = 0
out=$(AIRLOCK_MANIFEST_KEYS="manifest-keys" run_exec "$T/m.yaml")
expect_contains "a relative AIRLOCK_MANIFEST_KEYS fails closed" "$out" "AIRLOCK_MANIFEST_KEYS (manifest-keys) is not an absolute path"
check "... and runs nothing" test "$(printf '%s\n' "$out" | grep -cx ran)" = 0

"$AIRLOCK" approver keygen "$T/team" >/dev/null 2>&1
"$AIRLOCK" approver keygen "$T/other" >/dev/null 2>&1
printf '# the team key\n%s\n\n' "$(cat "$T/team.pub")" >"$AIRLOCK_MANIFEST_KEYS"
chmod 0644 "$AIRLOCK_MANIFEST_KEYS"
out=$(run_exec "$T/m.yaml")
expect_contains "with the file, an unsigned manifest is refused (exec)" "$out" "m.yaml is not signed (no $T/m.yaml.sig)"
out=$(serve_call "$T/m.yaml")
expect_contains "... and by serve" "$out" "is not signed"
expect_not_contains "... which runs nothing" "$out" '"id":2'

out=$("$AIRLOCK" approver sign-manifest --key "$T/team" "$T/m.yaml" 2>&1)
expect_contains "approver sign-manifest writes FILE.sig" "$out" "signed $T/m.yaml"
expect_eq "a manifest signed by the team key is used (exec)" "$(run_exec "$T/m.yaml")" ran
expect_contains "... and by serve" "$(serve_call "$T/m.yaml")" '"stdout":"hello'

cp "$T/m.yaml.sig" "$T/good.sig"
printf '# a comment changes the bytes\n' >>"$T/m.yaml"
out=$(run_exec "$T/m.yaml")
expect_contains "a manifest changed after signing is refused" "$out" "does not match its content"
"$AIRLOCK" approver sign-manifest --key "$T/other" "$T/m.yaml" >/dev/null 2>&1
out=$(run_exec "$T/m.yaml")
expect_contains "a manifest signed by an untrusted key is refused, naming the key" "$out" "is signed by $(cat "$T/other.pub"), which is not a trusted key"
# The agent swaps the workspace's manifest for an older version the team
# signed, with its .sig (from the history): both verify, and the next
# session ran under the looser policy.  The session's manifest and its
# signature are protected paths of its own sandbox now.
mkdir -p "$ws/old"
cat >"$ws/airlock.yaml" <<'EOF2'
tools:
  - name: swap
    input: {}
    output: { exitCode: integer }
    command: ["sh", "-c", "cp old/airlock.yaml airlock.yaml; cp old/airlock.yaml.sig airlock.yaml.sig"]
    sideEffect: workspace_write
    authorization: allow
    timeoutMs: 10000
sandbox: { network: proxy }
EOF2
"$AIRLOCK" approver sign-manifest --key "$T/team" "$ws/airlock.yaml" >/dev/null
cp "$ws/airlock.yaml" "$ws/airlock.yaml.sig" "$ws/old/"
sed -i 's/network: proxy/network: none/' "$ws/airlock.yaml"
"$AIRLOCK" approver sign-manifest --key "$T/team" "$ws/airlock.yaml" >/dev/null
cp "$ws/airlock.yaml" "$T/current.yaml"
out=$("$AIRLOCK" exec --manifest "$ws/airlock.yaml" --workspace "$ws" -- sh -c 'cp old/airlock.yaml airlock.yaml && cp old/airlock.yaml.sig airlock.yaml.sig && echo swapped' 2>&1)
expect_contains "exec: the manifest in the workspace is protected from the command" "$out" "refused: airlock.yaml: protected"
expect_contains "... and so is its signature" "$out" "refused: airlock.yaml.sig: protected"
R=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"swap","arguments":{}}}' |
    (cd "$ws" && "$AIRLOCK" serve --manifest airlock.yaml --workspace "$ws" 2>&1))
expect_contains "serve: a tool's write of the session's manifest is refused" "$R" '{\"path\":\"airlock.yaml\",\"rule\":\"protected\"}'
expect_contains "... and of its signature" "$R" '{\"path\":\"airlock.yaml.sig\",\"rule\":\"protected\"}'
check "the older signed manifest was not swapped in" cmp -s "$ws/airlock.yaml" "$T/current.yaml"
rm -rf "$ws/old" "$ws/airlock.yaml" "$ws/airlock.yaml.sig"
printf 'airlock-manifest-sig-v1 garbage\n' >"$T/m.yaml.sig"
out=$(run_exec "$T/m.yaml")
expect_contains "a garbled signature file is refused" "$out" "not a manifest signature"
cp "$T/good.sig" "$T/m.yaml.sig"
# A keys file another user could add a key to is refused: the team's
# signature means nothing when anyone may trust their own key.
chmod 0666 "$AIRLOCK_MANIFEST_KEYS"
out=$(run_exec "$T/m.yaml")
expect_contains "a group- or world-writable trusted-keys file is refused" "$out" "is owned by uid 0 with mode 0666: another user could add a key to it"
check "... and runs nothing" test "$(printf '%s\n' "$out" | grep -cx ran)" = 0
chmod 0644 "$AIRLOCK_MANIFEST_KEYS"
chown 4242 "$AIRLOCK_MANIFEST_KEYS"
out=$(run_exec "$T/m.yaml")
expect_contains "a trusted-keys file of another user is refused" "$out" "is owned by uid 4242 with mode 0644"
chown 0 "$AIRLOCK_MANIFEST_KEYS"
printf 'not-a-key\n' >"$AIRLOCK_MANIFEST_KEYS"
out=$(run_exec "$T/m.yaml")
expect_contains "a broken trusted-keys file fails closed, with the line" "$out" "manifest-keys:1: not a public key"
finish
