#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it through a transformation its own
# tools give it, and the result goes to the agent.  Each form here came
# back for the agent to decode:
#  - its letters all raised or all lowered (tr a-z A-Z, tr A-Z a-z):
#    the secret up to the case of its letters, in the clear;
#  - every byte escaped, its hex after a prefix: a URL's percent-
#    encoding (%5a%71, %5A%71), quoted-printable's (=5A=71), JSON's and
#    JavaScript's \u00XX, HTML's hex entities (&#x5a;&#x71;); its
#    decimal as HTML's entities (&#90;&#113;) and its octal as C's and
#    printf's escapes (\132\161), also of a secret whose first byte's
#    octal has a leading zero ("+": \053; a form's third byte that was
#    no gap a decimal form takes ended the try);
#  - its bits with a space between bytes, in lines with an offset and
#    an ASCII column (xxd -b, xxd -b -c 1, xxd -b -c 4), and of a key
#    of 124 characters a byte or two a line, a "0" or "1" among them
#    past its 64th line (each line's offset had been tried as the next
#    line's bits, and no try was left for the ASCII column's "0");
#  - quoted-printable (python3 -m quopri): a key's "=" as "=3D", and a
#    soft line break ("=" and a line break) at 76 columns inside it,
#    after its first character too, and before a "=3D".
# The same of a value a byte off the secret is left as it is.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
secret_set API_TOKEN "$secret"
key='dGhpcyBpcyBhIHRva2VuIG9mIHNvbWUgbGVuZ3RoIGFuZCBtb3JlIHRoYW4gc2V2ZW50eSBzaXggY2hhcnM=='
secret_set QP_KEY "$key"
long='Q7vT2mXp9LrW4cYh8NbK3fZs6GjD5aUe1HqR0wEo7iSx2yVn4tBk9PcM3lAg6dFu8zJr5OvI1sWq0eTm7hXb2nCy4pLk9aGd3jRf6uZs8wVt5oYe1iQh0mNx7cBp'
secret_set LONG_KEY "$long"
lead='+1x Lr2$Wv9&Kt4'
secret_set LEAD "$lead"
ws=$(make_workspace)

# The escapes, each a filter of bytes to one line (od and awk: a
# runner's own tools), shared by the tools below.
escapes='
hexes() { od -A n -v -t x1 | tr -d " \n"; }
esc() { case $1 in
  pct) hexes | sed "s/../%&/g" ;;
  PCT) hexes | tr a-f A-F | sed "s/../%&/g" ;;
  qp) hexes | tr a-f A-F | sed "s/../=&/g" ;;
  json) hexes | sed "s/../\\\\u00&/g" ;;
  htmlx) hexes | sed "s/../\&#x&;/g" ;;
  html) od -A n -v -t u1 | awk "{ for (i = 1; i <= NF; i++) printf \"&#%d;\", \$i }" ;;
  oct) od -A n -v -t o1 | awk "{ for (i = 1; i <= NF; i++) printf \"\\\\%s\", \$i }" ;;
  esac; echo; }
'

