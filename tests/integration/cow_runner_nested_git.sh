#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A runner of a copy-on-write session never sees repository metadata the
# agent planted deeper in its view than the root (which
# cow_runner_git.sh covers): a src/.git, a bare repository's HEAD.  The
# attack, from inside the agent's sandbox: "git init" in src/, give that
# repository diff.external, edit a file there, and call a check granted
# a secret that runs "git -C src diff": before the fix git ran the
# agent's command with the secret in its environment and the agent read
# it back reversed from the check's result.  With it, src/.git is masked
# (vcs_cover() in runner/child.c) and git walks up to the checkout's own
# repository, which shows the agent's edit; the same for a gitdir: file
# and a symlink at src/.git, and a bare repository in src/bare.  A
# nested repository that is the checkout's own (sub/.git) still works in
# the view, and its config is the checkout's even where the agent
# rewrote it.  jj's and Sapling's metadata (.jj, .sl), at the root or
# deeper, are masked alike.  Changes nested past the walk's bound fail the run.  As
# root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-43'
. "$top_srcdir/tests/integration/cow_lib.sh"
cow_manifest <<'EOF2'
  src: ["git", "-C", "src", "--no-optional-locks", "diff"]
  bare: ["sh", "-c", "printf 'CHECK-SAW:%s\\n' \"$(git -C src/bare rev-parse --absolute-git-dir)\""]
  sub: ["sh", "-c", "printf 'CHECK-SAW:%s\\n' \"$(git -C sub config airlock.marker)\" \"$(git -C sub rev-parse --absolute-git-dir)\"; git -C sub --no-optional-locks diff"]
  vcs: ["sh", "-c", "for f in src/.jj/repo/config.toml .sl/config src/.SL/config .jj/repo/config.toml; do printf 'CHECK-SAW:%s:%s\\n' \"$f\" \"$(cat $f 2>/dev/null || echo none)\"; done"]
EOF2

