#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Credentials: a granted secret reaches only its tool's runner, and its
# value (plain, base64, URL-encoded) never leaves the broker: not in the
# result, the artifact, the audit log, or anything the agent can see.
. "$top_srcdir/tests/lib.sh"

export AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run"
secret='sup3r/s3cret+value'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
b64=$(printf '%s' "$secret" | base64)
url='sup3r%2Fs3cret%2Bvalue'
ws=$(make_workspace)

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string, artifactUri: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["sh", "-c", "echo plain=$API_TOKEN; printf %s \"$API_TOKEN\" | base64; echo url=sup3r%2Fs3cret%2Bvalue; echo path=/keys/$(printf %s \"$API_TOKEN\" | sed 's/+/%2B/g')"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
YAML

out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"publish","arguments":{}}}' |
    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws")
expect_contains "the granted tool ran with the secret" "$out" 'plain=[REDACTED:API_TOKEN]'
expect_not_contains "result hides the plain value" "$out" "$secret"
expect_not_contains "result hides the base64 form" "$out" "$b64"
expect_not_contains "result hides the URL-encoded form" "$out" "$url"
# Python's urllib.parse.quote keeps "/" (its default safe="/"), as a URL's
# path takes it: the token came back with only its "+" encoded.
expect_contains "... and the form with its / kept" "$out" 'path=/keys/[REDACTED:API_TOKEN]'
expect_not_contains "... which is hidden" "$out" 'sup3r/s3cret%2Bvalue'
if grep -rqF -e "$secret" -e "$b64" -e "$url" "$AIRLOCK_HOME/sessions"; then
	fail "artifacts and audit log hold no form of the secret"
else
	pass "artifacts and audit log hold no form of the secret"
