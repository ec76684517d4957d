#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# secret_store: `airlock secret` sets, lists and removes sealed secrets;
# the value arrives on stdin only, never on argv, and never reaches the
# disk in plaintext; the key file and store are private.
. "$top_srcdir/tests/lib.sh"

AIRLOCK_HOME="$T/home"
export AIRLOCK_HOME
unset AIRLOCK_PASSPHRASE
VALUE='ghp_Plaintext-Value-4242'

printf '%s\n' "$VALUE" | "$AIRLOCK" secret set GITHUB_TOKEN
expect_eq "set from stdin succeeds" "$?" 0
expect_eq "key file is mode 0600" "$(stat -c %a "$AIRLOCK_HOME/secrets.key")" 600
expect_eq "store is mode 0600" "$(stat -c %a "$AIRLOCK_HOME/secrets.db")" 600
expect_eq "store directory is mode 0700" "$(stat -c %a "$AIRLOCK_HOME")" 700
expect_eq "key file holds 32 bytes" "$(stat -c %s "$AIRLOCK_HOME/secrets.key")" 32
if grep -a -q "$VALUE" "$AIRLOCK_HOME/secrets.db"; then
	fail "store does not contain the plaintext"
else
	pass "store does not contain the plaintext"
fi
b64=$(printf '%s' "$VALUE" | base64)
if grep -a -q "$b64" "$AIRLOCK_HOME/secrets.db"; then
	fail "store does not contain the value in base64"
else
	pass "store does not contain the value in base64"
fi

printf 'x-y-z-w' | "$AIRLOCK" secret set npm.token-2
expect_eq "list prints the names, sorted" "$("$AIRLOCK" secret list | tr '\n' ' ')" \
    "GITHUB_TOKEN npm.token-2 "
out=$("$AIRLOCK" secret list)
expect_not_contains "list never prints a value" "$out" "$VALUE"

# The value is refused on argv, and an empty value is refused.
out=$("$AIRLOCK" secret set GITHUB_TOKEN "$VALUE" 2>&1 </dev/null); rc=$?
expect_eq "a value on argv is a usage error" "$rc" 64
out=$(printf '' | "$AIRLOCK" secret set EMPTY 2>&1); rc=$?
expect_eq "an empty value is refused" "$rc" 1
expect_contains "an empty value is refused with a reason" "$out" "refusing an empty value"
out=$(printf 'v' | "$AIRLOCK" secret set 9bad 2>&1); rc=$?
expect_eq "a bad name is a usage error" "$rc" 64
out=$(printf 'abc' | "$AIRLOCK" secret set PIN 2>&1); rc=$?
expect_contains "a value too short to redact is flagged ungrantable" "$out" \
    "no tool can be granted it"

# While `secret set` holds the value (sent, the pipe still open), no
# process shows it on its command line.  exec 7> returns once the
# command has opened the FIFO: no sleep needed.
mkfifo "$T/fifo"
"$AIRLOCK" secret set WATCHED < "$T/fifo" &
spid=$!
exec 7>"$T/fifo"
printf '%s' "watched-secret-99" >&7
leaked=
for i in $(seq 20); do
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' < "$f" 2>/dev/null | grep -q "watched-secret-99" &&
		    leaked="$leaked $f"
	done
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.02	# polling while the value is held, not synchronisation
done
expect_eq "no command line shows the value while it is set" "$leaked" ""
expect_contains "the setter's argv names the secret" \
    "$(tr '\0' ' ' < "/proc/$spid/cmdline" 2>/dev/null)" "secret set WATCHED"
exec 7>&-
wait "$spid"
expect_eq "set through a pipe succeeds" "$?" 0

"$AIRLOCK" secret rm npm.token-2
expect_eq "rm succeeds" "$?" 0
expect_not_contains "rm removes the name" "$("$AIRLOCK" secret list)" "npm.token-2"
out=$("$AIRLOCK" secret rm npm.token-2 2>&1); rc=$?
expect_eq "rm of a missing secret fails with 66 (airlock(1), EXIT STATUS)" "$rc" 66
expect_contains "rm of a missing secret says so" "$out" "no such secret"

# A damaged store does not open.
cp "$AIRLOCK_HOME/secrets.db" "$T/db.saved"
# (One bit of byte 70 flipped: writing a fixed byte left the store as it
# was whenever that byte was already there.)
python3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(70); b = f.read(1); f.seek(70); f.write(bytes([b[0] ^ 1]))' \
    "$AIRLOCK_HOME/secrets.db"
