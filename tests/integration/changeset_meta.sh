#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What lands of a file besides its name and bytes, and what a commit's
# --digest binds.  Played from inside airlock exec as root and as uid
# 4242, and from inside a copy-on-write agent's sandbox as root:
# - modes: a run's "chmod 777" landed a root-owned world-writable file
#   and directory in the checkout, anyone's to change; the world-write
#   bit now lands only where the checkout already had it; and a run's
#   "chmod -t" of a 1777 directory landed it 777, where any local user
#   could delete or replace the owner's files: the world-write bit now
#   goes with the sticky bit;
# - extended attributes and times: where the upper layer is on the
#   checkout's filesystem (an ordinary user's run, every commit) the file
#   itself moves, and it brought the run's user.* attribute, the
#   overlay's own trusted.overlay.origin and the run's chosen mtime;
#   a landed file now has none of them, as a copied one never had;
# - inode flags: the file that moves kept those the agent set (chattr
#   +d: dump(8) then skipped it; +S, +A), none of them in the diff; a
#   file with one is copied now, with what a new file there gets;
# - airlock commit --digest: a binary file is shown only as "Binary files
#   ... differ", so a resumed session that changed its bytes kept the
#   digest a person approved and its new bytes landed; the diff now
#   gives every written file's sha256;
# - a session whose only change was a mode bit that does not land (chmod
#   o+w of a directory) was "nothing to commit", the drop said nowhere
#   and recorded nowhere: it commits as 0 entries now, the drop told on
#   stderr and listed in cow_applied, as a run's change_applied lists it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "# SKIP: needs root and setpriv"; TESTS_FINISHED=1; exit 77
fi
chmod 755 "$T"
A=$(realpath "$AIRLOCK")
# xattrs FILE: its extended attributes' names, sorted, one line.
xattrs() { python3 -c 'import os,sys; print(" ".join(sorted(os.listxattr(sys.argv[1], follow_symlinks=False))))' "$1"; }
py=/usr/bin/python3

