#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A git directory need not be named .git.  git takes any directory that
# holds a valid HEAD beside "objects" and "refs" for a bare repository,
# and with core.worktree in its config, "git status" in or beneath it
# runs that config's core.fsmonitor: the nested src/.git/config of issue
# 12 (exec_changeset.sh), spelt src/HEAD, src/config, src/objects,
# src/refs.  Before the git rule refused a file named HEAD, each run
# below landed, and "git status" in src then ran the planted command on
# the host.  Tried for real from inside airlock exec as root and as uid
# 4242 (HEAD a file, HEAD a symlink, and the repository built over two
# runs), and through the broker (run_check and write_file).  A repository
# the checkout already has under another name (tests/fixtures/repo.git)
# is as good: before a write beneath a directory holding a HEAD was
# refused, a run or write_file rewrote its config and "git status" there
# ran the planted command.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v git >/dev/null 2>&1 || {
	echo "git is absent"
	exit 77
}
mcp_env
chmod 755 "$T"
U=4242
mkdir -m 1777 "$T/marks"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# plant.sh MARK [DIR] [link]: a bare repository in DIR (src) whose config
# touches MARK on "git status"; "link": HEAD is a symlink to refs/.
cat >"$T/plant.sh" <<'EOF'
d=${2:-src}
mkdir -p "$d/objects" "$d/refs"
if [ "${3:-}" = link ]; then
	ln -s refs/heads/main "$d/HEAD"
elif [ "${3:-}" != nohead ]; then
	echo 'ref: refs/heads/main' >"$d/HEAD"
fi
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch %s; false"\n' "$1" >"$d/config"
EOF


# git_status DIR [UID]: what the workspace's owner (or a shell prompt)
# runs after cd DIR.
git_status() { as_uid "${2:-0}" sh -c 'cd "$1" && git status >/dev/null 2>&1' sh "$1"; }
# unplant: what a refused run would have left, removed (so that each
# attack below stands alone on code that lets it land).
unplant() { rm -rf "$T/marks/pwned$u" "$ws/src/HEAD" "$ws/src/objects" "$ws/src/refs" "$ws/src/config" "$ws/src/extra.py"; }

