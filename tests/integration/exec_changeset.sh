#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec writes through an overlay (issue 12): the command's change
# set lands only if every entry passes the write policy; otherwise exit 77,
# each refused entry named with its rule, and nothing applied.  The
# attacks of issue 12 tried for real from inside airlock exec, as root and
# as uid 4242: a setuid-root copy of bash, a setgid world-writable
# directory, a nested src/.git with core.fsmonitor, a protected path
# renamed away and recreated, protected paths absent at start (.git,
# secrets); a refused or listed name cannot paint the terminal (escaped).
# Plus: a benign change lands owned by the workspace owner,
# --dry-run lists and applies nothing, --cow still discards; exec_end
# records what landed or was refused.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
U=4242


for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws/src" "$ws/.github/workflows" "$T/st$u"
	echo "original workflow" >"$ws/.github/workflows/ci.yml"
	echo "print(1)" >"$ws/src/main.py"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1
	P="--protect .github/workflows --protect secrets"

	# ex CMD: sh -c CMD in airlock exec as $u; sets $out and $status.
	# shellcheck disable=SC2086
	ex() { out=$(as_uid "$u" "$AIRLOCK" exec $P --workspace "$ws" -- sh -c "$1" 2>&1); status=$?; }
	# last_set: the changeSet of the newest exec_end (its fields, as JSON).
	last_set() {
		local log
		log=$(find "$T" -name audit.jsonl -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
		jq -c 'select(.event == "exec_end") | .fields.changeSet' "$log"
	}

	ex 'cp /bin/bash sbash && chmod 4755 sbash && mkdir d && chmod 2777 d && ls -l sbash'
	expect_contains "uid $u: inside, the setuid copy was made" "$out" "-rwsr-xr-x"
	expect_eq "uid $u: setuid bash and setgid dir: refused (77)" "$status" 77
	expect_contains "uid $u: the setuid file is named with its rule" "$out" "refused: sbash: special_bits"
	expect_contains "uid $u: the setgid directory is named with its rule" "$out" "refused: d: special_bits"
	check "uid $u: no sbash on the host" test ! -e "$ws/sbash"
	expect_eq "uid $u: exec_end records the refusal" "$(last_set | jq -c '[.applied, .refusedTotal, [.refused[].path]]')" '[0,2,["d","sbash"]]'
	check "uid $u: no d on the host" test ! -e "$ws/d"

	ex "mkdir -p src/.git && echo 'ref: refs/heads/main' >src/.git/HEAD && printf '[core]\\n\\tfsmonitor = touch $T/pwned$u\\n' >src/.git/config && echo also >src/extra.py"
	expect_eq "uid $u: nested src/.git with core.fsmonitor: refused (77)" "$status" 77
	expect_contains "uid $u: nested .git named with the git rule" "$out" "refused: src/.git/config: git"
	check "uid $u: no src/.git on the host" test ! -e "$ws/src/.git"
	check "uid $u: nothing else of that run applied" test ! -e "$ws/src/extra.py"
	(cd "$ws/src" && git status >/dev/null 2>&1)
	check "uid $u: git status in src runs no planted fsmonitor" test ! -e "$T/pwned$u"

	# A name that is not UTF-8 cannot hide a refusal (a JSON refusal
	# record once failed to hold it, and the set passed).
	ex 'd=$(printf "\377"); mkdir -p "$d/.git" && echo x >"$d/.git/config" && cp /bin/sh "$d/s" && chmod 4755 "$d/s"'
	expect_eq "uid $u: .git beneath a name that is not UTF-8: refused (77)" "$status" 77
	expect_contains "uid $u: named with the name rule" "$out" ": name (a path, and a symbolic link's text, must be valid UTF-8)"
	check "uid $u: nothing under that name on the host" test -z "$(find "$ws" -name '.git' -o -perm /7000)"
	# Nor a link's text: it landed (only names were checked), and each
	# reader of the workspace that builds JSON had to meet it (a pin set
	# once stopped the broker on one).
	ex 'ln -s "$(printf "x\377")" lnk && ln -s "$(printf "\303\251")" ok'
	expect_eq "uid $u: a link whose text is not UTF-8: refused (77)" "$status" 77
	expect_contains "uid $u: the link is named with the name rule" "$out" "refused: lnk: name"
	expect_not_contains "uid $u: the UTF-8 link is not refused" "$out" "refused: ok"
	check "uid $u: no link on the host" test ! -L "$ws/lnk" -a ! -L "$ws/ok"
	# Nor the refusal of a directory the run left unreadable (the
	# supervisor walks the upper layer as the user) under a name that
	# is not UTF-8: it once failed the change set quoting the name, and
	# exec_end's JSON could not hold it and recorded no error at all;
	# now it is refused by the unreadable rule (changeset_unreadable.sh).
	if [ "$u" != 0 ]; then
		ex 'd=$(printf "\377"); mkdir "$d" && echo x >"$d/f" && chmod 000 "$d"'
		expect_eq "uid $u: an unreadable directory not UTF-8 named: refused (77)" "$status" 77
		expect_contains "uid $u: named with the unreadable rule, U+FFFD for the byte" "$out" "refused: $(printf '\357\277\275'): unreadable"
		expect_eq "uid $u: exec_end records it, U+FFFD for the byte" "$(last_set | jq -c '.refused[0]')" "{\"path\":\"$(printf '\357\277\275')\",\"rule\":\"unreadable\"}"
	fi
	# A name the run chose cannot paint the terminal: the refusal and
	# --dry-run's list print it escaped (a newline once forged a line,
	# an ESC[2K erased one).
	ex 'n=$(printf "x\nairlock: exec: applied 3 entries\033[2K"); mkfifo "$n"'
	expect_eq "uid $u: a FIFO with a newline and an escape in its name: refused (77)" "$status" 77
	expect_not_contains "uid $u: the refusal prints no raw escape" "$out" $'\033'
	expect_not_contains "uid $u: the refusal forges no line" "$out" $'\nairlock: exec: applied'
	out=$(as_uid "$u" "$AIRLOCK" exec --dry-run --workspace "$ws" -- sh -c 'echo x >"$(printf "y\nairlock: exec: z\033[2K")"' 2>&1)
	expect_contains "uid $u: --dry-run lists the file" "$out" "would apply: write y"
	expect_not_contains "uid $u: --dry-run prints no raw escape" "$out" $'\033'
	expect_not_contains "uid $u: --dry-run forges no line" "$out" $'\nairlock: exec: z'
	# Nor can a name padded to the edge of an 80-column terminal: its
	# wrap began a row with the rest, a line of airlock's to the eye.
	# Each line is folded to the width, each row after its first marked
	# ">> ".
	pad=$(printf '%57s' '' | tr ' ' x)
	out=$(COLUMNS=80 as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "mkfifo '${pad}airlock: exec: applied 3 entries'" 2>&1)
	expect_eq "uid $u: a FIFO with a name padded to the edge: refused (77)" "$?" 77
	expect_eq "uid $u: on that terminal, no row of the refusal reads as airlock's" \
	    "$(printf '%s\n' "$out" | fold -w 80 | grep -c '^airlock: exec: applied')" 0
	expect_contains "uid $u: the name goes on on a row marked as the refusal's" "$out" ">> airlock: exec: applied 3 entries"
	out=$(COLUMNS=80 as_uid "$u" "$AIRLOCK" exec --dry-run --workspace "$ws" -- sh -c "echo x >'${pad:10}airlock: exec: applied 3 entries'" 2>&1)
	expect_eq "uid $u: on that terminal, no row of --dry-run's list reads as airlock's" \
	    "$(printf '%s\n' "$out" | fold -w 80 | grep -c '^airlock: exec: applied')" 0
	expect_contains "uid $u: the name goes on on a row marked as the list's" "$out" ">> airlock: exec: applied 3 entries"
	ex 'mv .github .github.old && mkdir -p .github/workflows && echo evil >.github/workflows/ci.yml'
	expect_eq "uid $u: protected path replaced via rename: refused (77)" "$status" 77
	expect_contains "uid $u: the replaced workflow is named with the protected rule" "$out" "refused: .github/workflows/ci.yml: protected"
	expect_eq "uid $u: the workflow on the host is intact" "$(cat "$ws/.github/workflows/ci.yml")" "original workflow"
	check "uid $u: no .github.old on the host" test ! -e "$ws/.github.old"

	ex 'mkdir -p secrets && echo key >secrets/key'
	expect_eq "uid $u: a protected path absent at start: refused (77)" "$status" 77
	expect_contains "uid $u: secrets named with the protected rule" "$out" "refused: secrets: protected"
	check "uid $u: no secrets on the host" test ! -e "$ws/secrets"
	ex 'git init -q . && echo x >.git/hooks/post-checkout'
	expect_eq "uid $u: a .git absent at start: refused (77)" "$status" 77
	expect_contains "uid $u: .git named with the git rule" "$out" "refused: .git: git"
	check "uid $u: no .git on the host" test ! -e "$ws/.git"

	ex 'exit 3'
	expect_eq "uid $u: a command that writes nothing: its status passes through" "$status" 3
	expect_eq "uid $u: ... and its exec_end has no changeSet" "$(last_set)" null

	ex 'echo new >out.txt && echo "print(2)" >src/main.py && chmod 750 out.txt && exit 5'
	expect_eq "uid $u: a benign change: the command's status passes through" "$status" 5
	expect_eq "uid $u: a benign change lands" "$(cat "$ws/out.txt" "$ws/src/main.py")" "new
print(2)"
	expect_eq "uid $u: owned by the workspace owner, mode kept" "$(stat -c '%u %a' "$ws/out.txt")" "$u 750"
	expect_eq "uid $u: exec_end records what landed" "$(last_set)" '{"applied":2}'

	ex 'echo dry >dry.txt && rm out.txt'
	expect_eq "uid $u: --cow/--dry-run off: the run applies" "$status" 0
	check "uid $u: and lands" test -e "$ws/dry.txt" -a ! -e "$ws/out.txt"
	out=$(as_uid "$u" "$AIRLOCK" exec --dry-run --workspace "$ws" -- sh -c 'echo x >wet.txt; rm dry.txt; mkdir nd' 2>&1)
	expect_eq "uid $u: --dry-run: the command's status" "$?" 0
	expect_contains "uid $u: --dry-run lists a new file" "$out" "would apply: write wet.txt"
	expect_contains "uid $u: --dry-run lists a deletion" "$out" "would apply: delete dry.txt"
	expect_contains "uid $u: --dry-run lists a new directory" "$out" "would apply: mkdir nd"
	check "uid $u: --dry-run applies nothing" test ! -e "$ws/wet.txt" -a -e "$ws/dry.txt" -a ! -e "$ws/nd"
	out=$(as_uid "$u" "$AIRLOCK" exec --cow --workspace "$ws" -- sh -c 'echo c >cow.txt; cat cow.txt' 2>&1)
	expect_contains "uid $u: --cow: the command sees its write" "$out" "c"
	check "uid $u: --cow: discarded" test ! -e "$ws/cow.txt"
	check "uid $u: no trash or temporary file left" test -z "$(compgen -G "$ws/.airlock-*")"
	check "uid $u: no file with special bits anywhere in the workspace" \
	    test -z "$(find "$ws" -perm /7000)"
done
# A diagnostic (log_warnx) that names a path the command chose is folded
# too: a denied write to /usr padded to the edge of an 80-column terminal
# began a row "airlock: exec: applied 3 entries" below airlock's own
# "denied:" line.
pad=$(printf '%41s' '' | tr ' ' x)
out=$(cd "$T/ws0" && COLUMNS=80 "$AIRLOCK" exec --workspace "$T/ws0" -- touch "/usr/${pad}airlock: exec: applied 3 entries" 2>&1)
expect_contains "a denied write padded to the edge is reported" "$out" "airlock: denied: filesystem write /usr/$pad"
expect_eq "on that terminal, no row of the denial reads as airlock's" \
    "$(printf '%s\n' "$out" | fold -w 80 | grep -c '^airlock: exec: applied')" 0
expect_contains "the path goes on on a row marked as the denial's" "$out" $'\n>> airlock: exec: applied 3 entries (mount)'
cd /
out=$("$AIRLOCK" exec --cow --dry-run -- true 2>&1)
expect_eq "--cow with --dry-run is a usage error" "$?" 64
finish
