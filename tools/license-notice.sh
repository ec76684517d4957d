#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
#
# tools/license-notice.sh [--check] SRCDIR: every source file carries the
# two-line notice LICENSE asks for (an SPDX identifier and the copyright
# line), at its top (after a "#!" line).  Without --check, adds it where
# it is missing (idempotent); with --check, lists the files without it and
# fails.  Covered: C sources and headers, shell scripts, make fragments,
# man pages, Python helpers.  Data (manifests, goldens, fixtures, fuzz
# corpora) is left alone: its bytes are what the tests compare.
set -eu
check=0
if [ "${1:-}" = "--check" ]; then
	check=1
	shift
fi
srcdir=${1:-.}
cd "$srcdir"

SPDX="SPDX-License-Identifier: ISC"
COPY="Copyright (c) 2026 The airlock authors"

files() {
	if [ -d .git ] || [ -f .git ]; then
		git ls-files
	else
		find . -type f | sed 's,^\./,,'
	fi | grep -Ev '^(contrib/example-project|fuzz/corpus|fuzz/regress|tests/golden|tests/agents/fixture|tests/fixtures|debian/)' |
	    grep -E '\.(c|h|sh|mk|py|[158])$|^(Makefile\.am|configure\.ac|fuzz/run|\.ci/run|autogen\.sh|contrib/completions/_airlock|contrib/completions/airlock|contrib/tmpfiles.d/airlock.conf)$|^bench/[^.]*$' || true
}

status=0
for f in $(files); do
	[ -f "$f" ] || continue
	head -n 5 "$f" | grep -q "$SPDX" && continue
	if [ $check -eq 1 ]; then
		echo "license-notice: $f lacks the SPDX/copyright notice" >&2
		status=1
		continue
	fi
	case "$f" in
	*.c|*.h)	notice="/* $SPDX */
/* $COPY */" ;;
	*.1|*.5|*.8)	notice=".\\\" $SPDX
.\\\" $COPY" ;;
	*)		notice="# $SPDX
# $COPY" ;;
	esac
	tmp="$f.lic.$$"
	if head -n 1 "$f" | grep -q '^#!'; then
		{ head -n 1 "$f"; printf '%s\n' "$notice"; tail -n +2 "$f"; } > "$tmp"
	else
		{ printf '%s\n' "$notice"; cat "$f"; } > "$tmp"
	fi
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
done
exit $status
