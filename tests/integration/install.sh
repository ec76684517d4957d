#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# "make install" puts everything where configure's directories say (into a
# DESTDIR), the installed pieces work from there, and "make uninstall"
# leaves no file behind.
. "$top_srcdir/tests/lib.sh"

# A make of our own, not the jobserver of the "make check" running us.
unset MAKEFLAGS MFLAGS MAKELEVEL
D=$T/root
mk() { make -s -C "$top_builddir" "$@"; }
dirs=$(mk print-install-dirs)
eval "$dirs"

mk install DESTDIR="$D" >"$T/install.log" 2>&1
check "make install succeeds" [ $? -eq 0 ]

# Every file, where its directory says.
for f in "$bindir/airlock" \
    "$man1dir/airlock.1" "$man1dir/airlock-run.1" "$man1dir/airlock-exec.1" \
    "$man1dir/airlock-serve.1" "$man1dir/airlock-connect.1" \
    "$man1dir/airlock-check.1" "$man1dir/airlock-approve.1" \
    "$man1dir/airlock-pending.1" "$man1dir/airlock-deny.1" \
    "$man1dir/airlock-trace.1" "$man1dir/airlock-audit.1" \
    "$man1dir/airlock-secret.1" "$man1dir/airlock-proxy.1" \
    "$man1dir/airlock-profile.1" "$man5dir/airlock-manifest.5" \
    "$pkgdatadir/manifests/default.yaml" \
    "$pkgdatadir/agents/claude-code.yaml" "$pkgdatadir/agents/codex.yaml" \
    "$pkgdatadir/agents/gemini.yaml" "$pkgdatadir/agents/opencode.yaml" \
    "$pkgdatadir/agents/gemini-settings.json" \
    "$pkgdatadir/notify/approval-notify.sh" \
    "$pkgdatadir/demo/run.sh" "$pkgdatadir/demo/agent.sh" \
    "$pkgdatadir/example-project/src/todo.sh" \
    "$docdir/README.md" "$docdir/LICENSE" "$docdir/SANDBOX.md" \
    "$tmpfilesdir/airlock.conf" \
    "$bashcompletiondir/airlock" "$zshcompletiondir/_airlock"; do
	check "installed: $f" [ -f "$D$f" ]
done
# Nothing in the tree is left out: every example manifest, every page of
# docs/ and every man page of the source is installed.
for y in "$top_srcdir"/contrib/manifests/*.yaml; do
	check "installed: manifests/$(basename "$y")" \
	    [ -f "$D$pkgdatadir/manifests/$(basename "$y")" ]
done
for p in "$top_srcdir"/docs/*.md; do
	check "installed: $(basename "$p")" [ -f "$D$docdir/$(basename "$p")" ]
done
for p in "$top_srcdir"/docs/*.[15]; do
	s=${p##*.}
	eval "mdir=\$man${s}dir"
	check "installed: $(basename "$p")" [ -f "$D$mdir/$(basename "$p")" ]
done
check "the binary and the hooks are executable" \
    [ -x "$D$bindir/airlock" ] && [ -x "$D$pkgdatadir/notify/approval-notify.sh" ] &&
    [ -x "$D$pkgdatadir/demo/run.sh" ]

# What is installed is used from there: the manifests check, the pages
# render (pending and deny lead to the approve page), the tmpfiles entry
# names root's state directory.
for y in "$D$pkgdatadir"/manifests/*.yaml "$D$pkgdatadir"/agents/*.yaml; do
	"$D$bindir/airlock" check "$y" >/dev/null 2>"$T/err"
	check "installed manifest checks: $(basename "$y")" [ $? -eq 0 ]
done
if command -v man >/dev/null 2>&1; then
	out=$(cd "$D$(dirname "$man1dir")" && MANWIDTH=80 man -l man1/airlock-deny.1 2>&1 | head -n 20)
	expect_contains "man airlock-deny shows the approve page" "$out" "deny"
	expect_contains "man airlock-deny is the approvals page" "$out" "AIRLOCK-APPROVE"
fi
expect_contains "tmpfiles entry for /var/lib/airlock" \
    "$(cat "$D$tmpfilesdir/airlock.conf")" "d /var/lib/airlock 0700 root root"
out=$(bash -c ". '$D$bashcompletiondir/airlock'; COMP_WORDS=(airlock ex); COMP_CWORD=1; _airlock; echo \"\${COMPREPLY[*]}\"")
expect_eq "bash completion completes a command" "$out" "exec"

# The installed demo finds its example project beside it and airlock on
# PATH (no source tree, no $AIRLOCK).
out=$(env -u AIRLOCK PATH="$D$bindir:$PATH" timeout 120 sh "$D$pkgdatadir/demo/run.sh" 2>&1)
demo_cleanup "$out"
expect_contains "the installed demo's agent succeeds" "$out" "the agent exited with status 0"
expect_contains "the installed demo's audit log verifies" "$out" "valid and closed"

mk uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1
check "make uninstall succeeds" [ $? -eq 0 ]
left=$(find "$D" -type f -o -type l)
expect_eq "make uninstall leaves no file" "$left" ""
finish
