#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A runner of a copy-on-write session runs none of the git hooks the
# agent wrote in its view.  The view's git reads the checkout's config
# (cow_runner_git.sh), and that config can run files of the working tree:
# core.hooksPath (husky's .husky/_, whose scripts run .husky/<hook>) and
# a tracked file it includes (team.gitconfig, core.fsmonitor and all).
# In the view those files are the agent's.  The attacks, from inside the
# agent's sandbox, each against a check granted a secret:
#   - write .husky/pre-push, then call a check that pushes: before the
#     fix git ran the agent's hook with the secret in its environment,
#     and the agent read it back reversed from the check's result;
#   - make .husky a symlink to a directory of its own hooks;
#   - give team.gitconfig a core.fsmonitor, then call a check that runs
#     "git status".
# With the fix (hooks_cover() in runner/child.c) the check's git runs the
# checkout's own hook, or none, and reads the checkout's team.gitconfig;
# the agent's other edits are still seen.  As root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-47'
. "$top_srcdir/tests/integration/cow_lib.sh"
cow_manifest <<'EOF2'
  push: ["sh", "-c", "git init -q --bare /tmp/r && git push /tmp/r HEAD:refs/heads/x 2>&1; printf 'CHECK-DONE:%s\\n' \"$(git -C /tmp/r rev-parse --verify -q x >/dev/null && echo pushed)\"; cat src/edit.txt"]
  status: ["sh", "-c", "git --no-optional-locks status --porcelain 2>&1; printf 'CHECK-SAW:%s\\n' \"$(git config team.marker)\""]
EOF2

# The agent's hook: prints the secret, reversed.
LEAK='#!/bin/sh\nprintf "%%s\\n" "$API_TOKEN" | rev\n'

# husky (v9) in the checkout $ws: core.hooksPath .husky/_, whose pre-push
# runs .husky/pre-push; and team.gitconfig, included by .git/config.
husky_checkout() {
	mkdir -p "$ws/.husky/_" "$ws/src"
	printf '#!/bin/sh\nh="$(dirname "$0")/../$(basename "$0")"\n[ -f "$h" ] && exec sh "$h"\nexit 0\n' \
	    >"$ws/.husky/_/pre-push"
	chmod 755 "$ws/.husky/_/pre-push"
	printf '#!/bin/sh\necho CHECKOUT-HOOK\n' >"$ws/.husky/pre-push"
	printf 'before\n' >"$ws/src/edit.txt"
	printf '[team]\n\tmarker = checkout-team\n' >"$ws/team.gitconfig"
	git() { command git -c safe.directory="*" "$@"; }
	git -C "$ws" config core.hooksPath .husky/_
	git -C "$ws" config include.path ../team.gitconfig
	git -C "$ws" add -A
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm husky
	unset -f git
}

attack() {	# WHO RUN-PREFIX...: one round as root or as uid 4242
	cow_run_setup "$@"
	husky_checkout
	[ "$who" = user ] && chown -R 4242:4242 "$T/$who"

	# .husky/pre-push of the agent's making.
	cow_agent_check push "printf '$LEAK' >.husky/pre-push && echo after >src/edit.txt && echo HOOK-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent wrote .husky/pre-push in its view" "$out" HOOK-PLANTED
	expect_contains "$who: the check pushed" "$out" CHECK-DONE:pushed
	expect_not_contains "$who: git did not run the agent's hook" "$out" "$reversed"
	expect_not_contains "$who: no secret in the result" "$out" "$secret"
	expect_contains "$who: it ran the checkout's own" "$out" CHECKOUT-HOOK
	expect_contains "$who: and the check sees the agent's other edit" "$out" after

	# .husky as a symlink to a hooks directory of the agent's.
	cow_agent_check push "mkdir -p evil/_ && cp .husky/_/pre-push evil/_/ && printf '$LEAK' >evil/pre-push &&
chmod 755 evil/_/pre-push && rm -rf .husky && ln -s evil .husky && test -L .husky && echo HOOKS-LINKED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made .husky a symlink" "$out" HOOKS-LINKED
	expect_contains "$who: the check still pushed" "$out" CHECK-DONE:pushed
	expect_not_contains "$who: git did not run the agent's hook through it" "$out" "$reversed"
	expect_not_contains "$who: for the right reason (the link is masked)" "$out" CHECKOUT-HOOK

	# core.fsmonitor in the included team.gitconfig.
	cow_agent_check status "printf '[core]\\n\\tfsmonitor = \"printf %%s \\\\\"\$API_TOKEN\\\\\" | rev >&2; false\"\\n[team]\\n\\tmarker = agent-team\\n' >>team.gitconfig &&
git config --file team.gitconfig core.fsmonitor && echo FSMONITOR-PLANTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent gave team.gitconfig an fsmonitor" "$out" FSMONITOR-PLANTED
	expect_not_contains "$who: git status did not run it" "$out" "$reversed"
	expect_contains "$who: the check's git reads the checkout's team.gitconfig" "$out" CHECK-SAW:checkout-team
	expect_not_contains "$who: not the agent's" "$out" CHECK-SAW:agent-team
	check "$who: the checkout is untouched" git -c safe.directory='*' -C "$ws" diff --quiet HEAD

	# A hooks directory (tools/hooks) below a directory the agent made
	# a symlink: git would follow it to the agent's hooks.
	mkdir -p "$ws/tools/hooks"
	printf '#!/bin/sh\necho CHECKOUT-TOOLS-HOOK\n' >"$ws/tools/hooks/pre-push"
	chmod 755 "$ws/tools/hooks/pre-push"
	git -c safe.directory='*' -C "$ws" config core.hooksPath tools/hooks
	[ "$who" = user ] && chown -R 4242:4242 "$ws"
	cow_agent_check push "mkdir -p evil2/hooks && printf '$LEAK' >evil2/hooks/pre-push && chmod 755 evil2/hooks/pre-push &&
rm -rf tools && ln -s evil2 tools && test -L tools && echo TOOLS-LINKED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made tools a symlink" "$out" TOOLS-LINKED
	expect_contains "$who: the check pushed" "$out" CHECK-DONE:pushed
	expect_not_contains "$who: git did not run the agent's hook below it" "$out" "$reversed"
	expect_not_contains "$who: for the right reason (the link is masked)" "$out" CHECKOUT-TOOLS-HOOK
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups

# A git config file that cannot be read (the person's ~/.gitconfig, a
# directory here): what is a hook cannot be told, and the check is
# refused, not run.
mkdir "$st/.gitconfig"
cow_agent_check push "echo AGENT-RAN"
run setpriv --reuid=4242 --regid=4242 --clear-groups
out=$(cat "$T/out")
expect_contains "an unreadable ~/.gitconfig: the agent ran" "$out" AGENT-RAN
expect_not_contains "the check did not run" "$out" CHECK-DONE
expect_contains "refused on the config" "$out" "git hooks cannot be told"
cow_secret_nowhere
finish
