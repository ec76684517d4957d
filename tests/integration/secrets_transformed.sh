#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret prints it through a dump or an encoding its
# own tools give it, and the result goes to the agent.  Each form here
# came back in the clear, or in pieces the agent reads off or decodes:
#  - od -t x1 -c and od -t x1 -a print a line of characters under each
#    line of hex, od -c -t x1 a line of hex under each of characters:
#    neither form's change of line crossed the other's line, so both
#    came back, the secret's head and tail.
#  - od -a names a byte ("sp" for a space), od -b prints each byte in
#    octal: no form of the secret looked so.
#  - a dump of 128 or 256 bytes a line (xxd -c 128, xxd -c 256,
#    od -w128, od -w256) with the secret across two lines: the first
#    line's ASCII column was past the 72 bytes a match could pass, and
#    the hex came back to be decoded, its tail in the ASCII column.
#  - base32 at each of the 5 byte offsets of a longer stream, the
#    secret reversed (rev), a character a line (sed 's/./&\n/g') and a
#    space between its characters (sed 's/./& /g').
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
secret='Zq8x Lr2$Wv9&Kt4(Ym7)Pn3'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
ws=$(make_workspace)

M="$T/m.yaml"
cat >"$M" <<'YAML'
tools:
  - name: oddumps
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command:
      - bash
      - -c
      - |
        for d in 'od -t x1 -c' 'od -A n -t x1 -c' 'od -c -t x1' \
            'od -t x1 -a' 'od -t x1 -c -w4' 'od -A x -t x1 -c -w64' \
            'od -a' 'od -A n -a -w4' 'od -b' 'od -A n -b -w4'; do
          echo "== $d"
          printf 'token: %s\n' "$API_TOKEN" | eval "$d"
        done
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: wide
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command:
      - bash
      - -c
      - |
        for d in 'xxd -c 128' 'od -A x -t x1z -w128' 'xxd -c 256' \
            'od -A x -t x1z -w256' 'od -t x1 -w256'; do
          echo "== $d"
          w=${d##* }; w=${w#-w}
          { head -c $((w - 12)) /dev/zero | tr '\0' a
            printf 'token: %s\n' "$API_TOKEN"; } | eval "$d"
        done
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: encodings
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    command:
      - bash
      - -c
      - |
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
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
YAML

# leak SECRET < TEXT: the first 6 bytes of SECRET that TEXT holds, read
# off or decoded: as it is, reversed, its blanks taken out (spaced
# characters, od -c's and od -a's fields), the hex or octal bytes of its
# lines joined across the lines that hold none (od -t x1 -c), or a
# line's base32; "" if none.
leak() {
	python3 -c 'import base64, re, sys
s = sys.argv[1].encode()
t = sys.stdin.buffer.read()
views = [t, t[::-1], re.sub(rb"\s+", b"", t)]
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
b = [s[i:i + 6] for i in range(len(s) - 5) if any(s[i:i + 6] in v for v in views)]
print(b[0].decode() if b else "")' "$1"
}
# section NAME: the lines of $out after "== NAME", up to the next "==".
section() { printf '%s\n' "$out" | h="== $1" awk '$0 == ENVIRON["h"] { on = 1; next } /^== / { on = 0 } on'; }

mcp_start "$M" "$ws"
sess=$(newest_session)

mcp_call oddumps '{}'
expect_ok_result "the od tool ran"
out=$(jr .result.structuredContent.stdout)
for d in 'od -t x1 -c' 'od -A n -t x1 -c' 'od -c -t x1' 'od -t x1 -a' \
    'od -t x1 -c -w4' 'od -A x -t x1 -c -w64' 'od -a' 'od -A n -a -w4' \
    'od -b' 'od -A n -b -w4'; do
	s=$(section "$d")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: the secret in it was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of it in its hex, octal or characters" \
	    "$(printf '%s' "$s" | leak "$secret")" ""
done

mcp_call wide '{}'
expect_ok_result "the wide dump tool ran"
out=$(jr .result.structuredContent.stdout)
for d in 'xxd -c 128' 'od -A x -t x1z -w128' 'xxd -c 256' \
    'od -A x -t x1z -w256' 'od -t x1 -w256'; do
	s=$(section "$d")
	n=$(printf '%s' "$s" | grep -c 'REDACTED:API_TOKEN')
	check "$d: the secret across its two lines was redacted ($n)" test "$n" -ge 1
	expect_eq "... no piece of it in its hex or ASCII column" \
	    "$(printf '%s' "$s" | leak "$secret")" ""
done

mcp_call encodings '{}'
expect_ok_result "the encoding tool ran"
out=$(jr .result.structuredContent.stdout)
n=$(section base32 | grep -c 'REDACTED:API_TOKEN')
check "base32 at each of 5 offsets was redacted ($n)" test "$n" -eq 5
for d in rev 'a character a line' spaced; do
	n=$(section "$d" | grep -c 'REDACTED:API_TOKEN')
	check "$d: the secret was redacted ($n)" test "$n" -eq 1
done
expect_eq "no piece of it, decoded, reversed or its blanks taken out" \
    "$(printf '%s' "$out" | leak "$secret")" ""

mcp_stop
for f in "$sess"/artifacts/*-oddumps.log "$sess"/artifacts/*-wide.log \
    "$sess"/artifacts/*-encodings.log; do
	expect_eq "$(basename "$f") holds no piece of the secret" \
	    "$(leak "$secret" <"$f")" ""
done
finish
