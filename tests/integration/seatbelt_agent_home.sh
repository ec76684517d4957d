#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock profile --seatbelt with each shipped agent profile
# (contrib/agents/: claude-code, codex, gemini, opencode), attacked: the
# agent's own configuration in its home (agent.homeReadOnly) and its
# scratch directories (agent.homeScratch), which the Linux runner binds
# read-only and mounts a tmpfs over, were not in the Seatbelt profile.
# The home is not writable there, but a dotfiles repository is a
# workspace, and ~/.claude, ~/.codex, ~/.gemini, ~/.config and ~/.bashrc
# are linked into it: Seatbelt matches the name a link leads to, so the
# agent wrote ~/.claude/CLAUDE.md (a persistent prompt injection),
# ~/.codex/.env or ~/.bashrc (run with the API key in the environment at
# the next start) as dotfiles/.claude/CLAUDE.md.  Each step an agent would
# take is judged by the model of Seatbelt (tests/seatbelt/sbpl_eval.py
# --fold: every spelling a case-insensitive volume takes); every profile
# goes through the SBPL lint and keeps every deny of the same profile
# without the agent's lists.
. "$top_srcdir/tests/lib.sh"

. "$top_srcdir/tests/seatbelt/attack.sh"

# entries FILE KEY: the agent profile's list KEY (a flow list, over one
# or more lines), one entry a line.
entries() {
	awk -v k="$2" '$0 ~ "^  " k ": \\[" { on = 1 } on { print }
	    on && /\]/ { exit }' "$1" | sed -e "s/^  $2: \\[//" -e 's/\]//' |
	    tr ',' '\n' | sed -e 's/^ *//' -e 's/ *$//' | grep .
}

# judge PROFILE < "NAME VERDICT QUERY" lines: the model's verdicts, in
# one run of it (in this shell, not a pipeline's: its counts stay); a
# read or a write as on a case-insensitive volume (--fold: each path in
# every spelling, the agent's pick), a rename as named (in every
# spelling too, the test took twice as long).
judge() {
	cat > "$T/want"
	grep -v '^[^ ]* [^ ]* rename ' "$T/want" > "$T/want.f"
	grep '^[^ ]* [^ ]* rename ' "$T/want" > "$T/want.r"
	cat "$T/want.f" "$T/want.r" > "$T/want"
	{
		sed 's/^[^ ]* [^ ]* //' "$T/want.f" | $EVAL --fold "$1"
		sed 's/^[^ ]* [^ ]* //' "$T/want.r" | $EVAL "$1"
	} > "$T/got"
	verdicts "$T/want" "$T/got"
}

# steps PREFIX DIR REL SCRATCH: the steps against the home entry REL as
# it lies in the writable DIR (canonical): none may land.  Each ancestor
# of it in DIR is neither moved away nor made by a rename (a directory
# prepared elsewhere would bring a file with it).
steps() {
	r=${3%/}
	n=$(printf '%s' "$r" | tr -c 'A-Za-z0-9\n' _)
	case $3 in
	*/) echo "$1_${n}_not_filled deny file-write-create $2/$r/x" ;;
	*) echo "$1_${n}_not_written deny file-write-data $2/$r"
	   if [ "$4" = 0 ]; then
		echo "$1_${n}_still_read allow file-read-data $2/$r"
	   fi ;;
	esac
	echo "$1_${n}_not_moved_away deny rename $2/$r $2/moved"
	echo "$1_${n}_not_replaced deny rename $2/planted $2/$r"
	if [ "$4" = 1 ]; then
		echo "$1_${n}_memory_not_read deny file-read-data $2/$r/p/memory/MEMORY.md"
		echo "$1_${n}_memory_not_planted deny file-write-create $2/$r/p/memory/MEMORY.md"
	fi
	a=$r
	while [ "${a%/*}" != "$a" ]; do
		a=${a%/*}
		m=$(printf '%s' "$a" | tr -c 'A-Za-z0-9\n' _)
		echo "$1_${n}_parent_${m}_not_moved deny rename $2/$a $2/moved"
		echo "$1_${n}_parent_${m}_not_made deny rename $2/planted $2/$a"
	done
}

for prof in claude-code codex gemini opencode; do
	Y="$top_srcdir/contrib/agents/$prof.yaml"
	entries "$Y" homeReadOnly > "$T/$prof.ro"
	entries "$Y" homeScratch > "$T/$prof.scratch" || :
	expect_eq "${prof}_lists_its_configuration" \
	    "$(test -s "$T/$prof.ro"; echo $?)" 0

	# A dotfiles repository as the workspace (rcm's layout: ~/.claude
	# is dotfiles/claude), each top directory or file of an entry in the
	# home a link into it: a directory there, the file a dangling link
	# (made at its first write), what is beneath not made yet.  (Named
	# .claude there, sandbox.protected would have covered some.)
	H="$T/$prof/home"
	D="$H/dotfiles"
	mkdir -p "$D"
	cat "$T/$prof.ro" "$T/$prof.scratch" | while read -r e; do
		c=${e%%/*}
		[ -L "$H/$c" ] && continue
		[ "$c" != "$e" ] && mkdir -p "$D/${c#.}"
		ln -s "dotfiles/${c#.}" "$H/$c"
	done
	profile "$prof" "$H" --manifest "$Y" --workspace "$D" || continue
	d="/private$D"
	h="/private$H"
	# The profile's text: each entry by its name, a file as a literal,
	# a directory as a subpath, and a scratch directory also unreadable
	# (the rule before: in every spelling, the model judges it below).
	while read -r e; do
		case $e in */) f=subpath ;; *) f=literal ;; esac
		r=${e%/}
		grep -qxF "(deny file-write* ($f \"$h/$r\"))  ; $e" "$T/$prof.sb"
		rc=$?
		expect_eq "${prof}_text_$(printf '%s' "$r" | tr -c 'A-Za-z0-9\n' _)" "$rc" 0
	done < "$T/$prof.ro"
	while read -r e; do
		grep -B1 -xF "(deny file-write* (subpath \"$h/${e%/}\"))  ; $e" \
		    "$T/$prof.sb" | head -n 1 | grep -q '^(deny file-read\* (regex '
		rc=$?
		expect_eq "${prof}_text_scratch_$(printf '%s' "${e%/}" | tr -c 'A-Za-z0-9\n' _)" "$rc" 0
	done < "$T/$prof.scratch"
	{
		while read -r e; do
			steps "${prof}_linked" "$d" "${e#.}" 0
			r=${e%/}
			echo "${prof}_named_$(printf '%s' "$r" | tr -c 'A-Za-z0-9\n' _)_not_written deny file-write-create $h/$r"
		done < "$T/$prof.ro"
		while read -r e; do
			steps "${prof}_linked_scratch" "$d" "${e#.}" 1
			echo "${prof}_named_scratch_not_read deny file-read-data $h/${e%/}/p/memory/MEMORY.md"
		done < "$T/$prof.scratch"
		# The rest of the dotfiles stays the agent's to change.
		echo "${prof}_workspace_writable allow file-write-create $d/README.md"
		echo "${prof}_workspace_file_renamed allow rename $d/a.txt $d/b.txt"
	} > "$T/q"
	judge "$T/$prof.sb" < "$T/q"

	# Every deny of the profile without the agent's lists is kept.
	awk '/^  home(ReadOnly|Scratch): \[/ { skip = 1 } !skip { print }
	    skip && /\]/ { skip = 0 }' "$Y" > "$T/$prof.bare.yaml"
	if profile "${prof}_bare" "$H" --manifest "$T/$prof.bare.yaml" \
	    --workspace "$D"; then
		grep '^(deny' "$T/${prof}_bare.sb" | sort -u > "$T/bare.deny"
		sort -u "$T/$prof.sb" > "$T/all"
		comm -23 "$T/bare.deny" "$T/all" > "$T/lost"
		expect_eq "${prof}_keeps_every_deny" "$(cat "$T/lost")" ""
		expect_eq "${prof}_bare_has_no_home_rules" \
		    "$(grep -c 'agent.homeReadOnly' "$T/${prof}_bare.sb")" 0
	fi
