#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The man pages' value lists match the code's tables (man_values.py), and
# every page has EXAMPLES (the .so links lead to one that has).
. "$top_srcdir/tests/lib.sh"
python3 "$top_srcdir/tests/integration/man_values.py" "$top_srcdir" >"$T/out" 2>&1
st=$?
cat "$T/out"
check "the pages' value lists match the code" [ $st -eq 0 ]
for p in "$top_srcdir"/docs/*.1 "$top_srcdir"/docs/*.5; do
	if grep -q '^\.so ' "$p"; then
		target=$top_srcdir/docs/$(sed -n 's,^\.so man[0-9]/,,p' "$p")
		check "$(basename "$p") leads to an existing page" [ -f "$target" ]
		continue
	fi
	grep -q '^\.Sh EXAMPLES' "$p"
	check "$(basename "$p") has EXAMPLES" [ $? -eq 0 ]
done

# airlock-manifest(5)'s EXAMPLES as airlock check reads them: the
# manifest loads, and the one shown refused is refused for the reason the
# page gives (it lacked sideEffect, which check named instead).
export AIRLOCK_HOME="$T/state"
m5=$top_srcdir/docs/airlock-manifest.5
literal() {
	awk -v want="$1" '/^\.Sh EXAMPLES/ { ex = 1 }
	    ex && /^\.Bd -literal/ { n++; on = (n == want); next }
	    /^\.Ed/ { on = 0 } on' "$m5"
}
literal 1 >"$T/example.yaml"
"$AIRLOCK" check "$T/example.yaml" >"$T/check.out" 2>&1
check "airlock-manifest(5)'s example manifest loads" [ $? -eq 0 ]
{ echo "tools:"; literal 2; } >"$T/refused.yaml"
"$AIRLOCK" check "$T/refused.yaml" >"$T/check.out" 2>&1
st=$?
expect_eq "airlock-manifest(5)'s refused example: check exits 78" "$st" 78
expect_contains "... as the page says why" "$(cat "$T/check.out")" \
    "a placeholder must be a whole argv element"
grep -q 'a placeholder must be a whole argv element' "$m5"
check "... and the page says it" [ $? -eq 0 ]

# airlock-serve(1)'s request by hand, run as printed: it sent tools/list
# alone, and got "not allowed before initialize".
awk '/^\.Bd -literal/ { b = 1; t = ""; next }
    b && /^\.Ed/ { b = 0; if (t ~ /airlock serve --workspace/) { printf "%s", t; exit } }
    b { t = t $0 "\n" }' "$top_srcdir/docs/airlock-serve.1" |
    sed -e 's/^\$ //' -e 's/\\e/\\/g' >"$T/serve.sh"
ws=$(make_workspace)
out=$(cd "$ws" && PATH=$(dirname "$AIRLOCK"):$PATH sh "$T/serve.sh" 2>&1)
expect_contains "airlock-serve(1)'s example lists the tools" "$out" \
    '"id":1,"result":{"tools":[{"name":"read_file"'
finish
