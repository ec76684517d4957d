#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it by accident in a form its own tools
# give it, and the result goes to the agent.  Each form here came back
# in the clear, or in pieces the agent joins back up:
#  - coloured: grep --color=always puts the ANSI escape sequences of its
#    highlight between the secret's characters when its pattern matched
#    a part of it.
#  - quoted by bash: printf %q puts a backslash before each of a
#    password's special characters, and printf %q, ${var@Q} and
#    declare -p print a value holding a control byte, a PEM key's line
#    breaks, a JSON key file's quotes, as $'...' with \n between its
#    lines.
#  - base64 of a 4-byte secret inside a longer stream: the part that is
#    the secret's alone is 4 or 5 characters, and fragments shorter than
#    6 were not redacted, so "user:PIN" through base64 came back whole.
#  - JSON from Python (ensure_ascii, its default: a password's accented
#    letters as \u00e9), and as PHP's json_encode ("/" as "\/" too) and
#    Go's encoding/json ("&" as \u0026) print it, here through Python.
#  - in a hex dump: xxd, xxd -g1 -u, hexdump -C, od -A x -t x1z, Python's
#    bytes.hex(":") put spaces or colons between the bytes of its hex and
#    broke it over lines, an offset before each and the secret's own bytes
#    in the ASCII column after; od -x and hexdump with no option print
#    it in 2-byte words, byte-swapped; the hex matched only unbroken, or
#    broken once by a bare line break.
#  - with terminal sequences other than CSI between its characters: an
#    OSC hyperlink or title (ESC ] ... BEL or ESC \), an 8-bit CSI (0x9b),
#    a charset selection (ESC ( B, as tput sgr0 prints it), a lone ESC.
#  - in a hex dump of 4- or 8-byte little-endian words (od -t x4,
#    od -t x8, xxd -e: each word's bytes reversed), of 8 or 32 bytes a
#    line (xxd -c 8, xxd -c 32, od -w8, od -w32): the hex came back in
#    words the agent reverses, or in lines the redactor did not follow;
#    xxd -e prints the bytes a last word lacks as spaces; and where a
#    line's ASCII column began with the hex digit the secret's next byte
#    begins with, that digit was taken for it and the match failed.
#  - with over 64 bytes of terminal sequences between its characters: a
#    hyperlink with a long URL inside it, or a colour a character at a
#    time.
#  - in a dump's ASCII column on one line when it holds a byte the dump
#    shows as "." (a non-ASCII letter): the rest of it as it is.
#  - in a dump in uppercase words (xxd -e -u, hexdump -e with %08X or
#    %04X, its lines without an offset), as a C array (xxd -i, xxd -i -u:
#    ", 0x" between the bytes), of fewer than 8 bytes a line (xxd -c 4,
#    xxd -c 6, od -w4: a change of line every 4 bytes) or with an ASCII
#    column over 40 bytes (xxd -c 64, od -w64): the hex came back for the
#    agent to decode, and the ASCII column its bytes as they are.
#  - as od -c and hexdump -c print it, each byte in a field of 4 columns,
#    over lines of any width: the secret came back to be read off.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
secret_set API_TOKEN "$secret"
# A service account's JSON key: quotes, line breaks, and "\n" in its PEM.
pem=$(printf '%s\n' '{' '  "type": "service_account",' \
    '  "private_key": "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHq8x2Lr9Wv4Kt7Ym3Pn6Bc1Hd5Fs0Jg8Ae2Ui4Oy7Tx\n-----END PRIVATE KEY-----\n"' \
    '}')
secret_set SIGNING_KEY "$pem"
dbpw='Sécurité&Zq8x/Lr2'
secret_set DB_PASSWORD "$dbpw"
pin='k9#Q'
secret_set PIN "$pin"
upw='Zk7ü#Lm4pQ'
secret_set LOGIN_PW "$upw"
ws=$(make_workspace)

M="$T/m.yaml"
{
	echo 'tools:'
	cat <<'YAML'
  - name: colour
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["sh", "-c", "printf 'token: %s\\n' \"$API_TOKEN\" | grep --color=always Lr2; printf 'token: %s\\n' \"$API_TOKEN\" | grep --color=always -E 'Kt4|Pn'"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: quoted
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "printf 'token=%q\\n' \"$API_TOKEN\"; printf 'key=%q\\n' \"$KEY\"; echo \"${KEY@Q}\"; declare -p KEY"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN }, { name: SIGNING_KEY, env: KEY } ]
YAML
	cat <<'YAML'
  - name: pin64
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "for p in '' x xy; do printf '%s%s:user\\n' \"$p\" \"$PIN\" | base64; printf 'ci:%s%s--' \"$p\" \"$PIN\" | basenc --base64url; echo; done"]
    secrets: [ { name: PIN, env: PIN } ]
