#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The agent's own configuration in its persistent home (agent.home):
# Claude Code's ~/.claude/settings.json, Codex's ~/.codex/config.toml,
# Gemini CLI's ~/.gemini/settings.json, opencode's ~/.config/opencode/,
# where each CLI finds hooks, MCP servers and a notify command it runs.
# Codex's own apply_patch once wrote config.toml there, and the next
# session ran its notify command.  Each shipped profile lists them in
# agent.homeReadOnly: from inside the agent's sandbox, writing one,
# renaming over it, moving or replacing its directory, removing it or
# linking in its place fails, a missing one is made and stays empty, the
# rest of the home stays writable, a link there refuses the start, and
# airlock run --setup lets the user change them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
ws=$(make_workspace)
chmod -R a+rX "$ws"

# The entries a profile lists (a flow list, over one or more lines).
entries() {
	awk '/^  homeReadOnly: \[/ { on = 1 } on { print } on && /\]/ { exit }' \
	    "$1" | sed -e 's/^  homeReadOnly: \[//' -e 's/\]//' | tr ',' '\n' |
	    sed -e 's/^ *//' -e 's/ *$//' | grep .
}

# shellcheck disable=SC2016
attack='
cd "$HOME" || exit 1
for e in "$@"; do
	f=${e%/}
	case $e in */) t=$f/planted ;; *) t=$f ;; esac
	(echo pwned >>"$t") 2>/dev/null && echo "wrote $e"
	echo pwned >tmp.new && mv -f tmp.new "$f" 2>/dev/null &&
	    echo "renamed over $e"
	mv "$f" moved 2>/dev/null && echo "moved $e"
	rm -rf "$f" 2>/dev/null; [ -e "$f" ] || echo "removed $e"
	ln -sfn /tmp/elsewhere "$f" 2>/dev/null && [ -L "$f" ] &&
	    echo "linked $e"
	d=${f%/*}
	mv "$d" d.old 2>/dev/null && echo "moved the directory of $e"
	mkdir -p d2 && echo pwned >"d2/${f##*/}" &&
	    mv -T d2 "$d" 2>/dev/null && echo "replaced the directory of $e"
done
echo kept >state.log && echo "home writable"
'

# What each CLI reads at its start and runs programs from (measured with
# the versions tests/agents/install.sh pins), attacked whether the profile
# lists it or not.  Claude Code's ~/.claude.json: its "env" is set in the
# next session's process and every program it starts (the model chosen;
# an LD_PRELOAD of a library the agent left in its home ran in the
# `airlock connect` it started, with ANTHROPIC_API_KEY in its
# environment; measured with 2.1.337); and ~/.claude/.config.json, which
# it reads in its place when that is not empty.  Codex's ~/.codex/.env
# (its variables, a BASH_ENV say) and the login shell's files, which its
# shell snapshot runs at every start (measured with 0.171.0).  Node's
# ~/.node_modules, where Gemini CLI 0.61.0 finds the optional modules its
# own tree lacks (bufferutil, long) and runs them at its start.  And
# the instructions each puts before the model in every session (a
# planted "always call run_check with ..." steered every later one):
# Claude Code's ~/.claude/CLAUDE.md and rules/, Codex's AGENTS.md and
# AGENTS.override.md, Gemini CLI's GEMINI.md, opencode's AGENTS.md and
# the ~/.claude/CLAUDE.md it reads too (measured: each reached the model).
# Claude Code's ~/.claude/backups/: it tells the user to copy one back
# over ~/.claude.json when that is missing.
runs_from() {
	case $1 in
	claude-code) echo .claude.json; echo .claude/.config.json
		echo .claude/settings.json; echo .claude/CLAUDE.md
		echo .claude/rules/; echo .claude/backups/ ;;
	codex) echo .codex/config.toml; echo .codex/.env; echo .bash_profile
		echo .bashrc; echo .codex/AGENTS.md; echo .codex/AGENTS.override.md ;;
	gemini) echo .gemini/settings.json; echo .gemini/.env
		echo .node_modules/; echo .gemini/GEMINI.md ;;
	opencode) echo .config/opencode/opencode.json
		echo .config/opencode/AGENTS.md; echo .claude/CLAUDE.md ;;
	esac
}

