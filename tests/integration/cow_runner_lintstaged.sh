#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A runner of a copy-on-write session runs none of the lint-staged
# commands the agent wrote in its view.  The checkout's pre-commit hook
# (husky's .husky/_ as core.hooksPath) runs lint-staged, which since
# 12.2.1 takes for each staged file the config nearest it: a
# .lintstagedrc.json at any depth, or a package.json's "lint-staged"
# key.  In the view those files are the agent's.  lint-staged is not
# packaged for Debian, so the checkout's hook runs tools/lint-staged, a
# tracked shell script that looks configs up as lint-staged does (the
# host control below shows it runs a plant).  The check commits the
# view's changes (index and objects in /tmp: the view's .git is the
# checkout's, read-only), which runs the hook before the commit fails.
# A mask is an empty file no one may read (stat shows it): git add
# passes over it, and lint-staged would stop on it.
# The attacks, from inside the agent's sandbox, each against a check
# granted a secret:
#   - packages/a/.lintstagedrc.json, a config where the checkout has none;
#   - a "lint-staged" key added to packages/b/package.json;
#   - packages/b/package.json made a symlink to a file with that key.
# Before the fix (policy/hookplants.c) the hook ran the agent's command
# with the secret and the agent read it back reversed.  Now the runner
# covers each with the checkout's own or an empty mask, and lint-staged
# falls back to the checkout's top config; a package.json whose other
# keys changed is still the agent's in the view, and so is an installed
# package's beneath node_modules (git ignores it, and lint-staged with
# it; masked, Node could not load the package).  As root and as uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
secret='n0t-for-the-agent-48'
. "$top_srcdir/tests/integration/cow_lib.sh"
cow_manifest <<'EOF2'
  commit: ["sh", "-c", "export GIT_INDEX_FILE=/tmp/idx GIT_OBJECT_DIRECTORY=/tmp/o GIT_ALTERNATE_OBJECT_DIRECTORIES=$PWD/.git/objects; cp .git/index /tmp/idx && mkdir /tmp/o && git add --ignore-errors -A 2>/dev/null; git -c user.name=c -c user.email=c@c commit -qm check 2>&1; echo CHECK-DONE; for f in packages/a/.lintstagedrc.json packages/b/package.json node_modules/dep/package.json; do stat -c \"VIEW:%n:%s:%a\" $f; sed 's/\"//g' $f; done 2>&1"]
EOF2

# The checkout's lint-staged, as its lookup goes: for each staged file,
# the nearest directory (up to the top) whose package.json has a
# "lint-staged" key or that has a non-empty .lintstagedrc.json (an empty
# config is passed over); its "*" command runs on the file.
cat >"$T/lint-staged" <<'EOF2'
#!/bin/sh
top=$(git rev-parse --show-toplevel)
git diff --cached --name-only --diff-filter=ACMR | while read -r f; do
	d=$(dirname "$f") cmd=
	while :; do
		[ -s "$top/$d/package.json" ] && cmd=$(sed -n 's/.*"lint-staged": *{ *"\*": *"\([^"]*\)".*/\1/p' "$top/$d/package.json")
		[ -z "$cmd" ] && [ -s "$top/$d/.lintstagedrc.json" ] && cmd=$(sed -n 's/.*"\*": *"\([^"]*\)".*/\1/p' "$top/$d/.lintstagedrc.json")
		[ -n "$cmd" ] || [ "$d" = . ] && break
		d=$(dirname "$d")
	done
	[ -n "$cmd" ] && (cd "$top" && sh -c "$cmd \"\$1\"" sh "$f")
done
exit 0
EOF2

# husky (v9): .husky/_/pre-commit runs .husky/pre-commit, which runs
# lint-staged; the top's config echoes; packages/b has a package.json.
lintstaged_checkout() {	# WS
	mkdir -p "$1/.husky/_" "$1/tools" "$1/packages/b"
	printf '#!/bin/sh\nh="$(dirname "$0")/../$(basename "$0")"\n[ -f "$h" ] && exec sh "$h"\nexit 0\n' \
	    >"$1/.husky/_/pre-commit"
	chmod 755 "$1/.husky/_/pre-commit"
	printf '#!/bin/sh\nsh tools/lint-staged\n' >"$1/.husky/pre-commit"
	cp "$T/lint-staged" "$1/tools/lint-staged"
	printf '{"*": "echo CHECKOUT-LINT"}\n' >"$1/.lintstagedrc.json"
	printf '{"name": "b", "version": "1.0.0"}\n' >"$1/packages/b/package.json"
	printf 'y\n' >"$1/packages/b/y.js"
	printf 'node_modules/\n' >"$1/.gitignore"
	git() { command git -c safe.directory="*" "$@"; }
	git -C "$1" config core.hooksPath .husky/_
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -qm lint-staged
	unset -f git
}

