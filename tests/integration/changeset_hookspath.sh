#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A repository whose config moves its hooks out of .git (core.hooksPath:
# husky's ".husky/_", whose scripts run ".husky/pre-commit"; a project's
# ".githooks" set in the person's ~/.gitconfig) runs them from the
# working tree.  A run's change set that wrote .husky/pre-commit landed,
# and the person's next "git commit" ran it on the host.  The git rule
# now takes in the hooks directories of git's config, and the tracked
# files it includes (policy/githooks.h):
# tried for real from inside airlock exec, as root and as uid 4242, and
# through the broker's write_file; the control shows the plant works
# with this git.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
chmod 755 "$T"
U=4242
mkdir -m 1777 "$T/marks"

# repo DIR: a repository laid out as husky (v9) leaves it.
repo() {
	mkdir -p "$1/.husky/_" "$1/src"
	git -C "$1" init -q
	git -C "$1" config core.hooksPath .husky/_
	git -C "$1" config user.name t
	git -C "$1" config user.email t@t
	# husky's own script: runs the project's .husky/<hook> if there is one.
	printf '#!/bin/sh\nh="$(dirname "$0")/../$(basename "$0")"\n[ -f "$h" ] && exec sh "$h"\nexit 0\n' \
	    >"$1/.husky/_/pre-commit"
	chmod 755 "$1/.husky/_/pre-commit"
	echo "print(1)" >"$1/src/main.py"
	git -C "$1" add -A
	git -C "$1" commit -qm init
}
# commit DIR [UID]: what the person runs after a change.
commit() {
	as_uid "${2:-0}" sh -c 'cd "$1" && echo "# $(date +%s%N)" >>src/main.py && git add -A && git commit -qm next >/dev/null 2>&1' sh "$1"
}
PLANT='mkdir -p .husky && printf "#!/bin/sh\ntouch %s\n" >.husky/pre-commit'

# The attack is real with this git: planted on the host, it runs.
repo "$T/control"
(cd "$T/control" && sh -c "$(printf "$PLANT" "$T/control-pwned")")
commit "$T/control"
check "control: git commit runs a planted .husky/pre-commit" test -e "$T/control-pwned"

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$T/st$u"
	repo "$ws"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "$(printf "$PLANT" "$T/marks/pwned$u") && echo also >src/extra.py" 2>&1)
	status=$?
	expect_eq "uid $u: a .husky/pre-commit planted: refused (77)" "$status" 77
	expect_contains "uid $u: named with the git rule" "$out" "refused: .husky/pre-commit: git"
	check "uid $u: no .husky/pre-commit on the host" test ! -e "$ws/.husky/pre-commit"
	check "uid $u: nothing else of that run applied" test ! -e "$ws/src/extra.py"
	commit "$ws" "$u"
	check "uid $u: git commit runs no planted hook" test ! -e "$T/marks/pwned$u"
	# husky's own scripts, in .husky/_, are hooks too.
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "echo 'touch $T/marks/own$u' >>.husky/_/pre-commit" 2>&1)
	expect_eq "uid $u: an edit of .husky/_/pre-commit: refused (77)" "$?" 77
	check "uid $u: husky's script unchanged" git -c safe.directory="*" -C "$ws" diff --quiet -- .husky
	# Other writes still land.
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "echo fine >src/ok.py && echo huskyrc >.huskyrc" 2>&1)
	expect_eq "uid $u: a change elsewhere lands" "$?" 0
	check "uid $u: it landed" test -f "$ws/src/ok.py" -a -f "$ws/.huskyrc"
	cd "$T" || exit 1
done

# A hooks directory set in the person's own ~/.gitconfig, relative: it
# is the same in every repository.
ws="$T/wsg"
repo "$ws"
git -C "$ws" config --unset core.hooksPath
mkdir -p "$T/home"
printf '[core]\n\thooksPath = .githooks\n' >"$T/home/.gitconfig"
out=$(HOME="$T/home" "$AIRLOCK" exec --workspace "$ws" -- sh -c "mkdir .githooks && printf '#!/bin/sh\ntouch $T/marks/global\n' >.githooks/pre-commit && chmod 755 .githooks/pre-commit" 2>&1)
expect_eq "a .githooks/pre-commit with ~/.gitconfig's hooksPath: refused (77)" "$?" 77
expect_contains "named with the git rule" "$out" "refused: .githooks/pre-commit: git"
HOME="$T/home" commit "$ws"
check "git commit runs nothing planted" test ! -e "$T/marks/global"