fi
# The runner_end record's outputDigest is of what the artifact holds, the
# output redacted: a SHA-256 of the output as printed, all of it but the
# secret shown to the agent (and to whoever reads the log), tested a
# guessed secret offline.
raw=$(printf 'plain=%s\n%s\nurl=%s\npath=/keys/%s\n' "$secret" "$b64" "$url" 'sup3r/s3cret%2Bvalue' | sha256sum | cut -d' ' -f1)
art=$(find "$AIRLOCK_HOME/sessions" -path '*/artifacts/*-publish.log' -type f)
odig=$(jq -r 'select(.event == "runner_end") | .fields.outputDigest' \
    "$AIRLOCK_HOME"/sessions/*/audit.jsonl)
check "the run's output was kept as an artifact" test -s "$art"
check "outputDigest is the digest of the redacted artifact" \
    test "$odig" = "$(sha256sum <"$art" | cut -d' ' -f1)"
check "... not of the output as printed, secret and all" test "$odig" != "$raw"
if grep -qF -e "$secret" "$AIRLOCK_HOME/secrets.db"; then
	fail "the store does not hold the plain value"
else
	pass "the store does not hold the plain value"
fi

# A failing check's failureFingerprint (in its result and the audit log)
# is of its first error-looking lines: of the output as printed, it was an
# unkeyed SHA-256 over the secret (digits folded) and text the result
# shows, a test of a guessed secret offline.  It is of the output redacted.
cat >"$T/fp.yaml" <<'YAML'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, failureFingerprint: string? }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 5000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  login: ["sh", "-c", "echo \"Error: token $API_TOKEN rejected\"; exit 1"]
YAML
rm -rf "$AIRLOCK_HOME/sessions"
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"login"}}}' |
    "$AIRLOCK" serve --manifest "$T/fp.yaml" --workspace "$ws")
expect_contains "the check failed with the secret redacted" "$out" 'Error: token [REDACTED:API_TOKEN] rejected'
fp=$(printf '%s\n' "$out" | jq -r 'select(.id == 2) | .result.structuredContent.failureFingerprint')
guess=$(printf 'login\n1\nError: token %s rejected\n' "$(printf '%s' "$secret" | sed 's/[0-9][0-9]*/#/g')" | sha256sum | cut -d' ' -f1)
redfp=$(printf 'login\n1\nError: token [REDACTED:API_TOKEN] rejected\n' | sha256sum | cut -d' ' -f1)
check "the failure has a fingerprint" test -n "$fp" -a "$fp" != null
check "... which a guess of the secret does not reproduce" test "$fp" != "$guess"
check "... it is of the output redacted" test "$fp" = "$redfp"
check "... in the audit log too" test "$(jq -r 'select(.event == "check_failure") | .fields.fingerprint' "$AIRLOCK_HOME"/sessions/*/audit.jsonl)" = "$redfp"

# A capture cut by the output cap in the middle of the secret: the piece
# before the cut is no whole form the redactor knows, and it is dropped,
# from the result and from the artifact the agent can read.  So is the
# piece a command killed by its timeout was writing.  What is dropped is
# the capture's tail where a form could have begun, whatever it holds
# (jobs_redaction.sh: dropped only when it began like the secret, it
# told a guess echoed there).
cat >"$T/cut.yaml" <<'YAML'
sandbox:
  limits: { outputBytes: 4000 }
tools:
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string, artifactUri: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["sh", "-c", "head -c 3985 /dev/zero | tr '\\0' x; echo \"$API_TOKEN\""]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: slow
    input: {}
    output: { exitCode: integer, stdout: string, timedOut: boolean }
    sideEffect: external
    authorization: allow
    timeoutMs: 1000
    command: ["sh", "-c", "echo started; head -c 4400 /dev/zero | tr '\\0' y; echo; printf %s \"$API_TOKEN\" | head -c 9; sleep 10"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: echo_cut
    input: { name: string }
    output: { exitCode: integer, stdout: string, artifactUri: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["sh", "echo_cut.sh", "{name}"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
rm -rf "$AIRLOCK_HOME/sessions"
# The agent's text where the cap cuts: 3992 bytes, then the text.
printf '%s\n' 'printf "%03992d%s%0100d" 0 "$1" 0' >"$ws/echo_cut.sh"
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"publish","arguments":{}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo_cut","arguments":{"name":"sup3r/s3"}}}' \
    '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo_cut","arguments":{"name":"sup3r/s4"}}}' |
    "$AIRLOCK" serve --manifest "$T/cut.yaml" --workspace "$ws")
expect_contains "the command killed while it wrote timed out" "$out" 'ran past its 1000 ms limit'
expect_not_contains "the result holds no piece of the secret the cap cut" "$out" "sup3r/s3c"
art=$(find "$AIRLOCK_HOME/sessions" -path '*/artifacts/*-publish.log' -type f)
check "the run's output was kept as an artifact" test -s "$art"
check "... its x's up to the cut are there" grep -q xxxxxxxxxx "$art"
art=$(find "$AIRLOCK_HOME/sessions" -path '*/artifacts/*-slow.log' -type f)
check "... so was the killed command's, up to the secret" grep -qx started "$art"
# A cut tail dropped only when it began like the secret told a guess the
# agent had a tool echo there ("sup3r/s3" dropped, "sup3r/s4" kept):
# what is dropped does not depend on what it holds.
set -- $(find "$AIRLOCK_HOME/sessions" -path '*/artifacts/*-echo_cut.log' -type f -exec wc -c {} + | grep -v total | awk '{print $1}')
check "the cap cut both echoes" test $# -eq 2
expect_eq "the cut drops as much after a guess that is the secret's beginning as after one that is not" "${1:-}" "${2:-x}"
rm -f "$ws/echo_cut.sh"
if grep -rqF -e "sup3r/s3c" "$AIRLOCK_HOME/sessions"; then
	fail "neither the artifact nor the audit log holds the piece"
else
	pass "neither the artifact nor the audit log holds the piece"
fi

# read_file on a workspace file that holds a granted secret: the agent
# picks the lines (a PEM key's second line alone) and the cap cuts (the
# head of a token at the end of a long line); each piece must be no
# piece of the secret, so the file is redacted before either.
printf -- '-----BEGIN TEST KEY-----\nMIIEpQIBAAKCAQEA3xQ7kPEMLINEONE\nZmFrZWtleWxpbmV0d29QRU1MSU5FVFdP\n-----END TEST KEY-----' >"$ws/deploy.pem"
"$AIRLOCK" secret set DEPLOY_KEY <"$ws/deploy.pem"
{ head -c 45 /dev/zero | tr '\0' x; printf '%s' "$secret"; head -c 2000 /dev/zero | tr '\0' y; echo; } >"$ws/long.txt"
cat >"$T/read.yaml" <<'YAML'
output: { inlineChars: 1000 }
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 2000
    command: ["true"]
    secrets: [ { name: DEPLOY_KEY, env: DEPLOY_KEY }, { name: API_TOKEN, env: API_TOKEN } ]
  - name: read_file
    input: { path: workspace_relative_path, startLine: integer?, endLine: integer? }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: search
    input: { pattern: string, path: "workspace_relative_path?" }
    output: { matches: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 10000
YAML
echo 'a PEMLINE of no secret' >"$ws/plain.txt"
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"deploy.pem","startLine":2,"endLine":2}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"deploy.pem","startLine":3}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"deploy.pem"}}}' \
    '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"long.txt"}}}' \
    '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"PEMLINE"}}}' \
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"xxxxx"}}}' \
    '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"xsup3r/s3"}}}' \
    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"xsup3r/s4"}}}' \
    '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"KEY"}}}' |
    "$AIRLOCK" serve --manifest "$T/read.yaml" --workspace "$ws")
