#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a registry token prints what kubectl create secret
# docker-registry -o yaml prints: a .dockerconfigjson that is the base64
# of JSON holding the token, and "auth", the base64 of "user:token".
# The token's own base64 was redacted; "auth", base64 twice, came back,
# and the agent decoded it twice.  So did `base64 | base64` of the
# token at each byte offset of both streams.  Now the base64 of the
# secret's base64 (the parts of each that are the secret's alone) is a
# form too; the same of a value a byte off the secret (its first, or
# one in the middle: the last character of a fragment may show only a
# byte's high bits) is left as it is.
# Other pairs of transformations (rev | base64, base64 | xxd) are not
# caught: docs/AUDIT.md.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
. "$top_srcdir/tests/integration/secrets_lib.sh"
mcp_env
token='ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678'
secret_set REGISTRY_TOKEN "$token"
ws=$(make_workspace)

# kubectl create secret docker-registry's YAML (no kubectl here): the
# token in "password" and in "auth".
dockercfg='
dockercfg() { python3 -c "import base64, json, sys
t = sys.argv[1]
auth = base64.b64encode((\"bot:\" + t).encode()).decode()
cfg = {\"auths\": {\"ghcr.io\": {\"username\": \"bot\", \"password\": t, \"auth\": auth}}}
print(\"data:\\n  .dockerconfigjson: \" + base64.b64encode(json.dumps(cfg).encode()).decode())" "$1"; }
'
M="$T/m.yaml"
{
	echo 'tools:'
	script_tool twice '[ { name: REGISTRY_TOKEN, env: TOKEN } ]' "$dockercfg" <<'SH'
echo '== dockercfg'
dockercfg "$TOKEN"
echo '== base64 twice'
for p in '' x xy; do
  for q in '' a ab; do
    printf '%s%s\n' "$p" "$TOKEN" | base64 -w0 | { printf %s "$q"; cat; } | base64
  done
done
SH
	script_tool nearmiss '[]' "$dockercfg" <<'SH'
for v in 'hhp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678' 'ghp_R4nd0mT0k3nV4lu3F0rT4st1ngXyZ12345678'; do
  dockercfg "$v"
  printf '%s\n' "$v" | base64 | base64
done
SH
} >"$M"

# leak SECRET < TEXT: the first piece of SECRET, of 8 bytes, in TEXT
# decoded: each run of base64 characters (from each of its first 4
# characters) decoded, and what that holds decoded again; "" if none.
leak() {
	python3 -c 'import base64, os, re, sys
s = os.fsencode(sys.argv[1])
def decode(t):
	out = [t]
	for run in re.findall(rb"[A-Za-z0-9+/]{8,}", t):
		for k in range(4):
			r = run[k:]
			r = r[:len(r) // 4 * 4]
			try:
				out.append(base64.b64decode(r))
			except Exception:
				pass
	return out
views = [w for v in decode(sys.stdin.buffer.read()) for w in decode(v)]
b = [s[i:i + 8] for i in range(len(s) - 7) if any(s[i:i + 8] in v for v in views)]
print(b[0].decode(errors="replace") if b else "")' "$1" || echo "(leak failed)"
}

mcp_start "$M" "$ws"
sess=$(newest_session)

tool_ran twice "the tool ran"
redacted_sections 1 REGISTRY_TOKEN "$token" dockercfg
check "the dockercfg's password and auth were both redacted" \
    test "$(section dockercfg | grep -o 'REDACTED:REGISTRY_TOKEN' | wc -l)" -eq 2
redacted_sections 9 REGISTRY_TOKEN "$token" 'base64 twice'

near_miss_left "a value a byte off the secret is left as it is" 5

mcp_stop
artifact_clean twice "$token" "the token"
finish