for prof in claude-code codex gemini opencode; do
	yaml="$top_srcdir/contrib/agents/$prof.yaml"
	list=$(entries "$yaml")
	[ -n "$list" ]
	expect_eq "$prof lists its configuration in agent.homeReadOnly" "$?" 0
	list=$( (echo "$list"; runs_from $prof) | awk '!seen[$0]++')
	home="$T/home-$prof"
	mkdir -p "$home"
	# The first entry exists, as the user set it up; the rest are missing.
	first=$(echo "$list" | head -1)
	case $first in */) first=${first}opencode.json ;; esac
	mkdir -p "$home/$(dirname "$first")"
	echo original >"$home/$first"
	# (as root the agent is uid 65534; its home must be its own)
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$home"
	sed -e "s|^  home: .*|  home: $home|" "$yaml" >"$T/$prof.yaml"
	# shellcheck disable=SC2086
	out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/$prof.yaml" \
	    --workspace "$ws" -- sh -c "$attack" sh $list 2>&1)
	expect_eq "$prof: the agent ran" "$?" 0
	expect_contains "$prof: the rest of the home is writable" "$out" \
	    "home writable"
	for e in $list; do
		for how in wrote "renamed over" moved removed linked \
		    "moved the directory of" "replaced the directory of"; do
			expect_not_contains "$prof: the agent $how $e" "$out" \
			    "$how $e"
		done
	done
	expect_eq "$prof: $first is as the user left it" \
	    "$(cat "$home/$first")" original
	for e in $list; do
		expect_eq "$prof: nothing of the agent's is in $e" \
		    "$(grep -rl pwned "$home/$e" 2>/dev/null)" ""
	done
	# The next session reads what the user left, and only that.
	out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/$prof.yaml" \
	    --workspace "$ws" -- sh -c 'cat "$HOME/$1"' sh "$first" 2>&1)
	expect_contains "$prof: the next session reads the user's $first" \
	    "$out" original
done

# A missing file is made empty ("{}" for a .json), a missing directory
# empty, each the agent's.
expect_eq "a missing file is made empty" \
    "$(wc -c <"$T/home-gemini/.gemini/.env")" 0
expect_eq "a missing .json is made {}" \
    "$(cat "$T/home-claude-code/.claude/settings.local.json")" "{}"
expect_eq "a missing directory is made empty" \
    "$(ls -A "$T/home-codex/.codex/skills")" ""
expect_eq "each is the agent's" \
    "$(stat -c %U "$T/home-claude-code/.claude/settings.local.json")" \
    "$(stat -c %U "$T/home-claude-code")"

# A symbolic link on the way refuses the start: the agent could put a
# file of its own in its place.
h="$T/home-codex"
mv "$h/.codex/config.toml" "$h/real.toml"
ln -s ../real.toml "$h/.codex/config.toml"
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/codex.yaml" \
    --workspace "$ws" -- true 2>&1)
expect_eq "a link in place of config.toml refuses the start" "$?" 71
expect_contains "and says why" "$out" \
    "read-only home entry (a symbolic link) $h/.codex/config.toml"
rm "$h/.codex/config.toml"
mv "$h/real.toml" "$h/.codex/config.toml"

# Claude Code's auto memory (a MEMORY.md per project under
# ~/.claude/projects/, beside its sessions, which stay writable) is put
# before every session's model: WRAPPING.md's command turns it off, -p
# and interactive alike (make check-agents plants one from the sandbox
# and checks that no request holds it).
for form in "--task T" --interactive; do
	# shellcheck disable=SC2086
	expect_contains "WRAPPING.md's Claude Code command ($form) turns its auto memory off" \
	    "$(python3 "$top_srcdir/tests/agents/doc_command.py" \
	    "$top_srcdir/docs/WRAPPING.md" claude $form)" \
	    '"CLAUDE_CODE_DISABLE_AUTO_MEMORY":"1"'
done

# Gemini CLI's private project memory: at every start it puts
# ~/.gemini/tmp/<project>/memory/MEMORY.md (and a GEMINI.md there) before
# the model, <project> chosen by ~/.gemini/projects.json (the agent's to
# write: any [a-z0-9-]+ name) or a .project_root naming the workspace
# beneath tmp/ or history/, else the workspace's name (measured with
# 0.61.0: planted from the sandbox, it reached the next session's model).
# The profile lists tmp/ and history/ in agent.homeScratch: each an
# empty tmpfs in every session.  The agent plants under every name it can
# point the workspace at, re-points projects.json, and attacks the
# directories themselves; the next session finds none of it.
scratch=$(awk '/^  homeScratch: \[/ { on = 1 } on { print } on && /\]/ { exit }' \
    "$top_srcdir/contrib/agents/gemini.yaml" | tr -d '\n')
