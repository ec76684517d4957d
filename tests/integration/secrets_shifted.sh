#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it through a transformation its own
# tools give it, and the result goes to the agent.  Each form here came
# back for the agent to decode:
#  - rot47 (tr '!-~' 'P-~!-O') and Caesar shifts of the letters other
#    than rot13 (tr A-Za-z D-ZA-Cd-za-c, tr A-Za-z B-ZAb-za);
#  - lowercase base32hex (basenc --base32hex | tr A-Z a-z), alone and
#    at each of the 5 byte offsets of a longer stream;
#  - the numbers of little-endian words of 2 and 4 bytes, in decimal
#    (od -d, od -t u2, od -t d2, od -t u4, od -i, hexdump -d, hexdump -e
#    '/2 "%u "') and octal (od, od -o, hexdump -o), and the bytes' octal
#    unpadded (hexdump -e '/1 "%o "'), a key's high bytes in signed
#    words negative;
#  - od -b -c (its octal bytes, a line of characters under each line)
#    is pinned here: od -b alone is caught by the octal list too;
#  - hexdump -x: its hex words with 4 spaces between two and after a
#    line's offset, past the 2 and 3 a hex dump had;
#  - its bits (basenc --base2msbf, --base2lsbf), at each offset;
#  - hexdump's "*" for a repeated byte (a password's doubled letter) in
#    a decimal dump that ends the output: shorter than the form, it was
#    not tried.
# The same of a value a byte off the secret is left as it is.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
secret_set API_TOKEN "$secret"
bin=$'k\001Zq8\211x\tLr2\177Wv9&Kt4\033Ym7\377Pn3'
secret_set BIN_KEY "$bin"
doubled='bookkeeper:Zq8xLr2!!'
secret_set DOUBLED "$doubled"
ws=$(make_workspace)

M="$T/m.yaml"
{
	echo 'tools:'
	script_tool shifted '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in "tr '!-~' 'P-~!-O'" 'tr A-Za-z D-ZA-Cd-za-c' \
    'tr A-Za-z B-ZAb-za' 'tr A-Za-z ZA-Yza-y'; do
  echo "== $d"
  printf 'the api token: %s!\n' "$API_TOKEN" | eval "$d"
done
for d in 'basenc --base2msbf' 'basenc --base2lsbf'; do
  echo "== $d"
  for p in '' x xy xyz; do
    printf '%s%s!\n' "$p" "$API_TOKEN" | $d
  done
done
echo '== base32hex'
for p in '' x xy xyz xyzw; do
  printf '%s%s!\n' "$p" "$API_TOKEN" | basenc --base32hex | tr A-Z a-z
done
SH
	script_tool words '[ { name: API_TOKEN, env: API_TOKEN }, { name: BIN_KEY, env: BIN } ]' <<'SH'
for d in 'od -b -c' 'od' 'od -d' 'od -t u2' 'od -t d2' 'od -t u4' 'od -i' 'od -o' \
    'hexdump -d' 'hexdump -o' "hexdump -e '/2 \"%u \"'" \
    "hexdump -e '/1 \"%o \"'" 'hexdump -x'; do
  echo "== $d"
  for o in 0 1 2 3; do
    printf '%*s%s!\n' "$o" '' "$API_TOKEN" | eval "$d"; echo
  done
  printf 'key=%s!\n' "$BIN" | eval "$d"; echo
  printf 'k=%s!\n' "$BIN" | eval "$d"; echo
done
SH
	cat <<'YAML'
  - name: squeezed
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: [ bash, -c, 'printf %s "$PW" | hexdump -e "/1 \"%d \""' ]
    secrets: [ { name: DOUBLED, env: PW } ]
YAML
	script_tool nearmiss '[]' <<'SH'
for v in 'Zq8x Lr2$Wv9&Kt4(Ym7)Pn4' 'Yq8x Lr2$Wv9&Kt4(Ym7)Pn3'; do
  for d in "tr '!-~' 'P-~!-O'" 'tr A-Za-z D-ZA-Cd-za-c' \
      'basenc --base32hex | tr A-Z a-z' 'od -d' 'od -t u4' 'od -o' \
      "hexdump -e '/1 \"%o \"'"; do
    printf '%s!!!\n' "$v" | eval "$d"
  done
done
SH
} >"$M"

