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
finish