done

# A workspace holding the entries themselves, no link: ~/.config (for
# opencode) and ~/.gemini (a home's directory the user versions).
H="$T/plain/home"
mkdir -p "$H/.config/opencode" "$H/.gemini/tmp" "$H/ws"
if profile plain_opencode "$H" --workspace "$H/.config" \
    --manifest "$top_srcdir/contrib/agents/opencode.yaml"; then
	while read -r e; do
		case $e in .config/*) steps plain_opencode "/private$H" "$e" 0 ;; esac
	done < "$T/opencode.ro" > "$T/q"
	judge "$T/plain_opencode.sb" < "$T/q"
fi
if profile plain_gemini "$H" --workspace "$H/.gemini" \
    --manifest "$top_srcdir/contrib/agents/gemini.yaml"; then
	cat "$T/gemini.ro" "$T/gemini.scratch" | while read -r e; do
		case $e in .gemini/*) steps plain_gemini "/private$H" "$e" \
		    "$(grep -cx "$e" "$T/gemini.scratch")" ;; esac
	done > "$T/q"
	judge "$T/plain_gemini.sb" < "$T/q"
fi
# Elsewhere, what an earlier session or the user left in a scratch
# directory stays out of the session, as beneath the Linux tmpfs.
if profile plain_scratch "$H" --workspace "$H/ws" \
    --manifest "$top_srcdir/contrib/agents/gemini.yaml"; then
	judge "$T/plain_scratch.sb" <<EOF
scratch_memory_not_read deny file-read-data /private$H/.gemini/tmp/p/memory/MEMORY.md
scratch_history_not_read deny file-read-data /private$H/.gemini/history/p/.project_root
settings_still_read allow file-read-data /private$H/.gemini/settings.json
EOF
fi

# A link on the way that lies in the workspace: the agent could point it
# elsewhere, and the next profile, made from the name, would protect the
# decoy.  Refused, as a denyRead path through such a link is.
H="$T/relink/home"
mkdir -p "$H/dotfiles/claude-v2"
ln -s claude-v2 "$H/dotfiles/.claude"
ln -s dotfiles/.claude "$H/.claude"
HOME=$H "$AIRLOCK" profile --seatbelt --workspace "$H/dotfiles" \
    --manifest "$top_srcdir/contrib/agents/claude-code.yaml" \
    > "$T/relink.sb" 2> "$T/err"
expect_eq "link_in_workspace_is_refused" "$?" 78
expect_contains "link_in_workspace_is_named" "$(cat "$T/err")" \
    "agent.homeReadOnly ~/.claude/settings.json leads through the link $H/dotfiles/.claude,"
expect_eq "link_in_workspace_no_profile" "$(wc -c < "$T/relink.sb")" 0
# A link loop cannot be resolved: refused too.
H="$T/loop/home"
mkdir -p "$H/ws"
ln -s .codex "$H/.codex"
HOME=$H "$AIRLOCK" profile --seatbelt --workspace "$H/ws" \
    --manifest "$top_srcdir/contrib/agents/codex.yaml" > /dev/null 2> "$T/err"
expect_eq "link_loop_is_refused" "$?" 78
expect_contains "link_loop_says_why" "$(cat "$T/err")" "cannot be resolved"

finish
