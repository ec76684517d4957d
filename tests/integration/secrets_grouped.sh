#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it through a transformation its own
# tools give it, and the result goes to the agent.  Each form here came
# back for the agent to decode:
#  - the numbers of its little-endian words of 8 bytes (od -t u8, od -t
#    d8, od -l, od -A n -t u8 -w8), at each of the 8 byte offsets: no
#    form of the secret looked so (the bytes of a word it shares with
#    its neighbours, up to 7 at each end, stay: docs/AUDIT.md);
#  - base64, base32 and Ascii85 printed in groups: a space or a "-"
#    every 4 characters (sed 's/..../& /g', a TOTP key's "JBSW Y3DP"),
#    a space after every character, groups of 4 broken into lines with
#    the space at the end of each (fold -w 20), at each byte offset of
#    a longer stream: a radix text matched a line break between two
#    characters, no other separator;
#  - base64 and base32 of a key of 100 characters, broken into lines
#    and then printed as a JSON string, each line break escaped ("\n",
#    "\r\n": jq -Rs . of base64(1)'s lines, Python's json.dumps() of
#    base64.encodebytes()), and its hex (xxd -p) and bits (basenc
#    --base2msbf -w 64) the same way, each break between two bytes.
# The same of a value a byte off the secret (its first, or one in the
# middle: the last character of an encoding that cuts a byte may show
# only its high bits) is left as it is, and what the agent gets and the
# artifacts hold no piece of the secret.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
secret_set API_TOKEN "$secret"
long='Q7vT2mXp9LrW4cYh8NbK3fZs6GjD5aUe1HqR0wEo7iSx2yVn4tBk9PcM3lAg6dFu8zJr5OvI1sWq0eTm7hXb2nCy4pLk9aGd3jRf'
secret_set LONG_KEY "$long"
ws=$(make_workspace)

# The tools' transformations, shared with the near-miss tool.
forms='
a85() { python3 -c "import base64, sys; print(base64.a85encode(sys.stdin.buffer.read()).decode())"; }
grouped() { case $1 in
  b64sp) base64 -w0 | sed "s/..../& /g" ;;
  b64dash) base64 -w0 | sed "s/..../&-/g" ;;
  b64each) base64 -w0 | sed "s/./& /g" ;;
  b64fold) base64 -w0 | sed "s/..../& /g" | fold -w 20 ;;
  b32totp) base32 -w0 | sed "s/..../& /g" ;;
  a85sp) a85 | sed "s/...../& /g" ;;
  esac; echo; }
'
M="$T/m.yaml"
{
	echo 'tools:'
	script_tool words8 '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in 'od -t u8' 'od -t d8' 'od -l' 'od -A n -t u8 -w8'; do
  echo "== $d"
  for o in 0 1 2 3 4 5 6 7; do
    printf '%*s%s!' "$o" '' "$API_TOKEN" | $d
  done
done
SH
	script_tool grouped '[ { name: API_TOKEN, env: API_TOKEN } ]' "$forms" <<'SH'
for g in b64sp b64dash b64each b64fold b32totp a85sp; do
  echo "== $g"
  for p in '' x xy xyz xyzw; do
    printf '%s%s!' "$p" "$API_TOKEN" | grouped $g
  done
done
SH
	script_tool jsoned '[ { name: LONG_KEY, env: KEY } ]' <<'SH'
for e in jq python crlf b32 hex bits; do
  echo "== $e"
  for p in '' x xy; do
    case $e in
    jq) printf '%s%s\n' "$p" "$KEY" | base64 | jq -Rs . ;;
    python) printf '%s%s' "$p" "$KEY" | python3 -c 'import base64, json, sys; print(json.dumps({"key": base64.encodebytes(sys.stdin.buffer.read()).decode()}))' ;;
    crlf) printf '%s%s' "$p" "$KEY" | base64 -w 40 | sed 's/$/\r/' | jq -Rs . ;;
    b32) printf '%s%s' "$p" "$KEY" | base32 | jq -Rs . ;;
    hex) printf '%s%s' "$p" "$KEY" | xxd -p | jq -Rs . ;;
    bits) printf '%s%s' "$p" "$KEY" | basenc --base2msbf -w 64 | jq -Rs . ;;
    esac
  done
done
SH
	script_tool nearmiss '[]' "$forms" <<'SH'
for v in 'Zq8x Lr2$Wv9&Kt5(Ym7)Pn3' 'Yq8x Lr2$Wv9&Kt4(Ym7)Pn3'; do
  printf '%s' "$v" | od -t u8
  for g in b64sp b64dash b64each b64fold b32totp a85sp; do
    printf '%s' "$v" | grouped $g
  done
done
SH
} >"$M"

# leak SECRET < TEXT: the first piece of SECRET, of 8 bytes, that TEXT
# holds: read off the numbers of od's words of 8 bytes, or encoded (a
# piece of 8 characters of its base64, base32 or Ascii85 at any byte
# offset, of 8 bytes of its hex or bits, the separators and escaped
# line breaks taken out); "" if none.
leak() {
	python3 -c 'import base64, os, re, sys
s = os.fsencode(sys.argv[1])
t = sys.stdin.buffer.read()
words = b"".join((int(x) % 2**64).to_bytes(8, "little")
    for x in re.findall(rb"-?\d{10,}", t))
b = [s[i:i + 8] for i in range(len(s) - 7) if s[i:i + 8] in words]
bare = re.sub(rb"[ \n-]", b"", re.sub(rb"\\[rn]", b"", t))
hexed = lambda v: v.hex().encode()
bits = lambda v: "".join("{:08b}".format(c) for c in v).encode()
for enc, w in ((base64.b64encode, 8), (base64.b32encode, 8),
    (base64.a85encode, 8), (hexed, 16), (bits, 64)):
	for k in range(5):
		e = enc(b"\0" * k + s)
		b += [e[i:i + w] for i in range(8, len(e) - 4 - w)
		    if e[i:i + w] in bare]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran words8 "the words tool ran"
redacted_sections 8 API_TOKEN "$secret" 'od -t u8' 'od -t d8' 'od -l' \
    'od -A n -t u8 -w8'

tool_ran grouped "the grouping tool ran"
redacted_sections 5 API_TOKEN "$secret" b64sp b64dash b64each b64fold \
    b32totp a85sp

tool_ran jsoned "the JSON tool ran"
redacted_sections 3 LONG_KEY "$long" jq python crlf b32 hex bits

near_miss_left "a value a byte off the secret is left as it is" 14

mcp_stop
for t in words8 grouped; do
	artifact_clean $t "$secret" "the secret"
done
artifact_clean jsoned "$long" "the long key"
finish