# A tracked config file the repository's config includes is git's
# config as much as .git/config: core.fsmonitor there runs at the next
# "git status".  Control first, then from inside airlock exec.
team() {	# DIR
	repo "$1"
	git -C "$1" config include.path ../team.gitconfig
	printf '[user]\n\tname = team\n' >"$1/team.gitconfig"
	git -C "$1" add -A
	git -C "$1" commit -qm team
}
# fsmon MARK: the shell text that gives team.gitconfig an fsmonitor
# touching MARK.
fsmon() { printf 'printf "[core]\\n\\tfsmonitor = \\"touch %s; false\\"\\n" >>team.gitconfig' "$1"; }
team "$T/control2"
(cd "$T/control2" && sh -c "$(fsmon "$T/control2-pwned")")
git -C "$T/control2" status >/dev/null 2>&1
check "control: git status runs the fsmonitor of an included tracked file" test -e "$T/control2-pwned"
ws="$T/wst"
team "$ws"
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "$(fsmon "$T/marks/team")" 2>&1)
expect_eq "an edit of the included team.gitconfig: refused (77)" "$?" 77
expect_contains "named with the git rule" "$out" "refused: team.gitconfig: git"
git -C "$ws" status >/dev/null 2>&1
check "git status runs nothing planted" test ! -e "$T/marks/team"

# A hook manager's hook runs the commands of a tracked file: pre-commit's
# runs the entries of .pre-commit-config.yaml at every commit.
if command -v pre-commit >/dev/null 2>&1; then
	export PRE_COMMIT_HOME="$T/pre-commit-cache"
	pc_repo() {	# DIR
		repo "$1"
		git -C "$1" config --unset core.hooksPath
		printf 'repos:\n  - repo: local\n    hooks:\n      - id: ok\n        name: ok\n        entry: "true"\n        language: system\n        pass_filenames: false\n' \
		    >"$1/.pre-commit-config.yaml"
		git -C "$1" add -A
		git -C "$1" commit -qm pc
		(cd "$1" && pre-commit install >/dev/null)
	}
	# pc_plant MARK: the shell text that makes the entry touch MARK.
	pc_plant() { printf "sed -i 's|entry: \"true\"|entry: touch %s|' .pre-commit-config.yaml" "$1"; }
	pc_repo "$T/control3"
	(cd "$T/control3" && sh -c "$(pc_plant "$T/control3-pwned")")
	(cd "$T/control3" && git add -A && git commit -qm next >/dev/null 2>&1)
	check "control: git commit runs a planted pre-commit entry" test -e "$T/control3-pwned"
	ws="$T/wspc"
	pc_repo "$ws"
	out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "$(pc_plant "$T/marks/pc")" 2>&1)
	expect_eq "an edit of .pre-commit-config.yaml: refused (77)" "$?" 77
	expect_contains "named with the git rule" "$out" "refused: .pre-commit-config.yaml: git"
	(cd "$ws" && echo more >>src/main.py && git commit -qam next >/dev/null 2>&1)
	check "git commit runs nothing planted" test ! -e "$T/marks/pc"
	# The hook repositories pre-commit cloned run at every commit, from
	# $PRE_COMMIT_HOME (${XDG_CACHE_HOME:-~/.cache}/pre-commit): inside
	# the workspace when it is $HOME.  Once written through.
	hr="$T/hookrepo"
	mkdir -p "$hr" && git -C "$hr" init -q
	printf -- '- id: hk\n  name: hk\n  entry: ./hk.sh\n  language: script\n  pass_filenames: false\n' >"$hr/.pre-commit-hooks.yaml"
	printf '#!/bin/sh\nexit 0\n' >"$hr/hk.sh" && chmod 755 "$hr/hk.sh"
	git -C "$hr" add -A && git -C "$hr" -c user.name=t -c user.email=t@t commit -qm hk
	ws="$T/wspchome"
	repo "$ws"
	git -C "$ws" config --unset core.hooksPath
	printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: hk\n' "$hr" "$(git -C "$hr" rev-parse HEAD)" \
	    >"$ws/.pre-commit-config.yaml"
	printf '.cache/\n' >"$ws/.gitignore"
	git -C "$ws" add -A && git -C "$ws" commit -qm pc
	(export HOME="$ws" PRE_COMMIT_HOME="$ws/.cache/pre-commit"; cd "$ws" &&
	    pre-commit install >/dev/null && echo a >>src/main.py && git commit -qam cloned >/dev/null 2>&1)
	cached=$(cd "$ws" && find .cache/pre-commit -name hk.sh | head -n 1)
	check "pre-commit cloned the hook repository into ~/.cache/pre-commit" test -n "$cached"
	out=$(HOME="$ws" PRE_COMMIT_HOME= "$AIRLOCK" exec --workspace "$ws" -- sh -c "printf '#!/bin/sh\ntouch $T/marks/pccache\n' >$cached" 2>&1)
	expect_eq "\$HOME the workspace: a cloned hook's script refused (77)" "$?" 77
	expect_contains "... named with the git rule" "$out" "refused: $cached: git"
	(export HOME="$ws" PRE_COMMIT_HOME="$ws/.cache/pre-commit"; cd "$ws" && echo b >>src/main.py && git commit -qam next >/dev/null 2>&1)
	check "... and the next commit runs nothing of the agent's" test ! -e "$T/marks/pccache"
	printf '#!/bin/sh\ntouch %s\n' "$T/pccache-control" >"$ws/$cached"
	(export HOME="$ws" PRE_COMMIT_HOME="$ws/.cache/pre-commit"; cd "$ws" && echo c >>src/main.py && git commit -qam next >/dev/null 2>&1)
	check "control: the next commit runs that script when it is written" test -e "$T/pccache-control"
	export PRE_COMMIT_HOME="$T/pre-commit-cache"