expect_contains "read_file shows the key file redacted" "$out" '"content":"[REDACTED:DEPLOY_KEY]"'
expect_contains "... as one line, whatever range is asked" "$out" 'no lines 2-2: the text has 1 lines'
expect_contains "... and no line 3 either" "$out" 'no lines 3-0: the text has 1 lines'
expect_not_contains "no line of the key comes back alone" "$out" "PEMLINEONE"
expect_not_contains "... nor the other" "$out" "ZmFrZWtleWxpbmV0d29QRU1MSU5FVFdP"
expect_contains "the long line was cut by the cap" "$out" '[...]\n[airlock: 0 of 1 lines'
expect_not_contains "the cut gives no head of the token" "$out" "sup3r/s3"
# search: grep gives the key a line at a time and cuts a line at 512
# bytes; a file that holds a granted secret has its matches withheld,
# and is named only when the pattern matches what read_file shows of it.
R=$(printf '%s\n' "$out" | grep '"id":6,')
expect_contains "search: a file without a secret is matched as before" \
    "$R" '"./plain.txt:1:a PEMLINE of no secret"'
expect_not_contains "search: the key file, all of it the key, is not named" \
    "$R" 'deploy.pem'
R=$(printf '%s\n' "$out" | grep '"id":7,')
expect_contains "search: so are the long line's" "$R" \
    './long.txt: matches withheld'
expect_not_contains "search gives no line of the key" "$out" "MIIEpQIBAAKCAQEA3xQ7k"
# ... and the note is given as read_file shows the file: given whenever
# grep matched, it told whether the secret held the pattern, and a guess
# a byte longer each time ("xsup3r/s3", "xsup3r/s4") read the token.
R=$(printf '%s\n' "$out" | grep '"id":8,')
expect_not_contains "search: no note for a pattern only the secret holds" \
    "$R" 'long.txt'
R9=$(printf '%s\n' "$out" | grep '"id":9,')
expect_eq "... the same answer as for a wrong guess" \
    "$(printf '%s' "$R" | sed 's/"id":8,/"id":9,/')" "$R9"
R=$(printf '%s\n' "$out" | grep '"id":10,')
expect_not_contains "... nor for one that only the redactor's tag holds" \
    "$R" 'deploy.pem'
