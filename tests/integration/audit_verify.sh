#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# audit_verify: a real log written through broker/audit.h verifies, and
# `airlock audit verify` catches each kind of tampering, names the first
# bad line and exits 1 (2 for a log without session_end).  Also: key
# pinning, show/tail, and the fail-closed disk-full path on a tiny tmpfs.
. "$top_srcdir/tests/lib.sh"

W="$top_builddir/tests/unit/audit_writer"
L="$T/log"

"$W" -n 16 "$L" > "$T/writer.out" || { fail "writer runs"; finish; exit 1; }
"$W" -n 16 "$T/other" >/dev/null
"$W" -n 16 -S other-session "$T/foreign" >/dev/null

# verify_case NAME FILE EXPECTED_EXIT NEEDLE...: runs verify on FILE.
verify_case() {
	name=$1 file=$2 want=$3
	shift 3
	out=$("$AIRLOCK" audit verify "$file" 2>&1)
	rc=$?
	expect_eq "$name: exit status" "$rc" "$want"
	for needle in "$@"; do
		expect_contains "$name: says '$needle'" "$out" "$needle"
	done
}

# edit_line N FILE OUT AWK-PROGRAM: rewrites line N with awk.
edit_line() {
	awk -v n="$1" "NR == n { $4 } { print }" "$2" > "$3"
}

verify_case "untouched closed log" "$L" 0 "valid and closed" "records  18"

# An edited byte in a field value.
edit_line 2 "$L" "$T/edit-value" 'sub(/src\/app\.ts/, "src/app.tz")'
verify_case "edited field value" "$T/edit-value" 1 "TAMPERED: line 2:" \
    "signature does not verify"

# An edited byte in a number (the request id), JSON stays valid.
edit_line 6 "$L" "$T/edit-number" 'sub(/"request_id":4/, "\"request_id\":5")'
verify_case "edited number" "$T/edit-number" 1 "line 6:" "signature does not verify"

# An edited byte in the signature itself.
edit_line 4 "$L" "$T/edit-sig" 'i = index($0, "\"sig\":\"") + 12; c = substr($0, i, 1); $0 = substr($0, 1, i - 1) (c == "A" ? "B" : "A") substr($0, i + 1)'
verify_case "edited signature" "$T/edit-sig" 1 "line 4:" "signature does not verify"

# An edit that breaks the JSON.
edit_line 3 "$L" "$T/edit-json" 'sub(/"seq":3,/, "\"seq\":3")'
verify_case "broken JSON" "$T/edit-json" 1 "line 3:" "not a JSON record"

# Deleted records.
sed '7d' "$L" > "$T/del-middle"
verify_case "deleted middle record" "$T/del-middle" 1 "line 7:" \
    "seq 8, expected 7" "deleted"
sed '1d' "$L" > "$T/del-first"
verify_case "deleted first record" "$T/del-first" 1 "line 1:" \
    "not session_start" "start of the log was deleted"

# Inserted records: from another session's log, from another log of the
# same session id (different key), and a duplicate.
{ sed -n '1,5p' "$L"; sed -n '6p' "$T/foreign"; sed -n '6,$p' "$L"; } > "$T/ins-foreign"
verify_case "record inserted from another session" "$T/ins-foreign" 1 \
    "line 6:" "inserted from another log"
{ sed -n '1,5p' "$L"; sed -n '6p' "$T/other"; sed -n '6,$p' "$L"; } > "$T/ins-other"
verify_case "record inserted from another log of the same session id" \
    "$T/ins-other" 1 "line 6:" "signature does not verify"
sed '9p' "$L" > "$T/dup"
verify_case "duplicated record" "$T/dup" 1 "line 10:" "seq 9, expected 10" \
    "duplicated"
{ sed -n '1,3p' "$L"; sed -n '1p' "$T/other"; sed -n '4,$p' "$L"; } > "$T/ins-start"
verify_case "second session_start inserted" "$T/ins-start" 1 "line 4:" \
    "a second session_start"

# Two records swapped.
awk 'NR == 8 { held = $0; next } NR == 9 { print; print held; next } { print }' \
    "$L" > "$T/swap"
verify_case "swapped records" "$T/swap" 1 "line 8:" "seq 9, expected 8"

