#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A runner of a copy-on-write session takes the repository metadata (.git,
# .hg at the workspace root) from the real checkout, never from the
# session's upper layer, which the agent writes freely.  The attack, from
# inside the agent's sandbox: write diff.external into .git/config in the
# view, edit a tracked file, and call a check granted a secret whose code
# is git's ("git diff"): before the fix git ran the agent's command with
# the secret in its environment and the agent read it back reversed (no
# redaction catches that) from the check's result.  Also: an agent-made
# .git where the checkout has none is masked; a view whose .git the agent
# removed fails the run instead of running on it.  As root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-42'
. "$top_srcdir/tests/integration/cow_lib.sh"
cow_manifest <<'EOF'
  diff: ["git", "--no-optional-locks", "diff"]
EOF

# The agent: BODY, then the check, then its artifact (the whole output).
# (The agent's diff also prints a marker, made of two words so that its
# text here is not it: the redactor catches the reversed secret too, so
# only the marker tells whether git ran the agent's configuration.)
PLANT='echo agent-edit >>README.md
git config --file .git/config diff.external "sh -c \"printf %s%s AGENT-DIFF- RAN; printf %s \\\"\\\$API_TOKEN\\\" | rev; echo\"" && echo GIT-CONFIG-WRITTEN'

attack() {	# WHO RUN-PREFIX...: one round as root or as uid 4242
	cow_run_setup "$@"

	cow_agent_check diff "$PLANT"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent wrote .git/config in its view" "$out" GIT-CONFIG-WRITTEN
	expect_contains "$who: the check sees the session's edit" "$out" '+agent-edit'
	expect_not_contains "$who: git ran the checkout's config, not the agent's" "$out" "$reversed"
	expect_not_contains "$who: the agent's external diff never ran" "$out" AGENT-DIFF-RAN
	expect_not_contains "$who: no secret in the result" "$out" "$secret"
	expect_eq "$who: the real .git/config is untouched" \
	    "$(git -C "$ws" config --get diff.external || echo none)" none

	# The checkout has no .git: the agent's own repository is masked.
	rm -rf "$ws/.git"
	cow_agent_check diff "git init -q . && git add -A && $PLANT"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made a repository in its view" "$out" GIT-CONFIG-WRITTEN
	expect_not_contains "$who: the agent's repository is not the check's" "$out" "$reversed"
	expect_not_contains "$who: its external diff never ran" "$out" AGENT-DIFF-RAN
	git -C "$ws" init -q
	git -C "$ws" add -A
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm again
	[ "$who" = user ] && chown -R 4242:4242 "$ws/.git"

	# The agent removed .git from its view: the check does not run on it.
	cow_agent_check diff "rm -rf .git && test ! -e .git && echo GIT-REMOVED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent removed .git in its view" "$out" GIT-REMOVED
	expect_contains "$who: the run fails instead" "$out" "sandbox_setup"
	expect_contains "$who: for the right reason" "$out" "the checkout's own $ws/.git"
	expect_not_contains "$who: nothing of the secret" "$out" "$reversed"

	# .git made a symlink to a copy of the agent's: not followed, refused.
	cow_agent_check diff "cp -a .git evil && rm -rf .git && ln -s evil .git && echo agent-edit >>README.md &&
git config --file evil/config diff.external \"sh -c \\\"printf %s \\\\\\\"\\\\\\\$API_TOKEN\\\\\\\" | rev; echo\\\"\" && test -L .git && echo GIT-LINKED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made .git a symlink in its view" "$out" GIT-LINKED
	expect_contains "$who: the run fails on it" "$out" "the checkout's own $ws/.git"
	expect_not_contains "$who: nothing of the secret through it" "$out" "$reversed"
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
