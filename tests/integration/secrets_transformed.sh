#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it through a dump or an encoding its
# own tools give it, and the result goes to the agent.  Each form here
# came back in the clear, or in pieces the agent reads off or decodes:
#  - od -t x1 -c and od -t x1 -a print a line of characters under each
#    line of hex, od -c -t x1 a line of hex under each of characters:
#    neither form's change of line crossed the other's line, so both
#    came back, the secret's head and tail (and, where a line of hex
#    began with the character the secret's next field needed, "2e" for
#    a "2", that line was taken for the next line of characters).
#  - od -a names a byte ("sp" for a space), od -b prints each byte in
#    octal: no form of the secret looked so.
#  - a dump of 96 or 128 bytes a line (xxd -c 96, xxd -c 128, od -w128)
#    with the secret across two lines: the first
#    line's ASCII column was past the 72 bytes a match could pass, and
#    the hex came back to be decoded, its tail in the ASCII column.
#  - base32 at each of the 5 byte offsets of a longer stream, the
#    secret reversed (rev), a character a line (sed 's/./&\n/g') and a
#    space between its characters (sed 's/./& /g'), its bytes in decimal
#    as Python's list(bytes) and a Node Buffer's JSON print them.
#  - sed -n l breaks a line at 69 columns with a "\" (a 93-character
#    token printed after a label came back in two pieces), and prints a
#    key's control bytes as \ooo; cat -v and cat -A print them as ^X
#    and M-x: no form of the secret looked so.
#  - a dump of 256 bytes a line (xxd -c 256, od -w256) and od -t x1 -c
#    and od -c -t x1 of 64, the secret across two lines: past the bounds
#    a match could pass, the hex came back to be decoded.
#  - its bytes in decimal as od -t u1, od -t d1 (a key's high bytes
#    negative), hexdump -e '/1 "%d "', '/1 "%u\n"' and '/1 "%03d "' and
#    jq's indented arrays print them, hex with a bare comma between bytes (hexdump -e
#    '/1 "%02x,"'), base32hex, lowercase base32, base85 (basenc --z85,
#    Python's b85encode and a85encode) at each offset of a longer
#    stream, base58 and rot13: no form of the secret looked so.
#  - hexdump with no -v prints a run of a repeated byte once, then "*"
#    and a line break: a password with a doubled letter came back in
#    hex or decimal, the "*" for its copy.
#  - the same dumps of a value that differs from the secret in its
#    first or its last byte are left as they are.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
secret_set API_TOKEN "$secret"
long=ghp_Zq8xLr2Wv9Kt4Ym7Pn3Bc6Hd1Fs5Jg0Ae8Ui2Oy4Tx7Rw9Qe3Lk6Mn1Vb5Zc4Xa8Sd2Fg6Hj0Kl3Qw7Er1Ty5Ui9Op
secret_set LONG_TOKEN "$long"
bin=$'k\001Zq8\211x\tLr2\177Wv9&Kt4\033Ym7\377Pn3'
secret_set BIN_KEY "$bin"
doubled='bookkeeper:Zq8xLr2!!'
secret_set DOUBLED "$doubled"
ws=$(make_workspace)

