#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock suggest and a call id that carries YAML 1.1's other line
# breaks.  The agent picks its JSON-RPC ids, and suggest names the call
# in the comment line above each change.  libyaml (the manifest loader)
# ends a comment at NEL (U+0085), LS (U+2028) and PS (U+2029) as at LF,
# so an id "7<NEL>    - /srv/u/.ssh<NEL>    #" put raw into the comment
# adds a readOnly entry for a credential store that the reviewer sees as
# part of a comment (and cat shows on the comment's line), that is not
# flagged WEAKENS, and that --apply writes without --allow-weakening.
# The comment must keep them on its line, and an id padded to the
# terminal's edge must not begin a row of the diff (each line is folded).
if [ -z "${AIRLOCK_SUGGEST_TEST_NS:-}" ]; then
	AIRLOCK_SUGGEST_TEST_NS=1 exec unshare --mount bash "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

mount -t tmpfs tmpfs /srv || { echo "not ok - cannot mount a tmpfs on /srv"; exit 1; }
mkdir -p /srv/data /srv/u/.ssh
echo data >/srv/data/input.csv
echo SECRET-KEY-42 >/srv/u/.ssh/key
chmod -R 755 /srv

cat >"$T/m.yaml" <<YAML
tools:
  - name: build
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["sh", "build.sh"]
    sideEffect: sandbox_process
    timeoutMs: 10000
sandbox:
  readOnly:
    - /opt
YAML
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest does not load"; exit 1; }
printf 'cat /srv/data/input.csv\n' >"$ws/build.sh"

mcp_start "$T/m.yaml" "$ws"
for brk in '\u0085' '\u2028' '\u2029'; do
	mcp_send '{"jsonrpc":"2.0","id":"7'"$brk"'    - /srv/u/.ssh'"$brk"'    #","method":"tools/call","params":{"name":"build","arguments":{}}}'
	mcp_recv 30
	expect_contains "the call ($brk in its id) is refused reading the file" \
	    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path]')" \
	    '["filesystem","/srv/data/input.csv"]'
done
S=$(newest_session)

# The session is still running: the person reviews what it asked for so
# far, and the agent, still at work, gets one more file refused (a file it
# must not read, and that no WEAKENS class covers).  --apply must write
# the change reviewed, not the one the log has grown into since.
out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
expect_eq "a running session can be reviewed" "$rc" 0
expect_not_contains "... the review does not name the file read later" "$out" "/srv/private"
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
expect_eq "the review prints its plan id" "${#plan}" 64
mkdir -p /srv/private && echo db-password >/srv/private/db.conf && chmod -R 755 /srv/private
printf 'cat /srv/private/db.conf\n' >"$ws/build.sh"
mcp_send '{"jsonrpc":"2.0","id":"8","method":"tools/call","params":{"name":"build","arguments":{}}}'
mcp_recv 30
expect_contains "the agent's later call is refused reading the other file" \
    "$(jr -c '.result.structuredContent.denied[0] | [.layer, .path]')" \
    '["filesystem","/srv/private/db.conf"]'
# The record may reach the log a moment after the reply: wait for it.
for i in $(seq 100); do
	grep -q '/srv/private/db.conf' "$S/audit.jsonl" && break
	sleep 0.1
done
cp "$T/m.yaml" "$T/m.before"
out=$("$AIRLOCK" suggest --apply --plan "$plan" "$S" 2>&1); rc=$?
expect_eq "--apply with the reviewed plan, the log grown since: exit 1" "$rc" 1
expect_contains "... refused: not the change reviewed" "$out" "not applied: the change is not the one reviewed"
check "... and the manifest is unchanged" cmp -s "$T/m.before" "$T/m.yaml"
out=$("$AIRLOCK" suggest --apply "$S" 2>&1); rc=$?
expect_eq "--apply without a plan id: a usage error" "$rc" 64
expect_contains "... saying what it needs" "$out" "--apply needs --plan ID"
check "... and the manifest is unchanged" cmp -s "$T/m.before" "$T/m.yaml"
mcp_stop

out=$("$AIRLOCK" suggest "$S" 2>"$T/err"); rc=$?
expect_eq "suggest reads the session" "$rc" 0
expect_contains "it proposes the refused file" "$out" "+    - /srv/data/input.csv"
expect_not_contains "nothing weakens a protected class" "$(cat "$T/err")" "WEAKENS"
expect_contains "... and, reviewed now, the file read later" "$out" "+    - /srv/private/db.conf"
plan=$(printf '%s\n' "$out" | sed -n 's/^# plan: \([0-9a-f]\{64\}\) .*/\1/p')
"$AIRLOCK" suggest --apply --plan "$plan" "$S" >/dev/null 2>"$T/err"; rc=$?
expect_eq "--apply writes it" "$rc" 0
"$AIRLOCK" check -v "$T/m.yaml" >"$T/canon" 2>&1
expect_eq "the manifest it wrote gains exactly the refused files" \
    "$(grep '^  readOnly:' "$T/canon")" '  readOnly: ["/opt", "/srv/data/input.csv", "/srv/private/db.conf"]'
expect_eq "... and no credential store" "$(grep -c '/srv/u/.ssh' "$T/canon")" 0
expect_eq "the ids stay on one comment line" \
    "$(grep -c '# airlock suggest: allow read /srv/data/input.csv (call 7     - /srv/u/.ssh     #: d1; call 7     - /srv/u/.ssh     #: d1; call 7     - /srv/u/.ssh     #: d1)' "$T/m.yaml")" 1

# Nor can an id padded to the edge of an 80-column terminal: the wrap
# began a row with the rest of it, "  readWrite:" to the eye, an
# unchanged line of the manifest that the entry after it seemed to join.
# Each line of the diff is folded, each row after its first marked ">> ".
cp "$T/m.before" "$T/m.yaml"
lead='+    # airlock suggest: allow read /srv/data/input.csv (call '
pad=$(printf "%$((80 - ${#lead}))s" '' | tr ' ' x)
mcp_start "$T/m.yaml" "$ws"
printf 'cat /srv/data/input.csv\n' >"$ws/build.sh"
mcp_send '{"jsonrpc":"2.0","id":"'"$pad"'  readWrite:","method":"tools/call","params":{"name":"build","arguments":{}}}'
mcp_recv 30
mcp_stop
out=$(COLUMNS=80 "$AIRLOCK" suggest "$(newest_session)" 2>&1)
expect_contains "the padded id's call is proposed" "$out" "(call $pad"
expect_eq "on that terminal, no row of the diff reads as the manifest's" \
    "$(printf '%s\n' "$out" | fold -w 80 | grep -c '^  readWrite:')" 0
expect_contains "the id goes on on a row marked as its line's" "$out" $'\n>>   readWrite:'
finish
