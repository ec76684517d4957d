#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a key of several lines (a PEM private key) prints a
# config that holds it in an indented block, as a YAML block scalar
# does ("key: |", each line 4 spaces or a tab in: helm template, a
# compose file, a rendered config), or its base64 in indented lines
# (base64 | sed 's/^/    /', a YAML folded value).  No form of the key
# matched across an indent, and it came back whole, in the clear or for
# the agent to decode; so did the key commented out ("# ", "// ") or
# quoted ("> ") a line at a time, and printed with "\r\n" line breaks
# (unix2dos, a MIME body).  Now the key's lines may be indented, and a
# radix text's, up to 16 bytes of blanks and those marks, and its
# breaks be "\r\n"; the same of a key a byte off is left as it is.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
key='-----BEGIN PRIVATE KEY-----
BApJJSsDcVHkvxTsYRmY/KurUnFBQelp9oBPvRg5NWkpUZeWb6383LhBXAYE47r9
LWHUvTgH9XNCiqYpvS2/N9BzPBbloaULxeMVQoQC+tWbNmfGkPux9Oj75HA4pvNP
9zq9wkfD4Cmq7IiJjekNBpBHKsP/Rxcqj6p3JnTOYSajy5c88uXqqPGlQ40Lb99r
CIoE9HH1b29cJb3Q/8GWo9mhyj0cg0SB3hUOSFgA723xn/lmY/gPBI9dcZPfFw==
-----END PRIVATE KEY-----'
printf '%s\n' "$key" | "$AIRLOCK" secret set TLS_KEY
ws=$(make_workspace)

M="$T/m.yaml"
{
	echo 'tools:'
	script_tool config '[ { name: TLS_KEY, env: KEY } ]' <<'SH'
echo '== yaml'
printf 'tls:\n  key: |\n'
printf '%s\n' "$KEY" | sed 's/^/    /'
printf '  cert: none\n'
echo '== tab'
printf '%s\n' "$KEY" | sed 's/^/\t/'
echo '== comment'
printf '%s\n' "$KEY" | sed 's/^/# /'
printf '%s\n' "$KEY" | sed 's/^/  \/\/ /'
printf '%s\n' "$KEY" | sed 's/^/> /'
echo '== crlf'
printf '%s\n' "$KEY" | sed 's/$/\r/'
printf '%s\n' "$KEY" | sed 's/^/    /; s/$/\r/'
echo '== base64'
for p in '' x xy; do
  printf 'key: |\n'
  printf '%s%s' "$p" "$KEY" | base64 | sed 's/^/    /'
  printf '%s%s' "$p" "$KEY" | base64 -w 64 | sed 's/^/\t/'
done
SH
	script_tool nearmiss '[ { name: TLS_KEY, env: KEY } ]' <<'SH'
v=$(printf '%s' "$KEY" | sed '3s/^L/M/')
printf '%s\n' "$v" | sed 's/^/    /'
printf '%s\n' "$v" | base64 | sed 's/^/    /'
SH
} >"$M"

# leak KEY < TEXT: the first piece of the key, of 8 bytes, in TEXT as it
# is or decoded (base64 runs, indents and line breaks taken out, from
# each of their first 4 characters); "" if none.
leak() {
	python3 -c 'import base64, os, re, sys
s = os.fsencode(sys.argv[1])
t = sys.stdin.buffer.read()
views = [t]
for run in re.findall(rb"[A-Za-z0-9+/=]{8,}(?:\n[ \t]*[A-Za-z0-9+/=]+)*", t):
	run = re.sub(rb"[\n \t]", b"", run)
	for k in range(4):
		r = run[k:]
		r = r[:len(r) // 4 * 4]
		try:
			views.append(base64.b64decode(r))
		except Exception:
			pass
# The key body: its lines as they are, not the armour.
body = s.split(b"\n")[1:-2]
b = [l[i:i + 8] for l in body for i in range(len(l) - 7)
     if any(l[i:i + 8] in v for v in views)]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran config "the config tool ran"
redacted_sections 1 TLS_KEY "$key" yaml tab
redacted_sections 3 TLS_KEY "$key" comment
redacted_sections 2 TLS_KEY "$key" crlf
redacted_sections 6 TLS_KEY "$key" base64
expect_contains "the YAML around the key is left as it is" "$out" '  cert: none'

near_miss_left "a key a byte off is left as it is" 10

mcp_stop
artifact_clean config "$key" "the key"
finish