YAML
	cat <<'YAML'
  - name: dbjson
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["python3", "-c", "import json, os; p = os.environb[b'PW'].decode(); print(json.dumps({'py': p})); print(json.dumps({'php': p}).replace('/', '\\\\/')); print(json.dumps({'go': p}, ensure_ascii=False).replace('&', '\\\\u0026'))"]
    secrets: [ { name: DB_PASSWORD, env: PW } ]
YAML
	cat <<'YAML'
  - name: dumps
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "for d in xxd 'xxd -g1 -u' 'hexdump -C' 'od -A x -t x1z' 'od -x' hexdump; do echo \"== $d\"; printf 'token: %s\\n' \"$API_TOKEN\" | $d; done; echo '== python'; python3 -c \"import os; t = os.environb[b'API_TOKEN']; print(t.hex(':')); print(t.hex(' ').upper())\""]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: term
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "t=$API_TOKEN; printf 'link: %s\\e]8;;https://ci.example/run/7\\e\\\\%s\\e]8;;\\e\\\\%s\\n' \"${t:0:7}\" \"${t:7:9}\" \"${t:16}\"; printf 'title: %s\\e]0;build\\a%s\\n' \"${t:0:12}\" \"${t:12}\"; printf 'sgr0: %s\\e(B\\e[m%s\\n' \"${t:0:10}\" \"${t:10}\"; printf 'csi8: %s\\x9b1m%s\\x9bm%s\\n' \"${t:0:5}\" \"${t:5:5}\" \"${t:10}\"; printf 'lone: %s\\e%s\\n' \"${t:0:8}\" \"${t:8}\""]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: words
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "for d in 'od -t x2' 'od -t x4' 'od -t x8' 'xxd -e' 'od -A x -t x4z' 'xxd -e -g 8'; do echo \"== $d\"; printf 'token: %s\\n' \"$API_TOKEN\" | $d; done; for d in 'xxd -e' 'xxd -e -g 8' 'xxd -e -g 2' 'xxd -e -c 8'; do echo \"== $d, its last word cut\"; printf 'x%s' \"$API_TOKEN\" | $d; done"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: widths
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "for d in 'xxd -c 8' 'xxd -c 32' 'xxd -c 8 -g 1' 'od -A x -t x1z -w8' 'od -A x -t x1z -w32' 'od -t x1 -w8' 'od -x -w32'; do echo \"== $d\"; printf 'the api token is: %s\\n' \"$API_TOKEN\" | $d; done; echo '== xxd, its ASCII column a hex digit'; printf '3 tokens:%s\\n' \"$API_TOKEN\" | xxd"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: longesc
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "t=$API_TOKEN; u=https://ci.example.com/acme/payments-service/-/jobs/$(printf '%0320d' 7)/artifacts/browse/build/logs; printf 'link: %s\\e]8;;%s\\e\\\\%s\\e]8;;\\e\\\\%s\\n' \"${t:0:7}\" \"$u\" \"${t:7:9}\" \"${t:16}\"; printf 'each: %s\\n' \"$t\" | sed 's/[^ :a-z]/\\x1b[1;31m&\\x1b[0m/g'"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	cat <<'YAML'
  - name: dotted
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: ["bash", "-c", "for d in xxd 'hexdump -C' 'od -A x -t x1z' 'xxd -c 32'; do echo \"== $d\"; printf 'pw: %s\\n' \"$PW\" | $d; done"]
    secrets: [ { name: LOGIN_PW, env: PW } ]
YAML
	script_tool dumpforms '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
p='the api token of the payments service, production, is: '
for d in 'xxd -u' 'xxd -e -u' "hexdump -e '4/4 \"%08X \" \"\\n\"'" \
    "hexdump -e '8/2 \"%04X \" \"\\n\"'" 'xxd -i' 'xxd -i -u' \
    'xxd -c 4' 'xxd -u -c 4' 'xxd -c 6' 'od -A x -t x1z -w4' \
    'xxd -c 64' 'od -A x -t x1z -w64' 'od -c' 'od -c -w64' \
    'hexdump -c' 'od -A x -c -w4'; do
  echo "== $d"
  printf '%s%s\n' "$p" "$API_TOKEN" | eval "$d"
done
SH
} >"$M"