M="$T/m.yaml"
{
	echo 'tools:'
	script_tool oddumps '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in 'od -t x1 -c' 'od -A n -t x1 -c' 'od -c -t x1' \
    'od -t x1 -a' 'od -t x1 -c -w4' 'od -A x -t x1 -c -w32' \
    'od -a' 'od -A n -a -w4' 'od -b' 'od -A n -b -w4'; do
  echo "== $d"
  printf 'the api token: %s\n' "$API_TOKEN" | eval "$d"
done
echo '== at each offset'
for o in $(seq 0 15); do
  for d in 'od -c -t x1' 'od -A n -t x1 -c'; do
    printf '%*s%s!\n' "$o" '' "$API_TOKEN" | $d
  done
done
SH
	script_tool wide '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in 'xxd -c 96' 'xxd -c 128' 'od -A x -t x1z -w128' \
    'od -t x1 -w128'; do
  echo "== $d"
  w=${d##* }; w=${w#-w}
  { head -c $((w - 12)) /dev/zero | tr '\0' a
    printf 'token: %s\n' "$API_TOKEN"; } | eval "$d"
done
SH
	script_tool encodings '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
echo '== base32'
for p in '' x xy xyz xyzw; do
  printf '%s%s' "$p" "$API_TOKEN" | base32
done
echo '== rev'
printf '%s\n' "$API_TOKEN" | rev
echo '== a character a line'
printf '%s\n' "$API_TOKEN" | sed 's/./&\n/g'
echo '== spaced'
printf '%s\n' "$API_TOKEN" | sed 's/./& /g'
echo '== decimal'
python3 -c 'import json, os; b = os.environb[b"API_TOKEN"]; print(list(b)); print(json.dumps({"type": "Buffer", "data": list(b)}, separators=(",", ":")))'
SH
	script_tool escaped '[ { name: LONG_TOKEN, env: LONG }, { name: BIN_KEY, env: BIN } ]' <<'SH'
echo '== sed -n l, its line broken'
printf 'the api token of the payments service: %s\n' "$LONG" | sed -n l
for d in 'sed -n l' 'cat -v' 'cat -A'; do
  echo "== $d"
  printf 'key=%s\n' "$BIN" | $d
done
SH
	script_tool wider '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in 'xxd -c 256' 'od -A x -t x1z -w256' 'od -t x1 -c -w64' \
    'od -c -t x1 -w64'; do
  echo "== $d"
  w=${d##* }; w=${w#-w}
  for o in 3 12 21; do
    { head -c $((w - o)) /dev/zero | tr '\0' a
      printf '%s!\n' "$API_TOKEN"; } | eval "$d"
  done
done
SH
	script_tool numbers '[ { name: API_TOKEN, env: API_TOKEN }, { name: BIN_KEY, env: BIN } ]' <<'SH'
for d in 'od -t u1' 'od -A n -t u1 -w5' 'od -t d1' \
    "hexdump -e '/1 \"%d \"'" "hexdump -e '/1 \"%u\\n\"'" \
    "python3 -c 'import json, sys; print(json.dumps(list(sys.stdin.buffer.read()), indent=2))'" \
    "hexdump -e '/1 \"%02x,\"'" "hexdump -e '/1 \"%02X, \"'" \
    "hexdump -e '/1 \"%03d \"'"; do
  echo "== $d"
  printf 'the api token: %s\n' "$API_TOKEN" | eval "$d"; echo
  printf 'key=%s\n' "$BIN" | eval "$d"; echo
done
SH
	python_tool bases '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'PY'
import base64, os
s = os.environb[b"API_TOKEN"]
z85 = bytes.maketrans(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~", b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
def b58(b):
    a, n, o = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", int.from_bytes(b, "big"), b""
    while n:
        n, r = divmod(n, 58)
        o = a[r:r + 1] + o
    return o
encs = {"base32hex": base64.b32hexencode, "lowercase base32": lambda b: base64.b32encode(b).lower(),
    "z85": lambda b: base64.b85encode(b).translate(z85), "b85encode": base64.b85encode, "a85encode": base64.a85encode}
for name, enc in encs.items():
    print("==", name)
    for p in (b"", b"x", b"xy", b"xyz", b"xyzw"):
        print(enc(p + s + b"\n").decode())
print("== base58")
print(b58(s).decode())
PY
	cat <<'YAML'
  - name: rot13
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command: [ bash, -c, 'printf "%s\n" "$API_TOKEN" | tr A-Za-z N-ZA-Mn-za-m' ]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML
	script_tool squeezed '[ { name: DOUBLED, env: PW } ]' <<'SH'
for d in "hexdump -e '/1 \"%02x \"'" "hexdump -e '/1 \"%d,\"'" \
    "hexdump -e '/1 \"%02x,\"'"; do
  echo "== $d"
  printf 'the password: %s\n' "$PW" | eval "$d"; echo
  printf 'bb%s!\n' "$PW" | eval "$d"; echo
done
SH
	script_tool nearmiss '[]' <<'SH'
for v in 'Zq8x Lr2$Wv9&Kt4(Ym7)Pn4' 'Yq8x Lr2$Wv9&Kt4(Ym7)Pn3'; do
  for d in 'od -t u1' "hexdump -e '/1 \"%d \"'" \
      "hexdump -e '/1 \"%02x,\"'" 'basenc --base32hex' \
      'tr A-Za-z N-ZA-Mn-za-m' 'basenc --z85' 'xxd -c 256'; do
    printf '%s!!!\n' "$v" | eval "$d"
  done
  printf '%s' "$v" | python3 -c 'import base64, sys; b = sys.stdin.buffer.read(); print(base64.b85encode(b).decode(), base64.a85encode(b).decode(), list(b))'
done
SH
} >"$M"

# leak SECRET < TEXT: the first 6 bytes of SECRET that TEXT holds, read
# off or decoded: as it is, reversed, its blanks taken out (spaced
# characters, od -c's and od -a's fields), the hex or octal bytes of its
# lines joined across the lines that hold none (od -t x1 -c), or a
# line's base32, sed -n l's escapes and broken lines undone, cat -v's
# ^X and M-x undone; "" if none.
leak() {
	python3 -c 'import base64, os, re, sys
s = os.fsencode(sys.argv[1])
t = sys.stdin.buffer.read()
views = [t, t[::-1], re.sub(rb"\s+", b"", t)]
sed = {b"a": 7, b"b": 8, b"f": 12, b"r": 13, b"t": 9, b"v": 11, b"\\": 92}
views.append(re.sub(rb"\\([0-7]{3}|[abfrtv\\])", lambda m: bytes([int(m[1], 8) & 0xff if len(m[1]) == 3 else sed[m[1]]]), t.replace(b"\\\n", b"")))
views.append(re.sub(rb"(M-)?(\^[?@-_]|[\x00-\xff])", lambda m: bytes([((127 if m[2] == b"^?" else m[2][1] - 64) if m[2][:1] == b"^" and len(m[2]) == 2 else m[2][0]) | (128 if m[1] else 0)]), t))
hx = oc = b""
for l in t.splitlines():
	w = l.split()
	if w and re.fullmatch(rb"[0-9a-fA-F]{5,}:?", w[0]):
		w = w[1:]
	for x in w:
		if re.fullmatch(rb"(?:[0-9a-fA-F]{2}){1,2}", x):
			hx += bytes.fromhex(x.decode())
		elif re.fullmatch(rb"[0-7]{3}", x):
			oc += bytes([int(x, 8) & 0xff])
	for x in re.findall(rb"[A-Z2-7]{8,}=*", l):
		try:
			views.append(base64.b32decode(x + b"=" * (-len(x) % 8)))
		except Exception:
			pass
views += [hx, oc]
views.append(t.translate(bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", b"NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm")))
dec = [int(x) for x in re.findall(rb"(?<![0-9])-?[0-9]{1,3}(?![0-9])", t)]
views.append(bytes(x & 0xff for x in dec if -128 <= x <= 255))
z85 = bytes.maketrans(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#", b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~")
for x in t.split():
	for f in (lambda x: base64.b32hexdecode(x + b"=" * (-len(x) % 8)), lambda x: base64.b32decode(x.upper() + b"=" * (-len(x) % 8)), base64.b85decode, base64.a85decode, lambda x: base64.b85decode(x.translate(z85)), lambda x: (lambda n: n.to_bytes((n.bit_length() + 7) // 8, "big"))(sum(b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".index(c) * 58 ** i for i, c in enumerate(reversed(x))))):
		try:
			views.append(f(x))
		except Exception:
			pass
b = [s[i:i + 6] for i in range(len(s) - 5) if any(s[i:i + 6] in v for v in views)]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran oddumps "the od tool ran"
redacted_sections 1 API_TOKEN "$secret" 'od -t x1 -c' 'od -A n -t x1 -c' \
    'od -c -t x1' 'od -t x1 -a' 'od -t x1 -c -w4' 'od -A x -t x1 -c -w32' \
    'od -a' 'od -A n -a -w4' 'od -b' 'od -A n -b -w4'

s=$(section 'at each offset')
n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
check "od -c -t x1 and od -t x1 -c at each of 16 offsets were redacted ($n)" test "$n" -eq 32
expect_eq "... no piece of it in any" "$(printf '%s' "$s" | leak "$secret")" ""

tool_ran wide "the wide dump tool ran"
redacted_sections 1 API_TOKEN "$secret" 'xxd -c 96' 'xxd -c 128' \
    'od -A x -t x1z -w128' 'od -t x1 -w128'

tool_ran encodings "the encoding tool ran"
n=$(section base32 | grep -c 'REDACTED:API_TOKEN')
check "base32 at each of 5 offsets was redacted ($n)" test "$n" -eq 5
for d in rev 'a character a line' spaced; do
	n=$(section "$d" | grep -c 'REDACTED:API_TOKEN')
	check "$d: the secret was redacted ($n)" test "$n" -eq 1
done
s=$(section decimal)
expect_contains "Python's list(bytes) was redacted" "$s" '[[REDACTED:API_TOKEN]]'
expect_contains "... and a Buffer's JSON" "$s" '"data":[[REDACTED:API_TOKEN]]'
expect_eq "no piece of it, decoded, reversed or its blanks taken out" \
    "$(printf '%s' "$out" | leak "$secret")" ""

tool_ran escaped "the escaping tool ran"
n=$(section 'sed -n l, its line broken' | grep -c 'REDACTED:LONG_TOKEN')
check "sed -n l of the long token over two lines was redacted ($n)" test "$n" -eq 1
expect_eq "... no piece of it, its lines joined" \
    "$(section 'sed -n l, its line broken' | leak "$long")" ""
for d in 'sed -n l' 'cat -v' 'cat -A'; do
	n=$(section "$d" | grep -c 'REDACTED:BIN_KEY')
	check "$d: the key's escaped control bytes were redacted ($n)" test "$n" -eq 1
	expect_eq "... no piece of it, its escapes undone" \
	    "$(section "$d" | leak "$bin")" ""
done

mcp_call wider '{}'
expect_ok_result "the wider dump tool ran"
# (over the result's cap: its artifact, the whole output, redacted)
out=$(cat "$sess"/artifacts/*-wider.log)
# (the secret across two lines at 3 offsets)
redacted_sections 3 API_TOKEN "$secret" 'xxd -c 256' 'od -A x -t x1z -w256' \
    'od -t x1 -c -w64' 'od -c -t x1 -w64'

tool_ran numbers "the decimal and comma dump tool ran"
set -- 'od -t u1' 'od -A n -t u1 -w5' 'od -t d1' "hexdump -e '/1 \"%d \"'" \
    "hexdump -e '/1 \"%u\\n\"'" \
    "python3 -c 'import json, sys; print(json.dumps(list(sys.stdin.buffer.read()), indent=2))'" \
    "hexdump -e '/1 \"%02x,\"'" "hexdump -e '/1 \"%02X, \"'" \
    "hexdump -e '/1 \"%03d \"'"
redacted_sections 1 API_TOKEN "$secret" "$@"
redacted_sections 1 BIN_KEY "$bin" "$@"

tool_ran bases "the base32hex, base85 and base58 tool ran"
for d in base32hex 'lowercase base32' z85 b85encode a85encode; do
	n=$(section "$d" | grep -c 'REDACTED:API_TOKEN')
	check "$d at each of 5 offsets was redacted ($n)" test "$n" -eq 5
done
n=$(section base58 | grep -c 'REDACTED:API_TOKEN')
check "base58 was redacted ($n)" test "$n" -eq 1
expect_eq "no piece of it, decoded" "$(printf '%s' "$out" | leak "$secret")" ""

tool_ran squeezed "the squeezed dump tool ran"
# (hexdump prints a repeated byte once, then "*" and a line break)
redacted_sections 2 DOUBLED "$doubled" "hexdump -e '/1 \"%02x \"'" \
    "hexdump -e '/1 \"%d,\"'" "hexdump -e '/1 \"%02x,\"'"
expect_not_contains "... none of its bytes' hex left before a \"*\"" "$out" '62 6f *'

tool_ran rot13 "the rot13 tool ran"
expect_eq "rot13 of the secret was redacted" "$out" '[REDACTED:API_TOKEN]'

near_miss_left "dumps of a value a byte off the secret are left as they are" 16

mcp_stop
# (the near-miss tool's command, in its runner_start, is a byte off it)
expect_eq "the audit log holds no piece of the secret" \
    "$(grep -vF "for v in 'Zq8x Lr2" "$sess/audit.jsonl" | leak "$secret")" ""
for t in wider numbers bases rot13; do
	expect_contains "$t's artifact, the audited run's output, holds it redacted" \
	    "$(cat "$sess"/artifacts/*-$t.log)" '[REDACTED:'
done
for t in oddumps wide encodings escaped wider numbers bases rot13; do
	artifact_clean $t "$secret" "the secret"
done
finish