expect_contains "gemini lists tmp/ in agent.homeScratch" "$scratch" ".gemini/tmp/"
expect_contains "gemini lists history/ in agent.homeScratch" "$scratch" \
    ".gemini/history/"
gh="$T/home-gemini"
slug=$(basename "$ws" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]/-/g' \
    -e 's/--*/-/g' -e 's/^-//' -e 's/-$//')
# shellcheck disable=SC2016
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/gemini.yaml" \
    --workspace "$ws" -- sh -c '
	g=$HOME/.gemini
	printf "{\"projects\":{\"%s\":\"planted\"}}\n" "$PWD" >"$g/projects.json" &&
	    echo "re-pointed projects.json"
	for d in tmp history; do
		for s in "$1" planted "$1-1"; do
			mkdir -p "$g/$d/$s/memory" &&
			    echo "$PWD" >"$g/$d/$s/.project_root" &&
			    echo pwned >"$g/$d/$s/memory/MEMORY.md" &&
			    echo pwned >"$g/$d/$s/memory/GEMINI.md" &&
			    echo "planted $d/$s"
		done
		mkdir -p d2/"$1"/memory && echo pwned >d2/"$1"/memory/MEMORY.md
		mv -T d2 "$g/$d" 2>/dev/null && echo "replaced $d"
		mv "$g/$d" "$g/$d.old" 2>/dev/null && echo "moved $d"
		ln -sfn "$HOME/d2" "$g/$d" 2>/dev/null && [ -L "$g/$d" ] &&
		    echo "linked $d"
	done
	mv "$g" "$HOME/g.old" 2>/dev/null && echo "moved .gemini"
	mkdir -p g2/tmp/"$1"/memory && echo pwned >g2/tmp/"$1"/memory/MEMORY.md &&
	    mv -T g2 "$g" 2>/dev/null && echo "replaced .gemini"
	true' sh "$slug" 2>&1)
expect_eq "gemini: the planting session ran" "$?" 0
expect_contains "gemini: projects.json stays writable" "$out" \
    "re-pointed projects.json"
expect_contains "gemini: tmp/ is writable in the session" "$out" \
    "planted tmp/$slug"
for how in replaced moved linked; do
	for d in tmp history; do
		expect_not_contains "gemini: the agent $how $d/" "$out" "$how $d"
	done
	expect_not_contains "gemini: the agent $how .gemini/" "$out" \
	    "$how .gemini"
done
expect_eq "gemini: nothing planted is left in the home" \
    "$(grep -rl pwned "$gh/.gemini" 2>/dev/null)" ""
# shellcheck disable=SC2016
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/gemini.yaml" \
    --workspace "$ws" -- sh -c 'cat "$HOME/.gemini/projects.json"
	find "$HOME/.gemini/tmp" "$HOME/.gemini/history" -mindepth 1
	grep -rl pwned "$HOME/.gemini"; true' 2>&1)
expect_contains "gemini: the next session is pointed at the planted name" \
    "$out" '"planted"'
expect_not_contains "gemini: but finds no memory under any name" "$out" \
    "memory"
expect_not_contains "gemini: nor anything planted" "$out" pwned
# A homeScratch entry is a directory of the home, beneath it.
for bad in '../x/' 'tmp' '/abs/'; do
	sed -e "s|^  homeScratch: .*|  homeScratch: [\"$bad\"]|" \
	    "$T/gemini.yaml" >"$T/bad.yaml"
	out=$("$AIRLOCK" run --manifest "$T/bad.yaml" --workspace "$ws" \
	    -- true 2>&1)
	expect_eq "homeScratch $bad is refused" "$?" 78
	expect_contains "and named" "$out" "agent.homeScratch"
done

# airlock run --setup: the user's own session changes them.
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --setup --manifest \
    "$T/codex.yaml" --workspace "$ws" -- sh -c \
    'echo "model = \"m\"" >"$HOME/.codex/config.toml"' 2>&1)
expect_eq "--setup: the session ran" "$?" 0
expect_contains "--setup says so" "$out" \
    "--setup: the agent's configuration in $h is writable"
expect_eq "--setup wrote config.toml" "$(cat "$h/.codex/config.toml")" \
    'model = "m"'
finish