rm -f "$ws/deploy.pem" "$ws/plain.txt"
# ... nor may the output cap: grep's lines of the secret's file counted
# against it.  A file of the agent's making whose matches fill the cap to
# its last byte (a second pattern line, PADMARK, matches it) made
# "truncated" come back when the secret's file matched too (xsup3r/s3,
# the secret's beginning) and not for a wrong guess (s4) where grep read
# the pad first; where it read the secret's file first, the pad's last
# line was cut instead.  Its two lines are NAME NUL "N:" LINE NL as grep
# -nZ prints them: 2 * (NAME + 4) + 11 + the first line's bytes, of the
# 4096 the cap keeps.  The pad at the top and in src/: grep reads the
# directory's entries in its order, one before long.txt, one after here.
cat >"$T/cap.yaml" <<'YAML'
sandbox:
  limits: { outputBytes: 4096 }
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 2000
    command: ["true"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: search
    input: { pattern: string, path: "workspace_relative_path?" }
    output: { matches: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 10000
YAML
for pad in pad.txt src/pad.txt; do
	{ printf 'PADMARK'
	  head -c $((4096 - 19 - 2 * (${#pad} + 2) - 7)) /dev/zero | tr '\0' z
	  printf '\nPADMARK-end\n'; } >"$ws/$pad"
	out=$(printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"xsup3r/s3\nPADMARK"}}}' \
	    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"xsup3r/s4\nPADMARK"}}}' |
	    "$AIRLOCK" serve --manifest "$T/cap.yaml" --workspace "$ws")
	R2=$(printf '%s\n' "$out" | grep '"id":2,')
	R3=$(printf '%s\n' "$out" | grep '"id":3,')
	expect_contains "search ($pad): the pad that fills the cap is shown whole" \
	    "$R3" "\"./$pad:2:PADMARK-end\""
	expect_contains "... and not truncated" "$R3" '"truncated":false'
	expect_eq "... the same answer when the secret's file matches too" \
	    "$(printf '%s' "$R2" | sed 's/"id":2,/"id":3,/')" "$R3"
	rm -f "$ws/$pad"
done
rm -f "$ws/long.txt"

# ... nor may a file put in the secret's file's place while grep runs:
# the broker read the file after grep did (grep gives its lines when its
# buffer fills, or at its end), a write_file sent meanwhile left a decoy
# there, the decoy was checked and grep's lines of the key were shown,
# one line at a time.  The key's file is read first (the first name of
# the directory before many/, 30000 files grep reads after it); the
# write_file is sent once grep runs.
mkdir "$ws/many"
python3 -c 'import sys
for i in range(30000):
    open("%s/many/f%05d.txt" % (sys.argv[1], i), "w").write("nothing\n")' "$ws"
key=
for k in a b c d e f g h i j k l m n o p q r s t u v w x y z; do
	touch "$ws/$k.pem"
	if [ "$(ls -U "$ws" | grep -x -e "$k.pem" -e many | head -n 1)" = "$k.pem" ]; then
		key=$k.pem
		break
	fi
	rm -f "$ws/$k.pem"
done
check "a key file named before many/ in the directory's order" test -n "$key"
printf -- '-----BEGIN TEST KEY-----\nMIIEpQIBAAKCAQEA3xQ7kPEMLINEONE\nZmFrZWtleWxpbmV0d29QRU1MSU5FVFdP\n-----END TEST KEY-----' >"$ws/$key"
cat >"$T/race.yaml" <<'YAML'
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    sideEffect: external
    authorization: allow
    timeoutMs: 2000
    command: ["true"]
    secrets: [ { name: DEPLOY_KEY, env: DEPLOY_KEY } ]
  - name: search
    input: { pattern: string, path: "workspace_relative_path?" }
    output: { matches: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 60000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 10000
YAML
cat >"$T/race.py" <<'PYRACE'
import json, os, subprocess, sys, time
airlock, manifest, ws, key = sys.argv[1:5]
p = subprocess.Popen([airlock, "serve", "--manifest", manifest,
    "--workspace", ws], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    bufsize=0)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18"}})
p.stdout.readline()
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "search", "arguments": {"pattern": "PEMLINE"}}})
def grep_runs():
    for d in os.listdir("/proc"):
        try:
            a = open("/proc/%s/cmdline" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if a[:2] == [b"grep", b"-rnIFZ"] and b"PEMLINE" in a:
            return True
    return False
t0 = time.monotonic()
while not grep_runs() and time.monotonic() - t0 < 20:
    time.sleep(0.005)
time.sleep(0.05)
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
    "name": "write_file", "arguments": {"path": key,
    "content": "a decoy PEMLINE\n"}}})
got = {}
while len(got) < 2:
    r = json.loads(p.stdout.readline())
    got[r["id"]] = r
print(json.dumps(got[2]))
print(json.dumps(got[3]))
p.stdin.close()
p.wait()
PYRACE
out=$(python3 "$T/race.py" "$AIRLOCK" "$T/race.yaml" "$ws" "$key")
R=$(printf '%s\n' "$out" | grep '"id": 2,')
expect_eq "the decoy was written while grep ran" \
    "$(printf '%s\n' "$out" | grep '"id": 3,' | jq '.result.isError')" false
expect_not_contains "search gives no line of the key whose file was replaced meanwhile" \
    "$R" "MIIEpQIBAAKCAQEA3xQ7k"
expect_not_contains "... nor the decoy's, which grep never read" "$R" "a decoy"
rm -rf "${ws:?}/many" "${ws:?}/$key"

# A tool that prints JSON (its config, a service account, its environment)
# escapes a PEM key's line breaks as "\n" and a quote or backslash in a
# token: the key came back whole, on one line, and the token with its
# backslashes, neither a form the redactor knew.
printf '%s' 'pa"ss\w0rd' | "$AIRLOCK" secret set QUOTED
cat >"$T/json.yaml" <<'YAML'
tools:
  - name: show_config
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: none
    timeoutMs: 5000
    command: ["sh", "-c", "jq -cn --arg k \"$DEPLOY_KEY\" --arg q \"$QUOTED\" '{key: $k, q: $q}'"]
    secrets: [ { name: DEPLOY_KEY, env: DEPLOY_KEY }, { name: QUOTED, env: QUOTED } ]