# A record appended after session_end (from the same log: valid sig).
{ cat "$L"; sed -n '5p' "$L"; } > "$T/after-end"
verify_case "record after session_end" "$T/after-end" 1 "line 19:" \
    "after session_end"

# A truncated tail: the last line removed, and a partial last line.
sed '$d' "$L" > "$T/trunc-line"
verify_case "last record removed" "$T/trunc-line" 2 \
    "open (no session_end yet)" "no writer holds the log"
# With the head exported before the session ended (here: the writer's
# head after its last request), a tail cut back below it is tampering.
head=$(sed -n 's/^head //p' "$T/writer.out")
out=$("$AIRLOCK" audit verify --head "$head" "$L"); rc=$?
expect_eq "exported head found in the intact log" "$rc" 0
sed '$d' "$L" | sed '$d' > "$T/trunc-two"
out=$("$AIRLOCK" audit verify --head "$head" "$T/trunc-two"); rc=$?
expect_eq "tail cut below the exported head: exit 1" "$rc" 1
expect_contains "tail cut below the exported head is named" "$out" \
    "exported head"
head -c -30 "$L" > "$T/trunc-partial"
verify_case "partial last line" "$T/trunc-partial" 1 "line 18:" \
    "incomplete last record"
: > "$T/empty"
verify_case "empty file" "$T/empty" 1 "line 1:" "empty log"

# Batched signing (broker/audit.h): 16 records flushed in batches of 4, so
# only lines 1, 5, 9, 13, 17 and 18 carry "sig"; the others are covered by
# the chain up to the next signed one.  Every kind of edit still shows.
B="$T/batched"
"$W" -n 16 -b 4 "$B" >/dev/null || fail "batched writer runs"
verify_case "untouched batched log" "$B" 0 "valid and closed" "records  18"
expect_eq "batched log: 6 of 18 records signed" \
    "$(grep -c '"sig":"' "$B")" 6
edit_line 3 "$B" "$T/b-edit" 'sub(/"seq":3,/, "\"seq\":3, ")'
verify_case "batched: edited unsigned record" "$T/b-edit" 1 "line 4:" \
    "prev does not match"
edit_line 7 "$B" "$T/b-edit2" 'sub(/"decision":"deny"/, "\"decision\":\"allow\"")'
cmp -s "$B" "$T/b-edit2" && fail "batched: the field edit changed nothing"
verify_case "batched: edited unsigned field" "$T/b-edit2" 1 "line 8:" \
    "prev does not match"
head -n 7 "$B" > "$T/b-cut"
verify_case "batched: cut inside a batch (unsigned tail)" "$T/b-cut" 1 \
    "line 6:" "not covered by a signature"
edit_line 9 "$B" "$T/b-nosig" 'sub(/,"sig":"[^"]*"}$/, "}")'
verify_case "batched: sig removed mid-log" "$T/b-nosig" 1 "line 10:" \
    "prev does not match"
head -n 9 "$B" | sed '9s/,"sig":"[^"]*"}$/}/' > "$T/b-nosig-tail"
verify_case "batched: sig removed at the tail" "$T/b-nosig-tail" 1 \
    "line 6:" "not covered by a signature"
sed '7d' "$B" > "$T/b-del"
verify_case "batched: deleted unsigned record" "$T/b-del" 1 "line 7:" \
    "seq 8, expected 7"
awk 'NR == 6 { six = $0; next } { print } NR == 7 { print six }' "$B" \
    > "$T/b-swap"
verify_case "batched: two unsigned records swapped" "$T/b-swap" 1 "line 6:" \
    "seq 7, expected 6"
{ sed -n '1,6p' "$B"; sed -n '7p' "$L"; sed -n '7,$p' "$B"; } > "$T/b-ins"
verify_case "batched: record from another log inserted" "$T/b-ins" 1 \
    "TAMPERED: line 7:"

# A session that is still running: the writer holds its lock.
"$W" -n 3 -o -H 30 "$T/running" > "$T/running.out" &
wpid=$!
i=0
while ! grep -q '^head' "$T/running.out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
verify_case "running session" "$T/running" 2 "open (no session_end yet)" \
    "a writer holds the log"
kill "$wpid"; wait "$wpid" 2>/dev/null
verify_case "crashed session" "$T/running" 2 "no writer holds the log"

