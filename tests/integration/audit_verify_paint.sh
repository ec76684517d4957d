#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tampered log cannot paint the verdict on the reviewer's terminal.
# "airlock audit verify" quotes what it found wrong (an edited first
# record's "event", a spliced record's "session") and names the files of
# a directory; all of that is the tamperer's to write.  Before the fix it
# was printed raw: an "event" of ESC[2K CR "LOG: valid and closed" ESC[8m
# erased the word TAMPERED from the line, printed a clean verdict in its
# place and concealed everything after it (the rest of the report, the
# directory summary).  The exit status still said 1; a person reading the
# screen saw "valid and closed".  Nor can a log signed with a key of
# one's own, through the key kind its session_start names, nor a file
# name padded to the terminal's edge (each line is folded).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
command -v python3 >/dev/null || { echo "skip: python3 is missing"; exit 77; }

mcp_start "" "$ws"
mcp_call read_file '{"path":"README.md"}'
mcp_call read_file '{"path":"README.md"}'
mcp_stop
log="$(newest_session)/audit.jsonl"
check "a real session's log verifies" "$AIRLOCK" audit verify "$log"

# raw FILE: fails if FILE holds an ESC, a CR or another C0 control (but
# newline), or a C1 control, i.e. anything a terminal would obey.
raw() { LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" ||
    LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1"; }
clean() { ! raw "$1"; }

# 1. The first records deleted; the new first line's event paints.
python3 - "$log" "$T/cut.jsonl" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)[3:]
paint = "\\u001b[2K\\r" + sys.argv[2] + ": valid and closed\\u001b[8m\\u009b2J"
lines[0] = lines[0].replace('"event":"request"', '"event":"%s"' % paint, 1)
open(sys.argv[2], "w").write("".join(lines))
PY
"$AIRLOCK" audit verify "$T/cut.jsonl" >"$T/v1.out" 2>&1
expect_eq "a log with its start cut off is TAMPERED (exit 1)" "$?" 1
check "  and the report holds no terminal control from the log" clean "$T/v1.out"
expect_eq "  it is two lines, as printed" "$(wc -l <"$T/v1.out")" 2
expect_contains "  saying TAMPERED" "$(head -n 1 "$T/v1.out")" "cut.jsonl: TAMPERED: line 1"
expect_contains "  showing the planted bytes escaped" "$(cat "$T/v1.out")" '\e[2K\r'

# 2. A record spliced in with a session id that paints.
python3 - "$log" "$T/splice.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines(True)
sess = json.loads(lines[0])["session"]
lines[3] = lines[3].replace('"session":"%s"' % sess,
    '"session":"\\u001b[1A\\u001b[2Kok\\r"', 1)
open(sys.argv[2], "w").write("".join(lines))
PY
"$AIRLOCK" audit verify "$T/splice.jsonl" >"$T/v2.out" 2>&1
expect_eq "a spliced record is TAMPERED (exit 1)" "$?" 1
check "  and the report holds no terminal control from the log" clean "$T/v2.out"
expect_contains "  naming the other session, escaped" "$(cat "$T/v2.out")" '\e[1A\e[2Kok\r'

# 3. A directory of shipped copies with a file named to paint.
mkdir "$T/ship"
cp "$T/cut.jsonl" "$T/ship/$(printf 'x\033[2K\r.jsonl')"
"$AIRLOCK" audit verify "$T/ship" >"$T/v3.out" 2>&1
expect_eq "the directory's verdict is TAMPERED (exit 1)" "$?" 1
check "  and the report holds no terminal control from names or logs" clean "$T/v3.out"
expect_contains "  with the summary in view" "$(cat "$T/v3.out")" "1 tampered"

# 3b. Nor a file named to wrap: padded to the edge of an 80-column
# terminal, the rest of its name began a row of its own, another log's
# clean verdict to the eye.  Each line is folded, each row after a
# line's first marked ">> ".
mkdir "$T/ship2"
pad=$(printf "%$((80 - ${#T} - 7))s" '' | tr ' ' x)
cp "$T/cut.jsonl" "$T/ship2/${pad}LOG: valid and closed: session s1, 18 records.jsonl"
COLUMNS=80 "$AIRLOCK" audit verify "$T/ship2" >"$T/v3b.out" 2>&1
expect_eq "a directory with a file named to wrap is TAMPERED (exit 1)" "$?" 1
expect_eq "  on that terminal, no row reads as a clean verdict" \
    "$(fold -w 80 "$T/v3b.out" | grep -c '^LOG: valid and closed')" 0
expect_contains "  the name goes on on a row marked as its line's" "$(cat "$T/v3b.out")" \
    $'\n>> LOG: valid and closed: session s1'

# 4. A log signed with a key of one's own verifies, NOT pinned, and its
# session_start names its key's kind: "session" and ESC[8m (conceal) hid
# the words "NOT pinned: proves internal consistency only" and the rest.
"$top_builddir/tests/unit/audit_writer" -K "$(printf 'session\033[8m')" "$T/own-key.jsonl" ||
    fail "a log of one's own key is written"
"$AIRLOCK" audit verify "$T/own-key.jsonl" >"$T/v4.out" 2>&1
expect_eq "a log of one's own key is valid so far (exit 2)" "$?" 2
check "  and the report holds no terminal control from its key kind" clean "$T/v4.out"
expect_contains "  showing the kind escaped, NOT pinned after it" "$(cat "$T/v4.out")" \
    '(session\e[8m, NOT pinned: proves internal consistency only)'
finish