else
	echo "# pre-commit (Debian package pre-commit) is absent: its hook is not tried"
fi

# yorkie (husky's fork that Vue CLI installs) runs the top package.json's
# "gitHooks" commands: its hook hands the hook's name to its runner,
# which runs that key's command.  (yorkie is an npm package: its runner
# is played by jq and sh here, reading the key as yorkie's does.)  Once
# written through.
yk_repo() {	# DIR
	repo "$1"
	git -C "$1" config --unset core.hooksPath
	mkdir -p "$1/node_modules/yorkie/src"
	printf '#!/bin/sh\ncmd=$(jq -r --arg h "$1" ".gitHooks[\\$h] // empty" package.json)\n[ -z "$cmd" ] || sh -c "$cmd"\n' \
	    >"$1/node_modules/yorkie/src/runner.sh"
	printf '#!/bin/sh\n#yorkie 2.0.0\n[ -f package.json ] || exit 0\nsh ./node_modules/yorkie/src/runner.sh pre-commit\n' \
	    >"$1/.git/hooks/pre-commit"
	chmod 755 "$1/.git/hooks/pre-commit"
	printf '{"name": "p", "version": "1.0.0", "gitHooks": {"pre-commit": "true"}}\n' >"$1/package.json"
	printf 'node_modules/\n' >"$1/.gitignore"
	git -C "$1" add -A && git -C "$1" commit -qm yorkie
}
# yk_plant MARK: the shell text that makes the gitHooks command touch MARK.
yk_plant() { printf "jq '.gitHooks[\"pre-commit\"] = \"touch %s\"' package.json >p.tmp && mv p.tmp package.json" "$1"; }
yk_repo "$T/yk-control"
(cd "$T/yk-control" && sh -c "$(yk_plant "$T/yk-control-pwned")")
commit "$T/yk-control"
check "control: git commit runs a planted gitHooks command (yorkie)" test -e "$T/yk-control-pwned"
ws="$T/wsyk"
yk_repo "$ws"
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "$(yk_plant "$T/marks/yk")" 2>&1)
expect_eq "a new gitHooks command beside yorkie's hook: refused (77)" "$?" 77
expect_contains "... named with the git rule" "$out" "refused: package.json: git"
commit "$ws"
check "... and the next commit runs nothing of the agent's" test ! -e "$T/marks/yk"
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "sed -i 's/1.0.0/1.0.1/' package.json" 2>&1)
expect_eq "control: another key of that package.json lands" "$?" 0
check "... on the host" grep -q 1.0.1 "$ws/package.json"

