#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A secret value holding a NUL byte is never granted.  A grant goes
# through the environment, which ends the value at its first NUL: the
# tool got the bytes before it, which are no form of the value the
# redactor knows, and printed them to the agent in the clear (a key read
# from a binary or UTF-16 file).  `airlock secret set` refuses such a
# value, and a store that already holds one (sealed by an older airlock)
# does not start a session that grants it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
unset AIRLOCK_PASSPHRASE
ws=$(make_workspace)
prefix='tok-visible-prefix'

# (a) set refuses it, and stores nothing.
out=$(printf '%s\0tail-of-the-key' "$prefix" | "$AIRLOCK" secret set API_TOKEN 2>&1)
expect_eq "a value with a NUL byte is refused" "$?" 1
expect_contains "and says why" "$out" "refusing a value with a NUL byte"
expect_eq "nothing is stored" "$("$AIRLOCK" secret list)" ""

# (b) a store sealed with such a value (the key file's key, the store's
# layout: broker/secrets.h) does not start a session that grants it.
python3 - "$AIRLOCK_HOME" "$prefix" <<'PY' || fail "seal a store by hand"
import ctypes, ctypes.util, os, struct, sys
home, prefix = sys.argv[1], sys.argv[2].encode()
na = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
assert na.sodium_init() >= 0
key = open(os.path.join(home, "secrets.key"), "rb").read()
assert len(key) == 32
name, value = b"API_TOKEN", prefix + b"\0tail-of-the-key"
plain = struct.pack("<I", 1) + bytes([len(name)]) + name + \
    struct.pack("<I", len(value)) + value
nonce = os.urandom(24)
box = ctypes.create_string_buffer(len(plain) + 16)
assert na.crypto_secretbox_easy(box, plain, ctypes.c_ulonglong(len(plain)),
    nonce, key) == 0
path = os.path.join(home, "secrets.db")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, b"ALSECRT1" + bytes([1]) + bytes(7) + nonce + box.raw)
os.close(fd)
PY
expect_eq "the hand-sealed store opens" "$("$AIRLOCK" secret list)" "API_TOKEN"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: external
    authorization: allow
    timeoutMs: 5000
    command: ["sh", "-c", "echo token=$API_TOKEN"]
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
EOF2
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"publish","arguments":{}}}' |
    "$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$ws" 2>"$T/serve.err")
expect_eq "the session does not start" "$?" 78
expect_contains "and says why" "$(cat "$T/serve.err")" "a value holding a NUL byte"
expect_not_contains "the prefix is not printed" "$out" "token=$prefix"
if grep -rqF -e "$prefix" "$AIRLOCK_HOME/sessions" 2>/dev/null; then
	fail "the prefix is nowhere the agent or the log can read"
else
	pass "the prefix is nowhere the agent or the log can read"
fi
finish