# Key pinning with a long-term key.
pub=$("$AIRLOCK" audit key "$T/audit.key")
expect_eq "key file is private" "$(stat -c %a "$T/audit.key")" 600
expect_eq "audit key is stable" "$("$AIRLOCK" audit key "$T/audit.key")" "$pub"
"$W" -n 4 -k "$T/audit.key" "$T/pinned" >/dev/null
out=$("$AIRLOCK" audit verify --key "$pub" "$T/pinned"); rc=$?
expect_eq "pinned key: exit 0" "$rc" 0
expect_contains "pinned key: says pinned" "$out" "long-term, pinned"
printf '%s\n' "$pub" > "$T/audit.pub"
check "pinned key from a public key file" \
    "$AIRLOCK" audit verify -q --key-file "$T/audit.pub" "$T/pinned"
check "pinned key from the key file itself" \
    "$AIRLOCK" audit verify -q --key-file "$T/audit.key" "$T/pinned"
out=$("$AIRLOCK" audit verify --key "$pub" "$L"); rc=$?
expect_eq "log rewritten under a fresh key is untrusted: exit 3" "$rc" 3
expect_contains "log rewritten under a fresh key fails the pin" "$out" \
    "not the pinned key"
out=$("$AIRLOCK" audit verify --key 1234 "$L" 2>&1); rc=$?
expect_eq "malformed --key is a usage error" "$rc" 64
out=$("$AIRLOCK" audit verify "$T/nonexistent" 2>&1); rc=$?
expect_eq "missing file: exit 66" "$rc" 66

# show: filters and JSON.
out=$("$AIRLOCK" audit show --tool read_file --decision allow "$L")
expect_contains "show --tool --decision finds the decision" "$out" "decision=allow"
expect_not_contains "show --tool filters other tools" "$out" "run_check"
n=$("$AIRLOCK" audit show --json --event request "$L" | wc -l)
expect_eq "show --json --event request prints 4 lines" "$n" 4
today=$(head -n 1 "$L" | sed 's/.*"time":"\([0-9-]*\)T.*/\1/')
n=$("$AIRLOCK" audit show --json --since "$today" --until "$today" "$L" | wc -l)
expect_eq "show --since DAY --until DAY keeps the whole day" "$n" 18
n=$("$AIRLOCK" audit show --json --since 2999-01-01 "$L" | wc -l)
expect_eq "show --since the future prints nothing" "$n" 0
n=$("$AIRLOCK" audit show --json --until 2999-01-01T00:00:00Z --session test-session "$L" | wc -l)
expect_eq "show --until and --session keep every record" "$n" 18
out=$("$AIRLOCK" audit show "$T/edit-value" 2>&1 >/dev/null)
expect_contains "show warns about a log that does not verify" "$out" \
    "does not verify: line 2"
# A log whose tail was cut off (here its session_end; a whole batch, the
# agent's last calls, goes the same way) verifies as open, exit 2.
# Before, show printed what was left without a word.
out=$("$AIRLOCK" audit show "$T/trunc-line" 2>&1 >/dev/null)
expect_contains "show warns about a log with no session_end and no writer" \
    "$out" "has no session_end and no writer holds it"
expect_contains "  saying its tail may have been cut off" "$out" \
    "its tail was cut off"
expect_eq "  and still shows it" \
    "$("$AIRLOCK" audit show --json "$T/trunc-line" 2>/dev/null | wc -l)" 17
out=$(flock -x "$T/trunc-line" "$AIRLOCK" audit show "$T/trunc-line" 2>&1 >/dev/null)
expect_eq "show does not warn about a running session's log (a writer's lock)" \
    "$out" ""
out=$("$AIRLOCK" audit show "$L" 2>&1 >/dev/null)
expect_eq "show does not warn about a closed log" "$out" ""

# show escapes terminal controls written into the log by an agent.
esc=$(printf '\033]0;pwned\007\033[2J')
bidi=$(printf 'rm \342\200\256txt.exe')
"$W" -n 1 -x "$esc $bidi" "$T/evil" >/dev/null
out=$("$AIRLOCK" audit show "$T/evil")
case "$out" in
*"$(printf '\033')"*) fail "show escapes ESC from the log" ;;
*) pass "show escapes ESC from the log" ;;
esac
expect_contains "show prints escaped controls (vis: \\e, \\a)" "$out" '\e]0;pwned\a\e[2J'
expect_contains "show escapes a bidi override" "$out" 'rm \u{202E}txt.exe'
check "an escaped log still verifies" "$AIRLOCK" audit verify -q "$T/evil"

