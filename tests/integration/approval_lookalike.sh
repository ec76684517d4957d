#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The approval screen marks every look-alike the manifest's check refuses:
# one table and one rule (common/lookalike.h) for both.  vis kept a table
# of its own, narrower: an agent's approval-gated fetch of
# "https://p<U+03B1>ypal.com/" (a Greek alpha), "p<U+0251>ypal" (an IPA
# one), "src<U+2215>deploy.sh" (a division slash), "c<U+0430>nfig<U+0436>"
# (a Cyrillic a in a word with a Cyrillic letter of its own) and Cherokee
# letters that spell "AB" reached `airlock approve` as they read, while a
# manifest naming the same text in sandbox.protected was refused for
# each.  Now approve and pending show each escaped, and what they escape
# is what `airlock check` refuses.  A word is the manifest's word, cut by
# ASCII punctuation only: "config<U+00B7><U+043A><U+0435><U+0443>" (a
# middle dot, then a Cyrillic "key") is one word of two scripts, refused;
# vis cut it at the middle dot and showed the Cyrillic "key" raw.  And a
# character drawn as a double quote inside the arguments' JSON
# ("a<U+201D>,<U+201D>path<U+201D>:<U+201D>README.md") seemed to close
# the agent's string and open a key of its own: it is escaped by the
# table airlock audit show kept for itself (VIS_QUOTED).  Small capitals
# and letterlike symbols drawn as ASCII ("g<U+1D0F><U+1D0F>gle", small
# capital o; "wor<U+212A>flows", the Kelvin sign) passed both the
# manifest's check and the approval screen: they are forms now.  And a run
# of look-alikes ended by punctuation beyond ASCII ("<Cyrillic ssh>"
# U+2010 "<Cyrillic key>", a hyphen) is judged whole, as one ended by
# '-' was: the word's letter of its own (the Cyrillic k) hid it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

# Each text as JSON escapes (for the agent), and as the screen shows it.
names=('p\u03b1ypal' 'p\u0251ypal' 'src\u2215deploy.sh' 'c\u0430nfig\u0436' '\u13aa\u13f4' 'config\u00b7\u043a\u0435\u0443' 'g\u1d0f\u1d0fgle' 'wor\u212aflows' '\u0455\u0455\u04bb\u2010\u043a\u0435\u0443')
shown=('p\u{03B1}ypal' 'p\u{0251}ypal' 'src\u{2215}deploy.sh' 'c\u{0430}nfig\u{0436}' '\u{13AA}\u{13F4}' "config$(printf '\302\267')\\u{043A}\\u{0435}\\u{0443}" 'g\u{1D0F}\u{1D0F}gle' 'wor\u{212A}flows' "\\u{0455}\\u{0455}\\u{04BB}$(printf '\342\200\220')\\u{043A}\\u{0435}\\u{0443}")
cps=(03B1 0251 2215 0430 13AA 043A 1D0F 212A 0455)

# The manifest's check refuses each (the policy's side of the table).
for i in "${!names[@]}"; do
	printf 'sandbox:\n  protected: ["%s"]\ntools: []\n' "${names[$i]}" >"$T/p$i.yaml"
	out=$("$AIRLOCK" check "$T/p$i.yaml" 2>&1)
	check "check refuses ${shown[$i]} in sandbox.protected" test $? -ne 0
	expect_contains "... for U+${cps[$i]}" "$out" ": U+${cps[$i]} "
done

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: fetch
    command: ["echo", "fetching", "{url}"]
    input: { url: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    authorization: approval
    timeoutMs: 60000
approvals:
  ttlSeconds: 60
EOF2
mcp_start "$T/m.yaml" "$ws"
url="https://${names[0]}.com/ ${names[1]} ${names[2]} ${names[3]} ${names[4]} ${names[5]} ${names[6]} ${names[7]} ${names[8]} a\u201d,\u201dpath\u201d:\u201dREADME.md"
mcp_send "{\"jsonrpc\":\"2.0\",\"id\":\"la\",\"method\":\"tools/call\",\"params\":{\"name\":\"fetch\",\"arguments\":{\"url\":\"$url\"}}}"
id=$(pending_tool fetch)
check "the look-alike call waits for approval" test -n "$id"
echo n | "$AIRLOCK" approve "$id" >"$T/approve.out" 2>&1
"$AIRLOCK" pending >"$T/pending.out" 2>&1
"$AIRLOCK" pending -v >"$T/pendingv.out" 2>&1
for f in approve pending pendingv; do
	for i in "${!names[@]}"; do
		expect_contains "$f: ${shown[$i]} is shown escaped" "$(cat "$T/$f.out")" "${shown[$i]}"
	done
	expect_contains "$f: a double quote's look-alike is shown escaped" "$(cat "$T/$f.out")" \
	    'a\u{201D},\u{201D}path\u{201D}:\u{201D}README.md'
	check "$f: nothing but printable ASCII, newlines, the middle dot and the hyphen" \
	    bash -c '! sed "s/\xc2\xb7//g; s/\xe2\x80\x90//g" "$1" | LC_ALL=C grep -q "[^ -~]"' _ "$T/$f.out"
done
expect_contains "the approver was asked, and said no" "$(cat "$T/approve.out")" "not approved"
"$AIRLOCK" deny --reason "look-alike" "$id" >/dev/null 2>&1
mcp_wait_id la 20
expect_error_class "the look-alike call was denied, nothing ran" approval_denied
mcp_stop
finish
