#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock suggest and a directory holding a host socket.  A read-only
# bind does not stop connect(2): a runner given sandbox.readOnly of a
# directory that holds a service's socket talks to the service.  An
# escalation refuses such a path as "protected" (broker/denials.c); the
# agent could instead have its tool's run name the directory (any error
# line naming a host path it cannot see is a denial) and wait for a
# human to apply suggest's change.  suggest must flag it WEAKENS as the
# escalation's class has it, and --apply must refuse it without
# --allow-weakening; with it, the runner does reach the socket (what the
# flag is about).  The same for a directory holding a credential store
# at any depth outside $HOME.
if [ -z "${AIRLOCK_SUGGEST_TEST_NS:-}" ]; then
	AIRLOCK_SUGGEST_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/svc
chmod 755 /srv /srv/svc
cat >"$T/srv.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(5)
while True:
    c, _ = s.accept()
    c.sendall(b"HOST-SERVICE-42\n")
    c.close()
PY
python3 "$T/srv.py" /srv/svc/ctl.sock &
SRV=$!
at_exit 'kill $SRV 2>/dev/null'
wait_for test -S /srv/svc/ctl.sock || { echo "not ok - the host service did not start"; exit 1; }

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }
cp "$T/m.yaml" "$T/m.orig"
printf 'ls /srv/svc\n' >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
expect_eq "the run names the directory: a filesystem read denial" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path, .access]')" \
    '["filesystem","/srv/svc","read"]'
mcp_stop
S=$(newest_session)

out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_eq "suggest reads the session" "$rc" 0
expect_contains "it proposes the directory" "$out" "+    - /srv/svc"
expect_contains "... flagged: it holds a socket" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: /srv/svc is or holds a socket, device or FIFO"
"$AIRLOCK" suggest --apply --plan "$plan" "$S" >/dev/null 2>"$T/err"; rc=$?
expect_eq "--apply refuses it without --allow-weakening" "$rc" 1
expect_contains "... saying why" "$(cat "$T/err")" "not applied: 1 change(s) weaken a protected class"
check "... and the manifest is unchanged" cmp -s "$T/m.yaml" "$T/m.orig"

"$AIRLOCK" suggest --apply --plan "$plan" --allow-weakening "$S" >/dev/null 2>&1
printf '%s\n' "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"/srv/svc/ctl.sock\"); print(s.recv(64).decode())'" >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
expect_contains "applied anyway, the read-only bind still reaches the host service" \
    "$(jr -r '.result.structuredContent.stdout')" "HOST-SERVICE-42"
mcp_stop
# A directory holding a credential store at any depth, not in $HOME (a
# CI box's deploy key): an escalation refuses it as protected
# (sensitive_tree()), and suggest flagged only a socket beneath it, so
# the human's plain --apply bound the key into every later run.
mkdir -p /srv/ci/deploy/.ssh
echo "DEPLOY-KEY-7" >/srv/ci/deploy/.ssh/id_ed25519
cp "$T/m.orig" "$T/m.yaml"
printf 'ls /srv/ci\n' >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
mcp_stop
S=$(newest_session)
out=$("$AIRLOCK" suggest "$S" 2>"$T/err")
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_contains "suggest proposes the directory holding a key" "$out" "+    - /srv/ci"
expect_contains "... flagged: a credential store is beneath it" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: /srv/ci is or holds a socket, device, FIFO, credential store"
"$AIRLOCK" suggest --apply --plan "$plan" "$S" >/dev/null 2>"$T/err"; rc=$?
expect_eq "--apply refuses it without --allow-weakening" "$rc" 1
check "... and the manifest is unchanged" cmp -s "$T/m.yaml" "$T/m.orig"
"$AIRLOCK" suggest --apply --plan "$plan" --allow-weakening "$S" >/dev/null 2>&1
printf 'cat /srv/ci/deploy/.ssh/id_ed25519\n' >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
expect_contains "applied anyway, the run reads the key beneath it" \
    "$(jr -r '.result.structuredContent.stdout')" "DEPLOY-KEY-7"
mcp_stop

# Two weakening values under one key: the review named only the first's
# reason, so a human who accepted a socket directory (or a path in the
# agent's own home) with --allow-weakening was never told that the
# second one was a credential store.  Each is named.
cp "$T/m.orig" "$T/m.yaml"
printf 'ls /srv/svc; cat /srv/ci/deploy/.ssh/id_ed25519\n' >"$ws/build.sh"
mcp_start "$T/m.yaml" "$ws"
mcp_call build '{}'
mcp_stop
S=$(newest_session)
out=$("$AIRLOCK" suggest "$S" 2>"$T/err")
expect_contains "suggest proposes both paths" "$out" "+    - /srv/ci/deploy/.ssh/id_ed25519"
expect_contains "the first is flagged" "$(cat "$T/err")" \
    "WEAKENS: sandbox.readOnly: /srv/svc is or holds a socket"
expect_contains "... and so is the credential store after it" "$(cat "$T/err")" \
    "/srv/ci/deploy/.ssh/id_ed25519 is in a credential store"
finish