# The agent's command, and its plants.
LEAK_SH="echo 'printf \"%s\\n\" \"\$API_TOKEN\" | rev' >leak.sh"
NESTED="$LEAK_SH
mkdir -p packages/a && echo '{\"*\": \"sh leak.sh\"}' >packages/a/.lintstagedrc.json && echo x >packages/a/x.js && echo PLANTED"
PKG_KEY="$LEAK_SH
echo '{\"name\": \"b\", \"version\": \"2.0.0\", \"lint-staged\": {\"*\": \"sh leak.sh\"}}' >packages/b/package.json && echo y2 >>packages/b/y.js && echo PLANTED"
PKG_OTHER="echo '{\"name\": \"b\", \"version\": \"2.0.0\"}' >packages/b/package.json && echo y2 >>packages/b/y.js &&
mkdir -p node_modules/dep && echo '{\"name\": \"dep\", \"lint-staged\": {\"*.js\": \"eslint\"}}' >node_modules/dep/package.json && echo PLANTED"
PKG_LINK="$LEAK_SH
echo '{\"name\": \"b\", \"version\": \"3.0.0\", \"lint-staged\": {\"*\": \"sh leak.sh\"}}' >evil.json && rm packages/b/package.json && ln -s ../../evil.json packages/b/package.json && echo y2 >>packages/b/y.js && echo PLANTED"

# The control: on the host, each plant runs with this lint-staged.
mkdir -p "$T/control"
cow_checkout "$T/control/ws"
lintstaged_checkout "$T/control/ws"
for plant in NESTED PKG_KEY PKG_LINK; do
	rm -rf "$T/control/c" && cp -a "$T/control/ws" "$T/control/c"
	out=$(cd "$T/control/c" && sh -c "${!plant}" && git add -A &&
	    API_TOKEN="$secret" git -c user.name=t -c user.email=t@t commit -qm x 2>&1)
	expect_contains "control: $plant runs on the host" "$out" "$reversed"
done

attack() {	# WHO RUN-PREFIX...: one round as root or as uid 4242
	cow_run_setup "$@"
	lintstaged_checkout "$ws"
	[ "$who" = user ] && chown -R 4242:4242 "$T/$who"

	cow_agent_check commit "$NESTED"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent wrote packages/a/.lintstagedrc.json" "$out" PLANTED
	expect_contains "$who: the check ran the hook" "$out" CHECK-DONE
	expect_not_contains "$who: lint-staged did not run the nested config" "$out" "$reversed"
	expect_contains "$who: for the right reason (masked: empty, mode 0)" "$out" VIEW:packages/a/.lintstagedrc.json:0:0
	expect_contains "$who: and the checkout's config ran" "$out" "CHECKOUT-LINT packages/a/x.js"

	cow_agent_check commit "$PKG_KEY"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent gave packages/b/package.json a lint-staged key" "$out" PLANTED
	expect_contains "$who: the check ran the hook" "$out" CHECK-DONE
	expect_not_contains "$who: lint-staged did not run the key's command" "$out" "$reversed"
	expect_contains "$who: the check sees the checkout's package.json" "$out" "version: 1.0.0"
	expect_contains "$who: and the checkout's config ran" "$out" CHECKOUT-LINT

	cow_agent_check commit "$PKG_LINK"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent made packages/b/package.json a symlink" "$out" PLANTED
	expect_not_contains "$who: lint-staged did not run through it" "$out" "$reversed"
	expect_contains "$who: for the right reason (the link is masked)" "$out" VIEW:packages/b/package.json:0:0
	expect_not_contains "$who: its target unseen" "$out" "version: 3.0.0"
	expect_contains "$who: and the checkout's config ran" "$out" CHECKOUT-LINT

	cow_agent_check commit "$PKG_OTHER"
	run "$@"
	out=$(cat "$T/out")
	expect_contains "$who: the agent changed packages/b/package.json's version" "$out" PLANTED
	expect_contains "$who: the check sees the agent's package.json" "$out" "version: 2.0.0"
	expect_contains "$who: and an installed package's own, with its lint-staged key" "$out" "name: dep"
	check "$who: the checkout is untouched" git -c safe.directory='*' -C "$ws" diff --quiet HEAD
}

attack root
attack user setpriv --reuid=4242 --regid=4242 --clear-groups
cow_secret_nowhere
finish
