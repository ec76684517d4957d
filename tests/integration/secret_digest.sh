#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The digests the agent gets of a workspace file that holds a granted
# secret (read_file's sha256, the base apply_patch names when it refuses
# one, and its newSha) are no offline test of a guess.  read_file shows
# the rest of the file, so a plain SHA-256 of its raw bytes let the agent
# try short passwords at leisure, outside every budget and the audit log.
# Nor is the workspace digest, over every file's content.  They are keyed
# for the session, and apply_patch still binds to the digest read_file
# gave; a file without a secret keeps its plain SHA-256, and a session
# that grants nothing its plain workspace digest.  A hunk that does not
# apply to such a file quotes no line of it, and a patch may not break
# the secret up.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
unset AIRLOCK_PASSPHRASE
ws=$(make_workspace)
pw='hunter2!x'
printf '%s' "$pw" | "$AIRLOCK" secret set DB_PASS
printf 'user=app\npassword=%s\nport=5432\n' "$pw" >"$ws/db.ini"
printf 'no secret here\n' >"$ws/plain.txt"
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 2000
    command: ["true"]
    secrets: [ { name: DB_PASS, env: DB_PASS } ]
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256 }
    sideEffect: none
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    authorization: allow
    timeoutMs: 5000
YAML
# The agent's offline test: the SHA-256 of the file with a guessed value.
guess() {
	printf 'user=app\npassword=%s\nport=%s\n' "$1" "$2" | sha256sum |
	    cut -c1-64
}
patch='--- a/db.ini\n+++ b/db.ini\n@@ -3 +3 @@\n-port=5432\n+port=5433\n'
zero=0000000000000000000000000000000000000000000000000000000000000000

mcp_start "$T/m.yaml" "$ws"
mcp_call read_file '{"path":"db.ini"}'
expect_contains "read_file shows the password redacted" "$R" \
    'password=[REDACTED:DB_PASS]'
sha=$(jr '.result.structuredContent.sha256')
check "read_file reports a digest" test "${#sha}" -eq 64
expect_not_contains "read_file's sha256 is no offline test of the password" \
    "$sha" "$(guess "$pw" 5432)"
mcp_call apply_patch "{\"expectedBaseSha\":\"$zero\",\"patch\":\"$patch\"}"
expect_error_class "a wrong expectedBaseSha is refused" base_mismatch
expect_not_contains "... and the refusal gives no test of the password" \
    "$R" "$(guess "$pw" 5432 | cut -c1-12)"
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha\",\"patch\":\"$patch\"}"
expect_contains "apply_patch binds to the digest read_file gave" "$R" \
    '"changedFiles":["db.ini"]'
check "... the patch landed, the password kept" \
    grep -qx "password=$pw" "$ws/db.ini"
check "... on the line it changed" grep -qx "port=5433" "$ws/db.ini"
expect_not_contains "its newSha is no offline test of the password" \
    "$R" "$(guess "$pw" 5433)"
# A file without a secret: its plain SHA-256, as the agent can compute.
mcp_call read_file '{"path":"plain.txt"}'
expect_eq "a file without a secret keeps its plain SHA-256" \
    "$(jr '.result.structuredContent.sha256')" \
    "$(sha256sum <"$ws/plain.txt" | cut -c1-64)"
mcp_stop

# A hunk that does not apply is told with the file's line it met,
# escaped and cut at 72 bytes: a line of a granted PEM key, or a token's
# head before the cut, came back in a piece the redactor does not know.
# A patch of a file that holds a secret quotes no line of it.
printf -- '-----BEGIN TEST KEY-----\nMIIEpQIBAAKCAQEA3xQ7kPEMLINEONE\nZmFrZWtleWxpbmV0d29QRU1MSU5FVFdP\n-----END TEST KEY-----' >"$ws/deploy.pem"
"$AIRLOCK" secret set DEPLOY_KEY <"$ws/deploy.pem"
{ head -c 66 /dev/zero | tr '\0' x; printf '%s\n' "$pw"; } >"$ws/long.txt"
sed 's/secrets: \[ { name: DB_PASS, env: DB_PASS } \]/secrets: [ { name: DB_PASS, env: DB_PASS }, { name: DEPLOY_KEY, env: DEPLOY_KEY } ]/' \
    "$T/m.yaml" >"$T/key.yaml"
mcp_start "$T/key.yaml" "$ws"
for f in deploy.pem long.txt plain.txt; do
	mcp_call read_file "{\"path\":\"$f\"}"
	eval "sha_${f%%.*}=\$(jr '.result.structuredContent.sha256')"