M="$T/m.yaml"
{
	echo 'tools:'
	script_tool cased '[ { name: API_TOKEN, env: API_TOKEN } ]' <<'SH'
for d in 'tr a-z A-Z' 'tr A-Z a-z'; do
  echo "== $d"
  printf 'the api token: %s!\n' "$API_TOKEN" | $d
done
SH
	script_tool escaped '[ { name: API_TOKEN, env: API_TOKEN }, { name: LEAD, env: LEAD } ]' "$escapes" <<'SH'
for e in pct PCT qp json htmlx html oct; do
  echo "== $e"
  for p in '' x; do
    printf '%s%s!' "$p" "$API_TOKEN" | esc $e
  done
done
echo '== lead'
for e in oct html; do
  printf '%s' "$LEAD" | esc $e
done
SH
	script_tool bits '[ { name: API_TOKEN, env: API_TOKEN }, { name: LONG_KEY, env: LONG } ]' <<'SH'
for d in 'xxd -b' 'xxd -b -c 1' 'xxd -b -c 4'; do
  echo "== $d"
  for p in '' x xy; do
    printf '%s%s!\n' "$p" "$API_TOKEN" | $d
  done
done
echo '== long'
printf '%s!\n' "$LONG" | xxd -b -c 1
printf 'x%s!\n' "$LONG" | xxd -b -c 2
SH
	script_tool quopri '[ { name: API_TOKEN, env: API_TOKEN }, { name: QP_KEY, env: KEY } ]' <<'SH'
echo '== token'
for o in 0 55 60 65 70 74; do
  printf '%*s%s!\n' "$o" '' "$API_TOKEN" | python3 -m quopri
done
echo '== key'
for o in 0 10 40 56 59 68; do
  printf 'key=%*s%s\n' "$o" '' "$KEY" | python3 -m quopri
done
SH
	script_tool nearmiss '[]' "$escapes" <<'SH'
for v in 'Zq8x Lr2$Wv9&Kt4(Ym7)Pn4' 'Yq8x Lr2$Wv9&Kt4(Ym7)Pn3'; do
  printf '%s\n' "$v" | tr a-z A-Z
  for e in pct PCT qp json htmlx html oct; do
    printf '%s' "$v" | esc $e
  done
  printf '%s\n' "$v" | xxd -b
done
for v in 'dGhpcyBpcyBhIHRva2VuIG9mIHNvbWUgbGVuZ3RoIGFuZCBtb3JlIHRoYW4gc2V2ZW50eSBzaXggY2hhcnM='; do
  printf 'key=%*s%s\n' 40 '' "$v" | python3 -m quopri
done
SH
} >"$M"

# leak SECRET < TEXT: the first 6 bytes of SECRET that TEXT holds,
# decoded: raised (the text raised too), each escape's bytes read back
# (%XX, =XX, \u00XX, &#xXX;, &#DD;, \ooo), the bits of xxd -b's
# groups, quoted-printable; "" if none.
leak() {
	python3 -c 'import os, quopri, re, sys
s = os.fsencode(sys.argv[1])
t = sys.stdin.buffer.read()
views = [t, quopri.decodestring(t)]
up = s.upper()
for pre in (b"%", b"=", b"\\u00", b"&#x"):
	views.append(bytes(int(x, 16) for x in re.findall(re.escape(pre) + rb"([0-9a-fA-F]{2})", t)))
views.append(bytes(int(x) % 256 for x in re.findall(rb"&#([0-9]+);", t)))
views.append(bytes(int(x, 8) % 256 for x in re.findall(rb"\\([0-7]{1,3})", t)))
views.append(bytes(int(x, 2) for x in re.findall(rb"\b([01]{8})\b", t)))
b = [s[i:i + 6] for i in range(len(s) - 5)
     if any(s[i:i + 6] in v for v in views) or up[i:i + 6] in t.upper()]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran cased "the case-folding tool ran"
redacted_sections 1 API_TOKEN "$secret" 'tr a-z A-Z' 'tr A-Z a-z'

tool_ran escaped "the escaping tool ran"
redacted_sections 2 API_TOKEN "$secret" pct PCT qp json htmlx html oct
redacted_sections 2 LEAD "$lead" lead

tool_ran bits "the bits tool ran"
redacted_sections 3 API_TOKEN "$secret" 'xxd -b' 'xxd -b -c 1' 'xxd -b -c 4'
redacted_sections 2 LONG_KEY "$long" long

tool_ran quopri "the quoted-printable tool ran"
redacted_sections 6 API_TOKEN "$secret" token
redacted_sections 6 QP_KEY "$key" key

near_miss_left "a value a byte off the secret is left as it is" 20

mcp_stop
for t in cased escaped bits quopri; do
	artifact_clean $t "$secret" "the secret"
done
artifact_clean quopri "$key" "the key"
artifact_clean bits "$long" "the long key"
finish
