#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Mercurial's .hg is the same door as a nested .git: "hg status" in or
# beneath a directory holding a .hg runs the [hooks] of its hgrc (a
# file the checkout's owner owns is trusted); so are Sapling's .sl and
# jj's .jj.  Before the git rule took
# .hg in, a run's change set that planted src/.hg landed, and "hg status"
# in src then ran the planted hook on the host.  Tried for real from
# inside airlock exec, as root and as uid 4242, and through the broker's
# write_file; the control shows the plant works with this hg.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v hg >/dev/null 2>&1 || {
	echo "hg (Debian package mercurial) is absent"
	exit 77
}
mcp_env
chmod 755 "$T"
U=4242
mkdir -m 1777 "$T/marks"

# A repository's .hg as "hg init" makes it, kept under another name in
# the workspace (no .hg: not a repository) for the runs to copy.
hg init "$T/skel" || { echo "not ok - hg init"; exit 1; }

# hg_status DIR [UID]: what the workspace's owner runs after cd DIR.
hg_status() { as_uid "${2:-0}" sh -c 'cd "$1" && HGRCPATH= hg status >/dev/null 2>&1' sh "$1"; }
# plant: the shell text that makes src/.hg with a hook touching $1.
plant() { printf 'cp -r tools/hgskel %s && printf "[hooks]\\npre-status = touch %s\\n" >>%s/hgrc' "$2" "$1" "$2"; }

# The attack is real with this hg: planted on the host, it runs.
mkdir -p "$T/control/src"
(cd "$T/control" && mkdir tools && cp -r "$T/skel/.hg" tools/hgskel && sh -c "$(plant "$T/control-pwned" src/.hg)")
hg_status "$T/control/src"
check "control: hg status beneath a planted .hg runs its hook" test -e "$T/control-pwned"

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws/src" "$ws/tools" "$T/st$u"
	echo "print(1)" >"$ws/src/main.py"
	cp -r "$T/skel/.hg" "$ws/tools/hgskel"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "$(plant "$T/marks/pwned$u" src/.hg) && echo also >src/extra.py" 2>&1)
	status=$?
	expect_eq "uid $u: a .hg planted in src: refused (77)" "$status" 77
	expect_contains "uid $u: the .hg named with the git rule" "$out" "refused: src/.hg"
	check "uid $u: no src/.hg on the host" test ! -e "$ws/src/.hg"
	check "uid $u: nothing else of that run applied" test ! -e "$ws/src/extra.py"
	hg_status "$ws/src" "$u"
	check "uid $u: hg status in src runs no planted hook" test ! -e "$T/marks/pwned$u"
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "$(plant "$T/marks/pwned$u" src/.HG)" 2>&1)
	status=$?
	expect_eq "uid $u: a .HG (case-folded): refused (77)" "$status" 77
	check "uid $u: no src/.HG on the host" test ! -e "$ws/src/.HG"
	# Sapling's .sl/config takes the same [hooks]; jj runs the pager and
	# tools of .jj/repo/config.toml.  Neither is packaged for Debian 12:
	# the plants are refused as .hg's are.
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "mkdir -p src/.sl .jj/repo &&
printf '[hooks]\\npre-status = touch x\\n' >src/.sl/config &&
printf 'ui.pager = \\\"touch x\\\"\\n' >.jj/repo/config.toml && echo also >src/extra.py" 2>&1)
	status=$?
	expect_eq "uid $u: a .sl and a .jj planted: refused (77)" "$status" 77
	expect_contains "uid $u: the .sl named with the git rule" "$out" "refused: src/.sl"
	expect_contains "uid $u: the .jj named too" "$out" "refused: .jj"
	check "uid $u: no .sl, no .jj, nothing else on the host" \
	    test ! -e "$ws/src/.sl" -a ! -e "$ws/.jj" -a ! -e "$ws/src/extra.py"
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c "echo 'syntax: glob' >.hgignore" 2>&1)
	status=$?
	expect_eq "uid $u: a .hgignore still lands" "$status" 0
	check "uid $u: .hgignore landed" test -f "$ws/.hgignore"
	cd "$T" || exit 1
done

# Through the broker: write_file of the hgrc of a .hg the checkout has.
ws="$T/ws0"
cp -r "$T/skel/.hg" "$ws/.hg"
cat >"$T/hg.yaml" <<EOF2
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
EOF2
mcp_start "$T/hg.yaml" "$ws"
mcp_call write_file "{\"path\":\".hg/hgrc\",\"content\":\"[hooks]\\npre-status = touch $T/pwned-broker\\n\"}"
expect_eq "write_file of .hg/hgrc: refused by the git rule" \
    "$(jr -c '[.result.structuredContent.errorClass, .result.structuredContent.rule]')" '["denied","git"]'
mcp_stop
check "write_file: no hgrc on the host" test ! -e "$ws/.hg/hgrc"
hg_status "$ws"
check "broker: hg status runs nothing" test ! -e "$T/pwned-broker"
finish