# A husky hook that runs lint-staged runs the commands of .lintstagedrc
# and its kin (lint-staged is not packaged for Debian: the rule is
# checked, not the run).
ws="$T/wsls"
repo "$ws"
printf 'npx lint-staged\n' >"$ws/.husky/pre-commit"
git -C "$ws" add -A
git -C "$ws" commit -q --no-verify -m lint-staged
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo "{\"*\": \"touch /tmp/x\"}" >.lintstagedrc.json' 2>&1)
expect_eq "a .lintstagedrc.json beside a hook that runs lint-staged: refused (77)" "$?" 77
expect_contains "named with the git rule" "$out" "refused: .lintstagedrc.json: git"
check "... not on the host" test ! -e "$ws/.lintstagedrc.json"
# ...at any depth (lint-staged 12.2.1 and later take the config nearest
# each staged file), and a package.json's "lint-staged" key; the rest of
# a package.json is the project's.
printf '{"name": "p", "lint-staged": {"*.py": "true"}}\n' >"$ws/package.json"
mkdir -p "$ws/packages/a"
echo '{"name": "a"}' >"$ws/packages/a/package.json"
git -C "$ws" add -A
git -C "$ws" commit -q --no-verify -m package
ls_refused() {	# WHAT PATH SCRIPT
	out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "$3" 2>&1)
	expect_eq "$1: refused (77)" "$?" 77
	expect_contains "$1: named with the git rule" "$out" "refused: $2: git"
}
ls_refused "a nested packages/a/.lintstagedrc.json" packages/a/.lintstagedrc.json \
    'echo "{\"*\": \"touch /tmp/x\"}" >packages/a/.lintstagedrc.json'
ls_refused "a nested lint-staged.config.ts" packages/a/lint-staged.config.ts \
    'echo "export default {}" >packages/a/lint-staged.config.ts'
ls_refused "package.json's lint-staged commands changed" package.json \
    'sed -i "s/\"true\"/\"touch \/tmp\/x\"/" package.json'
ls_refused "a lint-staged key added to a nested package.json" packages/a/package.json \
    'echo "{\"name\": \"a\", \"lint-staged\": {\"*\": \"touch /tmp/x\"}}" >packages/a/package.json'
ls_refused "the key given twice (JavaScript takes the last)" package.json \
    'echo "{\"lint-staged\": {\"*.py\": \"true\"}, \"lint-staged\": {\"*\": \"touch /tmp/x\"}}" >package.json'
ls_refused "package.json made a symlink" package.json \
    'echo "{\"lint-staged\": {\"*\": \"touch /tmp/x\"}}" >evil.json && ln -sf evil.json package.json'
check "... none of it on the host" grep -q '"true"' "$ws/package.json"
check "... nor the nested config" test ! -e "$ws/packages/a/.lintstagedrc.json"
"$AIRLOCK" exec --workspace "$ws" -- sh -c \
    'printf "{\"name\": \"p\", \"version\": \"2.0.0\", \"lint-staged\": {\"*.py\": \"true\"}}\n" >package.json &&
     echo "{\"name\": \"a\", \"dependencies\": {\"x\": \"1\"}}" >packages/a/package.json' >/dev/null 2>&1
