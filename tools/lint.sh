#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# tools/lint.sh SRCDIR CPPFLAGS...: clang-tidy over the C sources with the
# checked-in .clang-tidy; fails on any finding not in
# tools/lint-baseline.txt (see there).
set -eu
src=$1
shift
cd "$src"
out=$(mktemp /tmp/airlock-lint.XXXXXX)
trap 'rm -f "$out"' EXIT
clang-tidy --quiet --warnings-as-errors='' \
    $(ls common/*.c policy/*.c broker/*.c runner/*.c supervisor/*.c \
    proxy/*.c) -- "$@" >"$out" 2>/dev/null || true
new=0
grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$out" |
    sed -e "s|^$(pwd)/||" |
while IFS= read -r line; do
	file=${line%%:*}
	check=$(printf '%s\n' "$line" | sed -n 's/.*\[\([^],]*\).*\]$/\1/p')
	if grep -qx "$file $check" tools/lint-baseline.txt; then
		continue
	fi
	echo "$line"
done >"$out.new"
if [ -s "$out.new" ]; then
	echo "lint: clang-tidy findings not in tools/lint-baseline.txt:"
	cat "$out.new"
	rm -f "$out.new"
	exit 1
fi
rm -f "$out.new"
echo "lint: clang-tidy clean ($(grep -c '^[a-z]' tools/lint-baseline.txt) baselined kinds)"
