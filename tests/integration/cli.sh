#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# One command-line convention (airlock(1), OPTIONS and EXIT STATUS): every
# command answers --help and "airlock help CMD" with its usage and every
# option its man page lists; a bad command line is 64 from every command;
# the same mistake gives the same status from every command (table below).
. "$top_srcdir/tests/lib.sh"
# AIRLOCK_RUNTIME_DIR: approve and deny look for sessions there only,
# not in the system's directory too, where the sessions of tests running
# beside this one (as root) live: one that refuses root made "approve
# no-such-approval" exit 1 ("a session refused you"), not 66.
export HOME="$T/home" AIRLOCK_HOME="$T/state" XDG_RUNTIME_DIR="$T/run" \
    AIRLOCK_RUNTIME_DIR="$T/run/airlock"
mkdir -p "$HOME" "$T/run/airlock"
chmod 700 "$T/run/airlock"
man="$top_srcdir/docs"
comp="$top_srcdir/contrib/completions"

commands="run serve connect check exec profile pending approve deny approver diff commit discard trace
audit sessions paths secret proxy suggest"

# The global help lists every command; -V and --version print the version.
out=$("$AIRLOCK" --help)
for c in $commands; do
	expect_contains "airlock --help lists $c" "$out" "  $c "
done
expect_contains "-V prints the version" "$("$AIRLOCK" -V)" "airlock "
check "--version exits 0" "$AIRLOCK" --version