expect_eq "package.json's other keys changed, lint-staged's the same: applied" "$?" 0
check "... on the host" grep -q '"version": "2.0.0"' "$ws/package.json"
check "... and the nested one" grep -q '"dependencies"' "$ws/packages/a/package.json"
# An install: npm's packages carry their own package.json, some published
# with a "lint-staged" key, beneath node_modules, which git ignores (and
# lint-staged with it).  Before, the install was refused (77).
"$AIRLOCK" exec --workspace "$ws" -- sh -c \
    'mkdir -p node_modules/dep && echo "{\"name\": \"dep\", \"lint-staged\": {\"*.js\": \"eslint\"}}" >node_modules/dep/package.json' >/dev/null 2>&1
expect_eq "an installed package's own lint-staged key: applied" "$?" 0
check "... on the host" grep -q eslint "$ws/node_modules/dep/package.json"

# The person's own config inside the workspace: ~/.gitconfig a dotfiles
# checkout's file through a symlink (as GNU stow leaves it), or named by
# $GIT_CONFIG_GLOBAL.  git obeys it in every repository: an fsmonitor the
# run adds there runs at the person's next "git status" anywhere.
dotfiles() {	# DIR HOME
	mkdir -p "$1" "$2"
	printf '[user]\n\tname = me\n\temail = me@me\n' >"$1/gitconfig"
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -qm dots
	ln -s "$1/gitconfig" "$2/.gitconfig"
}
dfmon() { printf 'printf "[core]\\n\\tfsmonitor = \\"touch %s; false\\"\\n" >>gitconfig' "$1"; }
git init -q "$T/plain"
dotfiles "$T/control4" "$T/home4c"
(cd "$T/control4" && sh -c "$(dfmon "$T/control4-pwned")")
HOME="$T/home4c" git -C "$T/plain" status >/dev/null 2>&1
check "control: git status in any repository runs the fsmonitor of a linked ~/.gitconfig" test -e "$T/control4-pwned"
dotfiles "$T/dots" "$T/home4"
out=$(HOME="$T/home4" "$AIRLOCK" exec --workspace "$T/dots" -- sh -c "$(dfmon "$T/marks/dots")" 2>&1)
expect_eq "an edit of the file ~/.gitconfig links to: refused (77)" "$?" 77
expect_contains "named with the git rule" "$out" "refused: gitconfig: git"
HOME="$T/home4" git -C "$T/plain" status >/dev/null 2>&1
check "git status runs nothing planted" test ! -e "$T/marks/dots"
rm "$T/home4/.gitconfig"
out=$(HOME="$T/home4" GIT_CONFIG_GLOBAL="$T/dots/gitconfig" "$AIRLOCK" exec --workspace "$T/dots" -- sh -c "$(dfmon "$T/marks/dots")" 2>&1)
expect_eq "an edit of the file \$GIT_CONFIG_GLOBAL names: refused (77)" "$?" 77
out=$(HOME="$T/home4" GIT_CONFIG_GLOBAL=/dev/null "$AIRLOCK" exec --workspace "$T/dots" -- sh -c 'echo fine >notes.txt' 2>&1)
expect_eq "GIT_CONFIG_GLOBAL=/dev/null: other writes land (0)" "$?" 0
check "... on the host" test -f "$T/dots/notes.txt"