done
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha_deploy\",\"patch\":\"--- a/deploy.pem\\n+++ b/deploy.pem\\n@@ -2 +2 @@\\n-x\\n+y\\n\"}"
expect_error_class "a hunk that does not fit the key file is refused" \
    patch_conflict
expect_contains "... naming the file and the hunk" "$R" \
    "file 'deploy.pem': hunk 1 (@@ -2 +2 @@) does not apply: a file of the patch holds a granted secret"
expect_not_contains "... and quoting no line of the key" "$R" PEMLINEONE
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha_long\",\"patch\":\"--- a/long.txt\\n+++ b/long.txt\\n@@ -1 +1 @@\\n-x\\n+y\\n\"}"
expect_error_class "a hunk that does not fit the token's line is refused" \
    patch_conflict
expect_not_contains "... giving no head of the password" "$R" hunter
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha_plain\",\"patch\":\"--- a/plain.txt\\n+++ b/plain.txt\\n@@ -1 +1 @@\\n-x\\n+y\\n\"}"
expect_contains "a file without a secret still has the line quoted" "$R" \
    'found \\\"no secret here\\\\n\\\"'
# A hunk that only adds lines quotes none of the file: one inside the key
# (or one that changed its BEGIN line, which every PEM key has) left the
# key's other lines where read_file showed them unredacted.
cp "$ws/deploy.pem" "$T/deploy.before"
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha_deploy\",\"patch\":\"--- a/deploy.pem\\n+++ b/deploy.pem\\n@@ -1,0 +2 @@\\n+junk\\n\"}"
expect_error_class "a line added inside the key is refused" denied
expect_contains "... saying why" "$R" \
    'deploy.pem: nothing was written: the patch breaks up a granted secret'
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha_deploy\",\"patch\":\"--- a/deploy.pem\\n+++ b/deploy.pem\\n@@ -1 +1 @@\\n------BEGIN TEST KEY-----\\n+x\\n\"}"
expect_error_class "so is a change of its BEGIN line" denied
check "... the key file is as it was" cmp -s "$ws/deploy.pem" "$T/deploy.before"
mcp_call read_file '{"path":"deploy.pem"}'
expect_not_contains "... and read_file shows no line of it" "$R" PEMLINEONE
mcp_call read_file '{"path":"db.ini"}'
sha=$(jr '.result.structuredContent.sha256')
mcp_call apply_patch "{\"expectedBaseSha\":\"$sha\",\"patch\":\"--- a/db.ini\\n+++ b/db.ini\\n@@ -1,0 +2 @@\\n+host=db\\n\"}"
expect_ok_result "a line added beside the password is written"
check "... the password whole on its line" grep -qx "password=$pw" "$ws/db.ini"
mcp_stop
rm -f "$ws/deploy.pem" "$ws/long.txt"

# The workspace digest (status, and what approvals show) is over every
# file's content, and the agent reads all of it but the secret: unkeyed,
# it was the same offline test (broker/wsindex.h spells it out).
ws2="$T/ws2"
mkdir "$ws2"
printf 'user=app\npassword=%s\nport=5432\n' "$pw" >"$ws2/db.ini"
tree() {	# the agent's offline digest of ws2 with db.ini holding GUESS
	python3 - "$1" "$ws2/db.ini" <<'PY'
import hashlib, os, struct, sys
data = b"user=app\npassword=%s\nport=5432\n" % sys.argv[1].encode()
f = hashlib.blake2b(digest_size=32)
f.update(b"D" + struct.pack("<QQ", 0, len(data)) + data)
t = hashlib.blake2b(digest_size=32)
mode = struct.pack("<H", os.stat(sys.argv[2]).st_mode & 0o7777)
t.update(b"db.ini" + b"\0f\0" + mode + f.digest())
print(t.hexdigest())
PY
}
sed '/secrets:/d' "$T/m.yaml" >"$T/none.yaml"
mcp_start "$T/none.yaml" "$ws2"
mcp_rpc airlock/session/status '{}'
expect_eq "granting nothing, the digest is the plain one the agent computes" \
    "$(jr .result.workspaceDigest)" "$(tree "$pw")"
mcp_stop
mcp_start "$T/m.yaml" "$ws2"
mcp_rpc airlock/session/status '{}'
d=$(jr .result.workspaceDigest)
check "a session granting a secret reports a digest" test "${#d}" -eq 64
expect_not_contains "... which is no offline test of the password" "$d" \
    "$(tree "$pw")"
mcp_stop
finish