# leak SECRET < TEXT: the first 6 bytes of SECRET that TEXT holds,
# decoded: shifted back (rot47, each of the 25 letter shifts), as
# lowercase base32hex, or its numbers as little-endian words of 1, 2 or
# 4 bytes in decimal, octal or (2) hex (a line's offset left out); ""
# if none.
leak() {
	python3 -c 'import base64, os, re, sys
s = os.fsencode(sys.argv[1])
t = sys.stdin.buffer.read()
views = [t, t.translate(bytes.maketrans(bytes(range(33, 127)), bytes(range(80, 127)) + bytes(range(33, 80))))]
up, lo = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz"
for k in range(1, 26):
	views.append(t.translate(bytes.maketrans(up + lo, up[k:] + up[:k] + lo[k:] + lo[:k])))
for x in t.split():
	try:
		views.append(base64.b32hexdecode(x.upper() + b"=" * (-len(x) % 8)))
	except Exception:
		pass
bits = re.sub(rb"[^01]", b"", t)
for o in range(8):
	b = bits[o:]
	views.append(bytes(int(b[i:i + 8], 2) for i in range(0, len(b) - 7, 8)))
	views.append(bytes(int(b[i:i + 8][::-1], 2) for i in range(0, len(b) - 7, 8)))
for base, w in ((10, 1), (10, 2), (10, 4), (8, 1), (8, 2), (8, 4), (16, 1), (16, 2)):
	v = b""
	for l in t.splitlines():
		f = l.split()
		if len(f) > 1 and re.fullmatch(rb"0[0-7]{6}", f[0]):
			f = f[1:]
		for x in f:
			try:
				n = int(x, base)
			except ValueError:
				continue
			n += (1 << 8 * w) if n < 0 else 0
			if 0 <= n < 1 << 8 * w:
				v += n.to_bytes(w, "little")
	views.append(v)
b = [s[i:i + 6] for i in range(len(s) - 5) if any(s[i:i + 6] in v for v in views)]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran shifted "the shifting tool ran"
redacted_sections 1 API_TOKEN "$secret" "tr '!-~' 'P-~!-O'" \
    'tr A-Za-z D-ZA-Cd-za-c' 'tr A-Za-z B-ZAb-za' 'tr A-Za-z ZA-Yza-y'
redacted_sections 5 API_TOKEN "$secret" base32hex
redacted_sections 4 API_TOKEN "$secret" 'basenc --base2msbf' \
    'basenc --base2lsbf'

tool_ran words "the word dump tool ran"
set -- 'od -b -c' 'od' 'od -d' 'od -t u2' 'od -t d2' 'od -t u4' 'od -i' 'od -o' \
    'hexdump -d' 'hexdump -o' "hexdump -e '/2 \"%u \"'" \
    "hexdump -e '/1 \"%o \"'" 'hexdump -x'
# (the token at 4 offsets, the key at 2)
redacted_sections 4 API_TOKEN "$secret" "$@"
redacted_sections 2 BIN_KEY "$bin" "$@"

tool_ran squeezed "the squeezed dump tool ran"
# (its output ends with the password: "... 111 *\n107 *\n...33 *\n")
expect_eq "a squeezed decimal dump that ends the output was redacted" \
    "$out" '[REDACTED:DOUBLED]'

near_miss_left "a value a byte off the secret is left as it is" 20

mcp_stop
expect_eq "the audit log holds no piece of the secret" \
    "$(grep -vF "for v in 'Zq8x Lr2" "$sess/audit.jsonl" | leak "$secret")" ""
for t in shifted words; do
	artifact_clean $t "$secret" "the secret"
done
artifact_clean squeezed "$doubled" "the password"
finish