# The attack is real with this git: planted on the host, it runs.
mkdir -p "$T/control/src"
git -C "$T/control" init -q .
(cd "$T/control" && sh "$T/plant.sh" "$T/control-pwned")
git_status "$T/control/src"
check "control: git status in a planted bare repository runs its fsmonitor" \
    test -e "$T/control-pwned"

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws/src" "$ws/tools" "$T/st$u"
	echo "print(1)" >"$ws/src/main.py"
	cp "$T/plant.sh" "$ws/tools/plant.sh"
	git -C "$ws" init -q .
	git init -q --bare "$ws/tests/fixtures/repo.git"
	cp -a "$ws/tests/fixtures/repo.git/config" "$T/fixture.config"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1

	# ex CMD: sh -c CMD in airlock exec as $u; sets $out and $status.
	ex() { out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "$1" 2>&1); status=$?; }

	ex "sh tools/plant.sh $T/marks/pwned$u && echo also >src/extra.py"
	expect_eq "uid $u: a bare repository planted in src: refused (77)" "$status" 77
	expect_contains "uid $u: its HEAD named with the git rule" "$out" "refused: src/HEAD: git"
	check "uid $u: no src/HEAD on the host" test ! -e "$ws/src/HEAD" -a ! -L "$ws/src/HEAD"
	check "uid $u: nothing else of that run applied" test ! -e "$ws/src/config" -a ! -e "$ws/src/extra.py"
	git_status "$ws/src" "$u"
	check "uid $u: git status in src runs no planted fsmonitor" test ! -e "$T/marks/pwned$u"
	unplant

	ex "sh tools/plant.sh $T/marks/pwned$u src link"
	expect_eq "uid $u: HEAD a symlink to refs/: refused (77)" "$status" 77
	expect_contains "uid $u: the HEAD symlink named with the git rule" "$out" "refused: src/HEAD: git"
	check "uid $u: no src/HEAD symlink on the host" test ! -L "$ws/src/HEAD"
	git_status "$ws/src" "$u"
	check "uid $u: git status in src runs nothing (symlink HEAD)" test ! -e "$T/marks/pwned$u"
	unplant

	# Two runs: what has no HEAD is no repository, and lands; the HEAD
	# that would make it one does not.
	ex "sh tools/plant.sh $T/marks/pwned$u src nohead"
	expect_eq "uid $u: objects, refs and config without a HEAD land" "$status" 0
	ex "echo 'ref: refs/heads/main' >src/HEAD"
	expect_eq "uid $u: the HEAD of a second run: refused (77)" "$status" 77
	expect_contains "uid $u: the second run's HEAD named with the git rule" "$out" "refused: src/HEAD: git"
	git_status "$ws/src" "$u"
	check "uid $u: git status in src runs nothing (two runs)" test ! -e "$T/marks/pwned$u"
	unplant

	# A repository the checkout already has, by any name (a test's
	# fixture): its config is as good as .git/config.
	ex "sh tools/plant.sh $T/marks/pwned$u tests/fixtures/repo.git nohead"
	expect_eq "uid $u: a fixture repository's config rewritten: refused (77)" "$status" 77
	expect_contains "uid $u: the fixture's config named with the git rule" "$out" "refused: tests/fixtures/repo.git/config: git"
	check "uid $u: the fixture's config is intact" cmp -s "$ws/tests/fixtures/repo.git/config" "$T/fixture.config"
	git_status "$ws/tests/fixtures/repo.git" "$u"
	check "uid $u: git status in the fixture runs nothing" test ! -e "$T/marks/pwned$u"
	rm -f "$T/marks/pwned$u"
	cp -a "$T/fixture.config" "$ws/tests/fixtures/repo.git/config"
	ex "mkdir tests/fixtures/repo.git/hooks2 && echo x >tests/fixtures/repo.git/hooks2/post-checkout"
	expect_eq "uid $u: a new directory in the fixture: refused (77)" "$status" 77
	expect_contains "uid $u: the fixture's new directory named with the git rule" "$out" "refused: tests/fixtures/repo.git/hooks2: git"
	ex "rm tests/fixtures/repo.git/description"
	expect_eq "uid $u: a removal in the fixture lands" "$status" 0
	check "uid $u: the fixture's description is removed" test ! -e "$ws/tests/fixtures/repo.git/description"

	ex "mkdir -p web/Head && echo '<title/>' >web/Head/index.html"
	expect_eq "uid $u: a directory named Head still lands" "$status" 0
	check "uid $u: web/Head/index.html landed" test -f "$ws/web/Head/index.html"
	cd "$T" || exit 1
done

# Through the broker: a check's change set, and write_file.
ws="$T/ws0"
cat >"$T/bare.yaml" <<EOF
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
checks:
  bare: ["sh", "tools/plant.sh", "$T/pwned-broker"]
sandbox:
  protected: [ ".git" ]
EOF
mcp_start "$T/bare.yaml" "$ws"
mcp_call run_check '{"checkId":"bare"}' 60
expect_eq "run_check planting a bare repository: change_refused" \
    "$(jr .result.structuredContent.errorClass)" change_refused
expect_contains "run_check: src/HEAD named with the git rule" \
    "$(jr -c .result.structuredContent.refused)" '{"path":"src/HEAD","rule":"git"'
check "run_check: nothing of the repository on the host" \
    test ! -e "$ws/src/HEAD" -a ! -e "$ws/src/config"
mcp_call write_file '{"path":"src/objects/HEAD","content":"ref: refs/heads/main\n"}'
expect_eq "write_file of a HEAD: refused by the git rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
check "write_file: no HEAD on the host" test ! -e "$ws/src/objects/HEAD"
mcp_call write_file "{\"path\":\"tests/fixtures/repo.git/config\",\"content\":\"[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = \\\"touch $T/pwned-broker; false\\\"\\n\"}"
expect_eq "write_file of a fixture repository's config: denied" \
    "$(jr .result.structuredContent.errorClass)" denied
expect_eq "write_file of a fixture repository's config: by the git rule" \
    "$(jr .result.structuredContent.rule)" git
check "write_file: the fixture's config is intact" cmp -s "$ws/tests/fixtures/repo.git/config" "$T/fixture.config"
git_status "$ws/tests/fixtures/repo.git"
check "broker: git status in the fixture runs nothing" test ! -e "$T/pwned-broker"
mcp_stop
git_status "$ws/src"
check "broker: git status in src runs nothing" test ! -e "$T/pwned-broker"
finish
