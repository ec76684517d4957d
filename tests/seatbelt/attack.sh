# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What the tests that attack a Seatbelt profile share (sourced after
# tests/lib.sh): the lint, the model of Seatbelt, the run's TMPDIR, and
# profile NAME HOME [options...]: airlock profile --seatbelt with HOME,
# into $T/NAME.sb, linted (1 when it is not made); and verdicts WANT GOT:
# each "NAME VERDICT QUERY" line of WANT against the model's line of GOT
# (sbpl_eval.py's output for WANT's queries, in order).
SB="$top_srcdir/tests/seatbelt"
LINT="python3 $SB/lint.py $SB/known.txt"
EVAL="python3 $SB/sbpl_eval.py"
TMPD=/private/var/folders/xy/abc123/T/airlock.Q1w2e3

profile() {
	name=$1
	h=$2
	shift 2
	if ! HOME=$h "$AIRLOCK" profile --seatbelt --tmpdir "$TMPD" "$@" \
	    > "$T/$name.sb" 2> "$T/$name.err"; then
		fail "${name}_generates"
		cat "$T/$name.err"
		return 1
	fi
	if out=$($LINT "$T/$name.sb"); then
		pass "${name}_passes_lint"
	else
		fail "${name}_passes_lint"
		echo "$out"
	fi
}

verdicts() {
	while read -r _n _v _q; do
		read -r _got _rest <&3 || _got=missing
		if [ "$_got" = "$_v" ]; then
			pass "$_n"
		else
			fail "$_n"
			echo "  $_got $_rest (expected $_v)"
		fi
	done < "$1" 3< "$2"
}