# A config that cannot be read: nothing lands, and it says why.
mkdir "$T/badhome"
mkdir "$T/badhome/.gitconfig"
out=$(HOME="$T/badhome" "$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo x >src/x.py' 2>&1)
expect_eq "an unreadable ~/.gitconfig: the change set is not applied (74)" "$?" 74
expect_contains "... for that reason" "$out" "cannot read git's config $T/badhome/.gitconfig"
check "... nothing of it on the host" test ! -e "$ws/src/x.py"

# Through the broker: write_file of .husky/pre-commit.
ws="$T/ws0"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
EOF2
mcp_start "$T/m.yaml" "$ws"
mcp_call write_file "{\"path\":\".husky/pre-commit\",\"content\":\"#!/bin/sh\\ntouch $T/pwned-broker\\n\"}"
expect_eq "write_file of .husky/pre-commit: refused by the git rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
mcp_call write_file '{"path":"src/fine.py","content":"x = 1\n"}'
expect_eq "write_file elsewhere: written" "$(jr -c '.result.isError // false')" false
mcp_stop
check "write_file: no .husky/pre-commit on the host" test ! -e "$ws/.husky/pre-commit"
commit "$ws"
check "broker: git commit runs nothing planted" test ! -e "$T/pwned-broker"
# write_file of package.json beside a hook that runs lint-staged.
mcp_start "$T/m.yaml" "$T/wsls"
mcp_call write_file '{"path":"package.json","content":"{\"lint-staged\": {\"*\": \"touch /tmp/x\"}}\n"}'
expect_eq "write_file of package.json's lint-staged key: refused by the git rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
mcp_call write_file '{"path":"packages/a/.lintstagedrc.json","content":"{}\n"}'
expect_eq "write_file of a nested .lintstagedrc.json: refused by the git rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
mcp_call write_file '{"path":"package.json","content":"{\"name\": \"p\", \"version\": \"3.0.0\", \"lint-staged\": {\"*.py\": \"true\"}}\n"}'
expect_eq "write_file of package.json, its lint-staged key the same: written" "$(jr -c '.result.isError // false')" false
mcp_stop
check "write_file: package.json's lint-staged commands unchanged on the host" \
    grep -q '"\*.py": "true"' "$T/wsls/package.json"
check "... its version written" grep -q '"3.0.0"' "$T/wsls/package.json"
# A hook lefthook installed runs the commands of lefthook.yml and of each
# config it merges: lefthook-local.* in every format, their .config/
# kin, the scripts beneath .lefthook/, and what lefthook.yml extends
# with or takes scripts from (lefthook is not packaged for Debian: the
# rule is checked, not the run).  All but .lefthook/ were once written
# through.
ws="$T/wslh"
repo "$ws"
git -C "$ws" config --unset core.hooksPath
printf '#!/bin/sh
call_lefthook()
{
  lefthook "$@"
}
call_lefthook run "pre-commit" "$@"
' \
    >"$ws/.git/hooks/pre-commit"
chmod 755 "$ws/.git/hooks/pre-commit"
# The project's config merges a shared one and keeps its scripts apart.
printf 'extends:\n  - ci/shared-lefthook.yml\nsource_dir: tools/lh/\npre-commit:\n  commands:\n    ok:\n      run: "true"\n' \
    >"$ws/lefthook.yml"
# ...and the shared one extends with another (lefthook merges it too).
mkdir -p "$ws/ci"
printf 'extends: [ci/nested-lefthook.yml]\n' >"$ws/ci/shared-lefthook.yml"
for f in lefthook-local.json lefthook-local.toml .config/lefthook-local.yml \
    lefthook.jsonc .lefthook/pre-commit/x.sh ci/shared-lefthook.yml \
    ci/nested-lefthook.yml tools/lh/pre-commit/x.sh; do
	out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "mkdir -p \"\$(dirname $f)\" && echo 'pre-commit: {commands: {x: {run: touch /tmp/x}}}' >$f" 2>&1)
	expect_eq "$f beside a hook lefthook installed: refused (77)" "$?" 77
	expect_contains "... named with the git rule" "$out" "refused: $f: git"
	check "... not on the host" sh -c '! grep -qs "touch /tmp/x" "$1"' sh "$ws/$f"
