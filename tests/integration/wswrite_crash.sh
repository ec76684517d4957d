#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The broker's own writes (apply_patch, write_file) land whole or not at
# all, even when the broker is killed half way.  They were not journaled:
# killed between the two renames of a two-file patch, the broker left
# a.txt patched and b.txt not, b.txt with a second hard link (a backup
# beside it, so every later read_file or patch of it was refused) and
# .airlock-new-*/.airlock-old-* files, and the next start put nothing
# back.  Now they land as a change set does (broker/applyjournal.h): the
# broker is killed for real (strace injects SIGKILL into its Nth
# renameat or renameat2), the next airlock serve rolls back, and the
# workspace is either as before or as after, with nothing of airlock's
# left in it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if ! command -v strace >/dev/null || ! command -v python3 >/dev/null; then
	echo "# SKIP: needs strace and python3"; TESTS_FINISHED=1; exit 77
fi
A=$(realpath "$AIRLOCK")
M=$(realpath "$top_srcdir/contrib/manifests/default.yaml")
ws="$T/ws"
cd "$T" || exit 1

# The MCP session: initialize, then a patch of a.txt and sub/b.txt.
python3 - >"$T/patch.jsonl" <<'EOF'
import hashlib, json
h = hashlib.sha256()
for p, c in sorted([("a.txt", b"a1\n"), ("sub/b.txt", b"b1\n")]):
    h.update(p.encode() + b"\0" + hashlib.sha256(c).hexdigest().encode() + b"\n")
patch = ("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a1\n+a2\n"
         "--- a/sub/b.txt\n+++ b/sub/b.txt\n@@ -1 +1 @@\n-b1\n+b2\n")
for m in [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
              "protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "t", "version": "1"}}},
          {"jsonrpc": "2.0", "method": "notifications/initialized"},
          {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
              "name": "apply_patch",
              "arguments": {"patch": patch, "expectedBaseSha": h.hexdigest()}}}]:
    print(json.dumps(m))
EOF
head -n 2 "$T/patch.jsonl" >"$T/init.jsonl"
serve() {	# INPUT [strace options...]
	local in=$1
	shift
	# A subshell: a killed broker is not the test's job to report.
	( (cat "$in"; sleep 1) | timeout 30 "$@" "$A" serve --manifest "$M" \
	    --workspace "$ws" >"$T/out" 2>"$T/err" ) 2>/dev/null
}
state() { printf '%s %s' "$(cat "$ws/a.txt" 2>/dev/null)" "$(cat "$ws/sub/b.txt" 2>/dev/null)"; }

# fresh: the workspace before the patch, made anew (nothing of an
# earlier round's left in it).
fresh() {
	rm -rf "$ws"
	mkdir -p "$ws/sub"
	printf 'a1\n' >"$ws/a.txt"
	printf 'b1\n' >"$ws/sub/b.txt"
}
fresh
serve "$T/patch.jsonl"
expect_eq "unkilled, the patch lands whole" "$(state)" "a2 b2"

for call in renameat renameat2; do
	for n in 1 2 3 4; do
		fresh
		serve "$T/patch.jsonl" strace -f -qq -o /dev/null \
		    -e trace=renameat,renameat2 -e inject=$call:signal=KILL:when=$n
		after_kill=$(state)
		serve "$T/init.jsonl"
		s=$(state)
		case $s in
		"a1 b1"|"a2 b2") pass "killed at $call #$n ($after_kill), then restarted: whole or nothing ($s)" ;;
		*) fail "killed at $call #$n, then restarted: half-applied ($s)" ;;
		esac
		expect_eq "killed at $call #$n: nothing of airlock's is left" \
		    "$(cd "$ws" && find . -name '.airlock-*' | tr '\n' ' ')" ""
		expect_eq "killed at $call #$n: no file has a second link" \
		    "$(stat -c %h "$ws/a.txt" "$ws/sub/b.txt" 2>/dev/null | tr '\n' ' ')" "1 1 "
	done
done
finish
