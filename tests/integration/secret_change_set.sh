#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret runs pinned code, but that code may still write
# the secret into the workspace (a config file, say), and the agent reads
# its workspace through its own sandbox's view, where no redaction
# applies.  The run's change set is refused when a file's content, a
# link's text or a name holds the secret or one of its forms (here raw,
# base64 and in a name), and nothing of it lands; the same set from a run
# granted nothing lands.  The scan reads a file's data, never its holes:
# sparse files of 3 GB in all (more than the run's 2 GB tmpfs) land, still
# sparse, and a secret written after a hole of 800 MB, or across two of
# the scan's 64 KiB pieces, is found.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tests"
cat >"$ws/tests/raw.sh" <<'SH'
printf 'token=%s\n' "$API_TOKEN" >.tokenrc
echo wrote
SH
cat >"$ws/tests/b64.sh" <<'SH'
printf %s "$API_TOKEN" | base64 >enc.txt
echo wrote
SH
cat >"$ws/tests/name.sh" <<'SH'
: >"cache-$API_TOKEN"
echo wrote
SH
cat >"$ws/tests/plain.sh" <<'SH'
echo harmless >plain.txt
echo wrote
SH
cat >"$ws/tests/sparse.sh" <<'SH'
for i in 1 2 3; do truncate -s 1000M "big$i"; done
echo wrote
SH
cat >"$ws/tests/far.sh" <<'SH'
echo head >far.bin
truncate -s 900M far.bin
printf 'token=%s\n' "$API_TOKEN" | dd of=far.bin bs=1M seek=800 conv=notrunc 2>/dev/null
echo wrote
SH
cat >"$ws/tests/cut.sh" <<'SH'
head -c 200000 /dev/zero | tr '\0' a >cut.bin
printf %s "$API_TOKEN" | dd of=cut.bin bs=1 seek=65530 conv=notrunc 2>/dev/null
echo wrote
SH
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: run_plain
    action: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
checks:
  raw: ["sh", "tests/raw.sh"]
  b64: ["sh", "tests/b64.sh"]
  name: ["sh", "tests/name.sh"]
  plain: ["sh", "tests/plain.sh"]
  sparse: ["sh", "tests/sparse.sh"]
  far: ["sh", "tests/far.sh"]
  cut: ["sh", "tests/cut.sh"]
EOF2
secret='n0t-for-the-agent-42'
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
"$AIRLOCK" check "$T/m.yaml" >/dev/null || { echo "not ok - the test manifest loads"; "$AIRLOCK" check "$T/m.yaml"; exit 1; }
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

for c in raw b64 name far cut; do
	mcp_call run_check "{\"checkId\":\"$c\"}"
	expect_error_class "$c: the secret-granted run's set holding the secret is refused" change_refused
	expect_contains "$c: ... by the secret rule" "$R" "may not write it into the workspace"
	expect_not_contains "$c: ... and the reply does not hold it" "$R" "$secret"
done
check "nothing of them landed" test ! -e "$ws/.tokenrc" -a ! -e "$ws/enc.txt" \
    -a ! -e "$ws/far.bin" -a ! -e "$ws/cut.bin"
check "... not even the file named after it" \
    bash -c '! ls -a "$1" | grep -q "^cache-"' _ "$ws"
mcp_call run_check '{"checkId":"sparse"}'
expect_ok_result "a secret-granted run's sparse files of 3 GB in all land"
check "... each one whole" test "$(stat -c %s "$ws/big3")" = 1048576000
kb=$(du -kc "$ws"/big? | tail -n1 | cut -f1)
check "... and still sparse ($kb KiB on the disk)" test "$kb" -lt 1024
rm -f "$ws"/big?
mcp_call run_check '{"checkId":"plain"}'
expect_ok_result "a set without the secret lands"
check "... its file is there" test -s "$ws/plain.txt"
rm -f "$ws/plain.txt"
mcp_call run_plain '{"checkId":"plain"}'
expect_ok_result "a run granted nothing lands as before"
mcp_stop
check "the refusals are audited" grep -q '"change_refused".*"rule":"secret"' "$sess/audit.jsonl"
if grep -rqF -e "$secret" "$ws" "$AIRLOCK_HOME/sessions" "$T/notes"; then
	fail "the secret is nowhere in the workspace, the log or the replies"
else
	pass "the secret is nowhere in the workspace, the log or the replies"
fi
finish