done
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo x >src/other.py' 2>&1)
expect_eq "control: another file beside it lands" "$?" 0
check "... on the host" test -e "$ws/src/other.py"
# lefthook's "rc": the hook it installs sources that file before it runs
# lefthook (its template: [ -f RC ] && . RC), so the agent writing it
# ran code at the next commit.  Once written through.
ws="$T/wsrc"
repo "$ws"
git -C "$ws" config --unset core.hooksPath
printf '#!/bin/sh
[ -f ./.lefthookrc ] && . ./.lefthookrc
call_lefthook()
{
  lefthook "$@"
}
call_lefthook run "pre-commit" "$@"
' >"$ws/.git/hooks/pre-commit"
chmod 755 "$ws/.git/hooks/pre-commit"
printf 'rc: ./.lefthookrc\npre-commit:\n  commands:\n    ok:\n      run: "true"\n' >"$ws/lefthook.yml"
git -C "$ws" add -A && git -C "$ws" commit -qm lefthook
cp -a "$ws" "$T/rc-control"
printf 'touch %s\n' "$T/rc-control-pwned" >"$T/rc-control/.lefthookrc"
commit "$T/rc-control"
check "control: git commit sources a planted .lefthookrc" test -e "$T/rc-control-pwned"
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c "printf 'touch $T/rc-pwned\\n' >.lefthookrc" 2>&1)
expect_eq "the rc file lefthook.yml names: refused (77)" "$?" 77
expect_contains "... named with the git rule" "$out" "refused: .lefthookrc: git"
check "... not on the host" test ! -e "$ws/.lefthookrc"
commit "$ws"
check "... and the next commit runs nothing of the agent's" test ! -e "$T/rc-pwned"
# $LEFTHOOK_CONFIG names the config instead of lefthook.yml: it and
# what it names are the git rule's when airlock runs with it.
mkdir -p "$ws/ci"
printf 'rc: ./ci/rc.sh\n' >"$ws/ci/lh.yml"
for f in ci/lh.yml ci/rc.sh; do
	out=$(LEFTHOOK_CONFIG=ci/lh.yml "$AIRLOCK" exec --workspace "$ws" -- sh -c "echo 'touch /tmp/x' >$f" 2>&1)
	expect_eq "$f under LEFTHOOK_CONFIG=ci/lh.yml: refused (77)" "$?" 77
	expect_contains "... named with the git rule" "$out" "refused: $f: git"
done
out=$("$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo x >ci/rc.sh' 2>&1)
expect_eq "control: without LEFTHOOK_CONFIG, ci/rc.sh lands" "$?" 0
# husky 9's "h", which each of its hooks sources, sources
# ${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh first: with $HOME the
# workspace (a dotfiles or home checkout), the agent writing it ran code
# at the next commit of every repository husky manages.  Once written
# through.
hk="$T/homews"
repo "$hk"
printf '#!/bin/sh\n. "$(dirname "$0")/h"\n' >"$hk/.husky/_/pre-commit"
printf '#!/usr/bin/env sh\ni="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"\n[ -f "$i" ] && . "$i"\nexit 0\n' \
    >"$hk/.husky/_/h"
chmod 755 "$hk/.husky/_/pre-commit" "$hk/.husky/_/h"
git -C "$hk" add -A && git -C "$hk" commit -qm husky9
cp -a "$hk" "$T/husky-control"
mkdir -p "$T/husky-control/.config/husky"
printf 'touch %s\n' "$T/husky-control-pwned" >"$T/husky-control/.config/husky/init.sh"
( export HOME="$T/husky-control"; unset XDG_CONFIG_HOME; commit "$T/husky-control" )
check "control: with \$HOME the checkout, git commit sources a planted ~/.config/husky/init.sh" \
    test -e "$T/husky-control-pwned"
out=$(HOME="$hk" "$AIRLOCK" exec --workspace "$hk" -- sh -c "mkdir -p .config/husky && echo 'touch $T/husky-pwned' >.config/husky/init.sh" 2>&1)
expect_eq "\$HOME the workspace: ~/.config/husky/init.sh refused (77)" "$?" 77
expect_contains "... named with the git rule" "$out" "refused: .config/husky/init.sh: git"
( export HOME="$hk"; unset XDG_CONFIG_HOME; commit "$hk" )
check "... and the next commit runs nothing of the agent's" test ! -e "$T/husky-pwned"
out=$(HOME="$hk" "$AIRLOCK" exec --workspace "$hk" -- sh -c 'echo x >.huskyrc' 2>&1)
expect_eq "... ~/.huskyrc (husky 4 to 8) refused (77)" "$?" 77
out=$(HOME="$T" "$AIRLOCK" exec --workspace "$hk" -- sh -c 'mkdir -p .config/husky && echo x >.config/husky/init.sh' 2>&1)
expect_eq "control: \$HOME elsewhere, the workspace's .config/husky/init.sh lands" "$?" 0
finish