# tail -f: prints the records and returns after session_end.
"$W" -n 3 -H 2 "$T/follow" > "$T/follow.out" &
wpid=$!
i=0
while [ ! -s "$T/follow" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
out=$(timeout 20 "$AIRLOCK" audit tail -f "$T/follow"); rc=$?
wait "$wpid"
expect_eq "tail -f returns after session_end" "$rc" 0
expect_contains "tail -f printed the records" "$out" "runner_start"
expect_contains "tail -f printed session_end" "$out" "session_end"
# tail -f and a log cut back.  The broker cuts its log back after a write
# that failed part way; the follower used to read on from where it was, so
# the next record came out mangled (its head taken for the undone bytes).
# A cut of the incomplete line only: the follower reads on from the cut,
# even when the next record is appended before it looks again (stopped
# meanwhile here; under load it missed the cut now and then, and read on
# from behind the undone bytes).
head -n 5 "$L" > "$T/cut"
"$AIRLOCK" audit tail -f "$T/cut" > "$T/cut.out" 2>&1 &
fpid=$!
sleep 0.5
size=$(stat -c %s "$T/cut")
printf '{"v":1,"undone write' >> "$T/cut"
sleep 1
kill -STOP "$fpid"
truncate -s "$size" "$T/cut"
sed -n '6,$p' "$L" >> "$T/cut"
kill -CONT "$fpid"
i=0
while kill -0 "$fpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$fpid" 2>/dev/null
wait "$fpid"; rc=$?
out=$(cat "$T/cut.out")
expect_eq "tail -f across an undone write: returns after session_end" "$rc" 0
expect_not_contains "tail -f across an undone write: no mangled record" "$out" "unparseable"
expect_eq "tail -f across an undone write: every record printed" \
    "$(grep -c . "$T/cut.out")" "$(($(wc -l < "$L") + 1))"
# A cut below what was printed, or another file in its place: the
# follower says so and stops (1), instead of waiting for records it can
# no longer show.
head -n 5 "$L" > "$T/cut"
"$AIRLOCK" audit tail -f "$T/cut" > "$T/cut.out" 2>&1 &
fpid=$!
sleep 0.5
head -n 3 "$L" > "$T/cut.short"
truncate -s "$(stat -c %s "$T/cut.short")" "$T/cut"
i=0
while kill -0 "$fpid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill "$fpid" 2>/dev/null
wait "$fpid"; rc=$?
expect_eq "tail -f of a log cut below what it showed: exit 1" "$rc" 1
expect_contains "... saying so" "$(cat "$T/cut.out")" "below the"
head -n 5 "$L" > "$T/cut"
"$AIRLOCK" audit tail -f "$T/cut" > "$T/cut.out" 2>&1 &
fpid=$!
sleep 0.5
cp "$L" "$T/cut.new" && mv "$T/cut.new" "$T/cut"
i=0
while kill -0 "$fpid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill "$fpid" 2>/dev/null
wait "$fpid"; rc=$?
expect_eq "tail -f of a log replaced: exit 1" "$rc" 1
expect_contains "... saying so" "$(cat "$T/cut.out")" "no longer the file being followed"
n=$("$AIRLOCK" audit tail -n 2 --json "$L" | wc -l)
expect_eq "tail -n 2 prints two records" "$n" 2

# Disk full: the log on a 64 KiB tmpfs in a private mount namespace.
mkdir "$T/small"
out=$(unshare -m sh -c '
	mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
	"$2" -n 5 -F "$1/filler" "$1/log" || exit 98
	"$3" audit verify -q "$1/log"
	echo "verify=$?"
' sh "$T/small" "$W" "$AIRLOCK" 2>&1)
expect_contains "disk full: append returns AL_ERR_IO and audit_failing is 1" \
    "$out" "full: rc=AL_ERR_IO failing=1 size_unchanged=1"
expect_contains "disk full: stays failing while full" "$out" \
    "still full: rc=AL_ERR_IO failing=1"
expect_contains "disk full: append succeeds after space is freed" "$out" \
    "freed: rc=0 failing=0"
expect_contains "disk full: later appends succeed" "$out" "after: rc=0 failing=0"
expect_contains "disk full: the chain still verifies" "$out" "verify=0"

finish