# plain TEXT: TEXT without its ANSI escape sequences, as the agent reads it.
plain() { printf '%s' "$1" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g'; }
# piece SECRET < TEXT: the first 6 bytes of SECRET that TEXT holds, as
# it is, its terminal sequences taken out, or its hex dumps decoded (an
# offset or none, bytes in hex of either case separated by spaces,
# colons or a C array's ", 0x", or words byte-swapped, as od -x prints
# them; or fields of 4 columns, as od -c prints them); "" if none.
piece() {
	python3 -c 'import re, sys
s = sys.argv[1].encode()
t = sys.stdin.buffer.read()
p = re.sub(rb"\x1b\][^\x07\x1b]*(\x07|\x1b\\\\)|(\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[ -/]+[0-~]|\x1b", b"", t)
d = e = f = g = h = b""
for l in t.splitlines():
	c = re.sub(rb"^[0-9a-fA-F]+:?", b"", l)
	h += b"".join(c[i + 3:i + 4] for i in range(0, len(c), 4))
	l = re.sub(rb",? *0[xX]", b" ", l)
	for o, w in [(0, w) for w in re.split(rb"[ :]+", re.sub(rb"^[0-9a-fA-F]+:? ", b"", l))] + [(1, w) for w in re.split(rb"[ :]+", l)]:
		if re.fullmatch(rb"(?:[0-9a-fA-F]{2})+", w):
			x = bytes.fromhex(w.decode())
			if o:
				f += x
				g += x[::-1]
			else:
				d += x
				e += x[::-1]
b = [s[i:i + 6] for i in range(len(s) - 5) if any(s[i:i + 6] in x for x in (t, p, d, e, f, g, h))]
print(b[0].decode() if b else "")' "$1"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran colour "the coloured tool ran"
n=$(printf '%s' "$out" | grep -c 'token: \[REDACTED:API_TOKEN\]')
check "both coloured lines were redacted ($n)" test "$n" -eq 2
expect_not_contains "no escape sequence is left inside the secret" "$(plain "$out")" "Lr2"
expect_not_contains "... nor the secret, its colours taken out" "$(plain "$(jr '.result.content[].text')")" "$secret"

tool_ran quoted "the quoting tool ran"
expect_contains "printf %q of the password was redacted" "$out" "token=[REDACTED:API_TOKEN]"
expect_contains "... and of the key" "$out" "key=\$'[REDACTED:SIGNING_KEY]'"
n=$(printf '%s' "$out" | grep -c "\[REDACTED:SIGNING_KEY\]'\$")
check "the key's \${KEY@Q} and declare -p were redacted ($n)" test "$n" -eq 3
expect_not_contains "no backslash-quoted piece of the password" "$out" 'Kt4\(Ym7'
expect_not_contains "... nor it, the backslashes taken out" "$(printf '%s' "$out" | tr -d '\\')" "$secret"
expect_not_contains "no line of the key" "$(jr .)" "MC4CAQAwBQYDK2VwBCIEIHq8x2"

tool_ran pin64 "the base64 tool ran"
n=$(printf '%s' "$out" | grep -c '\[REDACTED:PIN\]')
check "each of the 6 lines was redacted ($n)" test "$n" -eq 6
for p in '' x xy; do
	f=$(printf '%s%s:user\n' "$p" "$pin" | base64)
	expect_not_contains "no base64 of ${p}PIN:user" "$(jr .)" "$f"
	f=$(printf 'ci:%s%s--' "$p" "$pin" | basenc --base64url)
	expect_not_contains "... nor base64url of ci:${p}PIN--" "$(jr .)" "$f"
done
decoded=$(printf '%s\n' "$out" | while read -r l; do printf '%s' "$l" | base64 -d 2>/dev/null; printf '%s' "$l" | basenc -d --base64url 2>/dev/null; done)
expect_not_contains "... nor any line that decodes to the PIN" "$decoded" "$pin"

tool_ran dbjson "the JSON tool ran"
for k in py php go; do
	expect_contains "its $k JSON was redacted" "$out" "{\"$k\": \"[REDACTED:DB_PASSWORD]\"}"
done
decoded=$(printf '%s\n' "$out" | jq -r '.[]' 2>/dev/null)
expect_not_contains "... no line decodes to the password" "$decoded" "$dbpw"
expect_not_contains "... nor holds a piece of it" "$out" 'Zq8x'

tool_ran dumps "the hex dump tool ran"
for d in xxd 'xxd -g1 -u' 'hexdump -C' 'od -A x -t x1z' 'od -x' hexdump; do
	s=$(printf '%s\n' "$out" | sed -n "/^== $d\$/,/^==/p")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: its dump over two lines was redacted once ($n)" test "$n" -eq 1
	expect_eq "... no piece of the secret in its hex or ASCII column" \
	    "$(printf '%s' "$s" | piece "$secret")" ""
done
s=$(printf '%s\n' "$out" | sed -n '/^== python$/,$p')
n=$(printf '%s' "$s" | grep -cx '\[REDACTED:API_TOKEN\]')
check "bytes.hex(':') and .hex(' ').upper() were redacted ($n)" test "$n" -eq 2
expect_eq "no piece of the secret decodes from any dump" \
    "$(printf '%s' "$(jr .)" | piece "$secret")" ""

tool_ran term "the terminal sequence tool ran"
for l in link title sgr0 csi8 lone; do
	expect_contains "$l: the secret was redacted" "$out" "$l: [REDACTED:API_TOKEN]"
done
expect_eq "no piece of it, its terminal sequences taken out" \
    "$(printf '%s' "$out" | piece "$secret")" ""

tool_ran words "the word dump tool ran"
for d in 'od -t x2' 'od -t x4' 'od -t x8' 'xxd -e' 'od -A x -t x4z' 'xxd -e -g 8'; do
	s=$(printf '%s\n' "$out" | sed -n "/^== $d\$/,/^==/p")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: its dump in little-endian words was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of the secret, each word's bytes reversed" \
	    "$(printf '%s' "$s" | piece "$secret")" ""
done
# xxd -e prints the bytes a last word lacks as spaces.
for d in 'xxd -e' 'xxd -e -g 8' 'xxd -e -g 2' 'xxd -e -c 8'; do
	s=$(printf '%s\n' "$out" | sed -n "/^== $d, its last word cut\$/,/^==/p")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: its dump ending in a cut word was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of the secret in it" \
	    "$(printf '%s' "$s" | piece "$secret")" ""
done

tool_ran widths "the dump width tool ran"
for d in 'xxd -c 8' 'xxd -c 32' 'xxd -c 8 -g 1' 'od -A x -t x1z -w8' 'od -A x -t x1z -w32' 'od -t x1 -w8' 'od -x -w32' 'xxd, its ASCII column a hex digit'; do
	s=$(printf '%s\n' "$out" | sed -n "/^== $d\$/,/^==/p")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: its dump over lines of 8 or 32 bytes was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of the secret in its hex or ASCII column" \
	    "$(printf '%s' "$s" | piece "$secret")" ""
done

tool_ran longesc "the long escape sequence tool ran"
for l in link each; do
	expect_contains "$l: the secret was redacted" "$(plain "$out")" \
	    "$l: [REDACTED:API_TOKEN]"
done
expect_eq "no piece of it, its terminal sequences taken out" \
    "$(printf '%s' "$out" | piece "$secret")" ""

tool_ran dotted "the one-line dump tool ran"
for d in xxd 'hexdump -C' 'od -A x -t x1z' 'xxd -c 32'; do
	s=$(printf '%s\n' "$out" | sed -n "/^== $d\$/,/^==/p")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:LOGIN_PW')
	check "$d: the password's hex on one line was redacted ($n)" test "$n" -ge 1
	expect_not_contains "... and its ASCII column, the non-ASCII letter a dot" \
	    "$s" "Lm4pQ"
	expect_eq "... no piece of the password" \
	    "$(printf '%s' "$s" | piece "$upw")" ""
done

tool_ran dumpforms "the dump form tool ran"
for d in 'xxd -u' 'xxd -e -u' "hexdump -e '4/4 \"%08X \" \"\\n\"'" \
    "hexdump -e '8/2 \"%04X \" \"\\n\"'" 'xxd -i' 'xxd -i -u' 'xxd -c 4' \
    'xxd -u -c 4' 'xxd -c 6' 'od -A x -t x1z -w4' 'xxd -c 64' \
    'od -A x -t x1z -w64' 'od -c' 'od -c -w64' 'hexdump -c' \
    'od -A x -c -w4'; do
	s=$(section "$d")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: the secret in it was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of the secret in its hex or ASCII column" \
	    "$(printf '%s' "$s" | piece "$secret")" ""
done

mcp_stop
art=$(find "$sess/artifacts" -name '*-colour.log' -type f)
check "the run's output was kept as an artifact" test -s "$art"
expect_not_contains "... which holds no coloured secret" "$(plain "$(cat "$art")")" "$secret"
expect_not_contains "the audit log holds no form of it" "$(plain "$(cat "$sess/audit.jsonl")")" "$secret"
for f in "$sess"/artifacts/*-dumps.log "$sess"/artifacts/*-term.log \
    "$sess"/artifacts/*-words.log "$sess"/artifacts/*-widths.log \
    "$sess"/artifacts/*-longesc.log "$sess"/artifacts/*-dumpforms.log; do
	expect_eq "$(basename "$f") holds no piece of the secret" \
	    "$(piece "$secret" <"$f")" ""
done
f=$(find "$sess/artifacts" -name '*-dotted.log' -type f)
expect_eq "$(basename "$f") holds no piece of the password" \
    "$(piece "$upw" <"$f")" ""
if grep -rqF -e 'Kt4\(Ym7' -e MC4CAQAwBQYDK2VwBCIEIHq8x2 "$sess"; then
	fail "artifacts and audit log hold no quoted form of a secret"
else
	pass "artifacts and audit log hold no quoted form of a secret"
fi
finish