for u in 0 4242; do
	ws="$T/ws$u"
	mkdir -p "$ws/shared" "$T/st$u"
	chmod 777 "$ws/shared"
	mkdir -p "$ws/drop"
	echo "echo deploy" >"$ws/drop/deploy.sh"
	echo open >"$ws/open.txt"
	chmod 666 "$ws/open.txt"
	echo plain >"$ws/plain.txt"
	chown -R "$u:$u" "$ws" "$T/st$u"
	chmod 1777 "$ws/drop"
	cd "$ws" || exit 1
	out=$(as_uid "$u" "$A" exec --workspace "$ws" -- sh -c '
		echo "echo hi" >new.sh && chmod 777 new.sh && mkdir wd && chmod 777 wd &&
		chmod 666 plain.txt && echo more >>open.txt && chmod 757 shared &&
		chmod 777 drop &&
		'"$py"' -c "import os; os.setxattr(\"new.sh\", \"user.planted\", b\"1\")" &&
		touch -d 2001-01-01 new.sh && stat -c "%a %n" new.sh wd' 2>&1)
	expect_eq "uid $u: the run lands" "$?" 0
	expect_contains "uid $u: inside, the file was 777" "$out" "777 new.sh"
	expect_eq "uid $u: a new file lands without the world-write bit" "$(stat -c %a "$ws/new.sh")" 775
	expect_eq "uid $u: a new directory lands without it" "$(stat -c %a "$ws/wd")" 775
	expect_eq "uid $u: a file chmod 666 lands 664" "$(stat -c %a "$ws/plain.txt")" 664
	expect_eq "uid $u: a file that was world-writable keeps its mode" "$(stat -c %a "$ws/open.txt")" 666
	expect_eq "uid $u: so does a directory whose mode the run changed" "$(stat -c %a "$ws/shared")" 757
	expect_eq "uid $u: a 1777 directory chmod -t lands without the world-write bit" \
	    "$(stat -c %a "$ws/drop")" 775
	as_uid 4343 mv "$ws/drop/deploy.sh" "$ws/drop/x" 2>/dev/null
	expect_eq "uid $u: ... so another local user cannot replace the file in it" \
	    "$(cat "$ws/drop/deploy.sh" 2>&1)" "echo deploy"
	expect_eq "uid $u: nothing else in the checkout is world-writable" \
	    "$(cd "$ws" && find . -perm -o+w | sort | tr '\n' ' ')" "./open.txt ./shared "
	expect_eq "uid $u: the run's user.* attribute did not land" "$(xattrs "$ws/new.sh")" ""
	expect_eq "uid $u: nor the time the run set" "$(( $(stat -c %Y "$ws/new.sh") > $(date -d 2020-01-01 +%s) ))" 1
	expect_eq "uid $u: the landed file is the run's" "$(cat "$ws/new.sh")" "echo hi"
done

# A copy-on-write session, as root: its upper layer is on the checkout's
# filesystem, and commit moves the files.
cd "$T" || exit 1
ws="$T/cow"
mkdir -p "$ws"
echo base >"$ws/base.txt"
printf 'keep\ncheck_signature\nrun\n' >"$ws/deploy.sh"
ln "$ws/deploy.sh" "$T/deploy.store"
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
agent:
  workspace: cow
EOF
# agent BODY [run options]: BODY as the agent; the session in $S.
agent() {
	printf '#!/bin/sh\n%s\n' "$1" >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
	shift
	timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}
agent 'echo more >>base.txt && chmod 777 base.txt &&
'"$py"' -c "import os; os.setxattr(\"base.txt\", \"user.planted\", b\"1\")" &&
touch -d 2001-01-01 base.txt && printf "\177ELF\000benign" >tool.bin &&
chattr +dSA base.txt && lsattr base.txt'
check "cow: a session was made" test -n "$S"
expect_contains "cow: inside, the agent set inode flags (chattr +dSA)" "$(cat "$T/out")" "--S---dA"
d=$("$A" diff "$S" 2>"$T/derr")
sha=$(sed -n 's/.*diff sha256 \([0-9a-f]*\).*/\1/p' "$T/derr")
expect_contains "cow: the diff shows the mode that will land" "$d" "new mode 100775"
expect_contains "cow: the diff lists the binary" "$d" "Binary files /dev/null and b/tool.bin differ"
expect_contains "cow: the diff gives the binary's sha256" "$d" \
    "sha256 $(printf '\177ELF\000benign' | sha256sum | cut -d' ' -f1)"
expect_contains "cow: and the text file's" "$d" "sha256 $(printf 'base\nmore\n' | sha256sum | cut -d' ' -f1)"

# The session resumes and changes the binary's bytes: the reviewed
# digest no longer matches, and nothing lands.
agent 'printf "\177ELF\000EVIL!!" >tool.bin' --resume "$S"
"$A" commit --digest "$sha" "$S" 2>"$T/cerr"
expect_eq "cow: commit with the digest of other bytes refuses" "$?" 1
expect_contains "cow: ... saying the session changed" "$(cat "$T/cerr")" "changed since its diff was read"
check "cow: ... and nothing landed" test ! -e "$ws/tool.bin"

"$A" diff "$S" >/dev/null 2>"$T/derr"
sha=$(sed -n 's/.*diff sha256 \([0-9a-f]*\).*/\1/p' "$T/derr")
"$A" commit --digest "$sha" "$S" 2>"$T/cerr"
expect_eq "cow: commit with the new diff's digest lands" "$?" 0
expect_eq "cow: the bytes that landed are the ones reviewed" "$(od -An -c "$ws/tool.bin" | tr -d ' \n')" '177ELF\0EVIL!!'
expect_eq "cow: the committed file has no world-write bit" "$(stat -c %a "$ws/base.txt")" 775
log=$(sed -n 's/.*; log \(.*\)$/\1/p' "$T/cerr")
expect_eq "cow: cow_applied says so (modesDropped)" \
    "$(jq -c 'select(.event == "cow_applied") | .fields.modesDropped' "$log" 2>&1)" \
    '[{"landed":"0775","mode":"0777","path":"base.txt"}]'
expect_eq "cow: no attribute of the layer's landed (user.*, trusted.overlay.*)" "$(xattrs "$ws/base.txt")" ""
expect_eq "cow: nor the time the agent set" "$(( $(stat -c %Y "$ws/base.txt") > $(date -d 2020-01-01 +%s) ))" 1
expect_eq "cow: nor an inode flag it set (nodump, sync, noatime)" \
    "$(lsattr "$ws/base.txt" 2>&1 | cut -d' ' -f1 | tr -d 'eN-')" ""
expect_eq "cow: the committed file is the agent's" "$(cat "$ws/base.txt")" "base
more"
expect_contains "cow: the commit tells of the drop" "$(cat "$T/cerr")" \
    "base.txt: mode 0777 landed as 0775"

# A session whose only change is a world-write bit that does not land:
# "nothing to commit" said nothing of it, and no record was written.
mkdir -m 755 "$ws/d"
agent 'chmod o+w d' --resume "$S"
"$A" diff "$S" >/dev/null 2>"$T/derr"
expect_contains "cow: the diff of a drop-only session tells of it" \
    "$(cat "$T/derr")" "d: mode 0757 lands as 0755"
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: a drop-only commit succeeds" "$?" 0
expect_contains "cow: ... telling of the drop" "$(cat "$T/cerr")" "d: mode 0757 landed as 0755"
expect_eq "cow: ... the directory keeps its mode" "$(stat -c %a "$ws/d")" 755
log=$(sed -n 's/.*; log \(.*\)$/\1/p' "$T/cerr")
expect_eq "cow: ... cow_commit and cow_applied of 0 entries record it" \
    "$(jq -c 'select(.event == "cow_commit") | .fields.entries' "$log" 2>&1) $(jq -c 'select(.event == "cow_applied") | [.fields.modesDroppedTotal, .fields.modesDropped]' "$log" 2>&1)" \
    '0 [1,[{"landed":"0755","mode":"0757","path":"d"}]]'
"$A" commit "$S" 2>"$T/cerr"
expect_contains "cow: ... and the session is emptied" "$(cat "$T/cerr")" "has nothing to commit"

# A file of the checkout with two names (pnpm links every file of
# node_modules from its store; cp -al): the diff could not open the old
# file and showed the edit as the whole new text added to an empty one
# ("@@ -0,0 +1,2 @@"), so a line the agent took out was shown nowhere.
agent 'printf "keep\nrun\n" >deploy.sh' --resume "$S"
d=$("$A" diff "$S" 2>"$T/derr")
expect_contains "cow: a checkout file of two names: the line taken out is shown" "$d" "-check_signature"
expect_not_contains "cow: ... not as the whole file added" "$d" "@@ -0,0 "
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: ... it commits" "$?" 0
expect_eq "cow: ... the checkout has the agent's" "$(cat "$ws/deploy.sh")" "keep
run"
expect_eq "cow: ... and its other name is left as it was" "$(cat "$T/deploy.store")" "keep
check_signature
run"

# Hard links: the agent links a new file and a file of the checkout.
# The diff failed ("n1: cannot be read in the session"), so did the
# commit before its policy, and no refusal was recorded: the diff now
# shows each as a hard link, and the commit refuses them (hard_link).
agent 'echo new >n1 && ln n1 n2 && ln base.txt hb' --resume "$S"
d=$("$A" diff "$S" 2>"$T/derr")
expect_eq "cow: hard links: the diff is shown" "$?" 0
expect_contains "cow: hard links: the new file is shown as one" "$d" "hard link n1 (2 names)"
expect_contains "cow: hard links: so is the checkout's file linked" "$d" "hard link base.txt (2 names)"
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: hard links: the commit is refused" "$?" 1
expect_contains "cow: hard links: each named with its rule" "$(cat "$T/cerr")" "refused: n2: hard_link"
expect_contains "cow: hard links: ... the checkout's file too" "$(cat "$T/cerr")" "refused: base.txt: hard_link"
check "cow: hard links: nothing landed" test ! -e "$ws/n1" -a ! -e "$ws/hb"
expect_eq "cow: hard links: cow_commit_refused records them" \
    "$(jq -c 'select(.event == "cow_commit_refused") | [.fields.entries[] | select(.rule == "hard_link") | .path] | sort' "$AIRLOCK_HOME"/sessions/"$S"/commits/*.jsonl 2>&1 | tail -n 1)" \
    '["base.txt","hb","n1","n2"]'
finish