out=$("$AIRLOCK" secret list 2>&1); rc=$?
expect_eq "a tampered store does not open" "$rc" 1
cp "$T/db.saved" "$AIRLOCK_HOME/secrets.db"

# A passphrase store: no key file, the passphrase from the environment or
# from a descriptor, and the wrong one fails.
AIRLOCK_HOME="$T/pp"
printf 's3cret-value' | AIRLOCK_PASSPHRASE='correct horse' "$AIRLOCK" secret set DB
expect_eq "set with a passphrase" "$?" 0
check "passphrase store has no key file" test ! -e "$AIRLOCK_HOME/secrets.key"
expect_eq "list with the passphrase on a descriptor" \
    "$(echo 'correct horse' | "$AIRLOCK" secret --passphrase-fd 0 list)" "DB"
out=$(AIRLOCK_PASSPHRASE='wrong horse' "$AIRLOCK" secret list 2>&1); rc=$?
expect_eq "a wrong passphrase fails" "$rc" 1
expect_contains "a wrong passphrase says so" "$out" "does not open"
out=$("$AIRLOCK" secret list 2>&1); rc=$?
expect_eq "no passphrase for a passphrase store fails" "$rc" 1
expect_contains "no passphrase names the fix" "$out" "AIRLOCK_PASSPHRASE"

# The session takes the passphrase out of its environment before it
# starts anything: an agent.env naming it (or the patch jail, which
# inherits the environment) got the key to every secret.
ws="$T/ppws"
mkdir -p "$ws"
chmod 755 "$T"
cat >"$T/pp.yaml" <<'YAML'
tools:
  - name: deploy
    input: {}
    output: { exitCode: integer }
    command: ["true"]
    sideEffect: sandbox_process
    timeoutMs: 5000
    secrets: [ { name: DB, env: DB } ]
agent: { env: [AIRLOCK_PASSPHRASE] }
YAML
out=$(cd "$ws" && AIRLOCK_PASSPHRASE='correct horse' timeout 60 "$AIRLOCK" run \
    --manifest "$T/pp.yaml" --workspace "$ws" -- \
    sh -c 'echo "agent-sees=${AIRLOCK_PASSPHRASE:-nothing}"' 2>&1)
expect_contains "the agent runs" "$out" "agent-sees="
expect_contains "the agent does not get the store's passphrase" "$out" "agent-sees=nothing"
expect_not_contains "... in any form" "$out" "correct horse"

# A FIFO in the store's or the key's place is refused as a file that is
# not private, at once: the open used to wait for a writer for ever
# (airlock serve and run hung at start-up).
for f in secrets.db secrets.key; do
	d="$T/fifo-$f"
	mkdir -m 700 "$d"
	printf 'abcdefgh' | "$AIRLOCK" secret --dir "$d" set X
	rm "$d/$f"
	mkfifo -m 600 "$d/$f"
	out=$(timeout 20 "$AIRLOCK" secret --dir "$d" list 2>&1); rc=$?
	expect_eq "a FIFO as $f: refused, exit 1" "$rc" 1
	expect_contains "... as not a private file" "$out" "must be owned by you and private"
done

# The store is written through the directory opened and checked (ours,
# private), not by its path: a store directory renamed away and another
# put in its place (by whoever may write a parent) while `secret set`
# waits for its value got the store, and the real one never changed (a
# `secret rm` of a leaked token said it was gone).  The key file is
# created once the directory is open: then it is swapped.
p="$T/parent"
mkdir -m 700 "$p"
mkfifo "$T/fifo2"
"$AIRLOCK" secret --dir "$p/store" set SWAPPED <"$T/fifo2" &
spid=$!
exec 7>"$T/fifo2"
for i in $(seq 1000); do
	[ -e "$p/store/secrets.key" ] && break
	sleep 0.01	# polling for the key file, not synchronisation
done
mv "$p/store" "$p/real"
mkdir -m 700 "$p/store"
printf '%s' 'swapped-value-77' >&7
exec 7>&-
wait "$spid"
expect_eq "set with its directory swapped succeeds" "$?" 0
expect_eq "the store is in the directory checked" \
    "$("$AIRLOCK" secret --dir "$p/real" list 2>&1)" SWAPPED
expect_eq "... and nothing in the one put in its place" \
    "$(ls -A "$p/store")" ""

finish