YAML
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show_config","arguments":{}}}' |
    "$AIRLOCK" serve --manifest "$T/json.yaml" --workspace "$ws")
expect_contains "a JSON-escaped PEM key is redacted" "$out" \
    '{\"key\":\"[REDACTED:DEPLOY_KEY]\",\"q\":\"[REDACTED:QUOTED]\"}'
expect_not_contains "... no line of it comes back" "$out" "PEMLINEONE"
expect_not_contains "... nor the escaped token" "$out" 'w0rd'

# A shell quotes a value it prints: bash's xtrace, `set` and `alias` put
# a quote as '\'' and Python's shlex.quote as '"'"', `export -p` and
# `declare -p` put \ before a $, `, " or \.  A granted script that
# traces itself when asked to (the agent gives it "debug") printed a
# password with a quote or a $ in pieces the redactor did not know.
printf '%s' "0pen'Se\$ame\`now" | "$AIRLOCK" secret set SHELLPW
cat >"$ws/deploy.sh" <<'SH'
[ "$1" = debug ] && set -x
: "login with $SHELLPW"
set +x
export -p | grep SHELLPW
printf '%s\n' "'$(printf %s "$SHELLPW" | sed "s/'/'\"'\"'/g")'"
SH
cat >"$T/quote.yaml" <<'YAML'
tools:
  - name: deploy
    input: { mode: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["bash", "deploy.sh", "{mode}"]
    secrets: [ { name: SHELLPW, env: SHELLPW } ]
YAML
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"mode":"debug"}}}' |
    "$AIRLOCK" serve --manifest "$T/quote.yaml" --workspace "$ws")
expect_contains "the traced script ran" "$out" "+ : 'login with [REDACTED:SHELLPW]'"
expect_contains "... export -p's form is redacted" "$out" 'declare -x SHELLPW=\"[REDACTED:SHELLPW]\"'
expect_contains "... so is shlex.quote's" "$out" "'[REDACTED:SHELLPW]'"
expect_not_contains "no piece of the password comes back" "$out" 'Se\\$ame'
expect_not_contains "... nor the other" "$out" "0pen'"
expect_not_contains "... nor after its quote" "$out" "Se\$ame"
rm -f "$ws/deploy.sh"

# The agent: no secret in its environment, and the store, its key and the
# state directory are not in its view at all.
{
	echo '#!/bin/sh'
	echo 'env; tr "\0" "\n" </proc/self/environ'
	echo "for p in '$AIRLOCK_HOME' '$AIRLOCK_HOME/secrets.db' '$AIRLOCK_HOME/secrets.key' '$AIRLOCK_RUNTIME_DIR'; do"
	echo '	if [ -e "$p" ]; then echo "VISIBLE $p"; else echo "absent $p"; fi'
	echo 'done'
	# The script holds the secret only hex-encoded, so it cannot match itself.
	# printf, not echo: dash's echo would turn the escapes back into
	# the secret.
	printf '%s\n' "s=\$(printf '%b' '$(printf '%s' "$secret" | od -An -to1 | tr -s ' ' '\n' | grep . | sed 's/^/\\0/' | tr -d '\n')')"
	echo 'grep -rlF "$s" /tmp "$HOME" '"'$ws'"' 2>/dev/null | sed "s/^/FOUND /"'
	echo 'exit 0'
} >"$T/agent.sh"
chmod +x "$T/agent.sh"
out=$(API_TOKEN="$secret" "$AIRLOCK" run --manifest "$T/m.yaml" --workspace "$ws" -- "$T/agent.sh" 2>&1)
expect_not_contains "the agent's environment has no secret" "$out" "$secret"
expect_not_contains "the agent sees no store, key or state" "$out" "VISIBLE"
expect_contains "the agent ran" "$out" "absent $AIRLOCK_HOME/secrets.key"
expect_not_contains "no file the agent sees holds the secret" "$out" "FOUND"

# A grant the store cannot honour stops start-up (fail closed).
sed 's/name: API_TOKEN, env/name: MISSING_TOKEN, env/' "$T/m.yaml" >"$T/missing.yaml"
if "$AIRLOCK" serve --manifest "$T/missing.yaml" --workspace "$ws" </dev/null 2>"$T/err"; then
	fail "a missing granted secret refuses to start"
else
	expect_contains "a missing granted secret refuses to start" "$(cat "$T/err")" "cannot be used"
fi
finish
