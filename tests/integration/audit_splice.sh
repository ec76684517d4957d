#!/bin/sh
# A record spliced from another log of the same session, signed with the
# same key, is caught by the hash chain alone: its signature, seq and
# session are all valid, only its "prev" does not match the record before
# it.  (This kills the mutant that deletes the prev check, which no other
# test reaches: tools/mutants/mutants.txt, audit-prev-unchecked.)
. "$top_srcdir/tests/lib.sh"

W="$top_builddir/tests/unit/audit_writer"
"$AIRLOCK" audit key "$T/audit.key" > /dev/null
# Two logs of one session and key that differ from record 6 on: the
# extra request's note is written at a different point of each.
"$W" -k "$T/audit.key" -S shared-session -n 4 -x "first" "$T/a" > /dev/null
"$W" -k "$T/audit.key" -S shared-session -n 4 -x "second" "$T/b" > /dev/null
check "both logs verify" "$AIRLOCK" audit verify "$T/a"
check "the other log verifies" "$AIRLOCK" audit verify "$T/b"
expect_eq "the logs have the same length" "$(wc -l < "$T/a")" \
    "$(wc -l < "$T/b")"
expect_eq "the logs share their key" \
    "$(head -n 1 "$T/a" | jq -r .fields.pubkey)" \
    "$(head -n 1 "$T/b" | jq -r .fields.pubkey)"

# Line 6 (the note) of b in the place of line 6 of a.
n=6
{ head -n $((n - 1)) "$T/a"; sed -n "${n}p" "$T/b"; tail -n +$((n + 1)) "$T/a"; } \
    > "$T/spliced"
expect_eq "the spliced line has the same seq" \
    "$(sed -n "${n}p" "$T/spliced" | jq .seq)" "$(sed -n "${n}p" "$T/a" | jq .seq)"
expect_not_contains "the spliced line differs from a's" \
    "$(sed -n "${n}p" "$T/a")" '"second"'
out=$("$AIRLOCK" audit verify "$T/spliced" 2>&1)
expect_eq "the spliced log is refused" "$?" 1
expect_contains "at the spliced line" "$out" "TAMPERED: line $n:"
expect_contains "for its prev" "$out" "prev does not match the hash of line $((n - 1))"

# The same with the tail of b after a's head: the first line of b's tail
# is the one caught.
{ head -n $((n - 1)) "$T/a"; tail -n +$n "$T/b"; } > "$T/grafted"
out=$("$AIRLOCK" audit verify "$T/grafted" 2>&1)
expect_eq "a grafted tail is refused" "$?" 1
expect_contains "a grafted tail is caught by prev" "$out" \
    "TAMPERED: line $n: prev does not match"

finish