for c in $commands; do
	out=$("$AIRLOCK" "$c" --help 2>"$T/err"); st=$?
	expect_eq "$c --help exits 0" "$st" 0
	expect_contains "$c --help prints its usage" "$out" "usage: airlock $c"
	expect_eq "$c --help writes nothing to stderr" "$(cat "$T/err")" ""
	expect_eq "airlock help $c is $c --help" "$("$AIRLOCK" help "$c")" "$out"
	out2=$("$AIRLOCK" "$c" -h)
	expect_eq "$c -h is $c --help" "$out2" "$out"
	# Every long option of the command's man page is described.
	case $c in
	pending|deny) page=$man/airlock-approve.1 ;;
	paths) page=$man/airlock.1 ;;
	*) page=$man/airlock-$c.1 ;;
	esac
	for o in $(sed -n 's/^\.It Fl -\([a-z-]*\).*/\1/p; s/^\.Op Fl -\([a-z-]*\).*/\1/p' "$page" | sort -u); do
		case $c:$o in
		deny:note|deny:yes|approve:reason|pending:note|pending:reason|pending:yes) continue ;;
		deny:verbose|approve:verbose) continue ;;
		pending:sign|pending:key|pending:id|pending:expires-in) continue ;;
		pending:out|pending:token|deny:token|deny:json|approve:json) continue ;;
		pending:host-key) continue ;;
		esac
		expect_contains "$c --help describes --$o (from its man page)" "$out" "--$o"
	done
	# ...and every option of the help is completed by bash and zsh.
	for o in $(printf '%s\n' "$out" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[ "$o" = "--help" ] && continue
		grep -q -- "$o" "$comp/airlock" ||
		    fail "bash completion lacks $c $o"
		grep -q -- "$o" "$comp/_airlock" ||
		    fail "zsh completion lacks $c $o"
	done
	grep -q "^	$c)\|[ |]$c[)|]" "$comp/airlock" && grep -q "^$c)\|[|]$c)\|^$c|" "$comp/_airlock"
	check "both completions handle $c" [ $? -eq 0 ]

	# A bad option: 64, naming the way to the help.
	"$AIRLOCK" "$c" --no-such-option </dev/null >/dev/null 2>"$T/err"
	expect_eq "$c --no-such-option exits 64" "$?" 64
	expect_contains "$c's usage error points at its help" "$(cat "$T/err")" \
	    "airlock help $c"
done
"$AIRLOCK" help no-such-command >/dev/null 2>&1
expect_eq "help of an unknown command exits 64" "$?" 64
# "exec CMD --help" is CMD's option, not airlock's.
out=$("$AIRLOCK" exec -- /bin/sh -c 'echo "$1"' sh --help 2>&1)
expect_eq "exec -- sh -c ... --help passes --help on" "$out" "--help"

# The same mistake, the same status (airlock(1), EXIT STATUS).
make_workspace "$T/ws" 2>/dev/null || { mkdir -p "$T/ws"; }
printf 'version: 1\ntools: [\n' > "$T/bad.yaml"
status_of() { "$@" </dev/null >/dev/null 2>&1; echo $?; }
while IFS='|' read -r want what args; do
	[ -n "$want" ] || continue
	# shellcheck disable=SC2086
	got=$(eval status_of "\"\$AIRLOCK\"" $args)
	expect_eq "$what: airlock $args exits $want" "$got" "$want"
done <<TABLE
66|missing workspace|run --workspace $T/nonexistent -- /bin/true
66|missing workspace|exec --workspace $T/nonexistent -- /bin/true
66|missing workspace|serve --workspace $T/nonexistent
66|missing workspace|profile --seatbelt --workspace $T/nonexistent
64|workspace not a directory|run --workspace $T/bad.yaml -- /bin/true
64|workspace not a directory|exec --workspace $T/bad.yaml -- /bin/true
64|workspace not a directory|serve --workspace $T/bad.yaml
78|missing manifest|run --manifest $T/none.yaml --workspace $T/ws -- /bin/true
78|missing manifest|exec --manifest $T/none.yaml --workspace $T/ws -- /bin/true
78|missing manifest|serve --manifest $T/none.yaml --workspace $T/ws
78|missing manifest|check $T/none.yaml
78|missing manifest|profile --seatbelt --manifest $T/none.yaml --workspace $T/ws
78|bad manifest|exec --manifest $T/bad.yaml --workspace $T/ws -- /bin/true
78|bad manifest|check $T/bad.yaml
0|the built-in manifest (airlock(1) EXAMPLES)|check -v
66|missing session|trace no-such-session
66|missing session|suggest no-such-session
66|missing approval|approve --yes no-such-approval
66|missing approval|deny --reason no no-such-approval
66|missing audit log|audit verify $T/none.log
66|missing audit log|audit show $T/none.log
66|missing audit log|audit tail $T/none.log
64|missing operand|run --workspace $T/ws
64|missing operand|exec --workspace $T/ws
64|missing operand|trace
64|missing operand|approve
64|missing operand|secret set
64|missing operand|check -v $T/bad.yaml $T/bad.yaml
0|exit status passed through|exec --workspace $T/ws -- /bin/true
3|exit status passed through|exec --workspace $T/ws -- /bin/sh -c 'exit 3'
124|timeout|exec --timeout 200 --workspace $T/ws -- /bin/sleep 5
TABLE

# airlock check without a FILE checks the built-in manifest, and -v's
# canonical form is a manifest to start from (airlock-check(1) EXAMPLES).
"$AIRLOCK" check -v 2>&1 | sed '1,/^---$/d' >"$T/canon.yaml"
out=$("$AIRLOCK" check "$T/canon.yaml" 2>&1)
expect_eq "check -v's canonical form of the built-in manifest loads" \
    "$(printf '%s\n' "$out" | head -n 1)" "manifest $T/canon.yaml: ok"

# airlock suggest on an airlock exec session without --manifest: exec
# records its built-in policy as "(built-in defaults)", which suggest took
# for a file of that name in the session's directory, one the command
# itself could write there (or "No such file", exit 66).
make_workspace >/dev/null
(cd "$T/ws" && "$AIRLOCK" exec -- sh -c \
    'printf "tools: []\n" >"(built-in defaults)"' >/dev/null 2>&1)
s=$(ls -t "$AIRLOCK_HOME/sessions" | head -n 1)
out=$(cd / && "$AIRLOCK" suggest "$s" 2>&1)
expect_eq "suggest on an exec session of the built-in policy: exit 64" "$?" 64
expect_contains "... which it names, and reads no file" "$out" \
    "ran the built-in default manifest: name the file to edit with --manifest"

# A secret that is not there, in a store that is.
printf 'v' | "$AIRLOCK" secret --dir "$T/store" set ONE >/dev/null 2>&1
"$AIRLOCK" secret --dir "$T/store" rm NOPE >/dev/null 2>&1
expect_eq "missing secret: secret rm exits 66" "$?" 66

# The table in airlock(1) lists every status of commands.h.
for v in $(sed -n 's/^#define EXIT_[A-Z]*[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
    "$top_srcdir/supervisor/commands.h"); do
	grep -q "^\.It $v\$" "$man/airlock.1"
	check "airlock(1) EXIT STATUS lists $v" [ $? -eq 0 ]
done
finish