attack() {	# WHO RUN-PREFIX...: one round as root or as uid 4242
	cow_run_setup "$@"
	# The checkout's own nested repository, in sub/ (ignored by the
	# outer one).
	mkdir "$ws/sub"
	echo nested >"$ws/sub/file.txt"
	git -C "$ws/sub" init -q
	git -C "$ws/sub" config airlock.marker checkout-config
	git -C "$ws/sub" add -A
	git -C "$ws/sub" -c user.name=t -c user.email=t@t commit -qm sub
	printf 'sub/\n' >"$ws/.gitignore"
	git -C "$ws" add -A
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm sub-ignored
	[ "$who" = user ] && chown -R 4242:4242 "$T/$who"

	# src/.git of the agent's making, with diff.external.
	cow_agent_check src "cd src && git init -q . && git add -A &&
git config diff.external $EXTERNAL &&
echo agent-edit >>todo.sh && test -d .git && echo SRC-GIT-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent planted src/.git in its view" "$out" SRC-GIT-PLANTED
	expect_not_contains "$who: git in src/ did not run the agent's config" "$out" "$reversed"
	expect_not_contains "$who: no secret in the result" "$out" "$secret"
	expect_contains "$who: git in src/ ran on the checkout's repository" "$out" 'a/src/todo.sh'
	expect_contains "$who: and sees the session's edit" "$out" '+agent-edit'

	# src/.git as a gitdir: file pointing at the agent's repository.
	cow_agent_check src "cd src && git init -q --separate-git-dir=../.evil . &&
git config diff.external $EXTERNAL && git add -A && echo agent-edit >>todo.sh &&
test -f .git && echo GITDIR-FILE-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent planted a gitdir: file at src/.git" "$out" GITDIR-FILE-PLANTED
	expect_not_contains "$who: git did not follow it to the agent's config" "$out" "$reversed"
	expect_contains "$who: for the right reason (it is masked)" "$out" "error opening '$ws/src/.git'"

	# src/.git as a symlink to the agent's repository.
	cow_agent_check src "git init -q --bare .evil && git -C .evil config core.bare false &&
git -C .evil config diff.external $EXTERNAL && ln -s ../.evil src/.git &&
git -C src add -A && echo agent-edit >>src/todo.sh && test -L src/.git && echo GIT-LINK-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made src/.git a symlink" "$out" GIT-LINK-PLANTED
	expect_not_contains "$who: git did not follow it to the agent's config" "$out" "$reversed"
	expect_contains "$who: for the right reason (it is masked)" "$out" "error opening '$ws/src/.git'"

	# A bare repository (a HEAD with objects/ and refs/) in src/bare.
	cow_agent_check bare "git init -q --bare src/bare && test -f src/bare/HEAD &&
git -C src/bare rev-parse --absolute-git-dir"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made src/bare a repository" "$out" "$ws/src/bare"
	expect_contains "$who: the check's git does not take it for one" "$out" "CHECK-SAW:$ws/.git"
	expect_not_contains "$who: not as a bare repository" "$out" "CHECK-SAW:$ws/src/bare"

	# The checkout's own sub/.git: still the repository of sub/, with
	# the checkout's config even where the agent rewrote it.
	cow_agent_check sub "echo agent-edit >>sub/file.txt && git -C sub config airlock.marker agent-config &&
git -C sub config diff.external $EXTERNAL && echo SUB-CONFIG-WRITTEN"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent rewrote sub/.git/config in its view" "$out" SUB-CONFIG-WRITTEN
	expect_contains "$who: the check's git reads the checkout's config" "$out" CHECK-SAW:checkout-config
	expect_not_contains "$who: not the agent's" "$out" CHECK-SAW:agent-config
	expect_not_contains "$who: nothing of the secret through it" "$out" "$reversed"
	expect_contains "$who: sub/ is still its own repository" "$out" "CHECK-SAW:$ws/sub/.git"
	expect_contains "$who: whose diff shows the session's edit" "$out" '+agent-edit'
	expect_eq "$who: the real sub/.git/config is untouched" \
	    "$(git config --file "$ws/sub/.git/config" airlock.marker)" checkout-config

	# jj's and Sapling's metadata, which the checkout does not have:
	# .jj/repo/config.toml names the pager and tools jj runs, .sl/config
	# the hooks Sapling runs.  The check sees neither (masked), at the
	# root (vcs_real()) or deeper (vcs_cover()), in any case.
	cow_agent_check vcs "mkdir -p src/.jj/repo .jj/repo .sl src/.SL &&
for f in src/.jj/repo/config.toml .jj/repo/config.toml; do echo 'ui.pager = \"sh -c evil\"' >\$f; done &&
for f in .sl/config src/.SL/config; do printf '[hooks]\\npre-status = evil\\n' >\$f; done && echo VCS-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent planted .jj and .sl in its view" "$out" VCS-PLANTED
	for f in src/.jj/repo/config.toml .sl/config src/.SL/config .jj/repo/config.toml; do
		expect_contains "$who: the check does not see the agent's $f" "$out" "CHECK-SAW:$f:none"
	done
	expect_not_contains "$who: no jj pager of the agent's" "$out" 'CHECK-SAW:src/.jj/repo/config.toml:ui.pager'
	check "$who: the checkout holds no .jj or .sl" test ! -e "$ws/.jj" -a ! -e "$ws/.sl" -a ! -e "$ws/src/.jj"

	# Changes nested past the walk's bound: the run fails, closed.
	cow_agent_check src "d=deep; i=1; while [ \$i -lt 258 ]; do d=\$d/d; i=\$((i + 1)); done
mkdir -p \$d/.git && echo DEEP-MADE"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent nested its changes 258 deep" "$out" DEEP-MADE
	expect_contains "$who: the run fails" "$out" sandbox_setup
	expect_contains "$who: on the bound" "$out" "nest more than 256 directories"
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
